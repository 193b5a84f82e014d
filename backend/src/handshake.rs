//! The handshake of PROTOCOL.md §2 as a small pure state machine, and the Origin
//! rule checked before the WebSocket upgrade.
//!
//! The socket task feeds it what arrived before `ack` ([`Input`]); it answers what to
//! do ([`Step`]). No I/O here, so every branch is unit-tested.

use browser_bridge_protocol::{BridgeError, ErrorCode, Hello, Message, check_version};
use subtle::ConstantTimeEq;

/// What the backend accepts in a `hello`.
#[derive(Clone)]
pub struct Policy {
    /// The pairing token (compared in constant time, never logged).
    pub token: String,
    /// Lowest accepted `protocolVersion` (`requiredMinProtocolVersion`).
    pub min_protocol_version: u32,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token never reaches a log line, not even through Debug.
        f.debug_struct("Policy")
            .field("token", &"<redacted>")
            .field("min_protocol_version", &self.min_protocol_version)
            .finish()
    }
}

/// What arrived while waiting for `hello`.
#[derive(Debug)]
pub enum Input<'a> {
    /// A text frame.
    Text(&'a str),
    /// A binary frame (a protocol error, §1).
    Binary,
    /// The hello timeout passed.
    TimedOut,
    /// The peer closed or the socket failed.
    Closed,
}

/// The handshake's state.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Upgraded; nothing valid received yet.
    AwaitingHello,
    /// `hello` accepted: send `ack`, then serve requests.
    Accepted(Box<Hello>),
    /// Refused: send `reject` with this error, then close.
    Rejected(BridgeError),
    /// Close without a reply (timeout or peer gone).
    Closed(&'static str),
}

/// Applies one input to `AwaitingHello` and returns the next state. Any state other
/// than `AwaitingHello` is terminal and returned unchanged.
pub fn step(state: State, input: Input<'_>, policy: &Policy) -> State {
    if state != State::AwaitingHello {
        return state;
    }
    match input {
        Input::TimedOut => State::Closed("no hello within the handshake timeout"),
        Input::Closed => State::Closed("peer closed before hello"),
        Input::Binary => State::Rejected(BridgeError::invalid_request(
            "binary frames are a protocol error; the first message must be a `hello` text frame",
        )),
        Input::Text(text) => match Message::decode(text) {
            Ok(Message::Hello(hello)) => judge_hello(hello, policy),
            Ok(other) => State::Rejected(BridgeError::invalid_request(format!(
                "the first message must be `hello`, got `{}`",
                message_type(&other)
            ))),
            Err(e) => State::Rejected(BridgeError::invalid_request(format!(
                "the first message must be a valid `hello`: {}",
                e.error.message
            ))),
        },
    }
}

fn judge_hello(hello: Hello, policy: &Policy) -> State {
    if let Err(e) = check_version(hello.protocol_version, policy.min_protocol_version) {
        return State::Rejected(e);
    }
    let offered = hello.pairing_token.as_deref().unwrap_or("");
    if offered.is_empty() {
        return State::Rejected(BridgeError::new(
            ErrorCode::Unauthorized,
            "no pairing token: run `browser-bridge pair` and paste the token into the extension popup",
        ));
    }
    if !token_matches(offered, &policy.token) {
        return State::Rejected(BridgeError::new(
            ErrorCode::Unauthorized,
            "wrong pairing token: run `browser-bridge pair` and paste the token into the extension popup",
        ));
    }
    State::Accepted(Box::new(hello))
}

/// Constant-time token comparison (the length is not secret: tokens have a fixed size).
pub fn token_matches(offered: &str, expected: &str) -> bool {
    offered.len() == expected.len() && bool::from(offered.as_bytes().ct_eq(expected.as_bytes()))
}

/// The wire `type` of a message.
pub(crate) fn message_type(message: &Message) -> &'static str {
    match message {
        Message::Hello(_) => "hello",
        Message::Ack(_) => "ack",
        Message::Reject(_) => "reject",
        Message::Request(_) => "request",
        Message::Response(_) => "response",
        Message::Event(_) => "event",
        Message::Ping(_) => "ping",
        Message::Pong(_) => "pong",
    }
}

/// Why an upgrade request's `Origin` is refused (HTTP 403 before the handshake).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    /// No `Origin` header.
    #[error("missing Origin header: only the browser-bridge extension may connect")]
    Missing,
    /// A web page (`http(s)://…`, `null`, anything not `chrome-extension://`).
    #[error("origin {0:?} is not a chrome-extension:// origin")]
    NotExtension(String),
    /// An extension, but not the configured one.
    #[error("extension origin {0:?} is not the configured extension")]
    WrongExtension(String),
}

