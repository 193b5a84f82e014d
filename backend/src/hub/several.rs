//! The hub's per-browser state (PROTOCOL.md §5 "Browsers"): each browser's
//! clients registry and the tabs it is known to have, kept by its extension's
//! `clientId` across reconnects (a worker restart keeps every client's current
//! tab); and the merge of a `list_tabs` sent to every browser.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use browser_bridge_protocol::browser::BrowserInfo;
use browser_bridge_protocol::result::ListTabsResult;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use tokio::sync::oneshot;

use super::clients::{Clients, Target};

/// An answer, as the hub's callers get it.
type ActOutcome = Result<ActionResult, BridgeError>;

/// Browsers whose registry is kept; past it, those of browsers not connected
/// are forgotten.
pub const MAX_REGISTRIES: usize = 64;

#[derive(Debug, Default)]
struct Registry {
    clients: Clients,
    /// Tabs this browser answered about: its last `list_tabs`, and each tab a
    /// result named since.
    listed: HashSet<TabId>,
    /// The `hello.browserRunId` of its last connection, when it sent one.
    run: Option<String>,
}

/// Every browser's [`Clients`] and known tabs, by `clientId`.
#[derive(Debug, Default)]
pub struct Registries {
    by_browser: HashMap<String, Registry>,
}

impl Registries {
    /// The clients registry of `browser`, made when missing; `live` are the
    /// `clientId`s connected now (kept when others are forgotten).
    pub fn of(&mut self, browser: &str, live: &[&str]) -> &mut Clients {
        &mut self.registry(browser, live).clients
    }

    fn registry(&mut self, browser: &str, live: &[&str]) -> &mut Registry {
        if !self.by_browser.contains_key(browser) && self.by_browser.len() >= MAX_REGISTRIES {
            self.by_browser.retain(|b, _| live.contains(&b.as_str()));
        }
        self.by_browser.entry(browser.to_owned()).or_default()
    }

    /// `browser` connected with `run` (its `hello.browserRunId`); `live` as in
    /// [`Registries::of`]. When that
    /// differs from its last one, the browser restarted and its tabIds start
    /// over (§2): every client's tabs there and the tabs it listed are forgotten,
    /// so no action without `tabId` goes to a tab of the earlier run's number.
    /// Returns whether they were. A `hello` without the field forgets nothing
    /// (an extension older than it), nor one `replacing` a connection of that
    /// browser still open: a restarted browser's last connection has ended,
    /// so that is two browsers sharing one `clientId` (a copied profile), each
    /// replacing the other, whose tabs must not be forgotten at every turn.
    pub fn started(
        &mut self,
        browser: &str,
        run: Option<&str>,
        live: &[&str],
        replacing: bool,
    ) -> bool {
        let Some(run) = run else {
            return false;
        };
        let registry = self.registry(browser, live);
        let restarted = !replacing && registry.run.as_deref().is_some_and(|last| last != run);
        if restarted {
            *registry = Registry::default();
        }
        registry.run = Some(run.to_owned());
        restarted
    }

    /// Whether `browser` is known to have `tab` (a tab a client acted on, or
    /// one it answered about).
    pub fn knows(&self, browser: &str, tab: TabId) -> bool {
        self.by_browser
            .get(browser)
            .is_some_and(|r| r.listed.contains(&tab) || r.clients.owner(tab).is_some())
    }

    /// A tab of `browser` closed.
    pub fn closed(&mut self, browser: &str, tab: TabId) {
        if let Some(registry) = self.by_browser.get_mut(browser) {
            registry.clients.closed(tab);
            registry.listed.remove(&tab);
        }
    }

    /// After `browser`'s answer to `client`'s request for `target`
    /// ([`Clients::answered`]); a `list_tabs` result's tabs get `browser`'s
    /// `name`, and the result every connected browser (`connected`).
    pub fn answered(
        &mut self,
        browser: &str,
        name: Option<String>,
        connected: Vec<BrowserInfo>,
        client: &Arc<str>,
        target: Target,
        outcome: &mut ActOutcome,
    ) {
        let registry = self.by_browser.entry(browser.to_owned()).or_default();
        match outcome {
            Ok(ActionResult::ListTabs(list)) => {
                registry.listed = list.tabs.iter().map(|t| t.tab_id).collect();
                for tab in &mut list.tabs {
                    tab.browser.clone_from(&name);
                }
                list.browsers = Some(connected);
            }
            Ok(ActionResult::CloseTab(closed)) => {
                registry.listed.remove(&closed.tab_id);
            }
            Ok(result) => {
                if let Some(tab) = result.tab_id() {
                    registry.listed.insert(tab);
                }
            }
            Err(_) => {}
        }
        registry.clients.answered(client, target, outcome);
    }
}

