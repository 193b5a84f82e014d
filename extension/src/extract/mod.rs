//! `extract` (PROTOCOL.md §6, §8): gather through CDP, shape with the protocol
//! crate's pure page logic (`browser_bridge_page`).
//!
//! Round trips: `DOMSnapshot.captureSnapshot` (DOM in flat-tree order with layout and
//! [`COMPUTED_STYLES`], all same-origin frames) and `Runtime.evaluate` of `innerText`
//! go out together; then `Accessibility.getFullAXTree` of the main frame, then one
//! per same-origin iframe the snapshot found, together. (The renderer runs these one
//! at a time anyway, so asking for the tree after the snapshot costs nothing and
//! lets huge pages skip it.) On pages over `AX_TREE_MAX_NODES` nodes, or when the
//! tree fails or takes over `AX_TIMEOUT_MS`, elements come from the snapshot
//! alone (`page::fallback`). No page
//! script beyond reading `innerText`, so a page that overrides prototypes cannot
//! change what the agent reads. The uids come from the session's cache (§6).

use browser_bridge_page::snapshot::{AxTree, COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_page::{PageInputs, shape_extract};
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use futures::future::join_all;
use serde_json::json;
use wasm_bindgen::JsValue;

use crate::{cdp, chrome, sessions};

/// Per-command timeout of the gathering calls (ms); `extract`'s deadline is 20 s.
const GATHER_TIMEOUT_MS: u32 = 15_000;

/// Timeout of `Accessibility.getFullAXTree` (ms): past it, the snapshot-only
/// element list stands in.
const AX_TIMEOUT_MS: u32 = 8_000;

/// `document.body.innerText` (§6 `text`), empty for a document without body.
const INNER_TEXT: &str = "document.body ? document.body.innerText : ''";

/// Reads the page of `tab`: markdown, text, elements with uids, obstacle.
///
/// # Errors
/// `timeout` when CDP does not answer in time, `internal_error` naming the CDP method
/// otherwise, `session_not_found` when the session ended meanwhile.
pub async fn extract(tab: TabId) -> Result<ActionResult, BridgeError> {
    let inputs = gather(tab).await?;
    sessions::with_session(tab, |s| shape_extract(tab, &inputs, &mut s.uids))
        .map(ActionResult::Extract)
        .ok_or_else(|| sessions::no_tab(tab))
}

/// The CDP half of `extract`: snapshot, accessibility trees, innerText.
///
/// # Errors
/// As [`extract`].
pub async fn gather(tab: TabId) -> Result<PageInputs, BridgeError> {
    let snapshot = cdp::send_raw(
        tab,
        "DOMSnapshot.captureSnapshot",
        json!({ "computedStyles": COMPUTED_STYLES }),
        GATHER_TIMEOUT_MS,
    );
    let text = cdp::send_with_timeout(
        tab,
        "Runtime.evaluate",
        json!({ "expression": INNER_TEXT, "returnByValue": true }),
        GATHER_TIMEOUT_MS,
    );
    let (snapshot, text) = futures::join!(snapshot, text);
    let snapshot: CapturedSnapshot = chrome::from_js(&snapshot?).map_err(|e| {
        BridgeError::internal(format!("DOMSnapshot.captureSnapshot: {}", e.message))
    })?;
    // The accessibility tree grows with the page (10 MB on a long Wikipedia article):
    // on huge pages, or when it fails or is late, elements come from the snapshot.
    let ax_trees = if snapshot.wants_ax_tree() {
        ax_trees(tab, &snapshot).await
    } else {
        Vec::new()
    };
    let text = text?;
    Ok(PageInputs {
        snapshot,
        ax_trees,
        text: text["result"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    })
}

/// The main frame's AX tree and those of its same-origin iframes; empty when the
/// main one fails.
async fn ax_trees(tab: TabId, snapshot: &CapturedSnapshot) -> Vec<AxTree> {
    let main = cdp::send_raw(tab, "Accessibility.getFullAXTree", json!({}), AX_TIMEOUT_MS).await;
    match main.map_err(BridgeError::from).and_then(|t| decode_ax(&t)) {
        Ok(main) => {
            let mut trees = vec![main];
            trees.extend(frame_trees(tab, snapshot).await);
            trees
        }
        Err(_) => Vec::new(),
    }
}

/// AX trees of the same-origin iframes: their documents are in the snapshot, their
/// trees are not in the main frame's. A frame that went away meanwhile just has no
/// elements.
async fn frame_trees(tab: TabId, snapshot: &CapturedSnapshot) -> Vec<AxTree> {
    let frames: Vec<String> = snapshot
        .documents
        .iter()
        .skip(1)
        .filter_map(|d| snapshot.string(d.frame_id).map(str::to_owned))
        .collect();
    join_all(frames.iter().map(|frame| {
        cdp::send_raw(
            tab,
            "Accessibility.getFullAXTree",
            json!({ "frameId": frame }),
            AX_TIMEOUT_MS,
        )
    }))
    .await
    .into_iter()
    .filter_map(Result::ok)
    .filter_map(|t| decode_ax(&t).ok())
    .collect()
}

fn decode_ax(raw: &JsValue) -> Result<AxTree, BridgeError> {
    chrome::from_js::<AxTree>(raw)
        .map_err(|e| BridgeError::internal(format!("Accessibility.getFullAXTree: {}", e.message)))
}
