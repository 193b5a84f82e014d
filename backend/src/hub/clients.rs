//! The backend's clients and their current tabs (PROTOCOL.md §5 "Clients"; pure
//! bookkeeping of the hub's owner task, no I/O).
//!
//! A client is whoever drives the browser through this backend: one MCP session
//! (a `browser-bridge mcp` process, an `/mcp` session), one `run`, one HTTP caller
//! named by [`CLIENT_HEADER`] (all other HTTP callers share [`HTTP_CLIENT`]). Each
//! has a stack of tabs, the last its **current tab**: an action without `tabId`
//! goes there. A tab becomes current when the client opens it (`open_tab`, a
//! `navigate` that made a tab), names it with `tabId`, or acts on it by the
//! extension's own resolution; tabs that a page opened (`openedTabs`) never do.
//! A closed tab leaves every stack, so the client's previous tab is current again.
//! A client with no current tab never lands on a tab another client owns: its
//! `navigate` opens a tab of its own instead ([`Route`]).

use std::collections::HashMap;
use std::sync::Arc;

use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode, TabId};

/// The HTTP header that names the caller's client on `/v1/act` and `/mcp`.
pub const CLIENT_HEADER: &str = "browser-bridge-client";

/// The client of every `/v1/act` caller that sends no [`CLIENT_HEADER`].
pub const HTTP_CLIENT: &str = "http";

/// Longest client name (bytes).
pub const MAX_CLIENT_NAME: usize = 128;

/// Tabs remembered per client; the oldest leaves first.
pub const MAX_TABS_PER_CLIENT: usize = 64;

/// Clients remembered; the one idle longest is forgotten first.
pub const MAX_CLIENTS: usize = 1024;

/// A client name: 1 to [`MAX_CLIENT_NAME`] visible ASCII characters (`!`..`~`),
/// as an MCP session id is.
///
/// # Errors
/// `invalid_request` naming the rule.
pub fn check_client_name(name: &str) -> Result<(), BridgeError> {
    if name.is_empty()
        || name.len() > MAX_CLIENT_NAME
        || !name.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(BridgeError::invalid_request(format!(
            "the client name (header `Browser-Bridge-Client`) must be 1 to {MAX_CLIENT_NAME} \
             visible ASCII characters, without spaces"
        )));
    }
    Ok(())
}

/// A fresh client name, `<prefix>-` and 12 random hex digits (`mcp-1f2e3d4c5b6a`).
pub fn generated_name(prefix: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}-{}", &id[..12])
}

/// The answer of a request on `tab` that was still running when `closer` sent
/// `close_tab` for that tab: the extension ends the tab's session and answers
/// it `cancelled` (or `session_not_found`), which would read as the person's
/// doing. It answers `session_not_found` saying who closed the tab instead;
/// other errors are kept.
pub fn closed_while_running(
    error: BridgeError,
    action: &str,
    tab: TabId,
    closer: &str,
    own: bool,
) -> BridgeError {
    if !matches!(
        error.code,
        ErrorCode::Cancelled | ErrorCode::SessionNotFound
    ) {
        return error;
    }
    let by = if own {
        "this client's own close_tab".to_owned()
    } else {
        format!("another client of browser-bridge ({closer}), with close_tab,")
    };
    BridgeError::new(
        ErrorCode::SessionNotFound,
        format!(
            "{action}: tab {tab} was closed by {by} while the {action} ran; the user did not \
             cancel anything"
        ),
    )
}

/// Which tab a request was sent for, kept until its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The action named its tab (`tabId`, always for `close_tab`).
    Named(TabId),
    /// The action had no `tabId`; the client's current tab was filled in.
    Current(TabId),
    /// The client had no current tab; the backend filled in the one session
    /// no other client owns.
    Resolved(TabId),
    /// No tab: the extension resolves (§5's rules), or the action takes none.
    Unnamed,
}

/// What the hub does with an action ([`Clients::target`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// Send it, for this target.
    Send(Target),
    /// A `navigate` of a client with no tab while the sessions are other
    /// clients': send `open_tab` `about:blank` first, then the `navigate` with
    /// the new tab's id.
    OpenTabFirst,
    /// Answer this error; nothing is sent.
    Refuse(BridgeError),
}

