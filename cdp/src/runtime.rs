//! The `Runtime` domain: evaluating page JavaScript and JS handles.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Command, Empty, Event, id};

id!(
    /// `Runtime.RemoteObjectId`: a handle to a JS object in the page, valid until
    /// its object group is released or the document goes.
    RemoteObjectId(String)
);

/// `Runtime.evaluate`: runs `expression` in the page's main world.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    /// The JavaScript expression.
    pub expression: String,
    /// Return the value as JSON (`RemoteObject::value`) instead of a handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    /// Await the value when it is a promise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    /// Run as if from a user gesture (`navigator.userActivation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_gesture: Option<bool>,
    /// Group for the handles this creates ([`ReleaseObjectGroup`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
    /// Terminate the script after this long (ms); CDP then answers an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u32>,
    /// The execution context to run in (an isolated world's); default the
    /// page's main world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
}

impl Evaluate {
    /// `expression`, every option unset.
    pub fn new(expression: impl Into<String>) -> Evaluate {
        Evaluate {
            expression: expression.into(),
            ..Evaluate::default()
        }
    }

    /// `expression` with `returnByValue: true`: the JSON value comes back.
    pub fn by_value(expression: impl Into<String>) -> Evaluate {
        Evaluate {
            return_by_value: Some(true),
            ..Evaluate::new(expression)
        }
    }
}

/// The result of [`Evaluate`] and [`CallFunctionOn`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponse {
    /// The value (for a throw: the thrown value).
    #[serde(default)]
    pub result: RemoteObject,
    /// Set when the code threw.
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

impl Command for Evaluate {
    const METHOD: &'static str = "Runtime.evaluate";
    type Response = EvaluateResponse;
}

/// One argument of [`CallFunctionOn`]: a JSON value or a handle.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CallArgument {
    /// A JSON value.
    Value(Value),
    /// A JS object by handle.
    ObjectId(RemoteObjectId),
}

/// `Runtime.callFunctionOn`: calls `functionDeclaration` with `this` = the
/// object.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn {
    /// `this`.
    pub object_id: RemoteObjectId,
    /// `function (...) { … }` source.
    pub function_declaration: String,
    /// The arguments, each `{value}` or `{objectId}`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<CallArgument>,
    /// Return the value as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_by_value: Option<bool>,
    /// Await the value when it is a promise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub await_promise: Option<bool>,
    /// Run as if from a user gesture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_gesture: Option<bool>,
}

impl Command for CallFunctionOn {
    const METHOD: &'static str = "Runtime.callFunctionOn";
    type Response = EvaluateResponse;
}

/// `Runtime.releaseObjectGroup`: drops every handle of a group.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObjectGroup {
    /// The group ([`Evaluate::object_group`]).
    pub object_group: String,
}

impl Command for ReleaseObjectGroup {
    const METHOD: &'static str = "Runtime.releaseObjectGroup";
    type Response = Empty;
}

/// `Runtime.runIfWaitingForDebugger`: lets a target paused at start
/// (`waitForDebuggerOnStart`) run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunIfWaitingForDebugger {}

impl Command for RunIfWaitingForDebugger {
    const METHOD: &'static str = "Runtime.runIfWaitingForDebugger";
    type Response = Empty;
}

/// `Runtime.RemoteObject` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// JS type: `object`, `string`, `number`, `undefined`, …
    #[serde(rename = "type", default)]
    pub kind: String,
    /// `null`, `array`, `node`, `map`, … for objects.
    #[serde(default)]
    pub subtype: Option<String>,
    /// The value, for primitives and `returnByValue`.
    #[serde(default)]
    pub value: Option<Value>,
    /// `NaN`, `Infinity`, `-0`, `123n`: values JSON cannot carry.
    #[serde(default)]
    pub unserializable_value: Option<String>,
    /// CDP's description (`HTMLDivElement`, `Error: boom\n    at …`).
    #[serde(default)]
    pub description: Option<String>,
    /// Handle, for objects not returned by value.
    #[serde(default)]
    pub object_id: Option<RemoteObjectId>,
}

/// `Runtime.ExceptionDetails` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Short text (`Uncaught`).
    #[serde(default)]
    pub text: String,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
    /// The script that threw.
    #[serde(default)]
    pub url: Option<String>,
    /// Its line, counted from 0.
    #[serde(default)]
    pub line_number: Option<u32>,
}

/// `Runtime.enable`: execution contexts, console calls and exceptions are reported
/// (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Runtime.enable";
    type Response = Empty;
}

