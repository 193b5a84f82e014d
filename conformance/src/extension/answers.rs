//! Reading an extension's answers in the checks: its `result` or its `error`.

use serde_json::Value;

use crate::report::ensure;
use crate::wire::{short, str_field};

/// `timeoutMs` for `evaluate` and most other actions (§5).
pub(super) const ACTION_MS: u64 = 15_000;

/// The `error` of a response, or why the response is not an error.
pub(super) fn error_of(response: &Value) -> Result<&Value, String> {
    ensure(response.get("result").is_none(), || {
        format!("expected an error, got {}", short(response))
    })?;
    response
        .get("error")
        .ok_or_else(|| format!("response without error: {}", short(response)))
}

/// The `result` of a response tagged `action`, or why not.
pub(super) fn result_of<'a>(response: &'a Value, action: &str) -> Result<&'a Value, String> {
    ensure(response.get("error").is_none(), || {
        format!("expected a result, got {}", short(response))
    })?;
    let result = response
        .get("result")
        .ok_or_else(|| format!("response without result: {}", short(response)))?;
    let tag = str_field(result, "action")?;
    ensure(tag == action, || {
        format!("result tagged `{tag}`, expected `{action}`")
    })?;
    Ok(result)
}
