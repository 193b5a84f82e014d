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
//! most misreport its own status or dialog. The uids come from the session's cache (§6).

pub mod frames;

use browser_bridge_cdp::gather;
use browser_bridge_page::frames::merge_frames;
use browser_bridge_page::snapshot::{COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_page::{PageInputs, shape_extract_with};
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};

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
    let (inputs, frames) = futures::join!(gather(tab), frames::capture(app, tab));
    let mut inputs = inputs?;
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
