//! Trusted input (§5): `click`, `hover`, `press_key` through `Input.dispatch*Event`,
//! after `DOM.scrollIntoViewIfNeeded`, a wait for the element's box to settle and
//! `DOM.getBoxModel` (centre of the part of the content quad inside the viewport)
//! and, for clicks, a hit test (`DOM.getNodeForLocation`, `pointer-events:none`
//! layers passed through as a mouse does) that must land on the element or a
//! descendant (across open shadow roots). A covered click point is retried once
//! with the element scrolled to the viewport's centre (clear of sticky and fixed
//! bars); the hit test is repeated after the mouse moves (hover styles), and where
//! the press landed is checked. Key names are read by [`crate::core::keys`]. An
//! element of an out-of-process iframe is scrolled, measured and hit-tested in its
//! frame's session and pressed at its point in the tab ([`super::frames`]).

use browser_bridge_cdp::dom::{GetBoxModel, ScrollIntoViewIfNeeded};
use browser_bridge_cdp::input::{DispatchMouseEvent, MouseButton as CdpButton, MouseEventType};
use browser_bridge_cdp::page::GetLayoutMetrics;
use browser_bridge_cdp::runtime::{CallArgument, CallFunctionOn, RemoteObjectId};
use browser_bridge_protocol::action::{Click, Hover, Modifier, MouseButton, PressKey};
use browser_bridge_protocol::pointer::HoverResult;
use browser_bridge_protocol::result::{ClickResult, PressKeyResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use futures::future::{join, try_join};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

use crate::actions::dom::{self, Node};
use crate::actions::effects::{Ended, Watch};
use crate::actions::frames::{self, Reach};
use crate::actions::landing;
use crate::actions::tabs;
use crate::app::App;
use crate::cdp::{self, Target};
use crate::core::keys::{is_known_key, key_events};
use crate::core::messages::{cap, quote};

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

/// `{dropdown, disabled}` for an `<option>` of a drop-down `<select>` (one that
/// is neither `multiple` nor sized, whose options have no box to click), `null`
/// for anything else.
const DROPDOWN_OPTION: &str = r#"function () {
  if (!(this instanceof HTMLOptionElement)) return null;
  const select = this.closest('select');
  if (!select || select.multiple || select.size > 1) return null;
  const group = this.parentElement && this.parentElement.closest('optgroup');
  return { dropdown: true, disabled: select.disabled || this.disabled || !!(group && group.disabled) };
}"#;

/// Selects this `<option>` alone and dispatches `input` and `change` on its
/// `<select>`, as choosing it from the open drop-down does.
const PICK_OPTION: &str = r#"function () {
  const select = this.closest('select');
  this.selected = true;
  select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
}"#;

/// The click point of a form control drawn by its `<label>` — its own box is
/// under 2 px or outside the document (a visually hidden or off-page checkbox) —
/// in the main frame: a point near the start of its first rendered label, after
/// scrolling that into view (`[x, y]`, CSS px, viewport); `null` otherwise.
const LABEL_POINT: &str = r#"function () {
  if (window !== window.top || !this.labels || this.labels.length === 0) return null;
  const r = this.getBoundingClientRect();
  const drawnElsewhere = r.width < 2 || r.height < 2 || r.right + scrollX <= 0 || r.bottom + scrollY <= 0;
  if (!drawnElsewhere) return null;
  const label = Array.from(this.labels).find((l) => { const b = l.getBoundingClientRect(); return b.width >= 2 && b.height >= 2; });
  if (!label) return null;
  if (label.scrollIntoViewIfNeeded) label.scrollIntoViewIfNeeded(); else label.scrollIntoView({ block: 'center' });
  const b = label.getBoundingClientRect();
  return [b.left + Math.min(b.width / 2, 8), b.top + b.height / 2];
}"#;

/// `{disabled}` of an element.
const STATE: &str = r#"function () {
  return { disabled: !!this.disabled || this.getAttribute('aria-disabled') === 'true' };
}"#;

