//! Where an element is pressed (§5): `DOM.scrollIntoViewIfNeeded`, a wait for
//! its box to settle and `DOM.getBoxModel` (centre of the part of the content
//! quad inside the viewport), and the hit test (`DOM.getNodeForLocation`,
//! `pointer-events:none` layers passed through as a mouse does) that must land
//! on the element or a descendant (across open shadow roots), or its `<label>`.
//! A covered click point is retried once with the element scrolled to the
//! viewport's centre (clear of sticky and fixed bars). An element of an
//! out-of-process iframe is scrolled, measured and hit-tested in its frame's
//! session and its point given in the tab's viewport ([`super::frames`]).

use browser_bridge_cdp::dom::{GetBoxModel, ScrollIntoViewIfNeeded};
use browser_bridge_cdp::page::GetLayoutMetrics;
use browser_bridge_cdp::runtime::{CallArgument, RemoteObjectId};
use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};
use futures::future::{join, try_join};
use serde_json::Value;

use crate::actions::dom::{self, Node};
use crate::actions::frames::{self, Reach};
use crate::cdp::{self, Target};

/// Is `other` this element or inside it (crossing shadow roots), or inside one of
/// its `<label>`s but not in other interactive content there (a click on the label
/// activates the control: a checkbox drawn by a span over its hidden input)?
const CONTAINS: &str = r#"function (other) {
  const within = (root) => { for (let n = other; n; n = n.parentNode || n.host) { if (n === root) return true; } return false; };
  if (within(this)) return true;
  const labels = this.labels ? Array.from(this.labels) : [];
  const label = labels.find(within);
  if (!label) return false;
  const el = other.nodeType === 1 ? other : other.parentElement;
  const inner = el && el.closest('a[href], button, input, select, textarea, [tabindex]');
  return !inner || inner === label || !label.contains(inner);
}"#;

/// Waits (at most ~600 ms) until the element's box stops moving (a smooth scroll,
/// a transition) and returns the viewport's size `{w, h}` (CSS px, without
/// scrollbars), `still` when it answered at once (nothing could move) and
/// `scroll`, the top window's scroll offset `{x, y}` (CSS px; `null` from a
/// cross-origin frame). Frames and timers both drive it, so a background tab cannot stall it.
/// In a same-origin iframe the box model is in the top page's viewport, so that is
/// the one measured (the outermost window the frame can reach).
/// When nothing can be moving it — no animation or transition runs in the document
/// and no scroller from it to the root scrolls smoothly — it answers at once.
const SETTLE: &str = r#"function () {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const size = () => {
    let win = window;
    try { while (win.parent !== win && win.parent.document) win = win.parent; } catch (e) {}
    const d = win.document.documentElement;
    let scroll = null;
    try { scroll = { x: top.scrollX, y: top.scrollY }; } catch (e) {}
    return { w: Math.min(win.innerWidth, (d && d.clientWidth) || win.innerWidth),
             h: Math.min(win.innerHeight, (d && d.clientHeight) || win.innerHeight), scroll };
  };
  if (!el) return { ...size(), still: true };
  const smooth = () => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode().host || null)) {
      if (getComputedStyle(n).scrollBehavior === 'smooth') return true;
    }
    return false;
  };
  if (document.getAnimations().length === 0 && !smooth()) return { ...size(), still: true };
  const key = () => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); };
  const end = Date.now() + 600;
  return new Promise((done) => {
    let last = key(), same = 0;
    const tick = () => {
      const now = key();
      same = now === last ? same + 1 : 0;
      last = now;
      if (same >= 2 || Date.now() > end) done(size()); else next();
    };
    const next = () => {
      let fired = false;
      const once = () => { if (!fired) { fired = true; tick(); } };
      requestAnimationFrame(once);
      setTimeout(once, 50);
    };
    next();
  });
}"#;

/// Scrolls the element to the viewport's centre (`behavior: 'instant'`, so a
/// page's `scroll-behavior: smooth` does not leave it moving).
const SCROLL_CENTRE: &str = r#"function () {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (el) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
}"#;

