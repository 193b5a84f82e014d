//! The backend's clients and their current tabs (PROTOCOL.md §5 "Clients"; pure
//! bookkeeping of the hub's owner task, no I/O).
//!
//! A client is whoever drives the browser through this backend: one MCP session
//! (a `browser-bridge mcp` process, an `/mcp` session), one `run`, one HTTP caller
//! named by [`CLIENT_HEADER`] (all other HTTP callers share [`HTTP_CLIENT`]). Each
//! has a stack of tabs, the last its **current tab**: an action without `tabId`
//! goes there. A tab becomes current when the client opens it (`open_tab`, a
//! `navigate` that made a tab), names it with `tabId`, or acts on it by the
//! extension's own resolution; tabs that a page opened (`openedTabs`) never do,
//! but they are the client's: no other client with no current tab lands on them.
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
pub const MAX_CLIENT_NAME: usize = browser_bridge_protocol::ids::MAX_CLIENT_NAME;

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
    if !browser_bridge_protocol::ids::is_client_name(name) {
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

/// Every client's tab stack, and for each tab the client that last made it
/// current, or whose action made a page open it.
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

    /// The client that last made `tab` current, or whose action made a page
    /// open it, if any.
    pub fn owner(&self, tab: TabId) -> Option<&str> {
        self.owners.get(&tab).map(|c| &**c)
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
                // A tab the client's action made the page open is the client's
                // (no other client's default), though never its current tab.
                for tab in result.opened_tabs() {
                    self.owners.entry(tab).or_insert_with(|| client.clone());
                }
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
mod tests;
