//! `extract` (PROTOCOL.md §6, §8): gather through CDP, shape with the pure page
//! logic (`browser_bridge_page`).
//!
//! The calls are [`browser_bridge_cdp::gather`]'s, shared with the corpus
//! capture, and go out in one concurrent batch: `DOMSnapshot.captureSnapshot`
//! (DOM in flat-tree order with layout and [`COMPUTED_STYLES`], all same-origin
//! frames), `Runtime.evaluate` of `innerText` and of the document's state (HTTP
//! status, the modal `<dialog>`); out-of-process iframes are captured in their own
//! sessions at the same time ([`frames`]) and merged in place. Elements, roles and
//! names come from the snapshot (`page::fallback`, `page::accname`), computed as
//! Chromium computes its accessibility tree, which is not fetched: on 2 000
//! controls `Accessibility.getFullAXTree` alone took 60–80 % of `extract`. No page
//! script beyond those two reads, so a page that overrides prototypes can at
//! most misreport its own status or dialog. The uids come from the session's cache (§6),
//! for the main-frame document the read saw whole (its `loaderId` before and after).

pub mod frames;

use browser_bridge_cdp::gather;
use browser_bridge_cdp::page::GetFrameTree;
use browser_bridge_page::frames::merge_frames;
use browser_bridge_page::snapshot::{COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_page::{PageInputs, shape_extract_with};
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};

use crate::app::App;
use crate::cdp;
use crate::sessions::attach::no_tab;

/// Per-command timeout of the gathering calls (ms); `extract`'s deadline is 20 s.
const GATHER_TIMEOUT_MS: u32 = 15_000;

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
    let (inputs, loader) = read_one_document(app, tab).await?;
    crate::timing::mark("gathered");
    let shaped = app
        .sessions
        .with(tab, |s| {
            s.read_main_document(&loader);
            let result = shape_extract_with(tab, &inputs, &mut s.uids, &p)?;
            // What `screenshot` `marks` draws: the elements this extract listed.
            let listed: Vec<_> = result.elements.iter().map(|e| e.uid.clone()).collect();
            s.uids.set_listed(&listed);
            Ok(result)
        })
        .ok_or_else(|| no_tab(tab))?
        .map(ActionResult::Extract);
    crate::timing::mark("shaped");
    shaped
}

/// Reads of a page that keeps committing new documents before one is whole.
const READS: usize = 3;

/// The page gathered with the main-frame `loaderId` it was read in: `Page.getFrameTree`
/// goes out before the gathering calls and again after them, and a read that
/// straddles a commit (the two differ) is made again, up to [`READS`] times.
///
/// # Errors
/// As [`gather()`]; `timeout` when every read straddled a commit.
async fn read_one_document(app: &App, tab: TabId) -> Result<(PageInputs, String), BridgeError> {
    for _ in 0..READS {
        // `join!` polls in order: the first loader read is sent before the snapshot.
        let (before, inputs, frames) =
            futures::join!(main_loader(tab), gather(tab), frames::capture(app, tab));
        let mut inputs = inputs?;
        let before = before?;
        if main_loader(tab).await? != before {
            continue;
        }
        merge_frames(&mut inputs, frames);
        return Ok((inputs, before));
    }
    Err(BridgeError::new(
        ErrorCode::Timeout,
        format!(
            "the page committed a new document during each of {READS} reads; call extract again once it settles"
        ),
    ))
}

/// The main frame's current `loaderId` (`Page.getFrameTree`).
async fn main_loader(tab: TabId) -> Result<String, BridgeError> {
    let tree = cdp::send_with_timeout(tab, &GetFrameTree {}, GATHER_TIMEOUT_MS).await?;
    Ok(tree.frame_tree.frame.loader_id)
}

/// The CDP half of `extract` in the tab's own session: snapshot, innerText,
/// document state, together.
///
/// # Errors
/// As [`extract`]; a failed state read is only an unknown status and dialog.
pub async fn gather(tab: TabId) -> Result<PageInputs, BridgeError> {
    let snapshot = gather::snapshot::<CapturedSnapshot>(&COMPUTED_STYLES);
    let snapshot = cdp::send_with_timeout(tab, &snapshot, GATHER_TIMEOUT_MS);
    let text = gather::inner_text();
    let text = cdp::send_with_timeout(tab, &text, GATHER_TIMEOUT_MS);
    let state = gather::document_state();
    let state = cdp::send_with_timeout(tab, &state, GATHER_TIMEOUT_MS);
    let (snapshot, text, state) = futures::join!(snapshot, text, state);
    let mut inputs = PageInputs {
        snapshot: snapshot?,
        text: text?
            .result
            .value
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned(),
        ..PageInputs::default()
    };
    inputs.set_document_state(state.ok().and_then(|s| s.result.value).as_ref());
    Ok(inputs)
}
