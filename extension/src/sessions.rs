//! Sessions (PROTOCOL.md §10): one per controlled tab, keyed by `tabId`.
//!
//! A session starts on the first action that touches a tab (debugger attached,
//! `session_started` sent) and ends with a reason (`session_ended` with its
//! `actionCount`). Also here: the agent window, the per-tab request lock, in-flight
//! cancellation, the blocklist, Stop all / Resume, idle/locked.
//!
//! What extract and the page tools use:
//! - [`with_session`]`(tab, |s: &mut Session| …) -> Option<R>` (e.g. `s.uids`, the
//!   per-tab [`UidCache`]: call `s.uids.assign(&backend_ids)` after gathering),
//! - [`crate::cdp::send`] / [`crate::cdp::send_raw`] for CDP,
//! - [`crate::actions::dom`] for node resolution (`resolve_target`, `call_on`).
//!
//! Your `extract(tab, …)` runs with the tab's lock held and the session attached.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use browser_bridge_page::blocklist::Blocklist;
use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::event::{DomainBlocked, GlobalStop, SessionEnded, SessionStarted};
use browser_bridge_protocol::result::DialogInfo;
use browser_bridge_protocol::{
    BridgeError, ErrorCode, Event, SessionEndReason, TabId, check_url_scheme,
};
use futures::channel::oneshot;
use futures::lock::Mutex;
use serde_json::{Value, json};
use wasm_bindgen_futures::spawn_local;

use crate::{cdp, chrome, connection};

/// Makes `navigator.webdriver` read false (§7), in every new document of a session
/// (`Page.addScriptToEvaluateOnNewDocument`) and in the current one at attach.
pub const WEBDRIVER_FALSE: &str = "Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false, configurable: true });";

/// One controlled tab.
#[derive(Debug)]
pub struct Session {
    /// The tab.
    pub tab: TabId,
    /// The tab lives in the agent window.
    pub agent_window: bool,
    /// Actions run in this session so far.
    pub action_count: u64,
    /// uid ↔ backendNodeId cache (§6), cleared on main-frame navigation.
    pub uids: UidCache,
    /// The JavaScript dialog now open in the tab, if any (§5).
    pub dialog: Option<DialogInfo>,
    /// Number of `evaluate`s running (dialogs are auto-handled while > 0, §7).
    pub evaluating: u32,
    /// Last known main-frame URL.
    pub url: String,
    /// The renderer crashed (`Inspector.targetCrashed`) and was not reloaded yet:
    /// CDP calls hang until the tab navigates again.
    pub crashed: bool,
    /// When the session started (ms since the epoch).
    pub started_at: u64,
    /// The main frame's CDP `frameId` (`Page.getFrameTree` at attach), to tell
    /// main-frame document requests from iframe ones in `Fetch.requestPaused`.
    pub main_frame: Option<String>,
}

#[derive(Default)]
struct Registry {
    sessions: HashMap<TabId, Session>,
    locks: HashMap<TabId, Rc<Mutex<()>>>,
    inflight: HashMap<TabId, Vec<oneshot::Sender<BridgeError>>>,
    agent_window: Option<i64>,
    global_stop: bool,
    blocklist: Blocklist,
    /// The stored blocklist was read (or a storage change delivered it). Until
    /// then — a worker woken by a debugger event of a tab it had attached before
    /// it stopped — paused document requests wait rather than pass an empty list.
    blocklist_loaded: bool,
    /// Why the stored `blocklist` setting could not be read as a list (fail
    /// closed: every navigation and session document request is refused with it).
    blocklist_error: Option<String>,
    /// The session tabs' network block rule may be rewritten: false in a new
    /// worker until it took back the previous worker's sessions, whose rule
    /// (session rules outlive the worker) keeps guarding their tabs meanwhile.
    net_rule_ready: bool,
    /// The last `updateSessionRules` sent (as JSON text), to skip identical updates.
    net_rule_sent: Option<String>,
}

