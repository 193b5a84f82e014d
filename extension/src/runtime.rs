//! One `Runtime.evaluate` under the §7 time limit, shared by `evaluate` and the page
//! tools (PROTOCOL.md §7, §9).
//!
//! CDP's own `timeout` terminates the script ("Execution was terminated"); the
//! `sendCommand` timeout, one second longer, bounds a renderer that never answers.
//! Both are `timeout`; a throw is handed back for the caller to word.

use browser_bridge_cdp::runtime::{Evaluate, RemoteObject};
use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};

use crate::cdp;

/// Runs `evaluate` with CDP `timeout` = `timeout_ms` (ms).
///
/// `Ok(Ok(object))` is the result, `Ok(Err(message))` the first line of what the
/// code threw ([`browser_bridge_cdp::runtime::ExceptionDetails::message`]).
///
/// # Errors
/// `timeout` ("`{what}`: still running after `timeout_ms` ms") when the script is
/// terminated or CDP does not answer; CDP failures as [`BridgeError::from`];
/// CDP's `internal_error` when the answer does not parse.
pub async fn evaluate(
    tab: TabId,
    mut evaluate: Evaluate,
    timeout_ms: u32,
    what: &str,
) -> Result<Result<RemoteObject, String>, BridgeError> {
    evaluate.timeout = Some(timeout_ms);
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
    let r = cdp::send_with_timeout(tab, &evaluate, timeout_ms + 1_000)
        .await
        .map_err(|e| {
            // Chromium answers a script it terminated at `timeout` with a bare CDP
            // "Internal error" (not an exception): any failure that comes after the
            // limit is the limit.
            let elapsed = crate::chrome::now_ms().saturating_sub(started);
            if e.is_timeout()
                || e.detail().contains("timed out")
                || elapsed >= u64::from(timeout_ms)
            {
                still_running()
            } else {
                BridgeError::from(e)
            }
        })?;
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