#[derive(Debug, Default)]
struct Client {
    /// Least to most recently current; the last is the current tab.
    tabs: Vec<TabId>,
    /// [`Clients::clock`] when it last sent an action.
    used: u64,
}

/// Every client's tab stack, and for each tab the client that last made it current.
#[derive(Debug, Default)]
pub struct Clients {
    clients: HashMap<Arc<str>, Client>,
    owners: HashMap<TabId, Arc<str>>,
    clock: u64,
}

impl Clients {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The client's current tab, if it has one.
    pub fn current(&self, client: &str) -> Option<TabId> {
        self.clients.get(client)?.tabs.last().copied()
    }

    /// Before sending: fills in the client's current tab when `action` takes an
    /// optional `tabId` and has none. Returns what was sent.
    ///
    /// A client with no current tab gets §5's rules over the live `sessions`
    /// (`(tab, in the agent window)`, asked only then) less the tabs other
    /// clients own: when none is another's, the action goes as it is and the
    /// extension resolves; else the one remaining session is filled in, a
    /// `navigate` with none remaining opens a tab of its own first
    /// ([`Route::OpenTabFirst`]), and other cases answer `session_not_found`.
    pub fn target(
        &mut self,
        client: &Arc<str>,
        action: &mut Action,
        sessions: impl FnOnce() -> Vec<(TabId, bool)>,
    ) -> Route {
        self.clock += 1;
        let clock = self.clock;
        if !self.clients.contains_key(client) && self.clients.len() >= MAX_CLIENTS {
            self.forget_idlest();
        }
        let entry = self.clients.entry(client.clone()).or_default();
        entry.used = clock;
        let current = entry.tabs.last().copied();
        if let Some(tab) = action.tab_id() {
            return Route::Send(Target::Named(tab));
        }
        let name = action.name();
        let opens_tab = matches!(action, Action::Navigate(_));
        let Some(slot) = action.tab_id_mut() else {
            return Route::Send(Target::Unnamed);
        };
        if let Some(tab) = current {
            *slot = Some(tab);
            return Route::Send(Target::Current(tab));
        }
        let mut sessions = sessions();
        // A tab another client acted on is a session even when this process never
        // saw it start (it began before a restart or an address takeover): the
        // extension's rules would otherwise hand it to this client.
        for (tab, owner) in &self.owners {
            if owner.as_ref() != client.as_ref() && !sessions.iter().any(|(t, _)| t == tab) {
                sessions.push((*tab, false));
            }
        }
        let (others, mine): (Vec<_>, Vec<_>) = sessions.into_iter().partition(|(tab, _)| {
            self.owners
                .get(tab)
                .is_some_and(|owner| owner.as_ref() != client.as_ref())
        });
        if others.is_empty() {
            return Route::Send(Target::Unnamed);
        }
        let mut agent = mine.iter().filter(|(_, a)| *a);
        let only = match (agent.next(), agent.next(), mine.as_slice()) {
            (Some((tab, _)), None, _) | (_, _, [(tab, _)]) => Some(*tab),
            _ => None,
        };
        if let Some(tab) = only {
            *slot = Some(tab);
            return Route::Send(Target::Resolved(tab));
        }
        if mine.is_empty() && opens_tab {
            return Route::OpenTabFirst;
        }
        let message = if mine.is_empty() {
            format!(
                "{name}: this client has no tab yet and every session is another client's: \
                 navigate or open_tab first, or pass a tabId from list_tabs"
            )
        } else {
            let list: Vec<String> = mine.iter().map(|(t, _)| t.to_string()).collect();
            format!(
                "{name}: several sessions, pass a tabId: candidates {} (other clients' tabs \
                 left out)",
                list.join(", ")
            )
        };
        Route::Refuse(BridgeError::new(ErrorCode::SessionNotFound, message))
    }

