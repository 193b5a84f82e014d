//! `navigate`, `go_back`, `go_forward`, `reload` (§5): each waits for the load
//! (`Page.loadEventFired`), or for `DOMContentLoaded` and then at most
//! [`LOAD_AFTER_DOM_CONTENT_MS`] (`loadPending`), or a same-document commit, and
//! reports `navigation_failed` with Chrome's net error. A `navigate` whose URL
//! is answered as an attachment becomes a download (`Page.downloadWillBegin`)
//! and answers at once with it (§10.2): no document loads.

use std::cell::Cell;
use std::rc::Rc;

use browser_bridge_cdp::network::LoadingFailed;
use browser_bridge_cdp::page::{
    DomContentEventFired, DownloadWillBegin, FrameNavigated, GetNavigationHistory, LoadEventFired,
    Navigate as CdpNavigate, NavigateToHistoryEntry, NavigatedWithinDocument, Reload,
};
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::Navigate;
use browser_bridge_protocol::deadline::NAVIGATION_DEADLINE_MS;
use browser_bridge_protocol::result::{DialogInfo, PageResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use futures::channel::oneshot::Receiver;
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use serde_json::json;

use crate::actions::downloads;
use crate::app::App;
use crate::sessions::attach::no_tab;
use crate::{cdp, chrome};

/// Longest wait for a load after the navigation was accepted (ms): the backend's
/// navigation deadline less 2 s, so that the load's own `timeout` answer (with
/// its reason) arrives before the backend's.
pub const LOAD_TIMEOUT_MS: u32 = NAVIGATION_DEADLINE_MS as u32 - 2_000;

/// How long a navigation still waits for `load` once `DOMContentLoaded` fired
/// (ms): past it the document is reported usable with `loadPending` (a
/// subresource that never finishes must not hold the agent for the whole
/// deadline).
pub const LOAD_AFTER_DOM_CONTENT_MS: u32 = 1_500;

/// The load waiters of one navigation, armed before it starts.
pub struct LoadWatch {
    loaded: Receiver<LoadEventFired>,
    dom_content: Receiver<DomContentEventFired>,
    /// Kept so that its filter sees the main frame's commit.
    _committed: Receiver<FrameNavigated>,
}

impl LoadWatch {
    /// Arms `Page.loadEventFired` and `Page.domContentEventFired` on `tab`,
    /// counting only those after a main-frame `Page.frameNavigated`: the document
    /// being left may still fire its own (a load held up by an `alert` that was
    /// just answered), and that must not pass for the new document's.
    pub fn start(app: &App, tab: TabId) -> LoadWatch {
        let committed = Rc::new(Cell::new(false));
        let seen = Rc::clone(&committed);
        let navigated = app.events.wait_where(tab, move |e: &FrameNavigated| {
            seen.set(seen.get() || e.is_main_frame());
            e.is_main_frame()
        });
        let (after_load, after_dom) = (Rc::clone(&committed), committed);
        LoadWatch {
            loaded: app
                .events
                .wait_where(tab, move |_: &LoadEventFired| after_load.get()),
            dom_content: app
                .events
                .wait_where(tab, move |_: &DomContentEventFired| after_dom.get()),
            _committed: navigated,
        }
    }

    /// Waits for the document: `Some(false)` after `load`, `Some(true)` (load
    /// pending) when `load` did not follow `DOMContentLoaded` within
    /// [`LOAD_AFTER_DOM_CONTENT_MS`], `None` when neither came within
    /// [`LOAD_TIMEOUT_MS`].
    pub async fn wait(self) -> Option<bool> {
        let LoadWatch {
            loaded,
            dom_content,
            _committed,
        } = self;
        let first = select(loaded, dom_content);
        match select(first, TimeoutFuture::new(LOAD_TIMEOUT_MS)).await {
            Either::Left((Either::Left((Ok(_), _)), _)) => Some(false),
            Either::Left((Either::Right((Ok(_), loaded)), _)) => Some(
                cdp::within(loaded, LOAD_AFTER_DOM_CONTENT_MS)
                    .await
                    .is_none(),
            ),
            _ => None,
        }
    }
}

/// `navigate`.
///
/// # Errors
/// `invalid_action` (scheme, unparsable URL), `domain_blocked`,
/// `navigation_failed`, `timeout`.
pub async fn navigate(app: &App, tab: TabId, p: Navigate) -> Result<ActionResult, BridgeError> {
    let url = app.sessions.check_target_url(&p.url, Some(tab))?;
    let page = load(app, tab, &url).await?;
    Ok(ActionResult::Navigate(page))
}

/// Loads `url` in `tab` and waits for the document ([`LoadWatch`]);
/// `{tabId, url, title, loadPending}` afterwards.
///
/// # Errors
/// `navigation_failed` with CDP's `errorText`, `timeout` when no load came.
pub async fn load(app: &App, tab: TabId, url: &str) -> Result<PageResult, BridgeError> {
    app.sessions.with(tab, |s| s.uids.invalidate());
    let loaded = LoadWatch::start(app, tab);
    if app.sessions.with(tab, |s| s.crashed) == Some(true) {
        return reload_crashed(app, tab, Some(url), loaded).await;
    }
    let download = app.events.wait::<DownloadWillBegin>(tab);
    let nav = cdp::send(
        tab,
        &CdpNavigate {
            url: url.to_owned(),
        },
    )
    .await?;
    if let Some(error) = nav.error_text.filter(|e| !e.is_empty()) {
        // Chrome aborts a navigation that turned into a download.
        if error == ABORTED
            && let Some(began) = cdp::within(download, DOWNLOAD_AFTER_ABORT_MS).await
        {
            return downloaded(app, tab, &began).await;
        }
        return Err(BridgeError::new(
            ErrorCode::NavigationFailed,
            format!("{url}: {error}"),
        ));
    }
    let mut load_pending = false;
    if nav.loader_id.is_some() {
        let pending = match select(Box::pin(loaded.wait()), download).await {
            Either::Left((pending, _)) => pending,
            Either::Right((Ok(began), _)) => return downloaded(app, tab, &began).await,
            Either::Right((Err(_), wait)) => wait.await,
        };
        let Some(pending) = pending else {
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("{url}: the page did not finish loading"),
            ));
        };
        load_pending = pending;
    }
    let page = page_info(tab).await?;
    Ok(PageResult {
        load_pending,
        ..page
    })
}

