//! The out-of-process iframes' half of `extract` (PROTOCOL.md §6): in each child
//! session of the tab ([`crate::sessions::frames`]), `DOMSnapshot.captureSnapshot`
//! (elements come from it, as for the main frame); in its
//! parent's session, `DOM.getFrameOwner` for the `<iframe>` element it sits
//! under; before and after, `Page.getFrameTree` there, whose `loaderId` says
//! which document was read and so which slot numbers its nodes
//! (`Sessions::slot_for_document`). All frames are asked together; a frame that
//! fails, went away or committed a new document while it was read just has no
//! content. `browser_bridge_page::frames::merge_frames` puts them in place.

use browser_bridge_cdp::dom::GetFrameOwner;
use browser_bridge_cdp::gather;
use browser_bridge_cdp::page::{FrameId, GetFrameTree};
use browser_bridge_page::frames::FrameCapture;
use browser_bridge_page::snapshot::{COMPUTED_STYLES, CapturedSnapshot};
use browser_bridge_protocol::TabId;
use futures::future::join_all;

use crate::app::App;
use crate::cdp::{self, Target};
use crate::sessions::frames::ChildFrame;

/// Timeout of each frame's `DOMSnapshot.captureSnapshot` (ms): a frame that is
/// slow to answer is left out rather than run `extract` past its deadline.
const FRAME_TIMEOUT_MS: u32 = 4_000;

/// Captures every out-of-process iframe of `tab`.
pub async fn capture(app: &App, tab: TabId) -> Vec<FrameCapture> {
    let frames = app.sessions.child_frames(tab);
    join_all(frames.iter().map(|f| capture_one(app, tab, f)))
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn capture_one(app: &App, tab: TabId, frame: &ChildFrame) -> Option<FrameCapture> {
    let owner = GetFrameOwner {
        frame_id: FrameId(frame.frame_id.clone()),
    };
    let owner = cdp::send(frame.parent_target(tab), &owner);
    let (owner, before) = futures::join!(owner, loader(frame.target(tab)));
    let (owner, before) = (owner.ok()?, before?);
    let snapshot = gather::snapshot::<CapturedSnapshot>(&COMPUTED_STYLES);
    let snapshot = cdp::send_with_timeout(frame.target(tab), &snapshot, FRAME_TIMEOUT_MS)
        .await
        .ok()?;
    // A document committed while it was read: which one the nodes belong to is
    // unknown, so the frame is left out of this read rather than numbered wrong.
    if loader(frame.target(tab)).await? != before {
        return None;
    }
    let slot = app
        .sessions
        .slot_for_document(tab, &frame.session, &frame.frame_id, &before)?;
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
        slot,
        parent_slot,
        owner: owner.backend_node_id.0,
        snapshot,
    })
}

/// The `loaderId` of the document the frame behind `target` shows now
/// (`Page.getFrameTree` in its session).
async fn loader(target: Target) -> Option<String> {
    let tree = cdp::send_with_timeout(target, &GetFrameTree {}, FRAME_TIMEOUT_MS).await;
    Some(tree.ok()?.frame_tree.frame.loader_id)
}
