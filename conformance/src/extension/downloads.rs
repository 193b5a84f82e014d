//! A session's downloads (PROTOCOL.md §10.2), on the conformance tab, which
//! started none: `list_downloads` answers an empty list; `wait_for_download`
//! without an id answers `timeout` at its own `timeoutMs` (nothing hangs); a
//! `downloadId` that is not the session's is `invalid_action`; a `limit` past
//! 50 and a `timeoutMs` past 300000 are `invalid_request`.

use std::time::{Duration, Instant};

use serde_json::json;

use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short};

/// `timeoutMs` of `list_downloads` (§5: everything else 15 s).
const ACTION_MS: u64 = 15_000;
/// The `wait_for_download` that must time out (ms).
const WAIT_MS: u64 = 300;
/// A `chrome.downloads` id this session never had.
const FOREIGN_ID: u64 = 2_147_480_000;

/// The check, on `tab`.
pub(super) async fn downloads(conn: &mut Conn, tab: u64) -> Outcome {
    let list = json!({"action": "list_downloads", "tabId": tab});
    let response = conn.call(list, ACTION_MS).await?;
    let result = response
        .get("result")
        .ok_or_else(|| format!("expected a result, got {}", short(&response)))?;
    ensure(
        result["action"] == "list_downloads" && result["downloads"] == json!([]),
        || format!("a tab that started no download lists {}", short(result)),
    )?;
    let started = Instant::now();
    let wait = json!({"action": "wait_for_download", "tabId": tab, "timeoutMs": WAIT_MS});
    let response = conn.call(wait, WAIT_MS + 5_000).await?;
    let error = response
        .get("error")
        .ok_or_else(|| format!("expected timeout, got {}", short(&response)))?;
    expect_error(error, "timeout")?;
    let took = started.elapsed();
    ensure(
        took >= Duration::from_millis(WAIT_MS) && took < Duration::from_millis(WAIT_MS + 4_000),
        || format!("timeoutMs {WAIT_MS} answered after {took:?}"),
    )?;
    let foreign = json!({"action": "wait_for_download", "tabId": tab, "downloadId": FOREIGN_ID});
    let response = conn.call(foreign, ACTION_MS).await?;
    let error = response
        .get("error")
        .ok_or_else(|| format!("expected invalid_action, got {}", short(&response)))?;
    expect_error(error, "invalid_action")?;
    for bad in [
        json!({"action": "list_downloads", "tabId": tab, "limit": 51}),
        json!({"action": "wait_for_download", "tabId": tab, "timeoutMs": 300_001}),
    ] {
        let response = conn.call(bad.clone(), ACTION_MS).await?;
        let error = response
            .get("error")
            .ok_or_else(|| format!("{} answered {}", short(&bad), short(&response)))?;
        expect_error(error, "invalid_request")?;
    }
    Ok(())
}
