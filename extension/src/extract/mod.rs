//! `extract` (PROTOCOL.md §6, §8): gather through CDP, shape with the pure page
//! logic (`browser_bridge_page`).
//!
//! The calls are [`browser_bridge_cdp::gather`]'s, shared with the corpus
//! capture. Round trips: `DOMSnapshot.captureSnapshot` (DOM in flat-tree order
//! with layout and [`COMPUTED_STYLES`], all same-origin frames) and
//! `Runtime.evaluate` of `innerText` go out together; then
//! `Accessibility.getFullAXTree` of the main frame, then one per same-origin iframe
//! the snapshot found, together; out-of-process iframes are captured in their
//! own sessions ([`frames`]) and merged in place. (The renderer runs these one at a time anyway,
//! so asking for the tree after the snapshot costs nothing and lets huge pages
//! skip it.) On pages over `AX_TREE_MAX_NODES` nodes, or when the tree fails or
//! takes over [`AX_TIMEOUT_MS`], elements come from the snapshot alone
//! (`page::fallback`). No page script beyond reading `innerText`, so a page that
//! overrides prototypes cannot change what the agent reads. The uids come from
//! the session's cache (§6).

pub mod frames;

use browser_bridge_cdp::gather;
use browser_bridge_cdp::page::FrameId;
use browser_bridge_page::frames::merge_frames;
use browser_bridge_page::snapshot::{AxTree, COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_page::{PageInputs, shape_extract_with};
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use futures::future::join_all;

use crate::app::App;
use crate::cdp;
use crate::sessions::attach::no_tab;

/// Per-command timeout of the gathering calls (ms); `extract`'s deadline is 20 s.
const GATHER_TIMEOUT_MS: u32 = 15_000;

/// Timeout of `Accessibility.getFullAXTree` (ms): past it, the snapshot-only
/// element list stands in.
pub const AX_TIMEOUT_MS: u32 = 8_000;

/// Reads the page of `tab`: markdown, text, elements with uids, obstacle; shaped
/// by the options of `p` (`scope`, `query`, `part`: §6 "Options", applied by
/// [`shape_extract_with`] on the whole page gathered as always).
///
/// # Errors
/// `timeout` when CDP does not answer in time, `internal_error` naming the CDP method
/// otherwise, `session_not_found` when the session ended meanwhile; for the
/// options, `element_not_found`/`element_stale` (scope) and `invalid_action` (a
/// part past the last).
pub async fn extract(app: &App, tab: TabId, p: Extract) -> Result<ActionResult, BridgeError> {
    let mut inputs = gather(tab).await?;
    let ax = !inputs.ax_trees.is_empty();
    let frames = frames::capture(app, tab, ax).await;
    merge_frames(&mut inputs, frames);
    app.sessions
        .with(tab, |s| {
            let result = shape_extract_with(tab, &inputs, &mut s.uids, &p)?;
            // What `screenshot` `marks` draws: the elements this extract listed.
            let listed: Vec<_> = result.elements.iter().map(|e| e.uid.clone()).collect();
            s.uids.set_listed(&listed);
            Ok(result)
        })
        .ok_or_else(|| no_tab(tab))?
        .map(ActionResult::Extract)
}

/// The CDP half of `extract`: snapshot, accessibility trees, innerText.
///
/// # Errors
/// As [`extract`].
pub async fn gather(tab: TabId) -> Result<PageInputs, BridgeError> {
    let snapshot = gather::snapshot::<CapturedSnapshot>(&COMPUTED_STYLES);
    let snapshot = cdp::send_with_timeout(tab, &snapshot, GATHER_TIMEOUT_MS);
    let text = gather::inner_text();
    let text = cdp::send_with_timeout(tab, &text, GATHER_TIMEOUT_MS);
    let status = gather::document_status();
    let status = cdp::send_with_timeout(tab, &status, GATHER_TIMEOUT_MS);
    let (snapshot, text, status) = futures::join!(snapshot, text, status);
    let snapshot = snapshot?;
    // The accessibility tree grows with the page (10 MB on a long Wikipedia article):
    // on huge pages, or when it fails or is late, elements come from the snapshot.
    let ax_trees = if snapshot.wants_ax_tree() {
        ax_trees(tab, &snapshot).await
    } else {
        Vec::new()
    };
    let text = text?.result.value;
    Ok(PageInputs {
        snapshot,
        ax_trees,
        text: text
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned(),
        // Unknown (0, or the call failed) is no status: §8 then decides without it.
        status: status
            .ok()
            .and_then(|s| s.result.value)
            .and_then(|v| v.as_u64())
            .and_then(|s| u16::try_from(s).ok())
            .filter(|&s| s != 0),
    })
}

/// The main frame's AX tree and those of its same-origin iframes; empty when the
/// main one fails.
async fn ax_trees(tab: TabId, snapshot: &CapturedSnapshot) -> Vec<AxTree> {
    let main = gather::ax_tree::<AxTree>(None);
    let Ok(main) = cdp::send_with_timeout(tab, &main, AX_TIMEOUT_MS).await else {
        return Vec::new();
    };
    let mut trees = vec![main];
    trees.extend(frame_trees(tab, snapshot).await);
    trees
}

/// AX trees of the same-origin iframes: their documents are in the snapshot, their
/// trees are not in the main frame's. A frame that went away meanwhile just has no
/// elements.
async fn frame_trees(tab: TabId, snapshot: &CapturedSnapshot) -> Vec<AxTree> {
    let requests: Vec<_> = snapshot
        .documents
        .iter()
        .skip(1)
        .filter_map(|d| snapshot.string(d.frame_id))
        .map(|frame| gather::ax_tree::<AxTree>(Some(FrameId(frame.to_owned()))))
        .collect();
    join_all(
        requests
            .iter()
            .map(|request| cdp::send_with_timeout(tab, request, AX_TIMEOUT_MS)),
    )
    .await
    .into_iter()
    .filter_map(Result::ok)
    .collect()
}
