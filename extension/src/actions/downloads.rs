//! `wait_for_download` and `list_downloads` (PROTOCOL.md §10.2), and the
//! `download` an input or a `navigate` reports: reads of the session's
//! downloads (`sessions::downloads`) and of their `chrome.downloads` items.
//! Neither touches the page, so they run beside the tab's other actions.

use browser_bridge_cdp::page::DownloadWillBegin;
use browser_bridge_protocol::downloads::{
    DOWNLOADS_LIMIT_DEFAULT, Download, DownloadState, ListDownloads, ListDownloadsResult,
    WaitForDownload, WaitForDownloadResult,
};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use gloo_timers::future::TimeoutFuture;

use crate::app::App;
use crate::chrome;
use crate::core::downloads::state_of;
use crate::sessions::downloads::{BLOCKED, Tracked};

/// Interval of the look at a download's item while waiting for its end (ms).
const POLL_MS: u32 = 100;

/// The `download` of a result, once the item of `began` was looked for.
///
/// # Errors
/// `domain_blocked` when the blocklist refused it (cancelled, the event sent);
/// `internal_error` when Chrome never listed its item.
pub async fn began(
    app: &App,
    tab: TabId,
    began: &DownloadWillBegin,
) -> Result<Download, BridgeError> {
    let tracked = app
        .sessions
        .settled_download(tab, &began.guid)
        .await
        .ok_or_else(|| BridgeError::internal(format!("download of {} not tracked", began.url)))?;
    if let Some(domain) = &tracked.blocked {
        return Err(refused(&tracked, domain));
    }
    let item = match tracked.id {
        Some(id) => chrome::download_get(id).await,
        None => None,
    };
    tracked.report(item.as_ref()).ok_or_else(|| {
        BridgeError::internal(format!(
            "Chrome began a download of {} but chrome.downloads never listed it",
            began.url
        ))
    })
}

fn refused(tracked: &Tracked, domain: &str) -> BridgeError {
    BridgeError::new(
        ErrorCode::DomainBlocked,
        format!(
            "the download of {} was cancelled: {domain} is on the user's blocklist; do not retry, tell the user",
            tracked.url
        ),
    )
}

/// `wait_for_download`: the download named (else the session's latest, else the
/// next to begin) once it ended.
///
/// # Errors
/// `invalid_action` for a `downloadId` that is not this session's;
/// `domain_blocked` for a refused one; `timeout` when none began or it did not
/// end within `timeoutMs`.
pub async fn wait_for_download(
    app: &App,
    tab: TabId,
    p: WaitForDownload,
) -> Result<ActionResult, BridgeError> {
    let timeout = p.timeout_ms();
    let deadline = js_sys::Date::now() + timeout as f64;
    let sessions = &app.sessions;
    let tracked = match p.download_id {
        Some(id) => sessions
            .download_by(tab, |t| t.id == Some(id))
            .ok_or_else(|| {
                BridgeError::invalid_action(format!(
                    "download {id} is not one of tab {tab}'s downloads: take an id from its click, navigate or list_downloads"
                ))
            })?,
        None => match sessions.download_by(tab, |t| t.id.is_some() || !t.settled) {
            Some(t) if t.settled => t,
            Some(t) => sessions
                .settled_download(tab, &t.guid)
                .await
                .unwrap_or(t),
            None => {
                let next = app.events.wait::<DownloadWillBegin>(tab);
                let Some(event) = crate::cdp::within(next, timeout.min(u32::MAX as u64) as u32).await
                else {
                    return Err(BridgeError::new(
                        ErrorCode::Timeout,
                        format!("tab {tab} began no download within {timeout} ms"),
                    ));
                };
                sessions
                    .settled_download(tab, &event.guid)
                    .await
                    .ok_or_else(|| BridgeError::internal("download not tracked"))?
            }
        },
    };
    if let Some(domain) = &tracked.blocked {
        return Err(refused(&tracked, domain));
    }
    let Some(id) = tracked.id else {
        return Err(BridgeError::internal(format!(
            "Chrome began a download of {} but chrome.downloads never listed it",
            tracked.url
        )));
    };
    loop {
        let item = chrome::download_get(id).await.ok_or_else(|| {
            BridgeError::invalid_action(format!(
                "download {id} is gone from Chrome's list (the user removed it)"
            ))
        })?;
        let state = state_of(&item.state);
        if state != DownloadState::InProgress {
            return Ok(ActionResult::WaitForDownload(WaitForDownloadResult {
                tab_id: tab,
                download_id: id,
                path: item.filename,
                bytes: item.bytes_received.max(0.0) as u64,
                sha256: None,
                mime_type: item.mime,
                state,
                error: item.error,
            }));
        }
        if js_sys::Date::now() > deadline {
            let held = match item.danger.as_str() {
                "safe" | "accepted" | "" => String::new(),
                danger => {
                    format!("; Chrome holds it as dangerous ({danger}): the user must keep it")
                }
            };
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!(
                    "download {id} is still in progress after {timeout} ms ({} bytes received){held}",
                    item.bytes_received as u64
                ),
            ));
        }
        TimeoutFuture::new(POLL_MS).await;
    }
}

/// `list_downloads`: the session's newest downloads, newest first, as Chrome
/// has them now.
pub async fn list_downloads(app: &App, tab: TabId, p: ListDownloads) -> ActionResult {
    let limit = p.limit.unwrap_or(DOWNLOADS_LIMIT_DEFAULT) as usize;
    let mut downloads = Vec::new();
    for tracked in app.sessions.downloads(tab).into_iter().take(limit) {
        let item = match tracked.id {
            Some(id) => chrome::download_get(id).await,
            None => None,
        };
        if let Some(mut d) = tracked.report(item.as_ref()) {
            d.bytes = Some(item.map_or(0, |i| i.bytes_received.max(0.0) as u64));
            if tracked.blocked.is_some() {
                d.error = Some(BLOCKED.to_owned());
            }
            downloads.push(d);
        }
    }
    ActionResult::ListDownloads(ListDownloadsResult {
        tab_id: tab,
        downloads,
    })
}
