//! Golden vectors (`protocol/tests/vectors/*.json`): one frame each, with its
//! expected decode outcome.
//!
//! File shape: `{"description", "message": <frame> | "text": <raw frame text>,
//! "expect": "ok" | {"code", "contains", "id"}, "canonical"?: <frame>}`.
//! - `ok`: decode → encode → decode gives the same message, and the encoding equals
//!   `canonical` (or `message` itself when it is already canonical).
//! - an error: decoding fails with `code`, a message holding `contains` (the field
//!   at fault), and `DecodeError.id` equal to `id` (a request that failed still
//!   yields its id so it can be answered).
//!
//! The same vectors check that the committed schemas agree with the decoder: a
//! client validating against `protocol/schema/*.schema.json` alone refuses exactly
//! what `Action::from_value` / `Message::from_value` refuse.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use browser_bridge_protocol::event::Event;
use browser_bridge_protocol::{ACTION_NAMES, Action, ErrorCode, Message, RequestId};
use serde_json::Value;

struct Vector {
    name: String,
    doc: Value,
}

impl Vector {
    fn text(&self) -> String {
        match self.doc.get("text").and_then(Value::as_str) {
            Some(text) => text.to_owned(),
            None => self.doc["message"].to_string(),
        }
    }

    fn expects_ok(&self) -> bool {
        self.doc["expect"] == "ok"
    }
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn vectors() -> Vec<Vector> {
    let dir = manifest_dir().join("tests/vectors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| Vector {
            name: p.file_stem().expect("stem").to_string_lossy().into_owned(),
            doc: read_json(&p),
        })
        .collect()
}

#[test]
fn there_are_enough_vectors() {
    let all = vectors();
    let ok = all.iter().filter(|v| v.expects_ok()).count();
    assert!(all.len() >= 60, "only {} vectors", all.len());
    assert!(
        ok >= 30 && all.len() - ok >= 30,
        "{ok} valid of {}",
        all.len()
    );
    for v in &all {
        assert!(
            v.doc["description"].is_string(),
            "{}: no description",
            v.name
        );
        assert!(
            v.doc.get("message").is_some() != v.doc.get("text").is_some(),
            "{}: give exactly one of message or text",
            v.name
        );
        // The name says which outcome to expect, so a wrong `expect` stands out.
        assert_eq!(v.name.starts_with("bad-"), !v.expects_ok(), "{}", v.name);
    }
}

#[test]
fn valid_vectors_round_trip() {
    for v in vectors().iter().filter(|v| v.expects_ok()) {
        let first = Message::decode(&v.text())
            .unwrap_or_else(|e| panic!("{}: should decode, got {e}", v.name));
        let encoded = first.encode();
        let second = Message::decode(&encoded)
            .unwrap_or_else(|e| panic!("{}: re-decode of {encoded} failed: {e}", v.name));
        assert_eq!(
            first, second,
            "{}: decode → encode → decode differs",
            v.name
        );
        let expected = v.doc.get("canonical").unwrap_or(&v.doc["message"]);
        let encoded: Value = serde_json::from_str(&encoded).expect("encode gives JSON");
        assert_eq!(
            &encoded, expected,
            "{}: encoding is not the canonical form",
            v.name
        );
    }
}

#[test]
fn invalid_vectors_fail_with_code_and_field() {
    for v in vectors().iter().filter(|v| !v.expects_ok()) {
        let expect = &v.doc["expect"];
        let err = match Message::decode(&v.text()) {
            Ok(m) => panic!("{}: should fail, decoded {m:?}", v.name),
            Err(e) => e,
        };
        let code: ErrorCode =
            serde_json::from_value(expect["code"].clone()).expect("expect.code is a code");
        assert_eq!(err.error.code, code, "{}: {}", v.name, err.error.message);
        let contains = expect["contains"].as_str().expect("expect.contains");
        assert!(
            err.error.message.contains(contains),
            "{}: message {:?} does not name {contains:?}",
            v.name,
            err.error.message
        );
        let id = expect["id"].as_str().map(|s| RequestId(s.to_owned()));
        assert_eq!(err.id, id, "{}: DecodeError.id", v.name);
    }
}

/// `Message::decode_from_backend` (the extension's decoder) decodes every frame a
/// backend sends exactly as `Message::decode` does (the same message, or a failure
/// with the same code, field and id), and refuses the frames only an extension
/// sends.
#[test]
fn backend_frames_decode_alike_on_the_extension_side() {
    const FROM_BACKEND: [&str; 6] = ["challenge", "ack", "reject", "request", "ping", "pong"];
    let mut checked = 0;
    for v in vectors() {
        let text = v.text();
        let narrow = Message::decode_from_backend(&text);
        let kind = v.doc["message"]["type"].as_str();
        if kind.is_some_and(|k| !FROM_BACKEND.contains(&k)) {
            let err = narrow.expect_err(&v.name);
            assert_eq!(err.error.code, ErrorCode::InvalidRequest, "{}", v.name);
            continue;
        }
        checked += 1;
        match (Message::decode(&text), narrow) {
            (Ok(wide), Ok(narrow)) => assert_eq!(wide, narrow, "{}", v.name),
            (Err(wide), Err(narrow)) => {
                assert_eq!(wide.error.code, narrow.error.code, "{}", v.name);
                assert_eq!(wide.id, narrow.id, "{}: DecodeError.id", v.name);
                if let Some(contains) = v.doc["expect"]["contains"].as_str() {
                    assert!(
                        narrow.error.message.contains(contains),
                        "{}: message {:?} does not name {contains:?}",
                        v.name,
                        narrow.error.message
                    );
                }
            }
            (wide, narrow) => panic!(
                "{}: decode {wide:?}, decode_from_backend {narrow:?}",
                v.name
            ),
        }
    }
    assert!(
        checked >= 30,
        "only {checked} backend frames among the vectors"
    );
}

