//! Several browsers on one backend (PROTOCOL.md §5 "Browsers"): the name an
//! extension gives its browser in `hello`, and the caller's `browser` field that
//! picks one. The backend takes `browser` off a call before the action is decoded
//! (like the tool's `includeText`); it never crosses the WebSocket.

use serde_json::{Map, Value};

use crate::BridgeError;

/// The field of a call (`/v1/act` body, `browser` tool arguments) naming the
/// browser it goes to: a browser's name or its extension's `clientId`.
pub const BROWSER_FIELD: &str = "browser";

/// Longest browser name (`hello.browserName`) and `browser` field, in bytes.
pub const MAX_BROWSER_NAME: usize = 128;

/// A browser name or `browser` field: 1 to [`MAX_BROWSER_NAME`] bytes, no
/// control characters, not only spaces.
///
/// # Errors
/// `invalid_request` naming `field` and the rule.
pub fn check_browser_name(field: &str, name: &str) -> Result<(), BridgeError> {
    if name.trim().is_empty() || name.len() > MAX_BROWSER_NAME || name.chars().any(char::is_control)
    {
        return Err(BridgeError::invalid_request(format!(
            "{field} must be 1 to {MAX_BROWSER_NAME} bytes of text without control characters"
        )));
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
        assert!(check_browser_name("browserName", &"é".repeat(64)).is_ok());
    }
}
