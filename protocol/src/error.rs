//! Error codes and the error body (PROTOCOL.md §4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The 14 error codes of §4. Each tells the agent what to do next; none means
/// "retry the same call unchanged".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The message failed the schema: unknown action, both/neither target, bad field.
    InvalidRequest,
    /// Well-formed but cannot apply: evaluate threw, option missing, dialog open.
    InvalidAction,
    /// The tab's or target URL's domain is on the user's blocklist. Terminal.
    DomainBlocked,
    /// No session for `tabId`, tab gone, or several candidates (listed).
    SessionNotFound,
    /// Selector matches nothing, or the uid was never issued in this tab.
    ElementNotFound,
    /// The uid's document was replaced or its node removed.
    ElementStale,
    /// Hidden, disabled, zero-sized or covered at its click point.
    ElementNotInteractable,
    /// The browser reported a network error (`net::ERR_…`).
    NavigationFailed,
    /// The deadline passed.
    Timeout,
    /// The user stopped the session or pressed Stop all.
    Cancelled,
    /// Backend only: no extension connected, or it disconnected mid-request.
    NotConnected,
    /// Handshake: versions outside the accepted range.
    ProtocolMismatch,
    /// Handshake: missing or wrong pairing token.
    Unauthorized,
    /// Anything else; the message carries the cause.
    InternalError,
}

impl ErrorCode {
    /// Every code, in the order of §4.
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::InvalidRequest,
        ErrorCode::InvalidAction,
        ErrorCode::DomainBlocked,
        ErrorCode::SessionNotFound,
        ErrorCode::ElementNotFound,
        ErrorCode::ElementStale,
        ErrorCode::ElementNotInteractable,
        ErrorCode::NavigationFailed,
        ErrorCode::Timeout,
        ErrorCode::Cancelled,
        ErrorCode::NotConnected,
        ErrorCode::ProtocolMismatch,
        ErrorCode::Unauthorized,
        ErrorCode::InternalError,
    ];

    /// The wire name, e.g. `"element_stale"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidAction => "invalid_action",
            ErrorCode::DomainBlocked => "domain_blocked",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::ElementNotFound => "element_not_found",
            ErrorCode::ElementStale => "element_stale",
            ErrorCode::ElementNotInteractable => "element_not_interactable",
            ErrorCode::NavigationFailed => "navigation_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::NotConnected => "not_connected",
            ErrorCode::ProtocolMismatch => "protocol_mismatch",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::InternalError => "internal_error",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `{ "code": ErrorCode, "message": string }`, the one error shape of `response.error`
/// and `reject.error` (§4). The message is short and says what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{code}: {message}")]
pub struct BridgeError {
    /// What kind of failure, and so what the agent does next.
    pub code: ErrorCode,
    /// Human-readable cause and next step.
    pub message: String,
}

impl BridgeError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        BridgeError {
            code,
            message: message.into(),
        }
    }

    /// `invalid_request`: the caller's message failed the schema.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// `invalid_action`: well-formed but cannot apply.
    pub fn invalid_action(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidAction, message)
    }

    /// `internal_error` with the cause.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }
}
