//! `navigate`, `go_back`, `go_forward`, `reload` (§5): each waits for the load
//! (`Page.loadEventFired`) or a same-document commit, and reports
//! `navigation_failed` with Chrome's net error.

use browser_bridge_protocol::action::Navigate;
use browser_bridge_protocol::deadline::NAVIGATION_DEADLINE_MS;
use browser_bridge_protocol::result::PageResult;
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use futures::future::{Either, select};
use serde_json::json;

use crate::cdp::{self, NavigationHistory};
use crate::sessions;

/// Longest wait for a load after the navigation was accepted (ms): 2 s under the
/// backend's navigation deadline, which bounds the whole action anyway, so the
/// extension still answers in time.
pub const LOAD_TIMEOUT_MS: u32 = (NAVIGATION_DEADLINE_MS - 2_000) as u32;

/// `navigate`.
///
/// # Errors
/// `invalid_action` (scheme, unparsable URL), `domain_blocked`,
/// `navigation_failed`, `timeout`.
pub async fn navigate(tab: TabId, p: Navigate) -> Result<ActionResult, BridgeError> {
    let url = sessions::check_target_url(&p.url, Some(tab))?;
    let page = load(tab, &url).await?;
    Ok(ActionResult::Navigate(page))
}

/// Loads `url` in `tab` and waits for the load; `{tabId, url, title}` afterwards.
///
/// # Errors
/// `navigation_failed` with CDP's `errorText`, `timeout` when no load came.
pub async fn load(tab: TabId, url: &str) -> Result<PageResult, BridgeError> {
    sessions::with_session(tab, |s| s.uids.invalidate());
    let loaded = cdp::wait_event(tab, "Page.loadEventFired");
    if sessions::with_session(tab, |s| s.crashed) == Some(true) {
        return reload_crashed(tab, Some(url), loaded).await;
    }
    let nav: cdp::Navigate = cdp::call(tab, "Page.navigate", json!({ "url": url })).await?;
    if let Some(error) = nav.error_text.filter(|e| !e.is_empty()) {
        return Err(BridgeError::new(
            ErrorCode::NavigationFailed,
            format!("{url}: {error}"),
        ));
    }
    if nav.loader_id.is_some() && cdp::within(loaded, LOAD_TIMEOUT_MS).await.is_none() {
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!("{url}: the page did not finish loading"),
        ));
    }
    page_info(tab).await
}

/// `go_back` (`delta` -1) / `go_forward` (+1) through `Page.navigateToHistoryEntry`.
///
/// # Errors
/// `invalid_action` when there is no such history entry; `navigation_failed`
/// with Chrome's net error when the entry's page cannot be loaded; `timeout`.
pub async fn history(tab: TabId, delta: i64) -> Result<PageResult, BridgeError> {
    let h: NavigationHistory = cdp::call(tab, "Page.getNavigationHistory", json!({})).await?;
    let index = h.current_index + delta;
    let Some(entry) = usize::try_from(index).ok().and_then(|i| h.entries.get(i)) else {
        let which = if delta < 0 { "previous" } else { "next" };
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has no {which} page in its history"
        )));
    };
    sessions::check_blocklist(&entry.url, Some(tab))?;
    let loaded = cdp::wait_event(tab, "Page.loadEventFired");
    let same_doc = cdp::wait_event(tab, "Page.navigatedWithinDocument");
    // A back/forward-cache restore fires neither load nor a same-document event.
    let restored = cdp::wait_event_where(tab, "Page.frameNavigated", |p| {
        p["type"] == "BackForwardCacheRestore" && p["frame"]["parentId"].is_null()
    });
    let failed = watch_failure(tab).await;
    cdp::send(
        tab,
        "Page.navigateToHistoryEntry",
        json!({ "entryId": entry.id }),
    )
    .await?;
    let any = Box::pin(async move {
        match select(loaded, select(same_doc, restored)).await {
            Either::Left((Ok(_), _)) => Some(true),
            Either::Right((Either::Left((Ok(_), _)), _)) => Some(false),
            Either::Right((Either::Right((Ok(_), _)), _)) => Some(true),
            _ => None,
        }
    });
    match select(
        any,
        gloo_timers::future::TimeoutFuture::new(LOAD_TIMEOUT_MS),
    )
    .await
    {
        Either::Left((Some(new_document), _)) => {
            if new_document {
                sessions::with_session(tab, |s| s.uids.invalidate());
            }
        }
        _ => {
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("tab {tab}: the page did not finish loading"),
            ));
        }
    }
    checked_page_info(tab, failed).await
}