    /// After the extension's answer to `client`'s request sent for `target`:
    /// updates the stacks, and marks each tab of a `list_tabs` result with its
    /// client. Timeouts and lost connections are not answers and are not
    /// passed here.
    pub fn answered(
        &mut self,
        client: &Arc<str>,
        target: Target,
        outcome: &mut Result<ActionResult, BridgeError>,
    ) {
        match outcome {
            Ok(ActionResult::CloseTab(closed)) => self.closed(closed.tab_id),
            // Not a proof that unlisted tabs are gone: `list_tabs` lists normal
            // windows only, and a page's popup window is a session too.
            Ok(ActionResult::ListTabs(list)) => {
                for tab in &mut list.tabs {
                    tab.client = self.owners.get(&tab.tab_id).map(|c| c.to_string());
                }
            }
            Ok(result) => {
                if let Some(tab) = result.tab_id() {
                    self.make_current(client, tab);
                }
            }
            Err(error) => match target {
                // The named or current tab is gone (§4 `session_not_found`).
                Target::Named(tab) | Target::Current(tab) | Target::Resolved(tab)
                    if error.code == ErrorCode::SessionNotFound =>
                {
                    self.closed(tab);
                    if let (Target::Current(_), Some(previous)) = (target, self.current(client)) {
                        error.message = format!(
                            "{} (tab {tab} was this client's current tab and is gone; an action \
                             without tabId now goes to tab {previous}, the one before it)",
                            error.message
                        );
                    }
                }
                // Named: addressed, even if the action failed on it.
                Target::Named(tab) => self.make_current(client, tab),
                Target::Current(_) | Target::Resolved(_) | Target::Unnamed => {}
            },
        }
    }

    /// The tab closed: it leaves every stack, so each client's previous tab is
    /// current again.
    pub fn closed(&mut self, tab: TabId) {
        self.owners.remove(&tab);
        for client in self.clients.values_mut() {
            client.tabs.retain(|t| *t != tab);
        }
    }

    fn make_current(&mut self, client: &Arc<str>, tab: TabId) {
        let entry = self.clients.entry(client.clone()).or_default();
        entry.tabs.retain(|t| *t != tab);
        entry.tabs.push(tab);
        if entry.tabs.len() > MAX_TABS_PER_CLIENT {
            entry.tabs.remove(0);
        }
        self.owners.insert(tab, client.clone());
    }