thread_local! {
    static REG: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Runs `f` on the tab's session, `None` when there is none.
pub fn with_session<R>(tab: TabId, f: impl FnOnce(&mut Session) -> R) -> Option<R> {
    REG.with(|r| r.borrow_mut().sessions.get_mut(&tab).map(f))
}

/// Whether `tab` has a session.
pub fn has_session(tab: TabId) -> bool {
    REG.with(|r| r.borrow().sessions.contains_key(&tab))
}

/// Adds a session taken back by a restarted worker (`crate::lifecycle::restore`).
pub(crate) fn insert_session(session: Session) {
    REG.with(|r| r.borrow_mut().sessions.insert(session.tab, session));
    spawn_local(sync_net_rule());
}

/// The `chrome.declarativeNetRequest` session rule id of the network block.
const NET_RULE_ID: u32 = 1;

/// The network half of the blocklist (PROTOCOL.md §10): one
/// `chrome.declarativeNetRequest` session rule blocks every request of the
/// session tabs (`condition.tabIds`; their frames and dedicated workers carry the
/// tab's id) to a blocked domain (`requestDomains`, subdomains included) before it
/// leaves the browser, whatever its kind — fetch/XHR, images, scripts, styles,
/// fonts, media, plugins, beacons and pings, WebSockets, prefetches. Frame
/// documents (`main_frame`, `sub_frame`) are left out: DNR runs before the
/// `Fetch` interception and would fail them silently, whereas `Fetch` reports
/// them (`domain_blocked`, and a main frame ends the session). The person's own tabs are not in
/// `tabIds`: the blocklist constrains the agent. With an unreadable setting the
/// rule has no `requestDomains` and blocks every request of the session tabs.
///
/// Called whenever the session set or the blocklist changes; the update is issued
/// at once (rules apply in call order), the returned future resolves once Chrome
/// applied it (a failure is only logged). No-op until [`net_rule_ready`] in a new
/// worker.
#[must_use = "spawn or await: the future reports when the rule applies"]
pub(crate) fn sync_net_rule() -> impl Future<Output = ()> + use<> {
    let update = REG.with(|r| {
        let mut r = r.borrow_mut();
        if !r.net_rule_ready {
            return None;
        }
        let mut tabs: Vec<i64> = r.sessions.keys().map(|t| t.0).collect();
        tabs.sort_unstable();
        let domains = r.blocklist.request_domains();
        let mut update = json!({ "removeRuleIds": [NET_RULE_ID] });
        if !tabs.is_empty() && (r.blocklist_error.is_some() || !domains.is_empty()) {
            // Frame documents go to the `Fetch` interception, which reports them
            // (DNR would block them first, silently).
            let mut condition = json!({
                "tabIds": tabs, "excludedResourceTypes": ["main_frame", "sub_frame"],
            });
            if r.blocklist_error.is_none() {
                condition["requestDomains"] = json!(domains);
            }
            update["addRules"] = json!([{
                "id": NET_RULE_ID, "priority": 1,
                "action": { "type": "block" }, "condition": condition,
            }]);
        }
        // Compared as text: `Value`'s own equality would add code to the wasm.
        let text = update.to_string();
        if r.net_rule_sent.as_ref() == Some(&text) {
            return None;
        }
        r.net_rule_sent = Some(text);
        Some(update)
    });
    let sent = update.map(|update| chrome::update_session_rules(&update));
    async move {
        if let Some(sent) = sent
            && let Err(e) = sent.await
        {
            chrome::log(&format!("declarativeNetRequest.updateSessionRules: {e}"));
            // Not applied: let the next change send it again.
            REG.with(|r| r.borrow_mut().net_rule_sent = None);
        }
    }
}

/// The restarted worker has its sessions back (`crate::lifecycle::restore`): from
/// now on the network rule follows them (see [`sync_net_rule`]).
pub(crate) fn net_rule_ready() {
    REG.with(|r| r.borrow_mut().net_rule_ready = true);
    spawn_local(sync_net_rule());
}

/// What `crate::lifecycle::persist` keeps of every live session.
pub(crate) fn records() -> Vec<crate::lifecycle::Record> {
    REG.with(|r| {
        r.borrow()
            .sessions
            .values()
            .map(crate::lifecycle::Record::of)
            .collect()
    })
}

/// Tabs with a session, sorted, with their agent-window flag.
pub fn session_tabs() -> Vec<(TabId, bool)> {
    let mut tabs: Vec<_> = REG.with(|r| {
        r.borrow()
            .sessions
            .values()
            .map(|s| (s.tab, s.agent_window))
            .collect()
    });
    tabs.sort();
    tabs
}

/// The agent window's id, when one was created and not closed.
pub fn agent_window() -> Option<i64> {
    REG.with(|r| r.borrow().agent_window)
}

/// Records the agent window (and persists it so a restarted worker reuses it).
pub fn set_agent_window(id: i64) {
    REG.with(|r| r.borrow_mut().agent_window = Some(id));
    spawn_local(async move {
        let _ = chrome::storage_set(&json!({ "agentWindowId": id })).await;
    });
}

/// The per-tab lock: requests on one tab run one at a time (§ dispatch).
pub fn tab_lock(tab: TabId) -> Rc<Mutex<()>> {
    REG.with(|r| r.borrow_mut().locks.entry(tab).or_default().clone())
}

/// Registers an in-flight request on `tab`: the receiver fires with the error to
/// answer when the session ends or the renderer crashes.
pub fn register_inflight(tab: TabId) -> oneshot::Receiver<BridgeError> {
    let (tx, rx) = oneshot::channel();
    REG.with(|r| r.borrow_mut().inflight.entry(tab).or_default().push(tx));
    rx
}

fn fail_inflight(tab: TabId, error: &BridgeError) {
    let senders = REG
        .with(|r| r.borrow_mut().inflight.remove(&tab))
        .unwrap_or_default();
    for tx in senders {
        let _ = tx.send(error.clone());
    }
}

/// Stop all is active: every request answers `cancelled` until Resume.
pub fn global_stopped() -> bool {
    REG.with(|r| r.borrow().global_stop)
}

/// Replaces the blocklist (from storage key `blocklist`), each entry canonicalised
/// by the browser's own URL parser (IDNA, case, dots) once, here.
pub fn set_blocklist(list: Result<Vec<String>, String>) {
    let (list, error) = match list {
        Ok(list) => (Blocklist::new(&list, browser_hostname), None),
        Err(e) => (Blocklist::default(), Some(e)),
    };
    REG.with(|r| {
        let mut r = r.borrow_mut();
        r.blocklist = list;
        r.blocklist_error = error;
        r.blocklist_loaded = true;
    });
    spawn_local(sync_net_rule());
}

/// Longest wait for the stored blocklist before a paused request is decided with
/// what is known (ms); reading `chrome.storage.local` takes a few ms.
const BLOCKLIST_LOAD_WAIT_MS: u32 = 5_000;

/// Resolves once the stored blocklist is loaded, or after
/// [`BLOCKLIST_LOAD_WAIT_MS`].
async fn blocklist_loaded() {
    let mut waited = 0;
    while !REG.with(|r| r.borrow().blocklist_loaded) && waited < BLOCKLIST_LOAD_WAIT_MS {
        gloo_timers::future::TimeoutFuture::new(10).await;
        waited += 10;
    }
}

/// `URL.hostname` as the browser's own WHATWG parser gives it — the parser that
/// also reads the URL Chrome loads, so the check and the load cannot disagree on
/// the host. `None` when `url` does not parse.
fn browser_hostname(url: &str) -> Option<String> {
    web_sys::Url::new(url).ok().map(|u| u.hostname())
}

/// Stands for the domain in `domain_blocked` answers and events while the stored
/// setting is unreadable (every host is refused then).
const INVALID_SETTING: &str = "(every domain: the blocklist setting is invalid)";

/// The blocklist entry blocking `url`'s host, if any (`None` too for URLs without
/// a host or that do not parse: they reach no host). Every host is blocked
/// ([`INVALID_SETTING`]) while the stored setting is unreadable.
fn blocking_domain(url: &str) -> Option<String> {
    let host = browser_hostname(url)?;
    blocking_host(&host)
}

/// [`blocking_domain`] for a `URL.hostname`.
fn blocking_host(host: &str) -> Option<String> {
    REG.with(|r| {
        let r = r.borrow();
        if r.blocklist_error.is_some() && !host.is_empty() {
            return Some(INVALID_SETTING.to_owned());
        }
        r.blocklist.blocking(host).map(str::to_owned)
    })
}

/// Loads `blocklist`, `globalStop` and `agentWindowId` from storage (worker start).
pub async fn load_settings() {
    let Ok(s) = chrome::storage_get(&["blocklist", "globalStop", "agentWindowId"]).await else {
        // Fail closed: an unreadable setting refuses every navigation.
        set_blocklist(Err(
            "the blocklist setting could not be read from chrome.storage.local".to_owned(),
        ));
        return;
    };
    apply_blocklist_value(&s["blocklist"]);
    let stop = s["globalStop"].as_bool().unwrap_or(false);
    let window = s["agentWindowId"].as_i64();
    REG.with(|r| {
        let mut r = r.borrow_mut();
        r.global_stop = stop;
        if r.agent_window.is_none() {
            r.agent_window = window;
        }
    });
}

/// Applies a `blocklist` storage value, read by
/// [`browser_bridge_page::blocklist::setting_entries`] (an array of domains,
/// or a string of them; any other shape fails closed).
pub fn apply_blocklist_value(value: &Value) {
    set_blocklist(browser_bridge_page::blocklist::setting_entries(value));
}

/// `domain_blocked` when `url`'s host is on the blocklist (and the event is sent).
/// For URLs the tab already shows; a URL to load goes through [`check_target_url`].
///
/// # Errors
/// `domain_blocked` naming the domain.
pub fn check_blocklist(url: &str, tab: Option<TabId>) -> Result<(), BridgeError> {
    let Some(domain) = blocking_domain(url) else {
        return Ok(());
    };
    Err(domain_blocked(tab, url, &domain))
}

/// Sends the `domain_blocked` event (§11) and returns the error to answer.
fn domain_blocked(tab: Option<TabId>, url: &str, domain: &str) -> BridgeError {
    connection::send_event(Event::DomainBlocked(DomainBlocked {
        tab_id: tab,
        url: url.to_owned(),
        domain: domain.to_owned(),
        at: chrome::now_ms(),
    }));
    if let Some(error) = REG.with(|r| r.borrow().blocklist_error.clone()) {
        return BridgeError::new(ErrorCode::DomainBlocked, error);
    }
    BridgeError::new(
        ErrorCode::DomainBlocked,
        format!("{domain} is on the user's blocklist: do not retry, tell the user"),
    )
}

/// Checks a URL an action asks to load (`navigate`, `open_tab`, §5 and §10) and
/// returns it as the browser's parser serialises it (`URL.href`): the caller loads
/// that exact string, so what was checked is what Chrome loads.
///
/// # Errors
/// `invalid_action` for a refused scheme or a URL that does not parse,
/// `domain_blocked` when its host is on the blocklist.
pub fn check_target_url(url: &str, tab: Option<TabId>) -> Result<String, BridgeError> {
    check_url_scheme(url)?;
    let parsed = web_sys::Url::new(url.trim()).map_err(|_| {
        BridgeError::invalid_action(format!(
            "url {url:?} is not a valid URL: give an absolute http:// or https:// URL"
        ))
    })?;
    let href = parsed.href();
    match blocking_host(&parsed.hostname()) {
        Some(domain) => Err(domain_blocked(tab, url, &domain)),
        None => Ok(href),
    }
}

/// Document requests (main frame and iframes, redirects included: each hop is a
/// new request) pause before they leave, so that a blocked host is never
/// contacted (`Fetch.enable`, answered in [`on_request_paused`]).
fn fetch_patterns() -> Value {
    json!({ "patterns": [
        { "urlPattern": "*", "resourceType": "Document", "requestStage": "Request" }
    ] })
}

/// `Fetch.requestPaused` (Document requests only, see [`fetch_patterns`]): every
/// paused request is answered exactly once — continued when its host is allowed,
/// failed (`BlockedByClient`) when blocked. A blocked main-frame request ends the
/// session (`domain_blocked`, §10); a blocked iframe request makes the tab's
/// in-flight requests answer `domain_blocked` and leaves the session running.
/// Runs for tabs without a session too (a debugger adopted after a worker restart
/// may still have `Fetch` enabled).
fn on_request_paused(tab: TabId, child: Option<String>, params: &Value) {
    if !REG.with(|r| r.borrow().blocklist_loaded) {
        let params = params.clone();
        spawn_local(async move {
            blocklist_loaded().await;
            decide_paused_request(tab, child, &params);
        });
        return;
    }
    decide_paused_request(tab, child, params);
}

/// `Target.setAutoAttach` for a session tab and each of its child targets: an
/// out-of-process iframe's own navigations are not seen by the tab's `Fetch`
/// (only the navigation that creates the frame is), so each such frame gets
/// `Fetch` too, before it runs (`waitForDebuggerOnStart`, see [`on_attached`]).
fn auto_attach() -> Value {
    json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true })
}

