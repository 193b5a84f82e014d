//! `evaluate` exactly as PROTOCOL.md §7.
//!
//! `Runtime.evaluate` of `(async () => { <expression> })()` with `awaitPromise`,
//! `userGesture` and CDP `timeout` 10 000 ms, by reference, so that the three result
//! shapes can be told apart: primitives come back as values; plain objects and
//! arrays are fetched by value with one `Runtime.callFunctionOn`; nodes, functions,
//! maps, … answer with CDP's description. Dialogs opened meanwhile are handled by
//! `sessions` (accept alert/beforeunload, dismiss confirm/prompt).

use browser_bridge_cdp::runtime::{
    CallFunctionOn, Evaluate as CdpEvaluate, ReleaseObjectGroup, RemoteObject,
};
use browser_bridge_protocol::action::Evaluate;
use browser_bridge_protocol::result::{EvaluateResult, EvaluateValue};
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use serde_json::Value;

use crate::app::App;
use crate::{cdp, runtime};

/// CDP `timeout` of the evaluation (ms, §7).
pub const EVALUATE_TIMEOUT_MS: u32 = 10_000;
const OBJECT_GROUP: &str = "browser-bridge-evaluate";

/// Runs `evaluate`.
///
/// # Errors
/// `invalid_action` with the exception text when the code throws; `timeout` past
/// 10 s.
pub async fn evaluate(app: &App, tab: TabId, p: Evaluate) -> Result<ActionResult, BridgeError> {
    app.sessions.with(tab, |s| s.evaluating += 1);
    let outcome = run(tab, &p.expression).await;
    app.sessions
        .with(tab, |s| s.evaluating = s.evaluating.saturating_sub(1));
    let (value_type, value, held_object) = outcome?;
    if held_object {
        release(tab).await;
    }
    Ok(ActionResult::Evaluate(EvaluateResult {
        tab_id: tab,
        value_type,
        value,
    }))
}

/// `(type, shape, an object handle was created and must be released)`.
/// Drops the handles the evaluation created.
async fn release(tab: TabId) {
    let release = ReleaseObjectGroup {
        object_group: OBJECT_GROUP.into(),
    };
    let _ = cdp::send(tab, &release).await;
}

async fn run(tab: TabId, expression: &str) -> Result<(String, EvaluateValue, bool), BridgeError> {
    let evaluate = CdpEvaluate {
        await_promise: Some(true),
        user_gesture: Some(true),
        return_by_value: Some(false),
        object_group: Some(OBJECT_GROUP.into()),
        ..CdpEvaluate::new(format!("(async () => {{\n{expression}\n}})()"))
    };
    let result = match runtime::evaluate(tab, evaluate, EVALUATE_TIMEOUT_MS, "evaluate").await? {
        Ok(result) => result,
        Err(message) => {
            release(tab).await;
            return Err(BridgeError::invalid_action(format!(
                "evaluate threw: {message}"
            )));
        }
    };
    let held = result.object_id.is_some();
    let (kind, value) = shape(tab, result).await?;
    Ok((kind, value, held))
}

/// §7's `type` and shape of one remote object.
async fn shape(tab: TabId, obj: RemoteObject) -> Result<(String, EvaluateValue), BridgeError> {
    let subtype = obj.subtype.as_deref();
    let kind = match (obj.kind.as_str(), subtype) {
        ("object", Some("null")) => "null".to_owned(),
        ("object", Some("array")) => "array".to_owned(),
        (k, _) => k.to_owned(),
    };
    if let Some(unserializable) = obj.unserializable_value {
        return Ok((
            kind,
            EvaluateValue::Description {
                description: unserializable,
            },
        ));
    }
    match (obj.kind.as_str(), subtype) {
        ("undefined", _) => Ok((kind, EvaluateValue::Value { value: Value::Null })),
        ("object", Some("null")) => Ok((kind, EvaluateValue::Value { value: Value::Null })),
        ("object", None | Some("array")) => {
            let Some(object_id) = obj.object_id else {
                return Ok((
                    kind,
                    EvaluateValue::from_json(obj.value.unwrap_or_default()),
                ));
            };
            let by_value = CallFunctionOn {
                object_id,
                function_declaration: "function () { return this; }".into(),
                return_by_value: Some(true),
                ..CallFunctionOn::default()
            };
            match cdp::send(tab, &by_value).await {
                Ok(r) if r.exception_details.is_none() => Ok((
                    kind,
                    EvaluateValue::from_json(r.result.value.unwrap_or_default()),
                )),
                _ => Ok((
                    kind,
                    EvaluateValue::Description {
                        description: obj.description.unwrap_or_default(),
                    },
                )),
            }
        }
        ("string" | "number" | "boolean", _) => Ok((
            kind,
            EvaluateValue::from_json(obj.value.unwrap_or_default()),
        )),
        _ => Ok((
            kind,
            EvaluateValue::Description {
                description: obj.description.unwrap_or_default(),
            },
        )),
    }
}