    fn forget_idlest(&mut self) {
        let Some(idlest) = self
            .clients
            .iter()
            .min_by_key(|(_, c)| c.used)
            .map(|(name, _)| name.clone())
        else {
            return;
        };
        self.clients.remove(&idlest);
        self.owners.retain(|_, owner| *owner != idlest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser_bridge_protocol::WindowId;
    use browser_bridge_protocol::result::{ListTabsResult, OpenTabResult, TabInfo, TabResult};
    use serde_json::json;

    fn act(value: serde_json::Value) -> Action {
        Action::from_value(value).expect("valid action")
    }

    fn opened(tab: i64) -> Result<ActionResult, BridgeError> {
        Ok(ActionResult::OpenTab(OpenTabResult {
            tab_id: TabId(tab),
            window_id: WindowId(1),
            url: "https://a.test/".into(),
            title: String::new(),
            load_pending: false,
            dialog: None,
        }))
    }

    fn listed(tabs: &[i64]) -> Result<ActionResult, BridgeError> {
        Ok(ActionResult::ListTabs(ListTabsResult {
            tabs: tabs
                .iter()
                .map(|&id| TabInfo {
                    tab_id: TabId(id),
                    window_id: WindowId(1),
                    url: String::new(),
                    title: String::new(),
                    active: false,
                    agent_window: true,
                    session: true,
                    client: None,
                })
                .collect(),
        }))
    }

    /// Sends `action` for `client` and answers it with `outcome`; returns the
    /// answer as the caller sees it.
    fn ask(
        clients: &mut Clients,
        client: &Arc<str>,
        action: serde_json::Value,
        mut outcome: Result<ActionResult, BridgeError>,
    ) -> Result<ActionResult, BridgeError> {
        let mut action = act(action);
        let Route::Send(target) = clients.target(client, &mut action, Vec::new) else {
            panic!("not sent")
        };
        clients.answered(client, target, &mut outcome);
        outcome
    }

    /// [`ask`], when the answer does not matter.
    fn round(
        clients: &mut Clients,
        client: &Arc<str>,
        action: serde_json::Value,
        outcome: Result<ActionResult, BridgeError>,
    ) {
        let _ = ask(clients, client, action, outcome);
    }

    #[test]
    fn an_action_without_tab_goes_to_the_tab_the_client_opened() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let mut clients = Clients::new();
        let mut click = act(json!({"action": "click", "uid": "e1"}));
        assert_eq!(
            clients.target(&a, &mut click, Vec::new),
            Route::Send(Target::Unnamed)
        );
        assert_eq!(click.tab_id(), None, "no current tab: §5's rules");

        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        round(
            &mut clients,
            &b,
            json!({"action": "open_tab", "url": "https://b.test/"}),
            opened(8),
        );
        let mut click = act(json!({"action": "click", "uid": "e1"}));
        assert_eq!(
            clients.target(&a, &mut click, Vec::new),
            Route::Send(Target::Current(TabId(7)))
        );
        assert_eq!(click.tab_id(), Some(TabId(7)));
        let mut extract = act(json!({"action": "extract"}));
        assert_eq!(
            clients.target(&b, &mut extract, Vec::new),
            Route::Send(Target::Current(TabId(8)))
        );
        // A navigate without tabId loads the current tab too.
        let mut navigate = act(json!({"action": "navigate", "url": "https://a.test/2"}));
        clients.target(&a, &mut navigate, Vec::new);
        assert_eq!(navigate.tab_id(), Some(TabId(7)));
        // open_tab and list_tabs take no tab.
        let mut open = act(json!({"action": "open_tab", "url": "https://a.test/"}));
        assert_eq!(
            clients.target(&a, &mut open, Vec::new),
            Route::Send(Target::Unnamed)
        );
    }

    #[test]
    fn a_client_without_a_tab_never_lands_on_another_clients_tab() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        let route = |clients: &mut Clients, action: serde_json::Value, sessions: &[(i64, bool)]| {
            let mut action = act(action);
            let sessions: Vec<_> = sessions.iter().map(|&(t, w)| (TabId(t), w)).collect();
            let route = clients.target(&b, &mut action, || sessions);
            (route, action.tab_id())
        };
        let navigate = json!({"action": "navigate", "url": "https://b.test/"});
        let click = json!({"action": "click", "uid": "e1"});
        // a's only tab: b's navigate opens a tab of its own; a click is refused.
        assert_eq!(
            route(&mut clients, navigate.clone(), &[(7, true)]),
            (Route::OpenTabFirst, None)
        );
        let (Route::Refuse(error), None) = route(&mut clients, click.clone(), &[(7, true)]) else {
            panic!("refused")
        };
        assert_eq!(error.code, ErrorCode::SessionNotFound);
        assert!(!error.message.contains('7'), "{}", error.message);
        assert!(error.message.contains("navigate or open_tab first"));
        // The one tab nobody owns is filled in, for navigate too.
        for action in [&navigate, &click] {
            assert_eq!(
                route(&mut clients, action.clone(), &[(7, true), (5, false)]),
                (Route::Send(Target::Resolved(TabId(5))), Some(TabId(5)))
            );
        }
        // Several: the candidates leave a's tab out.
        let (Route::Refuse(error), _) = route(
            &mut clients,
            click.clone(),
            &[(5, false), (6, false), (7, true)],
        ) else {
            panic!("refused")
        };
        assert!(
            error.message.contains("candidates 5, 6 ("),
            "{}",
            error.message
        );
        // a's tab is another client's even when the sessions seen do not list
        // it (it began before this process): never handed to b.
        let (Route::Refuse(error), _) =
            route(&mut clients, click.clone(), &[(5, false), (6, false)])
        else {
            panic!("refused")
        };
        assert!(
            error.message.contains("candidates 5, 6 ("),
            "{}",
            error.message
        );
        assert_eq!(
            route(&mut clients, navigate.clone(), &[]),
            (Route::OpenTabFirst, None)
        );
        // The opened tab becomes b's, then an action without tabId goes there.
        round(
            &mut clients,
            &b,
            json!({"action": "open_tab", "url": "about:blank"}),
            opened(9),
        );
        assert_eq!(
            route(&mut clients, click, &[(7, true), (9, true)]),
            (Route::Send(Target::Current(TabId(9))), Some(TabId(9)))
        );
        assert_eq!(clients.current("a"), Some(TabId(7)));
    }

