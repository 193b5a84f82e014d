//! The out-of-process iframes' half of `extract` (PROTOCOL.md §6): in each child
//! session of the tab ([`crate::sessions::frames`]), `DOMSnapshot.captureSnapshot`
//! and, when the page is small enough, `Accessibility.getFullAXTree`; in its
//! parent's session, `DOM.getFrameOwner` for the `<iframe>` element it sits
//! under. All frames are asked together; a frame that fails or went away just
//! has no content. `browser_bridge_page::frames::merge_frames` puts them in place.

use browser_bridge_cdp::dom::GetFrameOwner;
use browser_bridge_cdp::gather;
use browser_bridge_cdp::page::FrameId;
use browser_bridge_page::frames::FrameCapture;
use browser_bridge_page::snapshot::{AxTree, COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_protocol::TabId;
use futures::future::join_all;

/// Timeout of each frame's `DOMSnapshot.captureSnapshot` and of its
/// `Accessibility.getFullAXTree` (ms): a frame that is slow to answer is left
/// out rather than run `extract` past its deadline.
const FRAME_TIMEOUT_MS: u32 = 4_000;
use crate::app::App;
use crate::cdp;
use crate::sessions::frames::ChildFrame;

/// Captures every out-of-process iframe of `tab`; `ax`: ask for their
/// accessibility trees too.
pub async fn capture(app: &App, tab: TabId, ax: bool) -> Vec<FrameCapture> {
    let frames = app.sessions.child_frames(tab);
    join_all(frames.iter().map(|f| capture_one(app, tab, f, ax)))
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn capture_one(app: &App, tab: TabId, frame: &ChildFrame, ax: bool) -> Option<FrameCapture> {
    let owner = GetFrameOwner {
        frame_id: FrameId(frame.frame_id.clone()),
    };
    let owner = cdp::send(frame.parent_target(tab), &owner);
    let snapshot = gather::snapshot::<CapturedSnapshot>(&COMPUTED_STYLES);
    let snapshot = cdp::send_with_timeout(frame.target(tab), &snapshot, FRAME_TIMEOUT_MS);
    let (owner, snapshot) = futures::join!(owner, snapshot);
    let (owner, snapshot) = (owner.ok()?, snapshot.ok()?);
    let ax_tree = if ax && snapshot.wants_ax_tree() {
        let tree = gather::ax_tree::<AxTree>(None);
        cdp::send_with_timeout(frame.target(tab), &tree, FRAME_TIMEOUT_MS)
            .await
            .ok()
    } else {
        None
    };
    let parent_slot = match &frame.parent {
        None => 0,
        Some(parent) => {
            app.sessions
                .child_frames(tab)
                .iter()
                .find(|f| f.session == *parent)?
                .slot
        }
    };
    Some(FrameCapture {
        slot: frame.slot,
        parent_slot,
        owner: owner.backend_node_id.0,
        snapshot,
        ax_tree,
    })
}
