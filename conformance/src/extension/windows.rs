//! A request's `client` (PROTOCOL.md §3, §10): each client's new tabs open in
//! an agent window of its own, reused for its later tabs; a malformed `client`
//! is `invalid_request` for the request's id.

use serde_json::{Value, json};

use super::answers::{ACTION_MS, error_of, result_of};
use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short, u64_field};

/// `timeoutMs` of `open_tab` (§5).
const OPEN_MS: u64 = 30_000;

/// Sends `action` as a request naming `client` and waits for its response.
async fn call_as(
    conn: &mut Conn,
    client: &Value,
    action: Value,
    timeout_ms: u64,
) -> Result<Value, String> {
    let id = uuid::Uuid::new_v4().to_string();
    let frame = json!({"type": "request", "id": id, "action": action,
                       "timeoutMs": timeout_ms, "client": client});
    conn.send_request_frame(&id, &frame).await?;
    conn.response(&id, std::time::Duration::from_millis(timeout_ms + 3_000))
        .await
}

/// `open_tab about:blank` for `client`: `(tabId, windowId)`.
async fn open_as(conn: &mut Conn, client: &str) -> Result<(u64, u64), String> {
    let action = json!({"action": "open_tab", "url": "about:blank"});
    let response = call_as(conn, &json!(client), action, OPEN_MS).await?;
    let result = result_of(&response, "open_tab")?;
    Ok((u64_field(result, "tabId")?, u64_field(result, "windowId")?))
}

/// Two clients open two tabs each: a window per client, each reused, neither
/// the shared agent window of requests without `client` (the window of
/// `shared_tab`), all of them marked `agentWindow` by `list_tabs`. The tabs are
/// closed afterwards.
pub(super) async fn a_window_per_client(conn: &mut Conn, shared_tab: u64) -> Outcome {
    let run = uuid::Uuid::new_v4().simple().to_string();
    let (a, b) = (
        format!("conformance-a-{}", &run[..8]),
        format!("conformance-b-{}", &run[..8]),
    );
    let mut opened = Vec::new();
    for client in [&a, &b, &a, &b] {
        opened.push(open_as(conn, client).await?);
    }
    let listed = conn.call(json!({"action": "list_tabs"}), ACTION_MS).await?;
    let tabs = result_of(&listed, "list_tabs")?["tabs"].clone();
    for (tab, _) in &opened {
        let closed = conn
            .call(json!({"action": "close_tab", "tabId": tab}), ACTION_MS)
            .await?;
        result_of(&closed, "close_tab")?;
    }
    let window_of = |tab: u64| -> Result<&Value, String> {
        tabs.as_array()
            .and_then(|all| all.iter().find(|t| t["tabId"] == json!(tab)))
            .ok_or_else(|| format!("tab {tab} is not listed: {}", short(&tabs)))
    };
    let shared = window_of(shared_tab)?["windowId"].clone();
    let [(_, a1), (_, b1), (_, a2), (_, b2)] = opened[..] else {
        return Err("four tabs opened".into());
    };
    ensure(a1 == a2 && b1 == b2, || {
        format!("a client's second tab is in another window: a {a1}, {a2}; b {b1}, {b2}")
    })?;
    ensure(a1 != b1, || format!("clients a and b share window {a1}"))?;
    ensure(shared != json!(a1) && shared != json!(b1), || {
        format!("a client's tab is in the shared agent window {shared}")
    })?;
    for (tab, window) in &opened {
        let info = window_of(*tab)?;
        ensure(
            info["windowId"] == json!(window) && info["agentWindow"] == json!(true),
            || format!("tab {tab} listed as {}", short(info)),
        )?;
    }
    Ok(())
}

/// A `client` that is not 1–128 visible ASCII characters is `invalid_request`
/// answered for the request's id, and no tab is opened.
pub(super) async fn malformed_client(conn: &mut Conn) -> Outcome {
    for bad in [
        json!("two words"),
        json!(""),
        json!(7),
        json!("x".repeat(129)),
    ] {
        let action = json!({"action": "list_tabs"});
        let response = call_as(conn, &bad, action, ACTION_MS).await?;
        let error = error_of(&response).map_err(|e| format!("client {bad}: {e}"))?;
        expect_error(error, "invalid_request").map_err(|e| format!("client {bad}: {e}"))?;
    }
    Ok(())
}