/// The net error of a navigation Chrome stopped, a download's included.
const ABORTED: &str = "net::ERR_ABORTED";
/// How long an aborted navigation waits for the download that may have
/// aborted it (ms); CDP reports the download before the navigation's answer.
const DOWNLOAD_AFTER_ABORT_MS: u32 = 1_000;

/// The answer of a navigation that became a download: the page the tab still
/// shows, and the download.
///
/// # Errors
/// `domain_blocked` when the blocklist refused the download.
async fn downloaded(
    app: &App,
    tab: TabId,
    began: &DownloadWillBegin,
) -> Result<PageResult, BridgeError> {
    let download = downloads::began(app, tab, began).await?;
    let page = page_info(tab).await?;
    Ok(PageResult {
        download: Some(Box::new(download)),
        ..page
    })
}

/// `go_back` (`delta` -1) / `go_forward` (+1) through `Page.navigateToHistoryEntry`.
///
/// # Errors
/// `invalid_action` when there is no such history entry; `navigation_failed`
/// with Chrome's net error when the entry's page cannot be loaded; `timeout`.
pub async fn history(app: &App, tab: TabId, delta: i64) -> Result<PageResult, BridgeError> {
    let h = cdp::send(tab, &GetNavigationHistory {}).await?;
    let Some(entry) = h.entry(delta) else {
        let which = if delta < 0 { "previous" } else { "next" };
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has no {which} page in its history"
        )));
    };
    app.sessions.check_blocklist(&entry.url, Some(tab))?;
    let loaded = LoadWatch::start(app, tab);
    let same_doc = app.events.wait::<NavigatedWithinDocument>(tab);
    // A back/forward-cache restore fires neither load nor a same-document event.
    let restored = app.events.wait_where(tab, |e: &FrameNavigated| {
        e.kind == "BackForwardCacheRestore" && e.is_main_frame()
    });
    let failed = watch_failure(app, tab).await;
    cdp::send(tab, &NavigateToHistoryEntry { entry_id: entry.id }).await?;
    let any = Box::pin(async move {
        // (new document, load pending)
        match select(Box::pin(loaded.wait()), select(same_doc, restored)).await {
            Either::Left((Some(pending), _)) => Some((true, pending)),
            Either::Right((Either::Left((Ok(_), _)), _)) => Some((false, false)),
            Either::Right((Either::Right((Ok(_), _)), _)) => Some((true, false)),
            _ => None,
        }
    });
    let load_pending = match select(any, TimeoutFuture::new(LOAD_TIMEOUT_MS)).await {
        Either::Left((Some((new_document, pending)), _)) => {
            if new_document {
                app.sessions.with(tab, |s| s.uids.invalidate());
            }
            pending
        }
        _ => {
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("tab {tab}: the page did not finish loading"),
            ));
        }
    };
    checked_page_info(tab, failed, load_pending).await
}

/// `reload`.
///
/// # Errors
/// `navigation_failed` with Chrome's net error when the page cannot be loaded
/// again; `timeout` when the reload does not finish.
pub async fn reload(app: &App, tab: TabId) -> Result<PageResult, BridgeError> {
    app.sessions.with(tab, |s| s.uids.invalidate());
    let loaded = LoadWatch::start(app, tab);
    if app.sessions.with(tab, |s| s.crashed) == Some(true) {
        return reload_crashed(app, tab, None, loaded).await;
    }
    let failed = watch_failure(app, tab).await;
    cdp::send(tab, &Reload {}).await?;
    let Some(load_pending) = loaded.wait().await else {
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!("tab {tab}: the reload did not finish"),
        ));
    };
    checked_page_info(tab, failed, load_pending).await
}