/// Sends one command to the tab (`child` `None`) or to one of its child targets.
async fn send_to(
    tab: TabId,
    child: Option<&str>,
    method: &str,
    params: Value,
) -> Result<(), String> {
    let Some(child) = child else {
        return cdp::send(tab, method, params)
            .await
            .map(drop)
            .map_err(|e| e.to_string());
    };
    let params = chrome::to_js(&params);
    let command = Box::pin(chrome::send_session_command(tab.0, child, method, &params));
    match futures::future::select(
        command,
        gloo_timers::future::TimeoutFuture::new(cdp::COMMAND_TIMEOUT_MS),
    )
    .await
    {
        futures::future::Either::Left((Ok(_), _)) => Ok(()),
        futures::future::Either::Left((Err(e), _)) => Err(format!("{method}: {e}")),
        futures::future::Either::Right(_) => Err(format!("{method}: no answer")),
    }
}

/// `Target.attachedToTarget` (from the tab or from a child): an iframe target gets
/// the same `Fetch` interception and auto-attach as the tab; every new target,
/// whatever its type, is then let run (`Runtime.runIfWaitingForDebugger`), so that
/// none stays paused.
fn on_attached(tab: TabId, params: &Value) {
    let Some(child) = params["sessionId"].as_str().map(str::to_owned) else {
        return;
    };
    let iframe = params["targetInfo"]["type"] == "iframe";
    let waiting = params["waitingForDebugger"] == true;
    spawn_local(async move {
        if iframe {
            for (method, params) in [
                ("Fetch.enable", fetch_patterns()),
                ("Target.setAutoAttach", auto_attach()),
            ] {
                if let Err(e) = send_to(tab, Some(&child), method, params).await {
                    chrome::log(&format!("child target of tab {tab}: {e}"));
                }
            }
        }
        if waiting
            && let Err(e) = send_to(
                tab,
                Some(&child),
                "Runtime.runIfWaitingForDebugger",
                json!({}),
            )
            .await
        {
            chrome::log(&format!("child target of tab {tab}: {e}"));
        }
    });
}

