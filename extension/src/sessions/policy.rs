//! The user's limits on the agent (PROTOCOL.md §10): the blocklist (checked on
//! every URL an action loads or a tab shows, and as one network rule over the
//! session tabs), Stop all / Resume, and idle/locked ending every session.

use browser_bridge_page::blocklist::Blocklist;
use browser_bridge_protocol::event::{DomainBlocked, GlobalStop};
use browser_bridge_protocol::{
    BridgeError, ErrorCode, Event, SessionEndReason, TabId, check_url_scheme,
};
use serde_json::{Value, json};
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::chrome;
use crate::core::net_rule;
use crate::core::settings::{PolicySettings, keys};

/// Longest wait for the stored blocklist before a paused request is decided with
/// what is known (ms); reading `chrome.storage.local` takes a few ms.
const BLOCKLIST_LOAD_WAIT_MS: u32 = 5_000;

/// Stands for the domain in `domain_blocked` answers and events while the stored
/// setting is unreadable (every host is refused then).
const INVALID_SETTING: &str = "(every domain: the blocklist setting is invalid)";

/// The policy part of the registry.
#[derive(Default)]
pub(super) struct State {
    blocklist: Blocklist,
    /// The stored blocklist was read (or a storage change delivered it). Until
    /// then — a worker woken by a debugger event of a tab it had attached before
    /// it stopped — paused document requests wait rather than pass an empty list.
    loaded: bool,
    /// Why the stored `blocklist` setting could not be read as a list (fail
    /// closed: every navigation and session document request is refused with it).
    error: Option<String>,
    /// The session tabs' network rule may be rewritten: false in a new worker
    /// until it took back the previous worker's sessions, whose rule (session
    /// rules outlive the worker) keeps guarding their tabs meanwhile.
    net_rule_ready: bool,
    /// The last `updateSessionRules` sent (as JSON text), to skip identical updates.
    net_rule_sent: Option<String>,
    /// Stop all is active: every request answers `cancelled` until Resume.
    global_stop: bool,
}

/// `URL.hostname` as the browser's own WHATWG parser gives it — the parser that
/// also reads the URL Chrome loads, so the check and the load cannot disagree on
/// the host. `None` when `url` does not parse.
fn browser_hostname(url: &str) -> Option<String> {
    web_sys::Url::new(url).ok().map(|u| u.hostname())
}

impl Sessions {
    /// Loads `blocklist`, `globalStop` and `agentWindowId` from storage (worker
    /// start).
    pub async fn load_settings(&self) {
        let Ok(stored) = chrome::storage_get(&PolicySettings::KEYS).await else {
            // Fail closed: an unreadable setting refuses every navigation.
            self.set_blocklist(Err(
                "the blocklist setting could not be read from chrome.storage.local".to_owned(),
            ));
            return;
        };
        let settings = PolicySettings::from_storage(&stored);
        self.apply_blocklist_value(&settings.blocklist);
        let mut reg = self.reg.borrow_mut();
        reg.policy.global_stop = settings.global_stop;
        reg.agent_windows.restore_shared(settings.agent_window);
    }

    /// Applies a `blocklist` storage value, read by
    /// [`browser_bridge_page::blocklist::setting_entries`] (an array of domains,
    /// or a string of them; any other shape fails closed).
    pub fn apply_blocklist_value(&self, value: &Value) {
        self.set_blocklist(browser_bridge_page::blocklist::setting_entries(value));
    }

    /// Replaces the blocklist, each entry canonicalised by the browser's own URL
    /// parser (IDNA, case, dots) once, here.
    fn set_blocklist(&self, list: Result<Vec<String>, String>) {
        let (list, error) = match list {
            Ok(list) => (Blocklist::new(&list, browser_hostname), None),
            Err(e) => (Blocklist::default(), Some(e)),
        };
        {
            let policy = &mut self.reg.borrow_mut().policy;
            policy.blocklist = list;
            policy.error = error;
            policy.loaded = true;
        }
        spawn_local(self.sync_net_rule());
    }

    /// Resolves once the stored blocklist is loaded, or after
    /// [`BLOCKLIST_LOAD_WAIT_MS`].
    pub(super) async fn blocklist_loaded(&self) {
        let mut waited = 0;
        while !self.reg.borrow().policy.loaded && waited < BLOCKLIST_LOAD_WAIT_MS {
            gloo_timers::future::TimeoutFuture::new(10).await;
            waited += 10;
        }
    }

    /// Whether the stored blocklist was read.
    pub(super) fn blocklist_is_loaded(&self) -> bool {
        self.reg.borrow().policy.loaded
    }

    /// The blocklist entry blocking `url`'s host, if any (`None` too for URLs
    /// without a host or that do not parse: they reach no host). Every host is
    /// blocked ([`INVALID_SETTING`]) while the stored setting is unreadable.
    pub(super) fn blocking_domain(&self, url: &str) -> Option<String> {
        self.blocking_host(&browser_hostname(url)?)
    }

    /// [`Sessions::blocking_domain`] for a `URL.hostname`.
    fn blocking_host(&self, host: &str) -> Option<String> {
        let reg = self.reg.borrow();
        if reg.policy.error.is_some() && !host.is_empty() {
            return Some(INVALID_SETTING.to_owned());
        }
        reg.policy.blocklist.blocking(host).map(str::to_owned)
    }

