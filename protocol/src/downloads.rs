//! A session's downloads (PROTOCOL.md §10.2 "Downloads"): the `download` an
//! input or a `navigate` reports, and the parameters and results of
//! `wait_for_download` and `list_downloads`. Ids and states are
//! `chrome.downloads`' (`DownloadItem.id`, `State`); the extension ties a
//! download to the tab whose page started it (CDP `Page.downloadWillBegin`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ids::TabId;

/// Largest `wait_for_download.timeoutMs` (ms): five minutes.
pub const WAIT_FOR_DOWNLOAD_MAX_TIMEOUT_MS: u64 = 300_000;
/// `wait_for_download.timeoutMs` when left out (ms).
pub const WAIT_FOR_DOWNLOAD_DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Largest `list_downloads.limit`.
pub const DOWNLOADS_LIMIT_MAX: u32 = 50;
/// `list_downloads.limit` when left out.
pub const DOWNLOADS_LIMIT_DEFAULT: u32 = 10;

/// A download's state, `chrome.downloads.State`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DownloadState {
    /// Still receiving data.
    InProgress,
    /// Stopped before the end: an error, cancelled, or refused (blocklist).
    Interrupted,
    /// Every byte is in the file.
    Complete,
}

impl DownloadState {
    /// The wire name (`"in_progress"`), as `chrome.downloads` spells it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One download of a session: what `click`, `press_key`, `navigate` (and
/// `fill_form`'s submit) report as `download`, and one entry of `list_downloads`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Download {
    /// `chrome.downloads`' id, for `wait_for_download`.
    pub download_id: u64,
    /// The URL it was started from (a `blob:` or `data:` URL included).
    pub url: String,
    /// The file's name (no directory); Chrome's suggested name until the file
    /// is named.
    pub filename: String,
    /// Its state when reported.
    pub state: DownloadState,
    /// Bytes received so far (`list_downloads`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Why it was interrupted: Chrome's `InterruptReason` (`NETWORK_FAILED`,
    /// `USER_CANCELED` …) or `domain_blocked`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `wait_for_download` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForDownload {
    /// The download (from a `download` or `list_downloads`); default the
    /// session's latest, or the next to begin when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_id: Option<u64>,
    /// The tab whose download it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// How long to wait for the end (ms, default 30000, max 300000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = WAIT_FOR_DOWNLOAD_MAX_TIMEOUT_MS))]
    pub timeout_ms: Option<u64>,
}

impl WaitForDownload {
    /// `timeoutMs`, or its default (ms).
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
            .unwrap_or(WAIT_FOR_DOWNLOAD_DEFAULT_TIMEOUT_MS)
    }
}

/// `list_downloads` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDownloads {
    /// The tab whose downloads to list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// At most this many, the newest (1..50, default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = DOWNLOADS_LIMIT_MAX))]
    pub limit: Option<u32>,
}

/// `wait_for_download` result: the download once it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForDownloadResult {
    /// The tab whose download it is.
    pub tab_id: TabId,
    /// `chrome.downloads`' id.
    pub download_id: u64,
    /// The file's absolute path on the browser's machine (`""` when Chrome
    /// never named one).
    pub path: String,
    /// The file's size (bytes): read from the file by the backend, else
    /// Chrome's count of bytes received.
    pub bytes: u64,
    /// SHA-256 of the file, 64 lowercase hex digits; filled by the backend,
    /// which reads `path` on the same machine. Absent when the download was
    /// interrupted or the file cannot be read there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The MIME type the server declared (`""` when none).
    pub mime_type: String,
    /// `complete` or `interrupted`.
    pub state: DownloadState,
    /// Why it was interrupted (as [`Download::error`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `list_downloads` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDownloadsResult {
    /// The tab read.
    pub tab_id: TabId,
    /// The session's newest downloads, newest first.
    pub downloads: Vec<Download>,
}
