//! The top-level messages of PROTOCOL.md §3, tagged by `type`.
//!
//! Decode with [`Message::decode`]: every failure is `invalid_request`, and a
//! failed `request` still yields its `id` so that the receiver can answer it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::action::Action;
use crate::auth;
use crate::error::BridgeError;
use crate::event::Event;
use crate::ids::RequestId;
use crate::result::ActionResult;

/// One WebSocket text frame, tagged by `type`.
// Tags: the variant name in snake_case, by serde and strum alike (tested below).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(MessageKind),
    vis(pub(crate)),
    derive(strum::EnumString, strum::IntoStaticStr, strum::VariantNames),
    strum(serialize_all = "snake_case")
)]
pub enum Message {
    /// ext → backend, first message of every connection.
    Hello(Hello),
    /// backend → ext: the backend's nonce and its proof of the token (§2).
    Challenge(Challenge),
    /// ext → backend: the extension's proof of the token (§2).
    Auth(Auth),
    /// backend → ext: handshake accepted.
    Ack(Ack),
    /// backend → ext: handshake refused; the socket closes.
    Reject(Reject),
    /// backend → ext: run one action.
    Request(Request),
    /// ext → backend: the one answer to a request.
    Response(Response),
    /// ext → backend, one way.
    Event(EventMessage),
    /// Keep-alive, either way.
    Ping(Ping),
    /// Keep-alive answer, either way.
    Pong(Pong),
}

/// `hello` (§2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("not" = { "required": ["pairingToken"] }))]
pub struct Hello {
    /// The version the extension speaks.
    pub protocol_version: u32,
    /// The extension's own version (manifest `version`).
    pub extension_version: String,
    /// Stable id of this extension install (a UUID kept in storage).
    pub client_id: String,
    /// `N_E`: 32 random bytes, base64url without padding (43 chars). The token
    /// itself is never sent: a `hello` carrying `pairingToken` is refused.
    #[schemars(regex(pattern = crate::auth::NONCE_PATTERN))]
    pub nonce: String,
    /// `navigator.userAgent` of the browser.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// The browser's name for people and for the `browser` field (§5
    /// "Browsers"): the options page's `browserName`, else the brand and major
    /// version (`Chromium 131`). 1 to 128 characters, no control characters
    /// ([`crate::browser::check_browser_name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 128), regex(pattern = crate::browser::BROWSER_NAME_PATTERN))]
    pub browser_name: Option<String>,
    /// The browser's full version (`131.0.6778.85`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_version: Option<String>,
    /// Names this run of the browser (§2): drawn once per browser process and
    /// kept in `chrome.storage.session`, so a worker restart sends the same one
    /// and a browser restart, whose tabIds are a new process's, a new one. 1 to
    /// 64 of `A–Z a–z 0–9 - _` ([`crate::browser::check_browser_run_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = crate::browser::BROWSER_RUN_ID_PATTERN))]
    pub browser_run_id: Option<String>,
}

/// `challenge` (§2): the backend's nonce and `P_B`, its proof that it knows the
/// pairing token ([`crate::auth::backend_proof`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Challenge {
    /// `N_B`: 32 random bytes, base64url without padding (43 chars).
    #[schemars(regex(pattern = crate::auth::NONCE_PATTERN))]
    pub nonce: String,
    /// `P_B` (43 base64url chars).
    #[schemars(regex(pattern = crate::auth::PROOF_PATTERN))]
    pub proof: String,
}

/// `auth` (§2): `P_E`, the extension's proof that it knows the pairing token
/// ([`crate::auth::extension_proof`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Auth {
    /// `P_E` (43 base64url chars).
    #[schemars(regex(pattern = crate::auth::PROOF_PATTERN))]
    pub proof: String,
}

/// `ack` (§2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ack {
    /// The version the backend speaks.
    pub protocol_version: u32,
    /// The backend's own version.
    pub backend_version: String,
    /// A UUID naming this connection.
    pub connection_id: String,
}

/// `reject` (§2): terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reject {
    /// `protocol_mismatch`, `unauthorized` or `invalid_request`.
    pub error: BridgeError,
}