    /// `domain_blocked` when `url`'s host is on the blocklist (and the event is
    /// sent). For URLs the tab already shows; a URL to load goes through
    /// [`Sessions::check_target_url`].
    ///
    /// # Errors
    /// `domain_blocked` naming the domain.
    pub fn check_blocklist(&self, url: &str, tab: Option<TabId>) -> Result<(), BridgeError> {
        match self.blocking_domain(url) {
            Some(domain) => Err(self.domain_blocked(tab, url, &domain)),
            None => Ok(()),
        }
    }

    /// Sends the `domain_blocked` event (§11) and returns the error to answer.
    pub(super) fn domain_blocked(
        &self,
        tab: Option<TabId>,
        url: &str,
        domain: &str,
    ) -> BridgeError {
        self.outbox.event(Event::DomainBlocked(DomainBlocked {
            tab_id: tab,
            url: url.to_owned(),
            domain: domain.to_owned(),
            at: chrome::now_ms(),
        }));
        if let Some(error) = self.reg.borrow().policy.error.clone() {
            return BridgeError::new(ErrorCode::DomainBlocked, error);
        }
        BridgeError::new(
            ErrorCode::DomainBlocked,
            format!("{domain} is on the user's blocklist: do not retry, tell the user"),
        )
    }

    /// Checks a URL an action asks to load (`navigate`, `open_tab`, §5 and §10)
    /// and returns it as the browser's parser serialises it (`URL.href`): the
    /// caller loads that exact string, so what was checked is what Chrome loads.
    ///
    /// # Errors
    /// `invalid_action` for a refused scheme or a URL that does not parse,
    /// `domain_blocked` when its host is on the blocklist.
    pub fn check_target_url(&self, url: &str, tab: Option<TabId>) -> Result<String, BridgeError> {
        check_url_scheme(url)?;
        let parsed = web_sys::Url::new(url.trim()).map_err(|_| {
            BridgeError::invalid_action(format!(
                "url {url:?} is not a valid URL: give an absolute http:// or https:// URL"
            ))
        })?;
        match self.blocking_host(&parsed.hostname()) {
            Some(domain) => Err(self.domain_blocked(tab, url, &domain)),
            None => Ok(parsed.href()),
        }
    }

    /// Rewrites the network rule ([`net_rule::update`]) for the current session
    /// tabs and blocklist; called whenever either changes. The update is issued
    /// at once (rules apply in call order); the returned future resolves once
    /// Chrome applied it (a failure is only logged). Identical updates are
    /// skipped. No-op until [`Sessions::net_rule_ready`] in a new worker.
    #[must_use = "spawn or await: the future reports when the rule applies"]
    pub fn sync_net_rule(&self) -> impl Future<Output = ()> + use<> {
        let update = {
            let mut reg = self.reg.borrow_mut();
            let tabs: Vec<i64> = reg.sessions.keys().map(|t| t.0).collect();
            let policy = &mut reg.policy;
            if !policy.net_rule_ready {
                None
            } else {
                let update = net_rule::update(
                    &tabs,
                    policy.blocklist.request_domains(),
                    policy.error.is_some(),
                );
                // Compared as text: `Value`'s own equality would add code to the wasm.
                let text = update.to_string();
                if policy.net_rule_sent.as_ref() == Some(&text) {
                    None
                } else {
                    policy.net_rule_sent = Some(text);
                    Some(update)
                }
            }
        };
        let sent = update.map(|update| chrome::update_session_rules(&update));
        let sessions = self.clone();
        async move {
            if let Some(sent) = sent
                && let Err(e) = sent.await
            {
                chrome::log(&format!("declarativeNetRequest.updateSessionRules: {e}"));
                // Not applied: let the next change send it again.
                sessions.reg.borrow_mut().policy.net_rule_sent = None;
            }
        }
    }

    /// The restarted worker has its sessions back (`crate::lifecycle::restore`):
    /// from now on the network rule follows them.
    pub fn net_rule_ready(&self) {
        self.reg.borrow_mut().policy.net_rule_ready = true;
        spawn_local(self.sync_net_rule());
    }

    /// Stop all is active: every request answers `cancelled` until Resume.
    pub fn global_stopped(&self) -> bool {
        self.reg.borrow().policy.global_stop
    }

    /// Stop all (popup): ends every session (`global_stop`), sends one
    /// `global_stop` event, and makes later requests answer `cancelled` until
    /// [`Sessions::resume`].
    pub async fn stop_all(&self) {
        self.reg.borrow_mut().policy.global_stop = true;
        let count = self.end_all(SessionEndReason::GlobalStop);
        self.outbox.event(Event::GlobalStop(GlobalStop {
            session_count: count,
            at: chrome::now_ms(),
        }));
        let _ = chrome::storage_set(&json!({ keys::GLOBAL_STOP: true })).await;
    }

    /// Resume (popup): requests are served again.
    pub async fn resume(&self) {
        self.reg.borrow_mut().policy.global_stop = false;
        let _ = chrome::storage_set(&json!({ keys::GLOBAL_STOP: false })).await;
    }

    /// `chrome.idle.onStateChanged`: `idle` / `locked` end every session.
    pub fn on_idle_state(&self, state: &str) {
        match state {
            "idle" => {
                self.end_all(SessionEndReason::SystemIdle);
            }
            "locked" => {
                self.end_all(SessionEndReason::ScreenLocked);
            }
            _ => {}
        }
    }
}