/// Answers `reply` with the tabs of every browser's `list_tabs` (each in
/// `answers` with the browser's name), in that order, and the browsers the
/// last answer listed; the first error answers instead, naming its browser.
pub async fn merge_lists(
    answers: Vec<(String, oneshot::Receiver<ActOutcome>)>,
    reply: oneshot::Sender<ActOutcome>,
) {
    let mut tabs = Vec::new();
    let mut browsers = None;
    for (name, answer) in answers {
        match answer.await {
            Ok(Ok(ActionResult::ListTabs(list))) => {
                tabs.extend(list.tabs);
                browsers = list.browsers;
            }
            Ok(Err(error)) => {
                let message = format!("list_tabs in browser {name:?}: {}", error.message);
                let _ = reply.send(Err(BridgeError::new(error.code, message)));
                return;
            }
            Ok(Ok(_)) | Err(_) => {
                let _ = reply.send(Err(BridgeError::internal(format!(
                    "list_tabs in browser {name:?}: the backend's extension hub dropped it"
                ))));
                return;
            }
        }
    }
    let _ = reply.send(Ok(ActionResult::ListTabs(ListTabsResult {
        tabs,
        browsers,
    })));
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::result::OpenTabResult;
    use browser_bridge_protocol::{Action, WindowId};

    use super::*;
    use crate::hub::clients::Route;

    /// `alice` opens tab `tab` in `browser`; it becomes her current tab there.
    fn open(registries: &mut Registries, browser: &str, alice: &Arc<str>, tab: i64) {
        let mut outcome = Ok(ActionResult::OpenTab(OpenTabResult {
            tab_id: TabId(tab),
            window_id: WindowId(1),
            url: "https://a.test/".into(),
            title: String::new(),
            load_pending: false,
            dialog: None,
        }));
        let target = Target::Named(TabId(tab));
        registries.answered(browser, None, Vec::new(), alice, target, &mut outcome);
    }

    /// Where `alice`'s `evaluate` without `tabId` goes in `browser`.
    fn unnamed(registries: &mut Registries, browser: &str, alice: &Arc<str>) -> Route {
        let mut action = Action::from_value(serde_json::json!({
            "action": "evaluate", "expression": "return 1"
        }))
        .expect("valid");
        registries
            .of(browser, &[browser])
            .target(alice, &mut action, Vec::new)
    }

    #[test]
    fn a_new_browser_run_forgets_the_tabs_of_the_last_and_a_worker_restart_does_not() {
        let mut registries = Registries::default();
        let alice: Arc<str> = "alice".into();
        assert!(!registries.started("work", Some("run-1"), &[], false));
        open(&mut registries, "work", &alice, 7);
        open(&mut registries, "home", &alice, 7);
        // The worker restarted: same run, tab 7 is still alice's.
        assert!(!registries.started("work", Some("run-1"), &["home"], false));
        let current = Route::Send(Target::Current(TabId(7)));
        assert_eq!(unnamed(&mut registries, "work", &alice), current);
        assert!(registries.knows("work", TabId(7)));
        // An extension without the field: nothing is forgotten.
        assert!(!registries.started("work", None, &["home"], false));
        assert_eq!(unnamed(&mut registries, "work", &alice), current);
        // Another run while run-1's connection is still open: a second browser
        // with the same clientId (a copied profile), not a restart.
        assert!(!registries.started("work", Some("run-9"), &["home"], true));
        assert_eq!(unnamed(&mut registries, "work", &alice), current);
        assert!(!registries.started("work", Some("run-1"), &["home"], true));
        // The browser restarted: tab 7 there may be anyone's now.
        assert!(registries.started("work", Some("run-2"), &["home"], false));
        assert!(!registries.knows("work", TabId(7)));
        let fresh = Route::Send(Target::Unnamed);
        assert_eq!(unnamed(&mut registries, "work", &alice), fresh);
        // Another browser's bookkeeping stays.
        assert_eq!(unnamed(&mut registries, "home", &alice), current);
        assert!(!registries.started("work", Some("run-2"), &["home"], false));
    }
}