/// Events of child targets (`chrome.debugger.onEvent` with a `sessionId`) that
/// [`on_child_event`] handles.
pub fn child_routed(method: &str) -> bool {
    matches!(method, "Fetch.requestPaused" | "Target.attachedToTarget")
}

/// One event of a child target of `tab` (an out-of-process iframe, a worker).
pub fn on_child_event(tab: TabId, child: &str, method: &str, params: &Value) {
    match method {
        "Fetch.requestPaused" => on_request_paused(tab, Some(child.to_owned()), params),
        "Target.attachedToTarget" => on_attached(tab, params),
        _ => {}
    }
}

/// Continues or fails one paused request (see [`on_request_paused`]); `child` is
/// the child target that paused it, `None` for the tab itself.
fn decide_paused_request(tab: TabId, child: Option<String>, params: &Value) {
    let Some(request_id) = params["requestId"].as_str().map(str::to_owned) else {
        return;
    };
    let url = params["request"]["url"].as_str().unwrap_or_default();
    let Some(domain) = blocking_domain(url) else {
        spawn_local(async move {
            let continued = send_to(
                tab,
                child.as_deref(),
                "Fetch.continueRequest",
                json!({ "requestId": request_id }),
            )
            .await;
            if let Err(e) = continued {
                chrome::log(&format!("tab {tab}: {e}"));
            }
        });
        return;
    };
    let frame = params["frameId"].as_str().unwrap_or_default();
    // A child target's requests are iframe requests. Unknown main frame: take the
    // request as the main frame's (ends the session).
    let main_frame = child.is_none()
        && with_session(tab, |s| s.main_frame.as_deref().is_none_or(|m| m == frame))
            .unwrap_or(true);
    let error = domain_blocked(Some(tab), url, &domain);
    if main_frame {
        end_session(tab, SessionEndReason::DomainBlocked, false);
    } else {
        fail_inflight(
            tab,
            &BridgeError::new(
                ErrorCode::DomainBlocked,
                format!(
                    "a frame of tab {tab} tried to load {url}: {}",
                    error.message
                ),
            ),
        );
    }
    spawn_local(async move {
        let failed = send_to(
            tab,
            child.as_deref(),
            "Fetch.failRequest",
            json!({ "requestId": request_id, "errorReason": "BlockedByClient" }),
        )
        .await;
        if let Err(e) = failed {
            chrome::log(&format!("tab {tab}: {e}"));
        }
        // Only now: detaching first would let Chrome continue the paused request.
        if main_frame && !has_session(tab) {
            let _ = chrome::detach(tab.0).await;
        }
    });
}