/// A click point (CSS px, viewport) and the top window's scroll offset read
/// with it (CSS px), when known: [`hit_test`] then needs no
/// `Page.getLayoutMetrics` to make it a document point.
#[derive(Debug, Clone, Copy)]
pub struct Spot {
    /// The point.
    pub at: (f64, f64),
    /// `window.scrollX/Y` of the top window, `None` when not read.
    pub scroll: Option<(f64, f64)>,
}

/// Scrolls `node` into view and returns its click point (CSS px, viewport).
///
/// # Errors
/// `element_not_interactable` when it is hidden, not rendered, zero-sized or
/// outside the viewport after scrolling.
pub async fn click_point(tab: TabId, node: &Node) -> Result<(f64, f64), BridgeError> {
    click_spot(tab, node).await.map(|s| s.at)
}

/// [`click_point`] with the scroll offset. `DOM.scrollIntoViewIfNeeded` goes out
/// with the measure ([`visible_spot`]): a session's commands run in order, so
/// the box is read after the scroll, and a failed scroll is answered first.
pub async fn click_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
    let scroll = async {
        cdp::send(
            &node.target,
            &ScrollIntoViewIfNeeded {
                backend_node_id: node.backend_node_id.clone(),
            },
        )
        .await
        .map_err(|_| not_interactable(node, "not rendered (display:none or detached)"))
    };
    let (_, spot) = try_join(scroll, visible_spot(tab, node)).await?;
    Ok(spot)
}

fn not_interactable(node: &Node, why: &str) -> BridgeError {
    BridgeError::new(
        ErrorCode::ElementNotInteractable,
        format!("{} is {why}", node.label),
    )
}

/// Once the box has settled: the centre of the part of `node`'s content quad
/// that lies inside the viewport (CSS px, viewport), so that an element straddling
/// an edge is pressed where it can be seen.
pub async fn visible_point(tab: TabId, node: &Node) -> Result<(f64, f64), BridgeError> {
    visible_spot(tab, node).await.map(|s| s.at)
}

/// [`visible_point`] with the scroll offset. `DOM.getBoxModel` goes out beside
/// the settle wait and is kept when that answered at once (`still`: nothing
/// could move the box), else asked again once the box has settled.
pub async fn visible_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
    let get_box = GetBoxModel {
        backend_node_id: node.backend_node_id.clone(),
    };
    let box_model = || cdp::send(&node.target, &get_box);
    let settle = dom::call_on(&node.target, &node.object_id, SETTLE, Vec::new());
    let (viewport, model) = join(settle, box_model()).await;
    let viewport = viewport?;
    let model = match viewport["still"] {
        Value::Bool(true) => model,
        _ => box_model().await,
    };
    let model = model
        .map_err(|_| not_interactable(node, "hidden or not rendered (no box)"))?
        .model;
    let (width, height) = model.size();
    if width <= 0.0 || height <= 0.0 {
        return Err(not_interactable(node, "zero-sized"));
    }
    let (w, h) = (
        viewport["w"].as_f64().unwrap_or(f64::MAX),
        viewport["h"].as_f64().unwrap_or(f64::MAX),
    );
    let quad = &model.content;
    let xs = quad.iter().step_by(2).copied();
    let ys = quad.iter().skip(1).step_by(2).copied();
    let span = |v: &mut dyn Iterator<Item = f64>, limit: f64| {
        let (lo, hi) = v.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (lo.max(0.0), hi.min(limit))
    };
    let ((left, right), (top, bottom)) = (span(&mut { xs }, w), span(&mut { ys }, h));
    // Less than one pixel inside: no point a mouse could press.
    if right - left < 1.0 || bottom - top < 1.0 {
        return Err(not_interactable(
            node,
            "outside the viewport after scrolling (clipped by a scroll container?)",
        ));
    }
    if node.frames.is_empty() {
        let scroll = &viewport["scroll"];
        return Ok(Spot {
            at: (
                ((left + right) / 2.0).floor(),
                ((top + bottom) / 2.0).floor(),
            ),
            scroll: scroll["x"].as_f64().zip(scroll["y"].as_f64()),
        });
    }
    // In an out-of-process iframe: from the frame's viewport to the tab's, where
    // the part that shows must be inside the tab's viewport too.
    let (dx, dy) = frames::offset(&node.frames).await?;
    let tab_viewport = cdp::send(tab, &GetLayoutMetrics {})
        .await?
        .css_layout_viewport;
    let (left, right) = (
        (left + dx).max(0.0),
        (right + dx).min(tab_viewport.client_width),
    );
    let (top, bottom) = (
        (top + dy).max(0.0),
        (bottom + dy).min(tab_viewport.client_height),
    );
    if right - left < 1.0 || bottom - top < 1.0 {
        return Err(not_interactable(
            node,
            "outside the viewport after scrolling (its frame is scrolled out of view)",
        ));
    }
    Ok(Spot {
        at: (
            ((left + right) / 2.0).floor(),
            ((top + bottom) / 2.0).floor(),
        ),
        scroll: None,
    })
}

