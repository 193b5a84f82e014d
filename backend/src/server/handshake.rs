//! The handshake of PROTOCOL.md §2 as a small pure state machine, and the Origin
//! rule checked before the WebSocket upgrade.
//!
//! `hello` (with the extension's nonce `N_E`) → `challenge` (the backend's `N_B`
//! and its proof `P_B`) → `auth` (the extension's proof `P_E`) → `ack`. The token
//! never crosses the wire, and each side proves it knows it before the other
//! trusts it. The socket task feeds the machine what arrived before `ack`
//! ([`Input`]); it answers the next [`State`] and what to send. No I/O here (the
//! caller draws `N_B`), so every branch is unit-tested.

use browser_bridge_protocol::version::MAX_HANDSHAKE_FRAME_BYTES;
use browser_bridge_protocol::{
    Auth, BridgeError, Challenge, ErrorCode, Hello, Message, auth, check_version,
};
use serde_json::Value;
use subtle::ConstantTimeEq;

/// What the backend accepts in a handshake.
#[derive(Clone)]
pub struct Policy {
    /// The pairing token: the HMAC key of both proofs, never sent nor logged.
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

/// What arrived during the handshake.
#[derive(Debug)]
pub enum Input<'a> {
    /// A text frame.
    Text(&'a str),
    /// A binary frame (a protocol error, §1).
    Binary,
    /// The handshake timeout passed.
    TimedOut,
    /// The peer closed or the socket failed.
    Closed,
}

/// The handshake's state.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Upgraded; nothing valid received yet. Holds `N_B`, drawn by the caller.
    AwaitingHello {
        /// The backend's nonce for this connection (43 base64url chars).
        nonce: String,
    },
    /// `hello` accepted and `challenge` sent; waiting for `auth`.
    AwaitingAuth {
        /// The accepted `hello` (its `nonce` is `N_E`).
        hello: Box<Hello>,
        /// `N_B`.
        nonce: String,
    },
    /// `auth` verified: send `ack`, then serve requests.
    Accepted(Box<Hello>),
    /// Refused: send `reject` with this error, then close.
    Rejected(BridgeError),
    /// Close without a reply (timeout or peer gone).
    Closed(&'static str),
}

impl State {
    /// The first state of a connection whose backend nonce is `nonce`
    /// ([`auth::encode_nonce`] of 32 fresh random bytes).
    pub fn start(nonce: String) -> State {
        State::AwaitingHello { nonce }
    }

    /// Whether the handshake is still under way.
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            State::AwaitingHello { .. } | State::AwaitingAuth { .. }
        )
    }
}

/// The outcome of one input: the next state and the frame to send now, if any
/// (the `challenge`, after a good `hello`).
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// The next state.
    pub state: State,
    /// A frame to send before waiting for more input.
    pub send: Option<Message>,
}

impl From<State> for Transition {
    fn from(state: State) -> Self {
        Transition { state, send: None }
    }
}

/// Applies one input. Terminal states (accepted, rejected, closed) are returned
/// unchanged.
pub fn step(state: State, input: Input<'_>, policy: &Policy) -> Transition {
    if !state.is_pending() {
        return state.into();
    }
    let text = match input {
        Input::TimedOut => return State::Closed("no complete handshake within the timeout").into(),
        Input::Closed => return State::Closed("peer closed during the handshake").into(),
        Input::Binary => {
            return reject(BridgeError::invalid_request(
                "binary frames are a protocol error; the handshake is text frames",
            ));
        }
        Input::Text(text) if text.len() > MAX_HANDSHAKE_FRAME_BYTES => {
            return reject(BridgeError::invalid_request(format!(
                "handshake frames are at most {MAX_HANDSHAKE_FRAME_BYTES} bytes, got {}",
                text.len()
            )));
        }
        Input::Text(text) => text,
    };
    match state {
        State::AwaitingHello { nonce } => on_hello(text, nonce, policy),
        State::AwaitingAuth { hello, nonce } => on_auth(text, hello, &nonce, policy),
        terminal => terminal.into(),
    }
}

fn reject(error: BridgeError) -> Transition {
    State::Rejected(error).into()
}