/// Attaches the debugger to `tab` and starts its session, unless it has one.
///
/// # Errors
/// `session_not_found` when the tab is gone, `domain_blocked` when its URL is
/// blocked, `invalid_action` for pages the debugger may not attach to
/// (`chrome://`, other extensions), `internal_error` for other attach failures.
pub async fn ensure_session(tab: TabId) -> Result<(), BridgeError> {
    if has_session(tab) {
        return Ok(());
    }
    let info = chrome::tabs_get(tab.0).await.map_err(|_| no_tab(tab))?;
    let url = info
        .pending_url
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or(info.url.clone());
    check_controllable(tab, &url)?;
    check_blocklist(&url, Some(tab))?;
    // After a worker restart our own debugger may still be attached: adopt the tab.
    if let Err(e) = chrome::attach(tab.0).await
        && !e.message.contains("already attached")
    {
        return Err(
            if e.message.contains("Cannot access") || e.message.contains("Cannot attach") {
                BridgeError::invalid_action(format!(
                    "tab {tab} shows {url}, which extensions may not control: {e}"
                ))
            } else if e.message.contains("No tab with given id") {
                no_tab(tab)
            } else {
                BridgeError::internal(format!("debugger.attach to tab {tab}: {e}"))
            },
        );
    }
    let agent_window = agent_window() == Some(info.window_id);
    let started_at = chrome::now_ms();
    REG.with(|r| {
        r.borrow_mut().sessions.insert(
            tab,
            Session {
                tab,
                agent_window,
                action_count: 0,
                uids: UidCache::new(),
                dialog: None,
                evaluating: 0,
                url: url.clone(),
                crashed: false,
                started_at,
                main_frame: None,
            },
        )
    });
    crate::lifecycle::persist();
    // The tab's requests to blocked hosts are refused before the action runs.
    sync_net_rule().await;
    let committed = prepare_tab(tab).await;
    // The tab may have committed a blocked page between tabs.get and Page.enable
    // (a popup opened by a session tab loads before we attach): no session may
    // live on it.
    if let Err(e) = check_blocklist(committed.as_deref().unwrap_or_default(), Some(tab)) {
        REG.with(|r| r.borrow_mut().sessions.remove(&tab));
        crate::lifecycle::persist();
        spawn_local(sync_net_rule());
        let _ = chrome::detach(tab.0).await;
        return Err(e);
    }
    connection::send_event(Event::SessionStarted(SessionStarted {
        tab_id: tab,
        url,
        agent_window,
        started_at,
    }));
    Ok(())
}

