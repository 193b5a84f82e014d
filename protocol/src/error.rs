//! Error codes and the error body (PROTOCOL.md §4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An error code of §4. Each tells the agent what to do next; none means "retry
/// the same call unchanged".
///
/// Open to newer peers (§4, §12): a code this version does not know decodes to
/// [`ErrorCode::Unknown`], keeps its text and encodes back unchanged, so one new
/// code never makes a whole `response` invalid. A code must match
/// [`ErrorCode::PATTERN`] (snake_case, 1–64 chars); anything else is refused.
// Known names: the variant names in snake_case (strum), spelled nowhere else.
#[derive(Debug, Clone, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
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
    /// A code this version does not know, from a newer peer, kept as sent. Treat
    /// it like [`ErrorCode::InternalError`] unless you know better; never build one
    /// by hand for a known code ([`ErrorCode::from_wire`] picks the variant).
    #[strum(disabled)]
    Unknown(UnknownCode),
}

/// The text of an [`ErrorCode::Unknown`]: matches [`ErrorCode::PATTERN`] and is not
/// one of the known codes. Only [`ErrorCode::from_wire`] makes one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UnknownCode(Box<str>);

impl UnknownCode {
    /// The code as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Longest error code accepted on the wire (chars).
pub const MAX_CODE_CHARS: usize = 64;

impl ErrorCode {
    /// The shape of every code, known or not: snake_case ASCII, starting with a
    /// letter, at most [`MAX_CODE_CHARS`] chars (§4).
    pub const PATTERN: &str = "^[a-z][a-z0-9_]{0,63}$";

    /// Every known code, in the order of §4 (not [`ErrorCode::Unknown`]).
    pub fn known() -> impl Iterator<Item = ErrorCode> {
        <ErrorCode as strum::IntoEnumIterator>::iter()
    }

    /// The code for a wire name: the known variant, else [`ErrorCode::Unknown`];
    /// `None` when `code` does not match [`ErrorCode::PATTERN`].
    pub fn from_wire(code: &str) -> Option<ErrorCode> {
        let mut bytes = code.bytes();
        let shaped = code.len() <= MAX_CODE_CHARS
            && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
            && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !shaped {
            return None;
        }
        Some(
            Self::known()
                .find(|known| known.as_str() == code)
                .unwrap_or_else(|| ErrorCode::Unknown(UnknownCode(code.into()))),
        )
    }

    /// The wire name, e.g. `"element_stale"`, or the unknown code as sent.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::Unknown(code) => code.as_str(),
            known => known.into(),
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        ErrorCode::from_wire(&code).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "error code {code:?} does not match {}",
                ErrorCode::PATTERN
            ))
        })
    }
}

impl JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known: Vec<String> = ErrorCode::known().map(|c| c.to_string()).collect();
        schemars::json_schema!({
            "description": "An error code (snake_case): one of this version's, or a newer \
                peer's, which is kept as sent and treated like internal_error.",
            "type": "string",
            "pattern": ErrorCode::PATTERN,
            "anyOf": [
                { "description": "A code of this version.", "enum": known },
                { "description": "A code from a newer peer.", "type": "string" }
            ]
        })
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

impl crate::decode::NamedDecode for BridgeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_peers_code_is_kept_as_sent() {
        let code = ErrorCode::from_wire("rate_limited").expect("well-formed");
        assert!(matches!(&code, ErrorCode::Unknown(c) if c.as_str() == "rate_limited"));
        assert_eq!(code.to_string(), "rate_limited");
        let wire = serde_json::to_value(&code).expect("encodes");
        assert_eq!(serde_json::from_value::<ErrorCode>(wire).ok(), Some(code));
        // A known name never becomes `Unknown`.
        assert_eq!(ErrorCode::from_wire("timeout"), Some(ErrorCode::Timeout));
    }

    #[test]
    fn codes_have_one_shape() {
        assert_eq!(
            ErrorCode::PATTERN,
            format!("^[a-z][a-z0-9_]{{0,{}}}$", MAX_CODE_CHARS - 1)
        );
        assert!(ErrorCode::from_wire(&"a".repeat(MAX_CODE_CHARS)).is_some());
        for bad in [
            "",
            "Timeout",
            "9lives",
            "_x",
            "rate-limited",
            "rate limited",
            "é",
            &"a".repeat(MAX_CODE_CHARS + 1),
        ] {
            assert_eq!(ErrorCode::from_wire(bad), None, "{bad:?}");
            assert!(serde_json::from_value::<ErrorCode>(bad.into()).is_err());
        }
    }
}