/// Watches for the failure of a document load (`Network.loadingFailed`, whose
/// `errorText` is the net error such as `net::ERR_CONNECTION_REFUSED`).
/// `Page.reload` and `Page.navigateToHistoryEntry` do not report it the way
/// `Page.navigate` does: the tab just commits Chrome's error page. The Network
/// domain is on for the whole session (its requests, §10.1).
async fn watch_failure(app: &App, tab: TabId) -> Receiver<LoadingFailed> {
    app.events
        .wait_where(tab, LoadingFailed::is_document_failure)
}

/// [`page_info`] after a reload or history load; a committed error page
/// (`chrome-error://`) becomes `navigation_failed` with the net error seen by
/// [`watch_failure`].
async fn checked_page_info(
    tab: TabId,
    failed: Receiver<LoadingFailed>,
    load_pending: bool,
) -> Result<PageResult, BridgeError> {
    let page = page_info(tab)
        .await
        .map(|p| PageResult { load_pending, ..p });
    if !matches!(&page, Ok(p) if p.url.starts_with("chrome-error://")) {
        return page;
    }
    // The failure precedes the error page's load; 1 s covers a late delivery.
    let error = cdp::within(failed, 1_000)
        .await
        .map(|f| f.error_text)
        .unwrap_or_else(|| "Chrome showed its error page".to_owned());
    // The history entry keeps the URL that failed; the document is the error page.
    let url = cdp::send(tab, &GetNavigationHistory {})
        .await
        .ok()
        .and_then(|h| h.entry(0).map(|e| e.url.clone()))
        .unwrap_or_else(|| format!("tab {tab}"));
    Err(BridgeError::new(
        ErrorCode::NavigationFailed,
        format!("{url}: {error}"),
    ))
}

/// A crashed renderer answers no CDP command until the tab loads again, so the
/// load goes through `chrome.tabs.update` (the URL, or the current one again).
async fn reload_crashed(
    app: &App,
    tab: TabId,
    url: Option<&str>,
    loaded: LoadWatch,
) -> Result<PageResult, BridgeError> {
    let target = match url {
        Some(u) => u.to_owned(),
        None => chrome::tabs_get(tab.0)
            .await
            .map(|t| t.url)
            .map_err(|_| no_tab(tab))?,
    };
    chrome::tabs_update(tab.0, &json!({ "url": target }))
        .await
        .map_err(|e| BridgeError::internal(format!("tabs.update after a crash: {e}")))?;
    let Some(load_pending) = loaded.wait().await else {
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!("tab {tab}: the page did not load again after the crash"),
        ));
    };
    app.sessions.with(tab, |s| s.crashed = false);
    let page = page_info(tab).await?;
    Ok(PageResult {
        load_pending,
        ..page
    })
}

/// `{tabId, url, title}` of the tab's current document.
///
/// # Errors
/// `internal_error` when the page cannot be read.
pub async fn page_info(tab: TabId) -> Result<PageResult, BridgeError> {
    let r = cdp::send(tab, &Evaluate::by_value("[location.href, document.title]")).await?;
    let v = r.result.value.unwrap_or_default();
    let text = |i: usize| {
        v.get(i)
            .and_then(|s| s.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    Ok(PageResult::new(tab, text(0), text(1)))
}

/// The page of a navigation that a dialog holds: the URL and title Chrome shows
/// (`chrome.tabs.get`, which a dialog does not block), `loadPending`, `dialog`.
pub async fn page_under_dialog(app: &App, tab: TabId, dialog: DialogInfo) -> PageResult {
    let (url, title) = match chrome::tabs_get(tab.0).await {
        Ok(t) => (t.url, t.title),
        Err(_) => (
            app.sessions
                .with(tab, |s| s.url.clone())
                .unwrap_or_default(),
            String::new(),
        ),
    };
    PageResult {
        load_pending: true,
        dialog: Some(dialog),
        ..PageResult::new(tab, url, title)
    }
}

/// The three history actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Go {
    /// `go_back`.
    Back,
    /// `go_forward`.
    Forward,
    /// `reload`.
    Reload,
}

/// Runs one history action.
///
/// # Errors
/// As [`history`] / [`reload`].
pub async fn go(app: &App, tab: TabId, go: Go) -> Result<ActionResult, BridgeError> {
    Ok(match go {
        Go::Back => ActionResult::GoBack(history(app, tab, -1).await?),
        Go::Forward => ActionResult::GoForward(history(app, tab, 1).await?),
        Go::Reload => ActionResult::Reload(reload(app, tab).await?),
    })
}