fn on_hello(text: &str, n_b: String, policy: &Policy) -> Transition {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return reject(BridgeError::invalid_request(format!(
                "the first message must be a valid `hello`: not valid JSON: {e}"
            )));
        }
    };
    // The version is judged before the rest, so that an older peer (whose hello
    // has another shape) is told to upgrade rather than that its hello is invalid.
    if value.get("type").and_then(Value::as_str) == Some("hello")
        && let Some(version) = value.get("protocolVersion").and_then(Value::as_u64)
        && let Err(e) = check_version(
            u32::try_from(version).unwrap_or(u32::MAX),
            policy.min_protocol_version,
        )
    {
        return reject(e);
    }
    let hello = match Message::from_value(value) {
        Ok(Message::Hello(hello)) => hello,
        Ok(other) => {
            return reject(BridgeError::invalid_request(format!(
                "the first message must be `hello`, got `{}`",
                message_type(&other)
            )));
        }
        Err(e) => {
            return reject(BridgeError::invalid_request(format!(
                "the first message must be a valid `hello`: {}",
                e.error.message
            )));
        }
    };
    // `Message::decode` has checked the nonce's shape (43 base64url chars).
    let proof = auth::backend_proof(&policy.token, &hello.nonce, &n_b);
    Transition {
        send: Some(Message::Challenge(Challenge {
            nonce: n_b.clone(),
            proof,
        })),
        state: State::AwaitingAuth {
            hello: Box::new(hello),
            nonce: n_b,
        },
    }
}

fn on_auth(text: &str, hello: Box<Hello>, n_b: &str, policy: &Policy) -> Transition {
    let proof = match Message::decode(text) {
        Ok(Message::Auth(Auth { proof })) => proof,
        Ok(other) => {
            return reject(BridgeError::invalid_request(format!(
                "after `challenge` the extension must send `auth`, got `{}`",
                message_type(&other)
            )));
        }
        Err(e) => {
            return reject(BridgeError::invalid_request(format!(
                "after `challenge` the extension must send a valid `auth`: {}",
                e.error.message
            )));
        }
    };
    // `Message::decode` has checked the proof's shape.
    if !auth::verify_extension_proof(&policy.token, &hello.nonce, n_b, &proof) {
        return reject(BridgeError::new(
            ErrorCode::Unauthorized,
            "the extension's proof does not match this backend's pairing token: run \
             `browser-bridge pair` and give the extension that token",
        ));
    }
    State::Accepted(hello).into()
}

/// Constant-time comparison of a bearer token (HTTP API; the length is not
/// secret: tokens have a fixed size).
pub fn token_matches(offered: &str, expected: &str) -> bool {
    offered.len() == expected.len() && bool::from(offered.as_bytes().ct_eq(expected.as_bytes()))
}