/// The per-session CDP setup, run at attach and again when a restarted worker takes
/// a session back (`crate::lifecycle`); failures are logged, not fatal. Records the
/// main frame's id (`Page.getFrameTree`, for the `Fetch` interception) and returns
/// the URL the main frame has committed, if known.
pub(crate) async fn prepare_tab(tab: TabId) -> Option<String> {
    let setup = [
        ("Fetch.enable", fetch_patterns()),
        ("Target.setAutoAttach", auto_attach()),
        ("Page.enable", json!({})),
        ("Inspector.enable", json!({})),
        (
            "Page.setInterceptFileChooserDialog",
            json!({ "enabled": true }),
        ),
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": WEBDRIVER_FALSE }),
        ),
        ("Runtime.evaluate", json!({ "expression": WEBDRIVER_FALSE })),
        // A tab Chromium considers hidden (its window minimized after having been
        // shown, e.g. by the screenshot fallback; a background tab) acknowledges
        // synthesized mouse input only after a ~5 s input-ack timeout per
        // Input.dispatchMouseEvent (measured: 5006 ms hidden vs 4 ms visible). Focus
        // emulation makes DevTools hold the page as visible and focused while we
        // are attached (Chromium's EmulationHandler takes a capturer "stay visible"
        // handle), so input is delivered at once and frames keep coming, without
        // showing the window to the user.
        (
            "Emulation.setFocusEmulationEnabled",
            json!({ "enabled": true }),
        ),
    ];
    for (method, params) in setup {
        if let Err(e) = cdp::send(tab, method, params).await {
            chrome::log(&format!("session setup on tab {tab}: {e}"));
        }
    }
    note_main_frame(tab).await
}

