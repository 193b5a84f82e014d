//! A session's console and network (PROTOCOL.md §10.1 "Console and network"):
//! the parameters and results of `console_messages`, `network_requests` and
//! `network_response_body`. The extension keeps the last
//! [`CONSOLE_BUFFER_MESSAGES`] console messages and [`NETWORK_BUFFER_REQUESTS`]
//! requests of each session from attach on (CDP `Runtime`, `Log`, `Network`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ids::TabId;

/// Console messages a session keeps, oldest evicted first.
pub const CONSOLE_BUFFER_MESSAGES: usize = 500;
/// Network requests a session keeps, oldest evicted first.
pub const NETWORK_BUFFER_REQUESTS: usize = 500;
/// Largest `limit` of `console_messages` and `network_requests`.
pub const LIST_LIMIT_MAX: u32 = 200;
/// `limit` when left out.
pub const LIST_LIMIT_DEFAULT: u32 = 50;
/// Largest console message `text` (bytes); a longer one is cut on a char
/// boundary and ends with [`CUT_MARK`].
pub const CONSOLE_TEXT_MAX_BYTES: usize = 2_048;
/// Largest request `url` kept (bytes), cut like a console text (`data:` URLs).
pub const REQUEST_URL_MAX_BYTES: usize = 2_048;
/// Largest body answered (bytes of the body: text as UTF-8, binary before
/// base64); a longer one is cut and flagged `truncated`.
pub const RESPONSE_BODY_MAX_BYTES: usize = 1_048_576;
/// What ends a text cut to its cap.
pub const CUT_MARK: &str = "…[cut]";

/// A console message's level, DevTools' names: `console.error`, `console.assert`
/// and uncaught exceptions are `error`; `console.warn` `warning`;
/// `console.debug` (and the browser's `verbose` entries) `debug`; every other
/// console call (`log`, `info`, `table`, `trace`, …) `info`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ConsoleLevel {
    /// `console.error`, `console.assert`, an uncaught exception, a failed load.
    Error,
    /// `console.warn`.
    Warning,
    /// `console.log`, `console.info` and the other console calls.
    Info,
    /// `console.debug`.
    Debug,
}

impl ConsoleLevel {
    /// The wire name (`"warning"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `console_messages` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessages {
    /// The tab to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Only the messages of this level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<ConsoleLevel>,
    /// At most this many, the newest (1..200, default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = LIST_LIMIT_MAX))]
    pub limit: Option<u32>,
}

/// `network_requests` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequests {
    /// The tab to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Only the requests whose URL contains this (case-sensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub url_contains: Option<String>,
    /// Only this CDP resource type (`Document`, `Fetch`, `XHR`, `Script`,
    /// `Image`, …), ignoring case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub resource_type: Option<String>,
    /// At most this many, the newest (1..200, default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = LIST_LIMIT_MAX))]
    pub limit: Option<u32>,
}

/// `network_response_body` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkResponseBody {
    /// The tab whose request it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// A `requestId` from `network_requests`.
    #[schemars(length(min = 1))]
    pub request_id: String,
}

/// One console message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessage {
    /// Its level.
    pub level: ConsoleLevel,
    /// The arguments as DevTools prints them, joined by spaces; an exception's
    /// `Uncaught` and stack. At most 2 048 bytes, a cut one ending `…[cut]`.
    pub text: String,
    /// The script or resource it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its line in `url`, counted from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// When it was logged (ms since the Unix epoch).
    pub timestamp: f64,
}

/// `console_messages` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleMessagesResult {
    /// The tab read.
    pub tab_id: TabId,
    /// The newest matching messages, oldest first (newest last).
    pub messages: Vec<ConsoleMessage>,
}

/// One network request of the tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequest {
    /// CDP's `Network.RequestId`, for `network_response_body`.
    pub request_id: String,
    /// HTTP method (`GET`).
    pub method: String,
    /// The URL (the last one after redirects), at most 2 048 bytes.
    pub url: String,
    /// HTTP status; absent while no response arrived, and for a failed request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// CDP's `Network.ResourceType` (`Document`, `Fetch`, `Image`, …).
    pub resource_type: String,
    /// The response's MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Bytes received over the network (`encodedDataLength`); absent until it
    /// finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// From sent to finished or failed (ms); absent while in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// Why it failed: Chrome's net error (`net::ERR_CONNECTION_REFUSED`), or
    /// `blocked: <reason>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `network_requests` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequestsResult {
    /// The tab read.
    pub tab_id: TabId,
    /// The newest matching requests in the order they were sent (newest last).
    pub requests: Vec<NetworkRequest>,
}

/// `network_response_body` result (`Network.getResponseBody`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkResponseBodyResult {
    /// The tab read.
    pub tab_id: TabId,
    /// The request.
    pub request_id: String,
    /// The body: text, or base64 when `base64Encoded`.
    pub body: String,
    /// The body is binary, in base64.
    pub base64_encoded: bool,
    /// Set when the body was over 1 MiB and only its first MiB is answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}