/// The wire `type` of a message.
pub(crate) fn message_type(message: &Message) -> &'static str {
    message.name()
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

    const TOKEN: &str = "s3cret-token";

    fn policy() -> Policy {
        Policy {
            token: TOKEN.into(),
            min_protocol_version: PROTOCOL_VERSION,
        }
    }

    fn n_e() -> String {
        auth::encode_nonce(&[7; auth::NONCE_BYTES])
    }

    fn n_b() -> String {
        auth::encode_nonce(&[9; auth::NONCE_BYTES])
    }

    fn hello(version: u32) -> Value {
        json!({"type":"hello","protocolVersion":version,"extensionVersion":"0.1.0",
               "clientId":"c1","nonce":n_e()})
    }

    fn auth_frame(proof: &str) -> String {
        json!({"type":"auth","proof":proof}).to_string()
    }

    fn after_hello(text: &str) -> Transition {
        step(State::start(n_b()), Input::Text(text), &policy())
    }

    fn awaiting_auth() -> State {
        let t = after_hello(&hello(PROTOCOL_VERSION).to_string());
        assert!(matches!(t.state, State::AwaitingAuth { .. }), "{t:?}");
        t.state
    }

    fn rejected(t: Transition) -> BridgeError {
        assert!(t.send.is_none(), "a reject sends nothing else: {t:?}");
        match t.state {
            State::Rejected(e) => e,
            other => panic!("expected a reject, got {other:?}"),
        }
    }

    #[test]
    fn a_good_hello_gets_a_challenge_with_the_backend_proof() {
        let t = after_hello(&hello(PROTOCOL_VERSION).to_string());
        let Some(Message::Challenge(challenge)) = t.send else {
            panic!("no challenge: {t:?}")
        };
        assert_eq!(challenge.nonce, n_b());
        assert!(auth::verify_backend_proof(
            TOKEN,
            &n_e(),
            &n_b(),
            &challenge.proof
        ));
        assert!(!challenge.proof.contains(TOKEN));
    }

    #[test]
    fn a_good_auth_is_accepted() {
        let proof = auth::extension_proof(TOKEN, &n_e(), &n_b());
        let t = step(awaiting_auth(), Input::Text(&auth_frame(&proof)), &policy());
        let State::Accepted(h) = t.state else {
            panic!("not accepted: {t:?}")
        };
        assert_eq!(h.client_id, "c1");
        assert!(t.send.is_none());
    }

    #[test]
    fn wrong_proofs_are_unauthorized() {
        let attempts = [
            auth::extension_proof("s3cret-tokem", &n_e(), &n_b()),
            // The backend's own proof reflected back.
            auth::backend_proof(TOKEN, &n_e(), &n_b()),
            // A proof replayed from a connection with another backend nonce.
            auth::extension_proof(TOKEN, &n_e(), &auth::encode_nonce(&[1; 32])),
        ];
        for proof in attempts {
            let e = rejected(step(
                awaiting_auth(),
                Input::Text(&auth_frame(&proof)),
                &policy(),
            ));
            assert_eq!(e.code, ErrorCode::Unauthorized, "{e:?}");
        }
    }

    #[test]
    fn malformed_or_out_of_order_messages_are_invalid_requests() {
        let mut bad_nonce = hello(PROTOCOL_VERSION);
        bad_nonce["nonce"] = json!("short");
        let mut no_nonce = hello(PROTOCOL_VERSION);
        no_nonce.as_object_mut().unwrap().remove("nonce");
        let mut with_token = hello(PROTOCOL_VERSION);
        with_token["pairingToken"] = json!(TOKEN);
        for text in [
            bad_nonce.to_string(),
            no_nonce.to_string(),
            with_token.to_string(),
            auth_frame(&auth::extension_proof(TOKEN, &n_e(), &n_b())),
            r#"{"type":"ping","nonce":1}"#.to_owned(),
            "not json".to_owned(),
        ] {
            let e = rejected(after_hello(&text));
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{text}: {e:?}");
        }
        let e = rejected(after_hello(&with_token.to_string()));
        assert!(e.message.contains("pairingToken"), "{}", e.message);
        // After the challenge: a second hello, a malformed proof, anything else.
        for text in [
            hello(PROTOCOL_VERSION).to_string(),
            auth_frame("too-short"),
            auth_frame(&"!".repeat(43)),
            r#"{"type":"auth"}"#.to_owned(),
            r#"{"type":"pong","nonce":1}"#.to_owned(),
        ] {
            let e = rejected(step(awaiting_auth(), Input::Text(&text), &policy()));
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{text}: {e:?}");
        }
        for state in [State::start(n_b()), awaiting_auth()] {
            let e = rejected(step(state, Input::Binary, &policy()));
            assert_eq!(e.code, ErrorCode::InvalidRequest);
        }
    }

    #[test]
    fn other_versions_get_the_version_reason_first() {
        // A v4 hello carries `pairingToken` and no nonce: still the version reason.
        let v4 = json!({"type":"hello","protocolVersion":4,"extensionVersion":"0.1.0",
                        "clientId":"c1","pairingToken":TOKEN});
        let e = rejected(after_hello(&v4.to_string()));
        assert_eq!(e.code, ErrorCode::ProtocolMismatch);
        assert!(e.message.contains("update the extension"), "{}", e.message);
        let e = rejected(after_hello(&hello(PROTOCOL_VERSION + 1).to_string()));
        assert_eq!(e.code, ErrorCode::ProtocolMismatch);
        assert!(e.message.contains("update the backend"), "{}", e.message);
    }

    #[test]
    fn oversized_handshake_frames_are_refused_without_decoding() {
        let mut big = hello(PROTOCOL_VERSION);
        big["padding"] = json!("x".repeat(MAX_HANDSHAKE_FRAME_BYTES));
        let e = rejected(after_hello(&big.to_string()));
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert!(e.message.contains("at most"), "{}", e.message);
        let big_auth = json!({"type":"auth","proof":"x".repeat(MAX_HANDSHAKE_FRAME_BYTES)});
        let e = rejected(step(
            awaiting_auth(),
            Input::Text(&big_auth.to_string()),
            &policy(),
        ));
        assert_eq!(e.code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn timeouts_and_closes_end_quietly_and_terminal_states_stay() {
        for state in [State::start(n_b()), awaiting_auth()] {
            let t = step(state, Input::TimedOut, &policy());
            assert!(matches!(t.state, State::Closed(_)) && t.send.is_none());
        }
        let t = step(awaiting_auth(), Input::Closed, &policy());
        assert!(matches!(t.state, State::Closed(_)));
        let done = State::Closed("x");
        assert_eq!(step(done.clone(), Input::Text("{}"), &policy()).state, done);
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
