//! Acting inside out-of-process iframes (PROTOCOL.md §6): an element of such a
//! frame lives in the frame's own CDP session (a child session of the tab), so
//! its `DOM.*` and `Runtime.*` commands go there ([`crate::cdp::Target`]), while
//! the mouse and keyboard go to the tab, as a person's input does, and Chrome
//! routes them into the frame. A point in the frame's viewport becomes a point in
//! the tab's by adding, for each frame from the outermost in, the offset of its
//! `<iframe>` element's content box in its parent (`DOM.getBoxModel` there).

use browser_bridge_cdp::dom::{BackendNodeId, GetBoxModel, GetFrameOwner, GetNodeForLocation};
use browser_bridge_cdp::page::{FrameId, GetLayoutMetrics};
use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};

use crate::app::App;
use crate::cdp::{self, Target};

/// One `<iframe>` boundary on the way from the tab to an element.
#[derive(Debug, Clone)]
pub struct FrameHop {
    /// The session whose document holds the `<iframe>` element.
    pub parent: Target,
    /// The `<iframe>` element there.
    pub owner: BackendNodeId,
}

/// The session of the child frame with `slot` and the `<iframe>` elements on
/// the way to it, outermost first; `None` when that frame's session is gone (its
/// uids are stale).
///
/// # Errors
/// CDP failures of `DOM.getFrameOwner`.
pub async fn route(
    app: &App,
    tab: TabId,
    slot: u32,
) -> Result<Option<(Target, Vec<FrameHop>)>, BridgeError> {
    let Some(frame) = app.sessions.child_frame(tab, slot) else {
        return Ok(None);
    };
    let target = frame.target(tab);
    let frames = app.sessions.child_frames(tab);
    let mut hops = Vec::new();
    let mut at = Some(frame);
    while let Some(f) = at {
        let owner = GetFrameOwner {
            frame_id: FrameId(f.frame_id.clone()),
        };
        let Ok(owner) = cdp::send(f.parent_target(tab), &owner).await else {
            return Ok(None);
        };
        hops.push(FrameHop {
            parent: f.parent_target(tab),
            owner: owner.backend_node_id,
        });
        at = match &f.parent {
            None => None,
            Some(parent) => match frames.iter().find(|p| p.session == *parent) {
                Some(p) => Some(p.clone()),
                None => return Ok(None),
            },
        };
    }
    hops.reverse();
    Ok(Some((target, hops)))
}

/// The top-left corner of `owner`'s content box in `parent`'s viewport (CSS px).
async fn content_origin(hop: &FrameHop) -> Result<(f64, f64), BridgeError> {
    let model = cdp::send(
        &hop.parent,
        &GetBoxModel {
            backend_node_id: hop.owner.clone(),
        },
    )
    .await
    .map_err(|_| {
        BridgeError::new(
            ErrorCode::ElementNotInteractable,
            "its frame's <iframe> element is hidden or not rendered",
        )
    })?
    .model;
    let q = &model.content;
    let xs = q.iter().step_by(2).copied();
    let ys = q.iter().skip(1).step_by(2).copied();
    Ok((xs.fold(f64::MAX, f64::min), ys.fold(f64::MAX, f64::min)))
}

/// Where the frame's viewport starts in the tab's viewport (CSS px): the sum of
/// the `<iframe>` content-box origins on the way; `(0, 0)` in the main frame.
///
/// # Errors
/// `element_not_interactable` when an `<iframe>` on the way has no box.
pub async fn offset(hops: &[FrameHop]) -> Result<(f64, f64), BridgeError> {
    let mut total = (0.0, 0.0);
    for hop in hops {
        let (x, y) = content_origin(hop).await?;
        total = (total.0 + x, total.1 + y);
    }
    Ok(total)
}

/// The node at a viewport point of `target`'s document (`DOM.getNodeForLocation`
/// takes document coordinates: the page's scroll offset is added).
///
/// # Errors
/// CDP failures.
pub async fn node_at(target: &Target, point: (f64, f64)) -> Result<BackendNodeId, BridgeError> {
    node_at_scrolled(target, point, None).await
}

/// [`node_at`] with the document's scroll offset (CSS px) when the caller read
/// it with the point (`window.scrollX/Y` of the top window: the layout
/// viewport's `pageX/Y`), which saves `Page.getLayoutMetrics`.
///
/// # Errors
/// CDP failures.
pub async fn node_at_scrolled(
    target: &Target,
    (x, y): (f64, f64),
    scroll: Option<(f64, f64)>,
) -> Result<BackendNodeId, BridgeError> {
    let (page_x, page_y) = match scroll {
        Some(offset) => offset,
        None => {
            let v = cdp::send(target, &GetLayoutMetrics {})
                .await?
                .css_layout_viewport;
            (v.page_x, v.page_y)
        }
    };
    let location = GetNodeForLocation {
        x: (x + page_x).round() as i64,
        y: (y + page_y).round() as i64,
        include_user_agent_shadow_dom: false,
        ignore_pointer_events_none: false,
    };
    Ok(cdp::send(target, &location).await?.backend_node_id)
}

/// Where a press at a point of the tab reaches, through the `<iframe>`s of a
/// route ([`through_frames`]).
#[derive(Debug, Clone)]
pub enum Reach {
    /// The innermost frame, at this point of its viewport.
    Inside((f64, f64)),
    /// Something else covers a frame on the way: the session and node hit.
    Covered(Target, BackendNodeId),
}

/// Checks that a press at the tab's viewport point `point` reaches the frame
/// of the last hop: at each boundary, what is hit is the `<iframe>` element.
///
/// # Errors
/// CDP failures.
pub async fn through_frames(hops: &[FrameHop], point: (f64, f64)) -> Result<Reach, BridgeError> {
    let mut local = point;
    for hop in hops {
        let hit = node_at(&hop.parent, local).await?;
        if hit != hop.owner {
            return Ok(Reach::Covered(hop.parent.clone(), hit));
        }
        let (x, y) = content_origin(hop).await?;
        local = (local.0 - x, local.1 - y);
    }
    Ok(Reach::Inside(local))
}