/// `request` (§3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// UUIDv4 made by the backend.
    pub id: RequestId,
    /// The action, tagged by `action`.
    pub action: Action,
    /// The backend's deadline for this request (ms).
    pub timeout_ms: u64,
    /// The backend's client this request is for (§5 "Clients"): 1–128 visible
    /// ASCII characters ([`crate::ids::is_client_name`]). The extension opens the
    /// client's new tabs in that client's own agent window (§10); absent, in the
    /// shared one. Another shape is `invalid_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = crate::ids::CLIENT_NAME_PATTERN))]
    pub client: Option<String>,
}

/// `response` (§3): exactly one of `result` / `error`, as a `Result`.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id, echoed.
    pub id: RequestId,
    /// `result` or `error`.
    pub outcome: Result<ActionResult, BridgeError>,
}

/// `event` (§11): `{"type":"event","event":{"event":"…",…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventMessage {
    /// The event, tagged by `event`.
    pub event: Event,
}

/// `ping` (§3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ping {
    /// Any integer; echoed by `pong`.
    pub nonce: u64,
}

/// `pong` (§3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Pong {
    /// The `ping`'s nonce.
    pub nonce: u64,
}

/// A frame that could not be decoded: always `invalid_request`; `id` is set when the
/// frame was a `request` whose id could be read, so it can still be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct DecodeError {
    /// The request id, when readable.
    pub id: Option<RequestId>,
    /// The `invalid_request` error.
    pub error: BridgeError,
}

impl Challenge {
    /// The extension's side of §2 after `challenge`: `Some(auth)` carrying `P_E`
    /// when `P_B` proves the backend knows `token`, `None` when it does not (the
    /// extension then closes and sends nothing else). `n_e` is the nonce of the
    /// extension's own `hello`. Constant-time comparison ([`auth`]).
    pub fn answer(&self, token: &str, n_e: &str) -> Option<Auth> {
        let shaped = auth::check_nonce("nonce", &self.nonce).is_ok()
            && auth::check_proof(&self.proof).is_ok();
        (shaped && auth::verify_backend_proof(token, n_e, &self.nonce, &self.proof)).then(|| Auth {
            proof: auth::extension_proof(token, n_e, &self.nonce),
        })
    }
}

impl DecodeError {
    fn new(id: Option<RequestId>, message: impl Into<String>) -> Self {
        DecodeError {
            id,
            error: BridgeError::invalid_request(message),
        }
    }
}