/// Records the session's main-frame id (`Page.getFrameTree`), which the `Fetch`
/// interception tells apart from iframes; returns the URL that frame committed.
pub(crate) async fn note_main_frame(tab: TabId) -> Option<String> {
    let tree = cdp::send(tab, "Page.getFrameTree", json!({})).await.ok()?;
    let frame = &tree["frameTree"]["frame"];
    let id = frame["id"].as_str().map(str::to_owned);
    with_session(tab, |s| s.main_frame = id);
    frame["url"].as_str().map(str::to_owned)
}

/// Only web pages may become sessions: `http(s):`, `about:` and tabs that have not
/// committed a URL yet. Never this extension's own pages (an agent must not press
/// Resume or re-pair), other extensions, `chrome://` or `file://` (§5's scheme rule,
/// applied to tabs the user opened).
///
/// # Errors
/// `invalid_action` naming the URL.
pub fn check_controllable(tab: TabId, url: &str) -> Result<(), BridgeError> {
    let lower = url.trim().to_ascii_lowercase();
    if lower.is_empty()
        || lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("about:")
    {
        return Ok(());
    }
    Err(BridgeError::invalid_action(format!(
        "tab {tab} shows {url}: only http(s) pages can be controlled; navigate it to a web page or pick another tab"
    )))
}

/// `session_not_found` for a tab that does not exist.
pub fn no_tab(tab: TabId) -> BridgeError {
    BridgeError::new(
        ErrorCode::SessionNotFound,
        format!("tab {tab} does not exist (closed?): call list_tabs and pass an existing tabId"),
    )
}

/// Ends `tab`'s session with `reason`: answers its in-flight requests, detaches the
/// debugger when `detach`, sends `session_ended`. No-op without a session.
pub fn end_session(tab: TabId, reason: SessionEndReason, detach: bool) -> bool {
    let Some(session) = REG.with(|r| r.borrow_mut().sessions.remove(&tab)) else {
        return false;
    };
    let error = match reason {
        SessionEndReason::TabClosed => {
            BridgeError::new(ErrorCode::SessionNotFound, format!("tab {tab} was closed"))
        }
        SessionEndReason::DomainBlocked => BridgeError::new(
            ErrorCode::DomainBlocked,
            format!("tab {tab} reached a domain on the user's blocklist: session ended"),
        ),
        other => BridgeError::new(
            ErrorCode::Cancelled,
            format!(
                "the session on tab {tab} ended ({}): do not retry, tell the user",
                other.as_str()
            ),
        ),
    };
    fail_inflight(tab, &error);
    crate::lifecycle::persist();
    spawn_local(sync_net_rule());
    if detach {
        spawn_local(async move {
            let _ = chrome::detach(tab.0).await;
        });
    }
    connection::send_event(Event::SessionEnded(SessionEnded {
        tab_id: tab,
        reason,
        action_count: session.action_count,
        ended_at: chrome::now_ms(),
    }));
    true
}

/// Ends every session with `reason`; returns how many ended.
pub fn end_all(reason: SessionEndReason) -> u64 {
    session_tabs()
        .into_iter()
        .filter(|(tab, _)| end_session(*tab, reason, true))
        .count() as u64
}

/// Stop all (popup): ends every session (`global_stop`), sends one `global_stop`
/// event, and makes later requests answer `cancelled` until [`resume`].
pub async fn stop_all() {
    REG.with(|r| r.borrow_mut().global_stop = true);
    let count = end_all(SessionEndReason::GlobalStop);
    connection::send_event(Event::GlobalStop(GlobalStop {
        session_count: count,
        at: chrome::now_ms(),
    }));
    let _ = chrome::storage_set(&json!({ "globalStop": true })).await;
}

/// Resume (popup): requests are served again.
pub async fn resume() {
    REG.with(|r| r.borrow_mut().global_stop = false);
    let _ = chrome::storage_set(&json!({ "globalStop": false })).await;
}

/// `chrome.idle.onStateChanged`: `idle` / `locked` end every session.
pub fn on_idle_state(state: &str) {
    match state {
        "idle" => {
            end_all(SessionEndReason::SystemIdle);
        }
        "locked" => {
            end_all(SessionEndReason::ScreenLocked);
        }
        _ => {}
    }
}

