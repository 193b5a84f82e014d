//! `list_page_tools` / `call_page_tool` (PROTOCOL.md §9).
//!
//! A page exposes tools by answering the `devtoolstooldiscovery` event on `window`
//! with `event.respondWith({name, description, tools})`, or by registering them
//! through WebMCP (`document.modelContext.registerTool`, provided by
//! [`crate::webmcp::SHIM`]). Both actions dispatch that event afresh and read the
//! WebMCP registry with one `Runtime.evaluate` (nothing is kept between calls, so
//! tools vanish with the page that defined them). Names, descriptions and outputs
//! are page content, untrusted: results carry `pageProvided: true`.

use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::{CallPageTool, TabOnly};
use browser_bridge_protocol::page_tools::{CallPageToolResult, ListPageToolsResult, PageToolGroup};
use browser_bridge_protocol::result::EvaluateValue;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use serde_json::Value;

use crate::runtime;
use crate::webmcp::REGISTRY;

/// CDP `timeout` of a tool call (ms), as for `evaluate` (§7).
pub const TOOL_TIMEOUT_MS: u32 = 10_000;

/// Dispatches the discovery event and resolves to the groups (tool objects with
/// their `execute`), each tagged with its `source`; the WebMCP group, named
/// `webmcp`, comes last when the page registered any tool. `respondWith` may be
/// given a group or a promise of one.
fn discover() -> String {
    format!(
        r#"async function discover() {{
  const answers = [];
  const event = new Event('devtoolstooldiscovery');
  event.respondWith = (group) => {{ answers.push(group); }};
  window.dispatchEvent(event);
  const groups = (await Promise.all(answers)).filter((g) => g && typeof g === 'object')
    .map((g) => ({{ name: g.name, description: g.description, source: 'devtoolstooldiscovery', tools: Array.from(g.tools ?? []) }}));
  const registry = {REGISTRY};
  if (registry && registry.size) groups.push({{ name: 'webmcp', description: '', source: 'webmcp', tools: Array.from(registry.values()) }});
  return groups;
}}"#
    )
}

/// Lists the tools the page exposes.
///
/// # Errors
/// `invalid_action` when the page's listener throws; `timeout` past 10 s.
pub async fn list_page_tools(tab: TabId, _p: TabOnly) -> Result<ActionResult, BridgeError> {
    let expression = format!(
        "(async () => {{ {}\n return (await discover()).map((g) => ({{ \
           name: String(g.name ?? ''), description: String(g.description ?? ''), source: g.source, \
           tools: g.tools.map((t) => ({{ name: String(t.name ?? ''), \
             title: t.title == null ? undefined : String(t.title), \
             description: String(t.description ?? ''), inputSchema: t.inputSchema ?? {{}} }})) }})); }})()",
        discover()
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
/// `evaluate` (§7). Without `group`, the first tool of that name in list order;
/// `group: "webmcp"` picks the WebMCP registry, any other group name the
/// discovery groups of that name.
///
/// # Errors
/// `invalid_action` when no such tool exists, the tool throws, or a WebMCP tool
/// answers `isError: true` (the message names the tool and carries its error);
/// `timeout` past 10 s.
pub async fn call_page_tool(tab: TabId, p: CallPageTool) -> Result<ActionResult, BridgeError> {
    let tool = serde_json::to_string(&p.tool).unwrap_or_default();
    let group = serde_json::to_string(&p.group).unwrap_or_else(|_| "null".into());
    let input = serde_json::to_string(&p.input).unwrap_or_else(|_| "null".into());
    let expression = format!(
        "(async () => {{ {}\n const want = {tool}, group = {group}; \
           for (const g of await discover()) {{ \
             const webmcp = g.source === 'webmcp'; \
             if (group !== null && (group === 'webmcp' ? !webmcp : webmcp || String(g.name) !== group)) continue; \
             for (const t of g.tools) {{ \
               if (String(t.name) === want && typeof t.execute === 'function') {{ \
                 const output = await t.execute({input}); \
                 if (webmcp && output && output.isError === true) return {{ found: true, toolError: \
                   Array.from(output.content ?? [], (c) => c && c.text).filter(Boolean).join('\\n') || JSON.stringify(output) }}; \
                 return {{ found: true, output: output === undefined ? null : output }}; }} }} }} \
           return {{ found: false }}; }})()",
        discover()
    );
    let what = format!("call_page_tool {:?}", p.tool);
    let value = run(tab, &expression, &what).await?;
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
    if let Some(error) = value.get("toolError") {
        let error = error.as_str().unwrap_or_default();
        return Err(BridgeError::invalid_action(format!(
            "{what}: the page tool answered an error: {error}"
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