#[test]
fn vectors_cover_every_envelope_action_and_result() {
    let mut types = BTreeSet::new();
    let mut actions = BTreeSet::new();
    let mut results = BTreeSet::new();
    let mut unknown_event = false;
    let mut error_response = false;
    for v in vectors().iter().filter(|v| v.expects_ok()) {
        let message = Message::decode(&v.text()).expect("valid vector decodes");
        let kind = v.doc["message"]["type"].as_str().expect("type").to_owned();
        types.insert(kind);
        match message {
            Message::Request(r) => {
                actions.insert(r.action.name());
            }
            Message::Response(r) => match r.outcome {
                Ok(result) => {
                    results.insert(result.action_name());
                }
                Err(_) => error_response = true,
            },
            Message::Event(e) => unknown_event |= matches!(e.event, Event::Unknown { .. }),
            _ => {}
        }
    }
    let all_types = [
        "hello",
        "challenge",
        "auth",
        "ack",
        "reject",
        "request",
        "response",
        "event",
        "ping",
        "pong",
    ];
    assert_eq!(types, all_types.iter().map(|s| s.to_string()).collect());
    let every: BTreeSet<&str> = ACTION_NAMES.iter().copied().collect();
    assert_eq!(actions, every, "request vectors");
    assert_eq!(results, every, "response vectors");
    assert!(unknown_event, "no unknown-event vector");
    assert!(error_response, "no error response vector");
}

#[test]
fn unknown_event_is_kept_whole() {
    let v = vectors()
        .into_iter()
        .find(|v| v.name == "event-unknown-type")
        .expect("event-unknown-type vector");
    let Message::Event(e) = Message::decode(&v.text()).expect("decodes") else {
        panic!("not an event");
    };
    match e.event {
        Event::Unknown { name, raw } => {
            assert_eq!(name, "tab_muted");
            assert_eq!(raw, v.doc["message"]["event"]);
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
}

/// A newer peer's error code decodes as `ErrorCode::Unknown`, kept as sent (§4, §12).
#[test]
fn unknown_error_code_is_kept_whole() {
    let v = vectors()
        .into_iter()
        .find(|v| v.name == "response-error-unknown-code")
        .expect("response-error-unknown-code vector");
    let Message::Response(r) = Message::decode(&v.text()).expect("decodes") else {
        panic!("not a response");
    };
    let error = r.outcome.expect_err("an error response");
    assert!(matches!(error.code, ErrorCode::Unknown(_)), "{error:?}");
    assert_eq!(error.code.as_str(), v.doc["message"]["error"]["code"]);
}

fn validator(file: &str) -> jsonschema::Validator {
    let schema = read_json(&manifest_dir().join("schema").join(file));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{file} compiles: {e}"))
}

/// Asserts that `schema` accepts `value` exactly when the decoder did; returns
/// whether it was accepted.
fn assert_agree<T: std::fmt::Debug, E: std::fmt::Debug>(
    schema: &jsonschema::Validator,
    name: &str,
    value: &Value,
    decoded: Result<T, E>,
) -> bool {
    let valid = schema.is_valid(value);
    assert_eq!(
        valid,
        decoded.is_ok(),
        "{name}: schema says {valid}, decoder says {decoded:?}; schema errors: {:?}",
        schema
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    valid
}

/// The action of every request vector: the schema and the decoder agree on each.
#[test]
fn action_schema_refuses_what_the_decoder_refuses() {
    let schema = validator("action.schema.json");
    let (mut accepted, mut refused) = (0, 0);
    for v in vectors() {
        let message = &v.doc["message"];
        if message["type"] != "request" {
            continue;
        }
        let Some(action) = message.get("action") else {
            continue;
        };
        let valid = assert_agree(&schema, &v.name, action, Action::from_value(action.clone()));
        if valid {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        accepted >= 21 && refused >= 30,
        "{accepted} accepted, {refused} refused"
    );
}

/// Every frame vector: the envelope schema and `Message::from_value` agree.
#[test]
fn envelope_schema_refuses_what_the_decoder_refuses() {
    let schema = validator("envelope.schema.json");
    for v in vectors() {
        let Some(message) = v.doc.get("message") else {
            continue;
        };
        assert_agree(
            &schema,
            &v.name,
            message,
            Message::from_value(message.clone()),
        );
    }
}

/// The flat tool schema never refuses a valid action (it is looser by design),
/// once explicit nulls are dropped: the decoder reads them as absent, the tool
/// schema only advertises the canonical call.
#[test]
fn tool_schema_accepts_every_valid_action() {
    let schema = validator("tool.schema.json");
    let mut checked = 0;
    for v in vectors() {
        let message = &v.doc["message"];
        if message["type"] != "request" {
            continue;
        }
        if let Some(Value::Object(action)) = message.get("action")
            && Action::from_value(Value::Object(action.clone())).is_ok()
        {
            let call: Value = Value::Object(
                action
                    .iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            checked += 1;
            let errors: Vec<String> = schema.iter_errors(&call).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", v.name);
        }
    }
    assert!(checked >= 21, "only {checked} valid actions");
}