/// The click point of `node` with its hit test passed: where
/// [`click_point`] puts it, else (covered, e.g. by a sticky header) after
/// scrolling it to the viewport's centre.
///
/// # Errors
/// As [`click_point`]; `element_not_interactable` naming the cover when it is
/// still covered.
pub async fn clear_click_point(tab: TabId, node: &Node) -> Result<(f64, f64), BridgeError> {
    clear_click_spot(tab, node).await.map(|s| s.at)
}

/// [`clear_click_point`] with the scroll offset.
pub async fn clear_click_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
    let spot = click_spot(tab, node).await?;
    match hit_test(tab, node, spot).await {
        Err(e) if e.code == ErrorCode::ElementNotInteractable => {
            dom::call_on(&node.target, &node.object_id, SCROLL_CENTRE, Vec::new()).await?;
            let spot = visible_spot(tab, node).await?;
            hit_test(tab, node, spot).await?;
            Ok(spot)
        }
        other => other.map(|()| spot),
    }
}

/// Checks that a click at `spot` lands on `node` or a descendant, or on its
/// `<label>` (see `CONTAINS`).
///
/// # Errors
/// `element_not_interactable` naming the covering element.
pub async fn hit_test(tab: TabId, node: &Node, spot: Spot) -> Result<(), BridgeError> {
    let (x, y) = spot.at;
    // In an out-of-process iframe, the tab's hit test finds the <iframe>
    // element: each frame on the way must be hit there, then the frame's own
    // hit test decides, at the point inside it.
    let (target, local, scroll) = match frames::through_frames(&node.frames, (x, y)).await? {
        Reach::Inside(local) if node.frames.is_empty() => (Target::from(tab), local, spot.scroll),
        Reach::Inside(local) => (node.target.clone(), local, None),
        Reach::Covered(target, hit) => {
            let cover = match dom::resolve_backend(&target, hit).await {
                Ok(object) => dom::describe(&target, &object).await,
                Err(_) => "another element".into(),
            };
            return Err(covered(node, (x, y), &cover));
        }
    };
    let hit = frames::node_at_scrolled(&target, local, scroll).await?;
    if hit == node.backend_node_id {
        return Ok(());
    }
    let hit_object = dom::resolve_backend(&target, hit).await?;
    if contains(&target, &node.object_id, &hit_object).await? {
        return Ok(());
    }
    let cover = dom::describe(&target, &hit_object).await;
    Err(covered(node, (x, y), &cover))
}

/// `element_not_interactable`: `node` is covered by `cover` at `(x, y)`.
fn covered(node: &Node, (x, y): (f64, f64), cover: &str) -> BridgeError {
    BridgeError::new(
        ErrorCode::ElementNotInteractable,
        format!(
            "{} is covered at its click point ({x:.0}, {y:.0}) by {cover}: deal with the cover, then retry",
            node.label
        ),
    )
}

async fn contains(
    target: &Target,
    object_id: &RemoteObjectId,
    other: &RemoteObjectId,
) -> Result<bool, BridgeError> {
    let arguments = vec![CallArgument::ObjectId(other.clone())];
    Ok(dom::call_on(target, object_id, CONTAINS, arguments).await? == Value::Bool(true))
}
