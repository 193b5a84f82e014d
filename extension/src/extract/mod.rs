//! `extract` (PROTOCOL.md §6): owned by the extract work (helper D), who replaces
//! this placeholder. Runs with the tab's lock held and its session attached; see
//! `crate::sessions` and `crate::cdp` for the helpers.

use browser_bridge_protocol::{ActionResult, BridgeError, TabId};

/// Reads the page of `tab`: markdown, text, elements with uids, obstacle.
///
/// # Errors
/// `invalid_action` until implemented.
pub async fn extract(tab: TabId) -> Result<ActionResult, BridgeError> {
    Err(BridgeError::invalid_action(format!(
        "extract (tab {tab}): not yet supported"
    )))
}