/// What `click` reads first, in one call: `{disabled: true}` ([`STATE`]), else
/// [`DROPDOWN_OPTION`]'s `{dropdown, disabled}`, else `{labelPoint}`
/// ([`LABEL_POINT`]'s answer).
fn first_look() -> String {
    format!(
        "function () {{ if (({STATE}).call(this).disabled) return {{ disabled: true }}; \
         const option = ({DROPDOWN_OPTION}).call(this); if (option) return option; \
         return {{ labelPoint: ({LABEL_POINT}).call(this) }}; }}"
    )
}

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
async fn click_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
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
async fn visible_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
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
async fn clear_click_spot(tab: TabId, node: &Node) -> Result<Spot, BridgeError> {
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

fn button(b: Option<MouseButton>) -> CdpButton {
    match b.unwrap_or(MouseButton::Left) {
        MouseButton::Left => CdpButton::Left,
        MouseButton::Middle => CdpButton::Middle,
        MouseButton::Right => CdpButton::Right,
    }
}

/// `click` on an element.
///
/// # Errors
/// `element_not_found`, `element_stale`, `element_not_interactable`.
pub async fn click(app: &App, tab: TabId, p: Click) -> Result<ActionResult, BridgeError> {
    // The first look goes out with the resolution's last round trip.
    let target = dom::element(p.target()?)?;
    let (node, first) = dom::resolve_looking(app, tab, target, &first_look()).await?;
    if first["dropdown"] == true {
        return pick_option(app, tab, &node, first["disabled"] == true).await;
    }
    if first["disabled"] == true {
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is disabled", node.label),
        ));
    }
    // A control drawn by its label (a hidden checkbox under a styled span) is
    // pressed at its label; anything else where a person's click would land.
    let by_label = &first["labelPoint"];
    let point = match (by_label[0].as_f64(), by_label[1].as_f64()) {
        (Some(x), Some(y)) => {
            let at = Spot {
                at: (x, y),
                scroll: None,
            };
            hit_test(tab, &node, at).await?;
            at
        }
        _ => clear_click_spot(tab, &node).await?,
    };
    let modifiers = Modifier::mask(p.modifiers.as_deref().unwrap_or_default());
    let button = button(p.button);
    let count = p.click_count();
    // The focus rule (dispatch.rs) may still be moving the tab behind.
    tabs::ready(tab).await;
    let watch = Watch::start(app, tab).await;
    let download_link = watch.download_link();
    // Set when the hit test after the mouse move fails: nothing is pressed.
    let refused: Rc<RefCell<Option<BridgeError>>> = Rc::default();
    let node_in = node.clone();
    let refused_in = refused.clone();
    let input = async move {
        let moved = |(x, y): (f64, f64)| DispatchMouseEvent {
            modifiers: Some(modifiers),
            ..DispatchMouseEvent::moved(x, y)
        };
        cdp::send(tab, &moved(point.at)).await?;
        // Hover styles and handlers may have swapped or moved the element, or
        // put something over it: test again where the mouse now is.
        let (at, recording) = match after_move(tab, &node_in, point.at).await {
            Ok(after) => after,
            Err(e) => {
                *refused_in.borrow_mut() = Some(e);
                return Ok(Ended::Input);
            }
        };
        if at != point.at {
            cdp::send(tab, &moved(at)).await?;
        }
        for n in 1..=count {
            for kind in [MouseEventType::MousePressed, MouseEventType::MouseReleased] {
                let event = DispatchMouseEvent {
                    kind,
                    button: Some(button),
                    click_count: Some(u32::from(n)),
                    ..moved(at)
                };
                cdp::send(tab, &event).await?;
            }
        }
        if !recording {
            return Ok(Ended::Input);
        }
        let (landed, ended) = landing::landed(&node_in).await;
        download_link.set(landed["download"] == true);
        if let Value::String(elsewhere) = &landed["elsewhere"] {
            *refused_in.borrow_mut() = Some(BridgeError::new(
                ErrorCode::ElementNotInteractable,
                format!(
                    "the click on {} was sent at ({:.0}, {:.0}) but landed on {}: the page \
                     changed under the pointer; extract and check the page before retrying",
                    node_in.label,
                    at.0,
                    at.1,
                    cap(elsewhere)
                ),
            ));
        }
        Ok::<Ended, cdp::CdpError>(ended)
    };
    let report = watch.run_ended(Box::pin(input)).await?;
    if let Some(e) = refused.take() {
        return Err(e);
    }
    Ok(ActionResult::Click(ClickResult {
        tab_id: tab,
        url: report.url,
        navigated: report.navigated,
        hit: None,
        effects: report.effects,
        changes: None,
    }))
}

/// A plain left click on `node` (scroll, hit test, trusted mouse events), without
/// watching for side effects: for the steps of a compound action.
///
/// # Errors
/// `element_not_interactable` (hidden, covered); CDP failures.
pub async fn click_node(tab: TabId, node: &Node) -> Result<(), BridgeError> {
    let point = clear_click_point(tab, node).await?;
    let moved = DispatchMouseEvent::moved(point.0, point.1);
    cdp::send(tab, &moved).await?;
    for kind in [MouseEventType::MousePressed, MouseEventType::MouseReleased] {
        let event = DispatchMouseEvent {
            kind,
            button: Some(CdpButton::Left),
            click_count: Some(1),
            ..moved.clone()
        };
        cdp::send(tab, &event).await?;
    }
    Ok(())
}

