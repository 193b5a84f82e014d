//! Page-exposed tools (PROTOCOL.md §9) on the conformance tab: a tool the page
//! registers through WebMCP (`document.modelContext.registerTool`) is listed in
//! the group `webmcp` with `source: "webmcp"` and answers `call_page_tool`.

use serde_json::{Value, json};

use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{short, str_field};

/// `timeoutMs` of these actions (§5).
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

/// The check, on `tab`.
pub(super) async fn webmcp_tool(conn: &mut Conn, tab: u64) -> Outcome {
    let register = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.modelContext.registerTool({name: 'conformance-echo', description: 'Echoes', \
         inputSchema: {type: 'object'}, execute: async (input) => ({content: [{type: 'text', text: String(input.say)}]})}); \
         return 1"});
    result(&conn.call(register, ACTION_MS).await?, "evaluate")?;
    let list = json!({"action": "list_page_tools", "tabId": tab});
    let response = conn.call(list, ACTION_MS).await?;
    let listed = result(&response, "list_page_tools")?;
    ensure(listed["pageProvided"] == true, || {
        format!("pageProvided is not true: {}", short(listed))
    })?;
    let webmcp = listed["groups"]
        .as_array()
        .and_then(|groups| groups.iter().find(|g| g["source"] == "webmcp"))
        .ok_or_else(|| format!("no group with source webmcp: {}", short(listed)))?;
    ensure(
        webmcp["name"] == "webmcp" && webmcp["tools"][0]["name"] == "conformance-echo",
        || format!("the webmcp group is {}", short(webmcp)),
    )?;
    let call = json!({"action": "call_page_tool", "tabId": tab, "group": "webmcp",
                      "tool": "conformance-echo", "input": {"say": "tide"}});
    let response = conn.call(call, ACTION_MS).await?;
    let called = result(&response, "call_page_tool")?;
    ensure(called["output"]["content"][0]["text"] == "tide", || {
        format!("the call answered {}", short(called))
    })
}
