//! `handoff` (PROTOCOL.md §5 "Hand-off"), wire only: nobody answers in a
//! conformance run, so a short hand-off ends with `outcome: "timeout"` — a
//! result, not an error — no sooner than its `timeoutMs`; a `timeoutMs` over
//! ten minutes is `invalid_request` naming it.

use std::time::Instant;

use serde_json::json;

use super::answers::{error_of, result_of};
use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short, str_field, u64_field};

/// The hand-off's own `timeoutMs` (ms): short, nobody comes.
const WAIT_MS: u64 = 400;
/// The request's `timeoutMs`: the hand-off's and the backend's 5 s slack.
const REQUEST_MS: u64 = WAIT_MS + 5_000;

/// The check, on `tab`.
pub(super) async fn times_out(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "handoff", "tabId": tab,
                        "reason": "conformance: nobody will answer", "timeoutMs": WAIT_MS});
    let started = Instant::now();
    let response = conn.call(action, REQUEST_MS).await?;
    let waited = started.elapsed().as_millis() as u64;
    let result = result_of(&response, "handoff")?;
    ensure(str_field(result, "outcome")? == "timeout", || {
        format!("expected outcome timeout, got {}", short(result))
    })?;
    ensure(u64_field(result, "tabId")? == tab, || {
        format!("the result names another tab: {}", short(result))
    })?;
    ensure(waited >= WAIT_MS, || {
        format!("answered after {waited} ms, before its timeoutMs {WAIT_MS}")
    })?;
    ensure(u64_field(result, "elapsedMs")? >= WAIT_MS, || {
        format!("elapsedMs below timeoutMs: {}", short(result))
    })?;
    let too_long = json!({"action": "handoff", "tabId": tab, "reason": "x", "timeoutMs": 600_001});
    let response = conn.call(too_long, REQUEST_MS).await?;
    let error = error_of(&response)?;
    expect_error(error, "invalid_request")?;
    let message = str_field(error, "message")?;
    ensure(message.contains("timeoutMs"), || {
        format!("the message does not name timeoutMs: `{message}`")
    })
}
