//! `list_page_tools` / `call_page_tool` (PROTOCOL.md §9): owned by helper D, who
//! replaces this placeholder. Runs with the tab's lock held and its session attached.

use browser_bridge_protocol::action::{CallPageTool, TabOnly};
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};

/// Lists the tools the page exposes.
///
/// # Errors
/// `invalid_action` until implemented.
pub async fn list_page_tools(tab: TabId, _p: TabOnly) -> Result<ActionResult, BridgeError> {
    Err(BridgeError::invalid_action(format!(
        "list_page_tools (tab {tab}): not yet supported"
    )))
}

/// Calls one page tool.
///
/// # Errors
/// `invalid_action` until implemented.
pub async fn call_page_tool(tab: TabId, _p: CallPageTool) -> Result<ActionResult, BridgeError> {
    Err(BridgeError::invalid_action(format!(
        "call_page_tool (tab {tab}): not yet supported"
    )))
}
