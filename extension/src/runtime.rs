//! One `Runtime.evaluate` under the §7 time limit, shared by `evaluate` and the page
//! tools (PROTOCOL.md §7, §9).
//!
//! CDP's own `timeout` terminates the script ("Execution was terminated"); the
//! `sendCommand` timeout, one second longer, bounds a renderer that never answers.
//! Both are `timeout`; a throw is handed back for the caller to word.

use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};
use serde_json::Value;

use crate::cdp::{self, EvalResult, RemoteObject};

/// Runs `Runtime.evaluate` with `params` plus CDP `timeout` = `timeout_ms` (ms).
///
/// `Ok(Ok(object))` is the result, `Ok(Err(message))` the first line of what the
/// code threw ([`cdp::ExceptionDetails::message`]).
///
/// # Errors
/// `timeout` ("`{what}`: still running after `timeout_ms` ms") when the script is
/// terminated or CDP does not answer; CDP failures as [`BridgeError::from`];
/// `internal` when the answer does not parse.
pub async fn evaluate(
    tab: TabId,
    mut params: Value,
    timeout_ms: u32,
    what: &str,
) -> Result<Result<RemoteObject, String>, BridgeError> {
    params["timeout"] = timeout_ms.into();
    let still_running = || {
        BridgeError::new(
            ErrorCode::Timeout,
            format!(
                "{what}: still running after {timeout_ms} ms: make the script finish sooner \
                 or wait_for the condition instead"
            ),
        )
    };
    let started = crate::chrome::now_ms();
    let raw = cdp::send_with_timeout(tab, "Runtime.evaluate", params, timeout_ms + 1_000)
        .await
        .map_err(|e| {
            // Chromium answers a script it terminated at `timeout` with a bare CDP
            // "Internal error" (not an exception): any failure that comes after the
            // limit is the limit.
            let elapsed = crate::chrome::now_ms().saturating_sub(started);
            if e.timed_out || e.message.contains("timed out") || elapsed >= u64::from(timeout_ms) {
                still_running()
            } else {
                BridgeError::from(e)
            }
        })?;
    let r: EvalResult = serde_json::from_value(raw)
        .map_err(|e| BridgeError::internal(format!("Runtime.evaluate: {e}")))?;
    match r.exception_details {
        Some(ex) => {
            let message = ex.message();
            if message.contains("Execution was terminated") {
                return Err(still_running());
            }
            Ok(Err(message))
        }
        None => Ok(Ok(r.result)),
    }
}