/// `click` on an `<option>` of a drop-down `<select>`: selects it ([`PICK_OPTION`]).
///
/// # Errors
/// `element_not_interactable` when the option or its select is disabled.
async fn pick_option(
    app: &App,
    tab: TabId,
    node: &Node,
    disabled: bool,
) -> Result<ActionResult, BridgeError> {
    if disabled {
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is disabled", node.label),
        ));
    }
    let call = CallFunctionOn {
        object_id: node.object_id.clone(),
        function_declaration: PICK_OPTION.to_owned(),
        arguments: Vec::new(),
        return_by_value: Some(true),
        await_promise: Some(false),
        user_gesture: Some(true),
    };
    tabs::ready(tab).await;
    let watch = Watch::start(app, tab).await;
    let target = node.target.clone();
    let report = watch
        .run(async move { cdp::send(&target, &call).await.map(|_| ()) })
        .await?;
    Ok(ActionResult::Click(ClickResult {
        tab_id: tab,
        url: report.url,
        navigated: report.navigated,
        hit: None,
        effects: report.effects,
        changes: None,
    }))
}

/// The point to press after the mouse moved to `point`: the same when the hit
/// test still passes, else the element's new clear point (it moved or changed
/// size on hover); and whether the press is recorded ([`landing::record`], put
/// first: its answer is the scroll offset the hit test needs).
async fn after_move(
    tab: TabId,
    node: &Node,
    point: (f64, f64),
) -> Result<((f64, f64), bool), BridgeError> {
    let recorded = landing::record(node).await;
    let recording = recorded.is_ok();
    let spot = Spot {
        at: point,
        scroll: recorded.ok().flatten(),
    };
    if hit_test(tab, node, spot).await.is_ok() {
        return Ok((point, recording));
    }
    let again = async {
        let again = visible_spot(tab, node).await.map_err(|e| {
            BridgeError::new(
                e.code,
                format!("{} once the mouse moved onto it", e.message),
            )
        })?;
        hit_test(tab, node, again).await.map_err(|e| {
            BridgeError::new(
                e.code,
                format!("{} (after the mouse moved onto it)", e.message),
            )
        })?;
        Ok(again.at)
    };
    match again.await {
        Ok(at) => Ok((at, recording)),
        Err(e) => {
            // Nothing is pressed: the recorder goes.
            if recording {
                landing::drop_record(node).await;
            }
            Err(e)
        }
    }
}

/// `hover`: the mouse moves to the element's centre.
///
/// # Errors
/// `element_not_found`, `element_stale`, `element_not_interactable`.
pub async fn hover(app: &App, tab: TabId, p: Hover) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(app, tab, dom::element(p.target()?)?).await?;
    let (x, y) = click_point(tab, &node).await?;
    cdp::send(tab, &DispatchMouseEvent::moved(x, y)).await?;
    Ok(ActionResult::Hover(HoverResult {
        tab_id: tab,
        hit: None,
    }))
}

/// Sends key-down and key-up for one key ([`key_events`]).
///
/// # Errors
/// CDP failures.
pub async fn press(tab: TabId, key: &str, modifiers: u32) -> Result<(), cdp::CdpError> {
    for event in key_events(key, modifiers) {
        cdp::send(tab, &event).await?;
    }
    Ok(())
}

/// `press_key` in the focused element.
///
/// # Errors
/// `invalid_action` for a key name it does not know (Chrome would dispatch it as
/// a key with no code and no effect); CDP failures.
pub async fn press_key(app: &App, tab: TabId, p: PressKey) -> Result<ActionResult, BridgeError> {
    if !is_known_key(&p.key) {
        return Err(BridgeError::invalid_action(format!(
            "unknown key {}: give a KeyboardEvent.key value such as Enter, Escape, \
             ArrowDown, Tab or a single character",
            quote(&p.key)
        )));
    }
    let modifiers = Modifier::mask(p.modifiers.as_deref().unwrap_or_default());
    let watch = Watch::start(app, tab).await;
    let key = p.key.clone();
    let report = watch
        .run(async move { press(tab, &key, modifiers).await })
        .await?;
    Ok(ActionResult::PressKey(PressKeyResult {
        tab_id: tab,
        effects: report.effects,
        changes: None,
    }))
}