    /// After a restart or an address takeover the hub has seen no session start:
    /// the first client lands where the extension's rules say, and that tab is
    /// then its own, never the next client's.
    #[test]
    fn a_tab_a_client_got_by_the_extensions_rules_is_never_the_next_clients() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let mut clients = Clients::new();
        let unseen = Vec::new;
        let mut navigate = act(json!({"action": "navigate", "url": "https://a.test/"}));
        let Route::Send(target) = clients.target(&a, &mut navigate, unseen) else {
            panic!("sent")
        };
        assert_eq!(target, Target::Unnamed);
        clients.answered(&a, target, &mut opened(7));
        let mut navigate = act(json!({"action": "navigate", "url": "https://b.test/"}));
        assert_eq!(
            clients.target(&b, &mut navigate, unseen),
            Route::OpenTabFirst
        );
        let mut click = act(json!({"action": "click", "uid": "e1"}));
        let Route::Refuse(error) = clients.target(&b, &mut click, unseen) else {
            panic!("refused")
        };
        assert_eq!(error.code, ErrorCode::SessionNotFound);
        // a itself still goes there.
        let mut click = act(json!({"action": "click", "uid": "e1"}));
        assert_eq!(
            clients.target(&a, &mut click, unseen),
            Route::Send(Target::Current(TabId(7)))
        );
    }

    #[test]
    fn a_named_tab_becomes_current_even_when_the_action_fails_on_it() {
        let a: Arc<str> = "a".into();
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        let stale = Err(BridgeError::new(ErrorCode::ElementStale, "stale"));
        round(
            &mut clients,
            &a,
            json!({"action": "click", "uid": "e1", "tabId": 3}),
            stale,
        );
        assert_eq!(clients.current("a"), Some(TabId(3)));
        // A tab that is gone does not.
        let gone = Err(BridgeError::new(ErrorCode::SessionNotFound, "no tab 99"));
        round(
            &mut clients,
            &a,
            json!({"action": "click", "uid": "e1", "tabId": 99}),
            gone,
        );
        assert_eq!(clients.current("a"), Some(TabId(3)));
    }

    #[test]
    fn a_tab_the_page_opened_is_not_switched_to() {
        let a: Arc<str> = "a".into();
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        let click: ActionResult = serde_json::from_value(json!({
            "action": "click", "tabId": 7, "url": "https://a.test/", "navigated": false,
            "openedTabs": [{"tabId": 9, "url": "https://a.test/popup"}]
        }))
        .expect("click result");
        round(
            &mut clients,
            &a,
            json!({"action": "click", "uid": "e1"}),
            Ok(click),
        );
        assert_eq!(clients.current("a"), Some(TabId(7)));
    }

    #[test]
    fn a_closed_current_tab_gives_way_to_the_previous_one() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(8),
        );
        round(
            &mut clients,
            &b,
            json!({"action": "extract", "tabId": 8}),
            Err(BridgeError::internal("x")),
        );
        let closed = Ok(ActionResult::CloseTab(TabResult { tab_id: TabId(8) }));
        round(
            &mut clients,
            &a,
            json!({"action": "close_tab", "tabId": 8}),
            closed,
        );
        assert_eq!(clients.current("a"), Some(TabId(7)));
        assert_eq!(clients.current("b"), None, "closed for every client");
        // Closed by the person (a `tab_closed` event).
        clients.closed(TabId(7));
        assert_eq!(clients.current("a"), None);
    }

    #[test]
    fn a_current_tab_found_gone_says_which_tab_is_current_now() {
        let a: Arc<str> = "a".into();
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(8),
        );
        let gone = Err(BridgeError::new(
            ErrorCode::SessionNotFound,
            "tab 8 is gone",
        ));
        let answer = ask(&mut clients, &a, json!({"action": "extract"}), gone);
        let error = answer.unwrap_err();
        assert_eq!(error.code, ErrorCode::SessionNotFound);
        assert!(
            error
                .message
                .ends_with("now goes to tab 7, the one before it)"),
            "{}",
            error.message
        );
        assert_eq!(clients.current("a"), Some(TabId(7)));
    }

    #[test]
    fn list_tabs_marks_each_tab_with_its_client() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let mut clients = Clients::new();
        round(
            &mut clients,
            &a,
            json!({"action": "open_tab", "url": "https://a.test/"}),
            opened(7),
        );
        round(
            &mut clients,
            &b,
            json!({"action": "open_tab", "url": "https://b.test/"}),
            opened(8),
        );
        round(
            &mut clients,
            &b,
            json!({"action": "open_tab", "url": "https://b.test/"}),
            opened(9),
        );
        let list = ask(
            &mut clients,
            &a,
            json!({"action": "list_tabs"}),
            listed(&[1, 7, 8]),
        );
        let Ok(ActionResult::ListTabs(list)) = list else {
            panic!("{list:?}")
        };
        let marks: Vec<_> = list.tabs.iter().map(|t| t.client.as_deref()).collect();
        assert_eq!(marks, [None, Some("a"), Some("b")]);
        assert_eq!(
            clients.current("b"),
            Some(TabId(9)),
            "an unlisted tab is kept"
        );
        // Addressing another client's tab takes it over for the list; the
        // other client keeps it in its stack.
        round(
            &mut clients,
            &a,
            json!({"action": "extract", "tabId": 8}),
            Err(BridgeError::internal("x")),
        );
        let list = ask(
            &mut clients,
            &a,
            json!({"action": "list_tabs"}),
            listed(&[7, 8]),
        );
        let Ok(ActionResult::ListTabs(list)) = list else {
            panic!("{list:?}")
        };
        assert_eq!(list.tabs[1].client.as_deref(), Some("a"));
        clients.closed(TabId(9));
        assert_eq!(clients.current("b"), Some(TabId(8)));
    }

    #[test]
    fn the_idlest_client_is_forgotten_past_the_cap() {
        let mut clients = Clients::new();
        for n in 0..=MAX_CLIENTS {
            let name: Arc<str> = format!("c{n}").into();
            round(
                &mut clients,
                &name,
                json!({"action": "open_tab", "url": "https://a.test/"}),
                opened(n as i64),
            );
        }
        assert_eq!(clients.clients.len(), MAX_CLIENTS);
        assert_eq!(clients.current("c0"), None);
        assert_eq!(clients.current("c1"), Some(TabId(1)));
        assert!(!clients.owners.contains_key(&TabId(0)));
    }

    #[test]
    fn a_request_cut_off_by_close_tab_names_who_closed_the_tab() {
        let cancelled = BridgeError::new(ErrorCode::Cancelled, "the session was stopped");
        let own = closed_while_running(cancelled.clone(), "wait_for", TabId(7), "a", true);
        assert_eq!(own.code, ErrorCode::SessionNotFound);
        assert_eq!(
            own.message,
            "wait_for: tab 7 was closed by this client's own close_tab while the wait_for ran; \
             the user did not cancel anything"
        );
        let other = closed_while_running(cancelled, "click", TabId(7), "run-1", false);
        assert!(
            other
                .message
                .contains("another client of browser-bridge (run-1)"),
            "{}",
            other.message
        );
        let stale = BridgeError::new(ErrorCode::ElementStale, "gone");
        assert_eq!(
            closed_while_running(stale.clone(), "click", TabId(7), "a", true),
            stale
        );
    }

    #[test]
    fn client_names() {
        for ok in [
            "http",
            "mcp-1f2e3d4c5b6a",
            "run:7",
            &"x".repeat(MAX_CLIENT_NAME),
        ] {
            assert!(check_client_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "two words",
            "tab\t",
            "é",
            &"x".repeat(MAX_CLIENT_NAME + 1),
        ] {
            let error = check_client_name(bad).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{bad:?}");
        }
        let name = generated_name("run");
        assert!(name.starts_with("run-") && name.len() == 16, "{name}");
        assert!(check_client_name(&name).is_ok());
    }
}
