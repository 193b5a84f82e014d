//! Several browsers on one backend (PROTOCOL.md §5 "Browsers"; pure bookkeeping
//! of the hub's owner task, no I/O): each connected extension's unique name,
//! which browser an action goes to, and each client's last-used browser.
//!
//! tabIds are per browser process, so a browser is chosen before anything about
//! tabs is decided: the caller's `browser` (a name or a `clientId`); else the
//! only one connected; else, for a `tabId` that only one browser knows, that
//! browser; else the client's last-used browser. A `tabId` that several
//! browsers know, or a choice left open among several browsers, is
//! `session_not_found` listing them. `list_tabs` without `browser` goes to
//! every browser. (The hub first lets an action wait for its client's
//! last-used browser when that one is reconnecting.)

use std::collections::HashMap;
use std::sync::Arc;

use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};

/// The name of a browser whose `hello` gave none (an extension older than the
/// `browserName` field).
pub const UNNAMED: &str = "browser";

/// Clients whose last-used browser is remembered; past it the map starts over.
pub const MAX_REMEMBERED: usize = 1024;

/// One connected browser as the choice sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known<'a> {
    /// Its unique name ([`unique_name`]).
    pub name: &'a str,
    /// Its extension's `clientId`.
    pub client_id: &'a str,
}

/// Where an action goes ([`choose`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// To the browser at this index of the list given.
    One(usize),
    /// `list_tabs` without `browser` while several are connected: to each.
    All,
    /// No browser is connected: wait for one.
    Wait,
    /// Answer this error; nothing is sent.
    Refuse(BridgeError),
}

/// The name a browser is shown and addressed by: the one its `hello` gave (else
/// [`UNNAMED`]); when a browser of another `clientId` already has it (ASCII case
/// ignored), followed by ` (` and the first 4 characters of the `clientId`
/// (then more, then a counter) and `)`.
pub fn unique_name(wanted: Option<&str>, client_id: &str, taken: &[&str]) -> String {
    let base = wanted.unwrap_or(UNNAMED);
    let free = |name: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(name));
    if free(base) {
        return base.to_owned();
    }
    let short: String = client_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    for len in [4, 8, short.len()] {
        let candidate = format!("{base} ({})", &short[..len.min(short.len())]);
        if len > 0 && len <= short.len() && free(&candidate) {
            return candidate;
        }
    }
    (2..)
        .map(|n| format!("{base} ({n})"))
        .find(|c| free(c))
        .expect("an unused counter exists")
}

