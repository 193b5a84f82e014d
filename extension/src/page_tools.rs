//! `list_page_tools` / `call_page_tool` (PROTOCOL.md §9).
//!
//! A page exposes tools by answering the `devtoolstooldiscovery` event on `window`
//! with `event.respondWith({name, description, tools})`. Both actions dispatch that
//! event afresh with one `Runtime.evaluate` (nothing is kept between calls, so tools
//! vanish with the page that defined them). Names, descriptions and outputs are page
//! content, untrusted: results carry `pageProvided: true`.

use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::{CallPageTool, TabOnly};
use browser_bridge_protocol::page_tools::{CallPageToolResult, ListPageToolsResult, PageToolGroup};
use browser_bridge_protocol::result::EvaluateValue;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use serde_json::Value;

use crate::runtime;

/// CDP `timeout` of a tool call (ms), as for `evaluate` (§7).
pub const TOOL_TIMEOUT_MS: u32 = 10_000;

/// Dispatches the discovery event and resolves to the groups (tool objects with
/// their `execute`). `respondWith` may be given a group or a promise of one.
const DISCOVER: &str = r#"async function discover() {
  const answers = [];
  const event = new Event('devtoolstooldiscovery');
  event.respondWith = (group) => { answers.push(group); };
  window.dispatchEvent(event);
  const groups = await Promise.all(answers);
  return groups.filter((g) => g && typeof g === 'object');
}"#;

/// Lists the tools the page exposes.
///
/// # Errors
/// `invalid_action` when the page's listener throws; `timeout` past 10 s.
pub async fn list_page_tools(tab: TabId, _p: TabOnly) -> Result<ActionResult, BridgeError> {
    let expression = format!(
        "(async () => {{ {DISCOVER}\n return (await discover()).map((g) => ({{ \
           name: String(g.name ?? ''), description: String(g.description ?? ''), \
           tools: Array.from(g.tools ?? [], (t) => ({{ name: String(t.name ?? ''), \
             description: String(t.description ?? ''), inputSchema: t.inputSchema ?? {{}} }})) }})); }})()"
    );
    let value = run(tab, &expression, "list_page_tools").await?;
    let groups: Vec<PageToolGroup> = serde_json::from_value(value).map_err(|e| {
        BridgeError::invalid_action(format!(
            "the page answered tool discovery with an unexpected shape: {e}"
        ))
    })?;
    Ok(ActionResult::ListPageTools(ListPageToolsResult {
        tab_id: tab,
        page_provided: true,
        groups,
    }))
}

/// Calls one page tool: `execute(input)`, awaited, JSON by value, cut like
/// `evaluate` (§7).
///
/// # Errors
/// `invalid_action` when no such tool exists or the tool throws (the message
/// carries the error); `timeout` past 10 s.
pub async fn call_page_tool(tab: TabId, p: CallPageTool) -> Result<ActionResult, BridgeError> {
    let tool = serde_json::to_string(&p.tool).unwrap_or_default();
    let group = serde_json::to_string(&p.group).unwrap_or_else(|_| "null".into());
    let input = serde_json::to_string(&p.input).unwrap_or_else(|_| "null".into());
    let expression = format!(
        "(async () => {{ {DISCOVER}\n const want = {tool}, group = {group}; \
           for (const g of await discover()) {{ \
             if (group !== null && String(g.name) !== group) continue; \
             for (const t of Array.from(g.tools ?? [])) {{ \
               if (String(t.name) === want && typeof t.execute === 'function') {{ \
                 const output = await t.execute({input}); \
                 return {{ found: true, output: output === undefined ? null : output }}; }} }} }} \
           return {{ found: false }}; }})()"
    );
    let value = run(tab, &expression, "call_page_tool").await?;
    if value.get("found") != Some(&Value::Bool(true)) {
        let group = p
            .group
            .map(|g| format!(" in group {g:?}"))
            .unwrap_or_default();
        return Err(BridgeError::invalid_action(format!(
            "the page has no tool {:?}{group}: call list_page_tools for the tools it exposes now",
            p.tool
        )));
    }
    let output = value.get("output").cloned().unwrap_or_default();
    let (output, truncated) = match EvaluateValue::from_json(output) {
        EvaluateValue::Value { value } => (value, None),
        EvaluateValue::Truncated { preview, .. } => (Value::String(preview), Some(true)),
        EvaluateValue::Description { description } => (Value::String(description), None),
    };
    Ok(ActionResult::CallPageTool(CallPageToolResult {
        tab_id: tab,
        page_provided: true,
        output,
        truncated,
    }))
}

/// Evaluates `expression` by value; a throw is `invalid_action`.
async fn run(tab: TabId, expression: &str, what: &str) -> Result<Value, BridgeError> {
    let evaluate = Evaluate {
        await_promise: Some(true),
        user_gesture: Some(true),
        ..Evaluate::by_value(expression)
    };
    match runtime::evaluate(tab, evaluate, TOOL_TIMEOUT_MS, what).await? {
        Ok(result) => Ok(result.value.unwrap_or(Value::Null)),
        Err(message) => Err(BridgeError::invalid_action(format!(
            "{what}: the page tool threw: {message}"
        ))),
    }
}