/// One frame of a `Runtime.StackTrace` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The script's URL.
    #[serde(default)]
    pub url: String,
    /// Counted from 0.
    #[serde(default)]
    pub line_number: u32,
}

/// `Runtime.StackTrace` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    /// Innermost first.
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

/// `Runtime.consoleAPICalled`: the page called a `console` method.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleApiCalled {
    /// The method: `log`, `debug`, `info`, `error`, `warning`, `assert`, `table`, …
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<RemoteObject>,
    /// When (`Runtime.Timestamp`: ms since the Unix epoch).
    #[serde(default)]
    pub timestamp: f64,
    /// Where it was called.
    #[serde(default)]
    pub stack_trace: Option<StackTrace>,
}

impl Event for ConsoleApiCalled {
    const METHOD: &'static str = "Runtime.consoleAPICalled";
}

/// `Runtime.exceptionThrown`: an uncaught exception (or unhandled rejection).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// When (ms since the Unix epoch).
    #[serde(default)]
    pub timestamp: f64,
    /// What was thrown, and where.
    #[serde(default)]
    pub exception_details: ExceptionDetails,
}

impl Event for ExceptionThrown {
    const METHOD: &'static str = "Runtime.exceptionThrown";
}

impl ExceptionDetails {
    /// The most useful message: the thrown error's description (`Error: boom\n at
    /// …`), first line only, else its JSON value, else CDP's text.
    pub fn message(&self) -> String {
        let from_exception = self.exception.as_ref().and_then(|e| {
            e.description
                .clone()
                .or_else(|| e.value.as_ref().map(|v| v.to_string()))
        });
        let text = from_exception.unwrap_or_else(|| self.text.clone());
        text.lines().next().unwrap_or_default().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evaluate_sends_only_what_is_set() {
        assert_eq!(
            serde_json::to_value(Evaluate::new("1 + 1")).unwrap(),
            json!({"expression": "1 + 1"})
        );
        let full = Evaluate {
            await_promise: Some(true),
            user_gesture: Some(true),
            object_group: Some("g".into()),
            timeout: Some(10_000),
            ..Evaluate::by_value("x")
        };
        assert_eq!(
            serde_json::to_value(full).unwrap(),
            json!({"expression": "x", "returnByValue": true, "awaitPromise": true,
                   "userGesture": true, "objectGroup": "g", "timeout": 10000})
        );
    }

    #[test]
    fn call_arguments_are_value_or_handle() {
        let call = CallFunctionOn {
            object_id: RemoteObjectId("1.2".into()),
            function_declaration: "function (a, b) {}".into(),
            arguments: vec![
                CallArgument::Value(json!([1, "a"])),
                CallArgument::ObjectId(RemoteObjectId("3.4".into())),
            ],
            return_by_value: Some(true),
            ..CallFunctionOn::default()
        };
        assert_eq!(
            serde_json::to_value(call).unwrap(),
            json!({"objectId": "1.2", "functionDeclaration": "function (a, b) {}",
                   "arguments": [{"value": [1, "a"]}, {"objectId": "3.4"}], "returnByValue": true})
        );
    }

    #[test]
    fn exception_message_prefers_the_description_first_line() {
        let r: EvaluateResponse = serde_json::from_value(json!({
            "result": {"type": "object", "subtype": "error"},
            "exceptionDetails": {"text": "Uncaught", "exception": {
                "type": "object", "description": "Error: boom\n    at <anonymous>:1:7"}}
        }))
        .unwrap();
        assert_eq!(r.exception_details.unwrap().message(), "Error: boom");
        let thrown_value = ExceptionDetails {
            text: "Uncaught".into(),
            exception: Some(RemoteObject {
                value: Some(json!("plain string")),
                ..RemoteObject::default()
            }),
            ..ExceptionDetails::default()
        };
        assert_eq!(thrown_value.message(), "\"plain string\"");
        let bare = ExceptionDetails {
            text: "Uncaught SyntaxError".into(),
            ..ExceptionDetails::default()
        };
        assert_eq!(bare.message(), "Uncaught SyntaxError");
    }

    #[test]
    fn remote_object_tolerates_missing_and_extra_fields() {
        let o: RemoteObject = serde_json::from_value(
            json!({"type": "number", "value": 3, "className": "Number", "preview": {}}),
        )
        .unwrap();
        assert_eq!(o.kind, "number");
        assert_eq!(o.value, Some(json!(3)));
        assert!(o.object_id.is_none());
    }
}
