//! Starting a session: the checks on the tab's page, `chrome.debugger.attach`
//! (or adopting an attachment a previous worker left), and the per-session CDP
//! setup.

use browser_bridge_cdp::{Command, emulation, fetch, inspector, page, runtime, target};
use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::event::SessionStarted;
use browser_bridge_protocol::{BridgeError, ErrorCode, Event, TabId};
use wasm_bindgen_futures::spawn_local;

use super::{Session, Sessions};
use crate::{cdp, chrome};

/// Makes `navigator.webdriver` read false (§7), in every new document of a session
/// (`Page.addScriptToEvaluateOnNewDocument`) and in the current one at attach.
pub const WEBDRIVER_FALSE: &str = "Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false, configurable: true });";

/// The URL a `chrome.tabs.Tab` shows or is loading.
pub fn tab_url(tab: &chrome::Tab) -> String {
    tab.pending_url
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| tab.url.clone())
}

/// Only web pages may become sessions: `http(s):`, `about:` and tabs that have
/// not committed a URL yet. Never this extension's own pages (an agent must not
/// press Resume or re-pair), other extensions, `chrome://` or `file://` (§5's
/// scheme rule, applied to tabs the user opened).
///
/// # Errors
/// `invalid_action` naming the URL. Its advice is `open_tab` or another tab:
/// `navigate` needs a session in that tab, which this same rule refuses.
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
        "tab {tab} shows {url}: only http(s) pages can be controlled, so it cannot be navigated either; open_tab for a tab of your own, or pick another tab"
    )))
}

/// `session_not_found` for a tab that does not exist.
pub fn no_tab(tab: TabId) -> BridgeError {
    BridgeError::new(
        ErrorCode::SessionNotFound,
        format!("tab {tab} does not exist (closed?): call list_tabs and pass an existing tabId"),
    )
}

/// Sends one setup command; a failure is logged, not fatal.
async fn setup<C: Command>(tab: TabId, command: C) {
    if let Err(e) = cdp::send(tab, &command).await {
        chrome::log(&format!("session setup on tab {tab}: {e}"));
    }
}

impl Sessions {
    /// Attaches the debugger to `tab` and starts its session, unless it has one.
    ///
    /// # Errors
    /// `session_not_found` when the tab is gone, `domain_blocked` when its URL is
    /// blocked, `invalid_action` for pages the debugger may not attach to
    /// (`chrome://`, other extensions), `internal_error` for other attach failures.
    pub async fn ensure(&self, tab: TabId) -> Result<(), BridgeError> {
        if self.has(tab) {
            return Ok(());
        }
        let info = chrome::tabs_get(tab.0).await.map_err(|_| no_tab(tab))?;
        let url = tab_url(&info);
        check_controllable(tab, &url)?;
        self.check_blocklist(&url, Some(tab))?;
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
        let agent_window = self.is_agent_window(info.window_id);
        let started_at = chrome::now_ms();
        self.insert(Session {
            tab,
            agent_window,
            action_count: 0,
            uids: UidCache::new(),
            dialog: None,
            evaluating: 0,
            url: url.clone(),
            client: None,
            crashed: false,
            started_at,
            main_frame: None,
            main_loader: None,
            closing: false,
        });
        // The tab's requests to blocked hosts are refused before the action runs.
        self.sync_net_rule().await;
        let committed = self.prepare(tab).await;
        // The tab may have committed a blocked page between tabs.get and
        // Page.enable (a popup opened by a session tab loads before we attach): no
        // session may live on it.
        if let Err(e) = self.check_blocklist(committed.as_deref().unwrap_or_default(), Some(tab)) {
            self.remove(tab);
            let _ = chrome::detach(tab.0).await;
            return Err(e);
        }
        self.outbox.event(Event::SessionStarted(SessionStarted {
            tab_id: tab,
            url,
            agent_window,
            started_at,
        }));
        Ok(())
    }

    /// The per-session CDP setup, run at attach and again when a restarted worker
    /// takes a session back whose debugger had to be re-attached; failures are
    /// logged, not fatal. Records the main frame's id and returns the URL the main
    /// frame has committed, if known.
    pub async fn prepare(&self, tab: TabId) -> Option<String> {
        Sessions::enable_devtools(tab, None);
        setup(tab, fetch::Enable::documents()).await;
        setup(tab, target::SetAutoAttach::paused_children()).await;
        setup(tab, page::Enable {}).await;
        setup(tab, inspector::Enable {}).await;
        setup(tab, page::SetInterceptFileChooserDialog { enabled: true }).await;
        setup(
            tab,
            page::AddScriptToEvaluateOnNewDocument {
                source: WEBDRIVER_FALSE.into(),
                run_immediately: None,
            },
        )
        .await;
        // Pages see WebMCP in session tabs, also the one already loaded (§9).
        setup(
            tab,
            page::AddScriptToEvaluateOnNewDocument {
                source: crate::webmcp::SHIM.into(),
                run_immediately: Some(true),
            },
        )
        .await;
        setup(tab, runtime::Evaluate::new(WEBDRIVER_FALSE)).await;
        // A tab Chromium considers hidden (its window minimized after having been
        // shown, e.g. by the screenshot fallback; a background tab) acknowledges
        // synthesized mouse input only after a ~5 s input-ack timeout per
        // Input.dispatchMouseEvent (measured: 5006 ms hidden vs 4 ms visible).
        // Focus emulation makes DevTools hold the page as visible and focused
        // while we are attached, so input is delivered at once and frames keep
        // coming, without showing the window to the user.
        setup(tab, emulation::SetFocusEmulationEnabled { enabled: true }).await;
        self.note_main_frame(tab).await
    }

    /// Records the session's main-frame id (`Page.getFrameTree`), which the
    /// `Fetch` interception tells apart from iframes, and checks a restored
    /// session's uids against its document ([`Session::confirm_main_document`]);
    /// returns the URL that frame committed.
    pub async fn note_main_frame(&self, tab: TabId) -> Option<String> {
        let frame = cdp::send(tab, &page::GetFrameTree {})
            .await
            .map(|tree| tree.frame_tree.frame);
        let frame = frame.ok();
        self.with(tab, |s| {
            s.confirm_main_document(frame.as_ref().map(|f| f.loader_id.as_str()));
            if let Some(f) = &frame {
                s.main_frame = Some(f.id.0.clone());
            }
        });
        frame.map(|f| f.url)
    }

    /// The session of a tab a session tab opened: started at once, failures logged.
    pub(super) fn ensure_in_background(&self, tab: TabId) {
        let sessions = self.clone();
        spawn_local(async move {
            if let Err(e) = sessions.ensure(tab).await {
                chrome::log(&format!("session for opened tab {tab}: {}", e.message));
            }
        });
    }
}