/// `reload`.
///
/// # Errors
/// `navigation_failed` with Chrome's net error when the page cannot be loaded
/// again; `timeout` when the reload does not finish.
pub async fn reload(tab: TabId) -> Result<PageResult, BridgeError> {
    sessions::with_session(tab, |s| s.uids.invalidate());
    let loaded = cdp::wait_event(tab, "Page.loadEventFired");
    if sessions::with_session(tab, |s| s.crashed) == Some(true) {
        return reload_crashed(tab, None, loaded).await;
    }
    let failed = watch_failure(tab).await;
    cdp::send(tab, "Page.reload", json!({})).await?;
    if cdp::within(loaded, LOAD_TIMEOUT_MS).await.is_none() {
        let _ = cdp::send(tab, "Network.disable", json!({})).await;
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!("tab {tab}: the reload did not finish"),
        ));
    }
    checked_page_info(tab, failed).await
}

/// Watches for the failure of a document load (`Network.loadingFailed`, whose
/// `errorText` is the net error such as `net::ERR_CONNECTION_REFUSED`).
/// `Page.reload` and `Page.navigateToHistoryEntry` do not report it the way
/// `Page.navigate` does: the tab just commits Chrome's error page.
async fn watch_failure(tab: TabId) -> futures::channel::oneshot::Receiver<serde_json::Value> {
    let failed = cdp::wait_event_where(tab, "Network.loadingFailed", |p| {
        p["type"] == "Document" && p["canceled"] != true
    });
    // Without the Network domain the only trace of the failure is the error page.
    let _ = cdp::send(tab, "Network.enable", json!({})).await;
    failed
}

/// [`page_info`] after a reload or history load; a committed error page
/// (`chrome-error://`) becomes `navigation_failed` with the net error seen by
/// [`watch_failure`].
async fn checked_page_info(
    tab: TabId,
    failed: futures::channel::oneshot::Receiver<serde_json::Value>,
) -> Result<PageResult, BridgeError> {
    let page = page_info(tab).await;
    if !matches!(&page, Ok(p) if p.url.starts_with("chrome-error://")) {
        let _ = cdp::send(tab, "Network.disable", json!({})).await;
        return page;
    }
    // The failure precedes the error page's load; 1 s covers a late delivery.
    let error = cdp::within(failed, 1_000)
        .await
        .and_then(|p| p["errorText"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "Chrome showed its error page".to_owned());
    let _ = cdp::send(tab, "Network.disable", json!({})).await;
    // The history entry keeps the URL that failed; the document is the error page.
    let url = cdp::call::<NavigationHistory>(tab, "Page.getNavigationHistory", json!({}))
        .await
        .ok()
        .and_then(|h| {
            usize::try_from(h.current_index)
                .ok()
                .and_then(|i| h.entries.into_iter().nth(i))
        })
        .map_or_else(|| format!("tab {tab}"), |e| e.url);
    Err(BridgeError::new(
        ErrorCode::NavigationFailed,
        format!("{url}: {error}"),
    ))
}

/// A crashed renderer answers no CDP command until the tab loads again, so the
/// load goes through `chrome.tabs.update` (the URL, or the current one again).
async fn reload_crashed(
    tab: TabId,
    url: Option<&str>,
    loaded: futures::channel::oneshot::Receiver<serde_json::Value>,
) -> Result<PageResult, BridgeError> {
    let target = match url {
        Some(u) => u.to_owned(),
        None => crate::chrome::tabs_get(tab.0)
            .await
            .map(|t| t.url)
            .map_err(|_| sessions::no_tab(tab))?,
    };
    crate::chrome::tabs_update(tab.0, &json!({ "url": target }))
        .await
        .map_err(|e| BridgeError::internal(format!("tabs.update after a crash: {e}")))?;
    if cdp::within(loaded, LOAD_TIMEOUT_MS).await.is_none() {
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!("tab {tab}: the page did not load again after the crash"),
        ));
    }
    sessions::with_session(tab, |s| s.crashed = false);
    page_info(tab).await
}

/// `{tabId, url, title}` of the tab's current document.
///
/// # Errors
/// `internal_error` when the page cannot be read.
pub async fn page_info(tab: TabId) -> Result<PageResult, BridgeError> {
    let r: cdp::EvalResult = cdp::call(
        tab,
        "Runtime.evaluate",
        json!({ "expression": "[location.href, document.title]", "returnByValue": true }),
    )
    .await?;
    let v = r.result.value.unwrap_or_default();
    Ok(PageResult {
        tab_id: tab,
        url: v[0].as_str().unwrap_or_default().to_owned(),
        title: v[1].as_str().unwrap_or_default().to_owned(),
    })
}

/// Dispatches the three history actions.
///
/// # Errors
/// As [`history`] / [`reload`].
pub async fn go(tab: TabId, action: &str) -> Result<ActionResult, BridgeError> {
    Ok(match action {
        "go_back" => ActionResult::GoBack(history(tab, -1).await?),
        "go_forward" => ActionResult::GoForward(history(tab, 1).await?),
        _ => ActionResult::Reload(reload(tab).await?),
    })
}