/// §2: only `chrome-extension://<id>` origins, and only `expected_id` when set.
///
/// # Errors
/// [`OriginError`] → HTTP 403.
pub fn check_extension_origin(
    origin: Option<&str>,
    expected_id: Option<&str>,
) -> Result<(), OriginError> {
    let origin = origin.ok_or(OriginError::Missing)?;
    let Some(id) = origin.strip_prefix("chrome-extension://") else {
        return Err(OriginError::NotExtension(origin.to_owned()));
    };
    let id = id.trim_end_matches('/');
    if id.is_empty() || id.contains('/') {
        return Err(OriginError::NotExtension(origin.to_owned()));
    }
    match expected_id {
        Some(expected) if expected != id => Err(OriginError::WrongExtension(origin.to_owned())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::PROTOCOL_VERSION;
    use serde_json::json;

    use super::*;

    fn policy() -> Policy {
        Policy {
            token: "s3cret-token".into(),
            min_protocol_version: PROTOCOL_VERSION,
        }
    }

    fn hello(version: u32, token: Option<&str>) -> String {
        let mut value = json!({"type":"hello","protocolVersion":version,"extensionVersion":"0.1.0","clientId":"c1"});
        if let Some(token) = token {
            value["pairingToken"] = json!(token);
        }
        value.to_string()
    }

    fn run(text: &str) -> State {
        step(State::AwaitingHello, Input::Text(text), &policy())
    }

    fn rejected_code(state: State) -> ErrorCode {
        match state {
            State::Rejected(e) => e.code,
            other => panic!("expected a reject, got {other:?}"),
        }
    }

    #[test]
    fn accepts_a_good_hello() {
        let State::Accepted(h) = run(&hello(PROTOCOL_VERSION, Some("s3cret-token"))) else {
            panic!("not accepted")
        };
        assert_eq!(h.client_id, "c1");
    }

    #[test]
    fn rejects_versions_tokens_and_other_messages() {
        assert_eq!(
            rejected_code(run(&hello(PROTOCOL_VERSION + 1, Some("s3cret-token")))),
            ErrorCode::ProtocolMismatch
        );
        assert_eq!(
            rejected_code(run(&hello(PROTOCOL_VERSION - 1, Some("s3cret-token")))),
            ErrorCode::ProtocolMismatch
        );
        assert_eq!(
            rejected_code(run(&hello(PROTOCOL_VERSION, Some("s3cret-tokem")))),
            ErrorCode::Unauthorized
        );
        assert_eq!(
            rejected_code(run(&hello(PROTOCOL_VERSION, None))),
            ErrorCode::Unauthorized
        );
        assert_eq!(
            rejected_code(run(&hello(PROTOCOL_VERSION, Some("")))),
            ErrorCode::Unauthorized
        );
        assert_eq!(
            rejected_code(run(r#"{"type":"ping","nonce":1}"#)),
            ErrorCode::InvalidRequest
        );
        assert_eq!(rejected_code(run("not json")), ErrorCode::InvalidRequest);
        assert_eq!(
            rejected_code(step(State::AwaitingHello, Input::Binary, &policy())),
            ErrorCode::InvalidRequest
        );
        assert!(matches!(
            step(State::AwaitingHello, Input::TimedOut, &policy()),
            State::Closed(_)
        ));
    }

    #[test]
    fn terminal_states_stay() {
        let done = State::Closed("x");
        assert_eq!(step(done.clone(), Input::Text("{}"), &policy()), done);
    }

    #[test]
    fn policy_debug_hides_the_token() {
        assert!(!format!("{:?}", policy()).contains("s3cret"));
    }

    #[test]
    fn origins() {
        assert_eq!(
            check_extension_origin(None, None),
            Err(OriginError::Missing)
        );
        assert!(check_extension_origin(Some("chrome-extension://abc"), None).is_ok());
        assert!(check_extension_origin(Some("chrome-extension://abc"), Some("abc")).is_ok());
        assert!(matches!(
            check_extension_origin(Some("chrome-extension://abd"), Some("abc")),
            Err(OriginError::WrongExtension(_))
        ));
        for web in [
            "https://evil.test",
            "http://127.0.0.1:9333",
            "null",
            "chrome-extension://",
        ] {
            assert!(matches!(
                check_extension_origin(Some(web), None),
                Err(OriginError::NotExtension(_))
            ));
        }
    }
}
