//! The console and network of a session (PROTOCOL.md §10.1), on the conformance
//! tab: a message the page logs is listed with its level and text, newest last;
//! `network_requests` answers its list; a `requestId` never seen is
//! `invalid_action`; a `limit` past 200 is `invalid_request`.

use serde_json::{Value, json};

use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short, str_field};

/// `timeoutMs` of these reads and of the `evaluate` that logs (§5).
const ACTION_MS: u64 = 15_000;

/// The `result` tagged `action` of a response, or why not.
fn result<'a>(response: &'a Value, action: &str) -> Result<&'a Value, String> {
    let result = response
        .get("result")
        .ok_or_else(|| format!("expected a result, got {}", short(response)))?;
    let tag = str_field(result, "action")?;
    ensure(tag == action, || {
        format!("result tagged `{tag}`, expected `{action}`")
    })?;
    Ok(result)
}

/// The error of a response with `code`, or why not.
async fn refused(conn: &mut Conn, action: Value, code: &str) -> Result<String, String> {
    let response = conn.call(action, ACTION_MS).await?;
    let error = response
        .get("error")
        .ok_or_else(|| format!("expected {code}, got {}", short(&response)))?;
    expect_error(error, code)?;
    Ok(str_field(error, "message")?.to_owned())
}

/// The check, on `tab`.
pub(super) async fn console_and_network(conn: &mut Conn, tab: u64) -> Outcome {
    let log = json!({"action": "evaluate", "tabId": tab,
                     "expression": "console.info('conformance first'); console.warn('conformance console'); return 1"});
    result(&conn.call(log, ACTION_MS).await?, "evaluate")?;
    let read = json!({"action": "console_messages", "tabId": tab, "level": "warning", "limit": 1});
    let response = conn.call(read, ACTION_MS).await?;
    let messages = result(&response, "console_messages")?["messages"]
        .as_array()
        .ok_or_else(|| format!("no messages list: {}", short(&response)))?;
    let [newest] = messages.as_slice() else {
        return Err(format!(
            "limit 1 answered {} messages: {}",
            messages.len(),
            short(&response)
        ));
    };
    ensure(
        newest["level"] == "warning" && newest["text"] == "conformance console",
        || format!("the newest warning is {}", short(newest)),
    )?;
    ensure(newest["timestamp"].as_f64().is_some(), || {
        format!("no timestamp (ms) in {}", short(newest))
    })?;
    let list = json!({"action": "network_requests", "tabId": tab});
    let response = conn.call(list, ACTION_MS).await?;
    ensure(
        result(&response, "network_requests")?["requests"].is_array(),
        || format!("no requests list: {}", short(&response)),
    )?;
    let body = json!({"action": "network_response_body", "tabId": tab,
                      "requestId": "conformance-never-seen"});
    let message = refused(conn, body, "invalid_action").await?;
    ensure(message.contains("conformance-never-seen"), || {
        format!("the message does not name the request: `{message}`")
    })?;
    let too_many = json!({"action": "console_messages", "tabId": tab, "limit": 201});
    refused(conn, too_many, "invalid_request").await.map(drop)
}
