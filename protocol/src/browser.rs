//! Several browsers on one backend (PROTOCOL.md §5 "Browsers"): the name an
//! extension gives its browser in `hello`, and the caller's `browser` field that
//! picks one. The backend takes `browser` off a call before the action is decoded
//! (like the tool's `includeText`); it never crosses the WebSocket.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::BridgeError;

/// One browser connected to the backend, as `list_tabs` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrowserInfo {
    /// Its name, unique among the connected browsers: the `browser` field's value.
    pub name: String,
    /// Its extension's `clientId` (also accepted as `browser`).
    pub client_id: String,
    /// The browser's version (`hello.browserVersion`), when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_version: Option<String>,
    /// When its connection was accepted (ms since the Unix epoch).
    pub connected_at: u64,
}

/// The field of a call (`/v1/act` body, `browser` tool arguments) naming the
/// browser it goes to: a browser's name or its extension's `clientId`.
pub const BROWSER_FIELD: &str = "browser";

/// Longest browser name (`hello.browserName`) and `browser` field, in
/// characters.
pub const MAX_BROWSER_NAME: usize = 128;

/// The rule of [`check_browser_name`] as a JSON Schema pattern: no control
/// character (C0, DEL, C1), and something besides white space.
pub const BROWSER_NAME_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$";

/// A browser name or `browser` field: 1 to [`MAX_BROWSER_NAME`] characters, no
/// control characters, not only white space.
///
/// # Errors
/// `invalid_request` naming `field` and the rule.
pub fn check_browser_name(field: &str, name: &str) -> Result<(), BridgeError> {
    if name.trim().is_empty()
        || name.chars().count() > MAX_BROWSER_NAME
        || name.chars().any(char::is_control)
    {
        return Err(BridgeError::invalid_request(format!(
            "{field} must be 1 to {MAX_BROWSER_NAME} characters of text without control characters"
        )));
    }
    Ok(())
}

/// The rule of [`check_browser_run_id`] as a JSON Schema pattern.
pub const BROWSER_RUN_ID_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";

/// A `hello.browserRunId` (§2): 1 to 64 of `A–Z a–z 0–9 - _` (a UUID fits).
///
/// # Errors
/// `invalid_request` naming the field and the rule.
pub fn check_browser_run_id(run: &str) -> Result<(), BridgeError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if run.is_empty() || run.len() > 64 || !run.chars().all(allowed) {
        return Err(BridgeError::invalid_request(
            "browserRunId must be 1 to 64 characters of A-Z a-z 0-9 - _",
        ));
    }
    Ok(())
}

/// Takes the `browser` field off a call's arguments: `None` when absent or
/// `null`.
///
/// # Errors
/// `invalid_request` when it is not a string [`check_browser_name`] accepts.
pub fn take_browser(arguments: &mut Map<String, Value>) -> Result<Option<String>, BridgeError> {
    match arguments.remove(BROWSER_FIELD) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => {
            check_browser_name(BROWSER_FIELD, &name)?;
            Ok(Some(name))
        }
        Some(other) => Err(BridgeError::invalid_request(format!(
            "{BROWSER_FIELD} must be a string (a browser's name or clientId from list_tabs), \
             got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ErrorCode;

    fn take(value: Value) -> Result<Option<String>, BridgeError> {
        let Value::Object(mut map) = value else {
            unreachable!()
        };
        let taken = take_browser(&mut map);
        assert!(!map.contains_key(BROWSER_FIELD), "the field is taken off");
        taken
    }

    #[test]
    fn browser_is_taken_off_and_checked() {
        assert_eq!(take(json!({"action": "list_tabs"})), Ok(None));
        assert_eq!(take(json!({"browser": null})), Ok(None));
        assert_eq!(
            take(json!({"browser": "Work Chrome"})),
            Ok(Some("Work Chrome".into()))
        );
        for bad in [
            json!(3),
            json!(""),
            json!("  "),
            json!("a\nb"),
            json!("x".repeat(129)),
            json!(["Work"]),
        ] {
            let error = take(json!({ "browser": bad })).expect_err("refused");
            assert_eq!(error.code, ErrorCode::InvalidRequest);
            assert!(error.message.starts_with("browser"), "{}", error.message);
        }
        assert!(check_browser_name("browserName", &"é".repeat(128)).is_ok());
        assert!(check_browser_name("browserName", "a\u{85}b").is_err());
        // The schema's pattern says the same.
        let schema = json!({ "type": "string", "pattern": BROWSER_NAME_PATTERN });
        let validator = jsonschema::validator_for(&schema).expect("the pattern compiles");
        let pattern = |name: &str| validator.is_valid(&json!(name));
        for name in ["Work", " W ", "  ", "a\tb", "a\u{9f}", "é"] {
            let ok = check_browser_name("browserName", name).is_ok();
            assert_eq!(pattern(name), ok, "{name:?}");
        }
    }

    #[test]
    fn browser_run_ids_are_checked_as_the_schema_says() {
        let schema = json!({ "type": "string", "pattern": BROWSER_RUN_ID_PATTERN });
        let validator = jsonschema::validator_for(&schema).expect("the pattern compiles");
        let long = "a".repeat(65);
        for (run, ok) in [
            ("6f1c2b0e-5d4a-4e3b-8a1f-2c9d7e6b5a40", true),
            ("a_b", true),
            ("", false),
            (long.as_str(), false),
            ("a b", false),
            ("é", false),
        ] {
            let checked = check_browser_run_id(run);
            assert_eq!(checked.is_ok(), ok, "{run:?}");
            assert_eq!(validator.is_valid(&json!(run)), ok, "{run:?}");
            if let Err(error) = checked {
                assert_eq!(error.code, ErrorCode::InvalidRequest);
                assert!(error.message.starts_with("browserRunId"));
            }
        }
    }
}