impl Message {
    /// Decodes one text frame, enforcing §1's tolerance rules: unknown fields are
    /// ignored, an unknown event becomes [`Event::Unknown`], an unknown action or any
    /// schema violation is `invalid_request`.
    ///
    /// # Errors
    /// [`DecodeError`] (code `invalid_request`).
    pub fn decode(text: &str) -> Result<Message, DecodeError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| DecodeError::new(None, format!("not valid JSON: {e}")))?;
        Self::from_value(value)
    }

    /// [`Message::decode`] on a parsed value.
    ///
    /// # Errors
    /// [`DecodeError`] (code `invalid_request`).
    pub fn from_value(value: Value) -> Result<Message, DecodeError> {
        let (map, kind, known) = kind_of(value)?;
        match known {
            MessageKind::Request => decode_request(map).map(Message::Request),
            MessageKind::Response => Response::from_map(map)
                .map(Message::Response)
                .map_err(|e| DecodeError::new(e.0, e.1)),
            MessageKind::Hello if map.contains_key("pairingToken") => Err(DecodeError::new(
                None,
                "hello: `pairingToken` must not be sent: since protocol v5 the token never \
                 crosses the wire; prove it with `auth` (PROTOCOL.md §2)",
            )),
            _ => {
                // An event's own decoder already names the event and its field.
                let tags: &[&str] = if known == MessageKind::Event {
                    &["type", "event"]
                } else {
                    &["type"]
                };
                let message: Message = crate::decode::from_object(&Value::Object(map), tags)
                    .map_err(|e| DecodeError::new(None, format!("{kind}: {e}")))?;
                check_handshake_fields(&message)
                    .map_err(|e| DecodeError::new(None, format!("{kind}: {}", e.message)))?;
                Ok(message)
            }
        }
    }

    /// [`Message::decode`] for the extension's side of the socket: only the frames
    /// a backend sends (`challenge`, `ack`, `reject`, `request`, `ping`, `pong`;
    /// PROTOCOL.md §2–§3), each decoded as its own struct, so a build that decodes
    /// only these carries no decoder of the others (results, events, `hello`,
    /// `auth`). The same frames decode as with [`Message::decode`].
    ///
    /// # Errors
    /// [`DecodeError`] (code `invalid_request`), also for a frame only an extension
    /// sends (`hello`, `auth`, `response`, `event`).
    pub fn decode_from_backend(text: &str) -> Result<Message, DecodeError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| DecodeError::new(None, format!("not valid JSON: {e}")))?;
        let (map, kind, known) = kind_of(value)?;
        fn body<T: crate::decode::NamedDecode>(
            map: &Map<String, Value>,
            kind: &str,
        ) -> Result<T, DecodeError> {
            crate::decode::from_object(&crate::decode::without(map, "type"), &[])
                .map_err(|e| DecodeError::new(None, format!("{kind}: {e}")))
        }
        let message = match known {
            MessageKind::Request => return decode_request(map).map(Message::Request),
            MessageKind::Challenge => Message::Challenge(body(&map, &kind)?),
            MessageKind::Ack => Message::Ack(body(&map, &kind)?),
            MessageKind::Reject => Message::Reject(body(&map, &kind)?),
            MessageKind::Ping => Message::Ping(body(&map, &kind)?),
            MessageKind::Pong => Message::Pong(body(&map, &kind)?),
            MessageKind::Hello | MessageKind::Auth | MessageKind::Response | MessageKind::Event => {
                return Err(DecodeError::new(
                    None,
                    format!("a backend does not send `{kind}`"),
                ));
            }
        };
        check_handshake_fields(&message)
            .map_err(|e| DecodeError::new(None, format!("{kind}: {}", e.message)))?;
        Ok(message)
    }

    /// The wire name of the frame's `type` (`"hello"`, `"response"`, …).
    pub fn name(&self) -> &'static str {
        MessageKind::from(self).into()
    }

    /// The frame's JSON text.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("protocol messages always serialise")
    }
}

/// The frame's object, its `type` as sent, and that type known.
fn kind_of(value: Value) -> Result<(Map<String, Value>, String, MessageKind), DecodeError> {
    let Value::Object(map) = value else {
        return Err(DecodeError::new(None, "message must be a JSON object"));
    };
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(_) => return Err(DecodeError::new(None, "`type` must be a string")),
        None => return Err(DecodeError::new(None, "missing field `type`")),
    };
    let Ok(known) = kind.parse::<MessageKind>() else {
        return Err(DecodeError::new(
            None,
            format!("unknown message type `{kind}`"),
        ));
    };
    Ok((map, kind, known))
}

/// The shapes serde cannot state: nonces and proofs are 43 base64url chars (§2).
fn check_handshake_fields(message: &Message) -> Result<(), BridgeError> {
    match message {
        Message::Hello(hello) => {
            if let Some(name) = &hello.browser_name {
                crate::browser::check_browser_name("browserName", name)?;
            }
            if let Some(run) = &hello.browser_run_id {
                crate::browser::check_browser_run_id(run)?;
            }
            crate::auth::check_nonce("nonce", &hello.nonce)
        }
        Message::Challenge(challenge) => {
            crate::auth::check_nonce("nonce", &challenge.nonce)?;
            crate::auth::check_proof(&challenge.proof)
        }
        Message::Auth(auth) => crate::auth::check_proof(&auth.proof),
        _ => Ok(()),
    }
}