/// `Work (clientId 6f1c…), Home (clientId 0b2a…)`: the browsers, as an error
/// lists them.
pub fn listing(browsers: &[Known<'_>]) -> String {
    let list: Vec<String> = browsers
        .iter()
        .map(|b| format!("{:?} (clientId {})", b.name, b.client_id))
        .collect();
    list.join(", ")
}

/// Chooses the browser of an action (the module's rules). `selector` is the
/// call's `browser`; `tab` its `tabId`; `knows(i, tab)` whether browser `i`
/// knows that tab (a session, a tab a client acted on, or one its last
/// `list_tabs` listed); `last_used` the client's last-used browser's `clientId`.
pub fn choose(
    browsers: &[Known<'_>],
    selector: Option<&str>,
    action: &str,
    tab: Option<TabId>,
    knows: impl Fn(usize, TabId) -> bool,
    last_used: Option<&str>,
) -> Choice {
    if browsers.is_empty() {
        return Choice::Wait;
    }
    if let Some(wanted) = selector {
        let at = browsers
            .iter()
            .position(|b| b.name == wanted || b.client_id == wanted)
            .or_else(|| {
                browsers
                    .iter()
                    .position(|b| b.name.eq_ignore_ascii_case(wanted))
            });
        return match at {
            Some(i) => Choice::One(i),
            None => Choice::Refuse(BridgeError::new(
                ErrorCode::SessionNotFound,
                format!(
                    "{action}: no connected browser is named {wanted:?}: pass browser as one of {}",
                    listing(browsers)
                ),
            )),
        };
    }
    if action == "list_tabs" && browsers.len() > 1 {
        return Choice::All;
    }
    if let [_] = browsers {
        return Choice::One(0);
    }
    if let Some(tab) = tab {
        let holders: Vec<usize> = (0..browsers.len()).filter(|&i| knows(i, tab)).collect();
        match holders.as_slice() {
            [i] => return Choice::One(*i),
            [] => {}
            several => {
                let named: Vec<Known<'_>> = several.iter().map(|&i| browsers[i]).collect();
                return Choice::Refuse(BridgeError::new(
                    ErrorCode::SessionNotFound,
                    format!(
                        "{action}: tab {tab} is known in several browsers: pass browser as one \
                         of {}",
                        listing(&named)
                    ),
                ));
            }
        }
    }
    if let Some(i) = last_used.and_then(|id| browsers.iter().position(|b| b.client_id == id)) {
        return Choice::One(i);
    }
    Choice::Refuse(BridgeError::new(
        ErrorCode::SessionNotFound,
        format!(
            "{action}: several browsers are connected and this client has used none of them yet: \
             pass browser as one of {}",
            listing(browsers)
        ),
    ))
}

/// Each client's last-used browser (its extension's `clientId`), for actions
/// without `browser`.
#[derive(Debug, Default)]
pub struct LastUsed {
    map: HashMap<Arc<str>, String>,
}

impl LastUsed {
    /// The client's last-used browser.
    pub fn get(&self, client: &str) -> Option<&str> {
        self.map.get(client).map(String::as_str)
    }

    /// `client` has just sent an action to the browser `client_id`.
    pub fn used(&mut self, client: &Arc<str>, client_id: &str) {
        if self.map.len() >= MAX_REMEMBERED && !self.map.contains_key(client) {
            self.map.clear();
        }
        self.map.insert(client.clone(), client_id.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: [Known<'static>; 2] = [
        Known {
            name: "Work",
            client_id: "6f1c2d3e-0000",
        },
        Known {
            name: "Home",
            client_id: "0b2a9c8d-1111",
        },
    ];

    fn never(_: usize, _: TabId) -> bool {
        false
    }

    fn refused(choice: Choice) -> String {
        match choice {
            Choice::Refuse(error) => {
                assert_eq!(error.code, ErrorCode::SessionNotFound);
                error.message
            }
            other => panic!("refusal expected, got {other:?}"),
        }
    }

    #[test]
    fn a_named_browser_by_name_case_or_client_id() {
        for wanted in ["Home", "home", "0b2a9c8d-1111"] {
            let choice = choose(
                &TWO,
                Some(wanted),
                "click",
                Some(TabId(1)),
                never,
                Some("6f1c2d3e-0000"),
            );
            assert_eq!(choice, Choice::One(1), "{wanted}");
        }
        let message = refused(choose(&TWO, Some("Office"), "click", None, never, None));
        assert!(message.contains("\"Office\""), "{message}");
        assert!(
            message.contains("\"Work\" (clientId 6f1c2d3e-0000), \"Home\""),
            "{message}"
        );
        // Named in list_tabs too: only that browser.
        assert_eq!(
            choose(&TWO, Some("Work"), "list_tabs", None, never, None),
            Choice::One(0)
        );
    }

    #[test]
    fn without_browser_the_last_used_then_the_only_one() {
        assert_eq!(
            choose(&TWO, None, "click", None, never, Some("0b2a9c8d-1111")),
            Choice::One(1)
        );
        assert_eq!(
            choose(&TWO[..1], None, "click", None, never, Some("gone")),
            Choice::One(0)
        );
        assert_eq!(
            choose(&TWO[..1], None, "list_tabs", None, never, None),
            Choice::One(0)
        );
        assert_eq!(
            choose(&TWO, None, "list_tabs", None, never, Some("0b2a9c8d-1111")),
            Choice::All
        );
        let message = refused(choose(&TWO, None, "extract", None, never, Some("gone")));
        assert!(
            message.contains("used none") && message.contains("\"Home\""),
            "{message}"
        );
        assert_eq!(
            choose(&[], Some("Work"), "click", None, never, None),
            Choice::Wait
        );
    }

    #[test]
    fn a_tab_id_goes_where_it_is_known_and_never_guesses_between_two() {
        let in_home = |i: usize, tab: TabId| i == 1 && tab == TabId(7);
        // Known only in Home: there, whatever the client used last.
        let choice = choose(
            &TWO,
            None,
            "click",
            Some(TabId(7)),
            in_home,
            Some("6f1c2d3e-0000"),
        );
        assert_eq!(choice, Choice::One(1));
        // Known nowhere: the last-used browser.
        let choice = choose(
            &TWO,
            None,
            "click",
            Some(TabId(8)),
            in_home,
            Some("6f1c2d3e-0000"),
        );
        assert_eq!(choice, Choice::One(0));
        // Known in both: named, never guessed.
        let both = |_: usize, tab: TabId| tab == TabId(7);
        let message = refused(choose(
            &TWO,
            None,
            "click",
            Some(TabId(7)),
            both,
            Some("6f1c2d3e-0000"),
        ));
        assert!(
            message.contains("tab 7 is known in several browsers"),
            "{message}"
        );
        assert!(
            message.contains("\"Work\"") && message.contains("\"Home\""),
            "{message}"
        );
    }

    #[test]
    fn names_are_unique_among_connected_browsers() {
        assert_eq!(
            unique_name(Some("Chromium 131"), "6f1c-2d3e", &[]),
            "Chromium 131"
        );
        assert_eq!(
            unique_name(Some("Chromium 131"), "6f1c-2d3e", &["chromium 131"]),
            "Chromium 131 (6f1c)"
        );
        assert_eq!(
            unique_name(Some("A"), "6f1c-2d3e", &["A", "A (6f1c)"]),
            "A (6f1c2d3e)"
        );
        assert_eq!(unique_name(None, "", &["browser"]), "browser (2)");
        assert_eq!(
            unique_name(None, "ab", &["browser", "browser (ab)"]),
            "browser (2)"
        );
    }

    #[test]
    fn last_used_is_per_client_and_bounded() {
        let mut last = LastUsed::default();
        let a: Arc<str> = Arc::from("mcp-a");
        last.used(&a, "B1");
        last.used(&Arc::from("mcp-b"), "B2");
        last.used(&a, "B2");
        assert_eq!(
            (last.get("mcp-a"), last.get("mcp-b"), last.get("x")),
            (Some("B2"), Some("B2"), None)
        );
        for n in 0..MAX_REMEMBERED {
            last.used(&Arc::from(format!("c{n}").as_str()), "B1");
        }
        assert!(last.map.len() <= MAX_REMEMBERED);
    }
}
