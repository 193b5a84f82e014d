//! Each session's downloads (PROTOCOL.md §10.2). `chrome.downloads` items carry
//! no tab, so a download is tied to a session by CDP: the tab's
//! `Page.downloadWillBegin` (its frames' too) names the URL, and the newest
//! `chrome.downloads` item of that URL not yet tied to a session is its item.
//! A download whose URL (before or after redirects) is on the blocklist is
//! cancelled as soon as its item is found (its file removed if it had already
//! ended) and sends `domain_blocked`.

use browser_bridge_cdp::page::DownloadWillBegin;
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::downloads::{Download, DownloadState};
use gloo_timers::future::TimeoutFuture;
use serde_json::json;
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::chrome::{self, DownloadItem};
use crate::core::downloads::{file_name, judged, state_of, unclaimed};

/// Longest look for the `chrome.downloads` item of a `Page.downloadWillBegin`
/// (ms): Chrome makes the item before it tells CDP, so it is found at the first
/// look but for a slow extension process.
const MATCH_MS: f64 = 3_000.0;
/// Interval of that look (ms).
const MATCH_POLL_MS: u32 = 20;
/// Downloads a session remembers, oldest forgotten first.
const KEPT: usize = 200;
/// `Download.error` of a download the blocklist refused.
pub const BLOCKED: &str = "domain_blocked";

/// One download a session's page started.
#[derive(Debug, Clone)]
pub struct Tracked {
    /// CDP's guid (`Page.downloadWillBegin`).
    pub guid: String,
    /// The URL CDP named (after redirects).
    pub url: String,
    /// Chrome's suggested file name.
    pub suggested: String,
    /// `chrome.downloads`' id, once its item was found.
    pub id: Option<u64>,
    /// The blocklist entry that refused it.
    pub blocked: Option<String>,
    /// The look for its item ended (found or not).
    pub settled: bool,
}

impl Tracked {
    /// The `download` of a result, from its item as Chrome has it now.
    pub fn report(&self, item: Option<&DownloadItem>) -> Option<Download> {
        let id = self.id?;
        let item = item.cloned().unwrap_or_default();
        let filename = file_name(&item.filename, &self.suggested);
        let (state, error) = match &self.blocked {
            Some(_) => (DownloadState::Interrupted, Some(BLOCKED.to_owned())),
            None => (state_of(&item.state), item.error.clone()),
        };
        Some(Download {
            download_id: id,
            url: if item.url.is_empty() {
                self.url.clone()
            } else {
                item.url.clone()
            },
            filename,
            state,
            bytes: None,
            error,
        })
    }
}

impl Sessions {
    /// `Page.downloadWillBegin` of `tab` (or of one of its frames): tracked at
    /// once, then tied to its `chrome.downloads` item (and refused when blocked)
    /// in a task of its own.
    pub fn on_download_will_begin(&self, tab: TabId, event: DownloadWillBegin) {
        if !self.has(tab) {
            return;
        }
        {
            let mut reg = self.reg.borrow_mut();
            let list = reg.downloads.entry(tab).or_default();
            list.push(Tracked {
                guid: event.guid.clone(),
                url: event.url.clone(),
                suggested: event.suggested_filename.clone(),
                id: None,
                blocked: None,
                settled: false,
            });
            if list.len() > KEPT {
                list.remove(0);
            }
        }
        let sessions = self.clone();
        spawn_local(async move { sessions.match_item(tab, &event.guid, &event.url).await });
    }

    /// Finds the item of `guid` (the newest of its URL tied to no session),
    /// records its id and refuses it when its URL is blocked.
    async fn match_item(&self, tab: TabId, guid: &str, url: &str) {
        let deadline = js_sys::Date::now() + MATCH_MS;
        let item = loop {
            if let Some(item) = self.unclaimed_item(url).await {
                break Some(item);
            }
            if js_sys::Date::now() > deadline {
                break None;
            }
            TimeoutFuture::new(MATCH_POLL_MS).await;
        };
        let blocked = [url, item.as_ref().map_or("", |i| &i.url)]
            .into_iter()
            .chain(item.as_ref().map(|i| i.final_url.as_str()))
            .filter(|u| !u.is_empty())
            .find_map(|u| self.blocking_domain(judged(u)).map(|d| (u.to_owned(), d)));
        if let (Some((blocked_url, domain)), Some(item)) = (&blocked, &item) {
            // Cancelled at once; one that already ended loses its file.
            let _ = chrome::downloads_cancel(item.id).await;
            if chrome::download_get(item.id)
                .await
                .is_some_and(|now| now.state == "complete")
            {
                let _ = chrome::downloads_remove_file(item.id).await;
            }
            let _ = self.domain_blocked(Some(tab), blocked_url, domain);
        }
        let mut reg = self.reg.borrow_mut();
        if let Some(t) = reg
            .downloads
            .get_mut(&tab)
            .and_then(|list| list.iter_mut().find(|t| t.guid == guid))
        {
            t.id = item.map(|i| i.id);
            t.blocked = blocked.map(|(_, d)| d);
            t.settled = true;
        }
    }

    /// The newest `chrome.downloads` item of `url` (after or before redirects)
    /// that no session's download claims yet.
    async fn unclaimed_item(&self, url: &str) -> Option<DownloadItem> {
        for key in ["finalUrl", "url"] {
            let query = json!({ key: url, "orderBy": ["-startTime"], "limit": 10 });
            let items = chrome::downloads_search(&query).await.unwrap_or_default();
            let ids: Vec<u64> = items.iter().map(|i| i.id).collect();
            let reg = self.reg.borrow();
            let claimed = |id: u64| reg.downloads.values().flatten().any(|t| t.id == Some(id));
            if let Some(id) = unclaimed(&ids, claimed) {
                return items.into_iter().find(|i| i.id == id);
            }
        }
        None
    }

    /// The download of `guid` in `tab` once its item was looked for (at most
    /// 3.5 s); `None` when the session forgot it.
    pub async fn settled_download(&self, tab: TabId, guid: &str) -> Option<Tracked> {
        let deadline = js_sys::Date::now() + MATCH_MS + 500.0;
        loop {
            let tracked = self.download_by(tab, |t| t.guid == guid)?;
            if tracked.settled || js_sys::Date::now() > deadline {
                return Some(tracked);
            }
            TimeoutFuture::new(MATCH_POLL_MS).await;
        }
    }

    /// The first of `tab`'s downloads (newest first) that `pick` takes.
    pub fn download_by(&self, tab: TabId, pick: impl Fn(&Tracked) -> bool) -> Option<Tracked> {
        let reg = self.reg.borrow();
        reg.downloads
            .get(&tab)?
            .iter()
            .rev()
            .find(|t| pick(t))
            .cloned()
    }

    /// `tab`'s downloads tied to their items, newest first.
    pub fn downloads(&self, tab: TabId) -> Vec<Tracked> {
        let reg = self.reg.borrow();
        reg.downloads
            .get(&tab)
            .map(|list| {
                list.iter()
                    .rev()
                    .filter(|t| t.id.is_some())
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Drops the downloads of a session that ended (Chrome keeps the files).
    pub(super) fn forget_downloads(&self, tab: TabId) {
        self.reg.borrow_mut().downloads.remove(&tab);
    }
}