fn decode_request(mut map: Map<String, Value>) -> Result<Request, DecodeError> {
    let id = match map.get("id") {
        Some(Value::String(id)) if !id.is_empty() => RequestId(id.clone()),
        _ => {
            return Err(DecodeError::new(
                None,
                "request: `id` must be a non-empty string",
            ));
        }
    };
    let with_id = |message: String| DecodeError::new(Some(id.clone()), message);
    let timeout_ms = match map.get("timeoutMs") {
        Some(v) => v
            .as_u64()
            .ok_or_else(|| with_id("request: `timeoutMs` must be a non-negative integer".into()))?,
        None => return Err(with_id("request: missing field `timeoutMs`".into())),
    };
    let action = map
        .remove("action")
        .ok_or_else(|| with_id("request: missing field `action`".into()))?;
    let client = match map.get("client") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) if crate::ids::is_client_name(name) => Some(name.clone()),
        Some(_) => {
            return Err(with_id(format!(
                "request: `client` must be 1 to {} visible ASCII characters, without spaces",
                crate::ids::MAX_CLIENT_NAME
            )));
        }
    };
    let action = Action::from_value(action).map_err(|e| with_id(e.message))?;
    Ok(Request {
        id,
        action,
        timeout_ms,
        client,
    })
}

impl Response {
    /// A successful response.
    pub fn ok(id: RequestId, result: ActionResult) -> Self {
        Response {
            id,
            outcome: Ok(result),
        }
    }

    /// A failed response.
    pub fn err(id: RequestId, error: BridgeError) -> Self {
        Response {
            id,
            outcome: Err(error),
        }
    }

    fn from_map(map: Map<String, Value>) -> Result<Response, (Option<RequestId>, String)> {
        let id = match map.get("id") {
            Some(Value::String(id)) if !id.is_empty() => RequestId(id.clone()),
            _ => return Err((None, "response: `id` must be a non-empty string".into())),
        };
        let fail = |m: String| (Some(id.clone()), m);
        let outcome = match (map.get("result"), map.get("error")) {
            (Some(_), Some(_)) => {
                return Err(fail("response: has both `result` and `error`".into()));
            }
            (None, None) => {
                return Err(fail(
                    "response: needs exactly one of `result` or `error`".into(),
                ));
            }
            (Some(result), None) => Ok(crate::decode::from_object(result, &["action"])
                .map_err(|e| fail(format!("response.result: {e}")))?),
            (None, Some(error)) => Err(crate::decode::from_object(error, &[])
                .map_err(|e| fail(format!("response.error: {e}")))?),
        };
        Ok(Response { id, outcome })
    }
}

impl Serialize for Response {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(map) => {
                Response::from_map(map).map_err(|(_, m)| serde::de::Error::custom(m))
            }
            _ => Err(serde::de::Error::custom("response must be an object")),
        }
    }
}

impl JsonSchema for Response {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Response".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let id = generator.subschema_for::<RequestId>();
        let result = generator.subschema_for::<ActionResult>();
        let error = generator.subschema_for::<BridgeError>();
        schemars::json_schema!({
            "description": "The one answer to a request: exactly one of `result` or `error`.",
            "type": "object",
            "properties": { "id": id, "result": result, "error": error },
            "required": ["id"],
            "oneOf": [
                { "required": ["result"], "not": { "required": ["error"] } },
                { "required": ["error"], "not": { "required": ["result"] } }
            ]
        })
    }
}

impl crate::decode::NamedDecode for Challenge {}
impl crate::decode::NamedDecode for Ack {}
impl crate::decode::NamedDecode for Reject {}
impl crate::decode::NamedDecode for Ping {}
impl crate::decode::NamedDecode for Pong {}

impl crate::decode::NamedDecode for Message {
    fn decode_naming_field(value: &Value) -> Result<Self, String> {
        use crate::envelope::{
            Ack, Auth, Challenge, EventMessage, Hello, MessageKind, Ping, Pong, Reject,
        };
        crate::decode::by_tag!(value, "type", MessageKind => Message {
            Hello(Hello),
            Challenge(Challenge),
            Auth(Auth),
            Ack(Ack),
            Reject(Reject),
            Event(EventMessage),
            Ping(Ping),
            Pong(Pong),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// strum's names (used to decode) are serde's tags (the schema shows them).
    #[test]
    fn message_kinds_are_the_wire_tags() {
        let schema = serde_json::to_value(schemars::schema_for!(Message)).expect("schema");
        let tags: Vec<&str> = schema["oneOf"]
            .as_array()
            .expect("oneOf")
            .iter()
            .map(|v| v["properties"]["type"]["const"].as_str().expect("const"))
            .collect();
        assert_eq!(tags, <MessageKind as strum::VariantNames>::VARIANTS);
    }
}