/// `chrome.tabs.onRemoved`.
pub fn on_tab_removed(tab: TabId) {
    end_session(tab, SessionEndReason::TabClosed, false);
    fail_inflight(tab, &no_tab(tab));
    REG.with(|r| {
        let mut r = r.borrow_mut();
        r.locks.remove(&tab);
    });
}

/// `chrome.debugger.onDetach`: `target_closed` is a closed tab, anything else (the
/// user cancelled the debugging bar, DevTools took over) is `detached`.
pub fn on_detach(tab: TabId, reason: &str) {
    let why = if reason == "target_closed" {
        SessionEndReason::TabClosed
    } else {
        SessionEndReason::Detached
    };
    end_session(tab, why, false);
}

/// Routes one `chrome.debugger.onEvent` for a session tab.
pub fn on_debugger_event(tab: TabId, method: &str, params: &Value) {
    match method {
        "Page.javascriptDialogOpening" => on_dialog_opening(tab, params),
        "Page.javascriptDialogClosed" => {
            with_session(tab, |s| s.dialog = None);
            crate::lifecycle::persist();
        }
        "Fetch.requestPaused" => on_request_paused(tab, None, params),
        "Target.attachedToTarget" => on_attached(tab, params),
        "Page.frameNavigated" if params["frame"]["parentId"].is_null() => {
            let url = params["frame"]["url"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let frame = params["frame"]["id"].as_str().map(str::to_owned);
            with_session(tab, |s| {
                s.uids.invalidate();
                s.url = url.clone();
                if frame.is_some() {
                    s.main_frame = frame;
                }
            });
            crate::lifecycle::persist();
            if check_blocklist(&url, Some(tab)).is_err() {
                end_session(tab, SessionEndReason::DomainBlocked, true);
            }
        }
        "Inspector.targetCrashed" => {
            with_session(tab, |s| s.crashed = true);
            fail_inflight(tab, &crashed_error(tab));
        }
        "Inspector.targetReloadedAfterCrash" => {
            with_session(tab, |s| s.crashed = false);
        }
        _ => {}
    }
    cdp::deliver(tab, method, params);
}

/// `internal_error` for requests on a tab whose renderer crashed.
pub fn crashed_error(tab: TabId) -> BridgeError {
    BridgeError::internal(format!(
        "the renderer of tab {tab} crashed: reload or navigate it"
    ))
}

/// The events [`on_debugger_event`] needs even without a waiter.
pub fn always_routed(method: &str) -> bool {
    matches!(
        method,
        "Fetch.requestPaused"
            | "Target.attachedToTarget"
            | "Page.javascriptDialogOpening"
            | "Page.javascriptDialogClosed"
            | "Page.frameNavigated"
            | "Inspector.targetCrashed"
            | "Inspector.targetReloadedAfterCrash"
    )
}

fn on_dialog_opening(tab: TabId, params: &Value) {
    let info: Option<DialogInfo> = serde_json::from_value(json!({
        "type": params["type"],
        "message": params["message"],
    }))
    .ok();
    let evaluating = with_session(tab, |s| {
        if s.evaluating == 0 {
            s.dialog = info.clone();
        }
        s.evaluating > 0
    })
    .unwrap_or(false);
    crate::lifecycle::persist();
    if evaluating {
        // §7: during evaluate, alert/beforeunload → accept, confirm/prompt → dismiss.
        let accept = matches!(params["type"].as_str(), Some("alert" | "beforeunload"));
        spawn_local(async move {
            let _ = cdp::send(
                tab,
                "Page.handleJavaScriptDialog",
                json!({ "accept": accept }),
            )
            .await;
        });
    }
}

/// The popup's session list: `[{tabId, url, agentWindow, actionCount, startedAt}]`.
pub fn popup_list() -> Value {
    REG.with(|r| {
        let r = r.borrow();
        let mut list: Vec<_> = r.sessions.values().collect();
        list.sort_by_key(|s| s.tab);
        Value::Array(
            list.iter()
                .map(|s| {
                    json!({
                        "tabId": s.tab, "url": s.url, "agentWindow": s.agent_window,
                        "actionCount": s.action_count, "startedAt": s.started_at,
                    })
                })
                .collect(),
        )
    })
}
