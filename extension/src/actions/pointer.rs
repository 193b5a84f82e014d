//! Pointer actions beyond elements (§5 "Pointer targets"): `click` and `hover`
//! at a viewport point, `drag` between two pointer targets, and the hit test
//! that names what a point hits. Trusted input through
//! `Input.dispatchMouseEvent`; a drag the page starts as HTML5 drag-and-drop is
//! intercepted (`Input.setInterceptDrags`, `Input.dragIntercepted`) and played
//! with `Input.dispatchDragEvent`, as Playwright does for Chromium. Where the
//! mouse goes and which points are allowed is [`crate::core::pointer`]'s.

use browser_bridge_cdp::accessibility::GetPartialAxTree;
use browser_bridge_cdp::input::{
    DispatchDragEvent, DispatchMouseEvent, DragEventType, DragIntercepted, MouseButton,
    MouseEventType, SetInterceptDrags,
};
use browser_bridge_cdp::page::GetLayoutMetrics;
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::{Click, Drag, DragEnd, Modifier, MouseButton as Button};
use browser_bridge_protocol::pointer::{DragResult, Hit, HoverResult};
use browser_bridge_protocol::result::ClickResult;
use browser_bridge_protocol::{ActionResult, BridgeError, PointerTarget, TabId};
use futures::channel::oneshot::Receiver;

use crate::actions::dom;
use crate::actions::effects::Watch;
use crate::actions::frames;
use crate::actions::point::{clear_click_point, click_point, visible_point};
use crate::actions::tabs;
use crate::app::App;
use crate::cdp::{self, CdpError, Target, within};
use crate::core::pointer::{check_point, drag_path, hit_of};

/// How long a drag from a `draggable` source waits, after its last move, for
/// Chrome to report the drag (ms); none means the page cancelled `dragstart`,
/// and the drag goes on as mouse events.
const DRAG_START_MS: u32 = 1_000;

/// Whether a press at a viewport point starts on something `draggable` (the
/// element there or an ancestor, across shadow roots; links and images are by
/// default), so the browser would start an HTML5 drag-and-drop.
const DRAGGABLE_AT: &str = r#"((x, y) => {
  for (let n = document.elementFromPoint(x, y); n; n = n.parentElement || (n.getRootNode().host || null)) {
    if (n.draggable) return true;
  }
  return false;
})"#;

/// The layout viewport's size (CSS px, without scrollbars).
async fn viewport(tab: TabId) -> Result<(f64, f64), BridgeError> {
    let v = cdp::send(tab, &GetLayoutMetrics {})
        .await?
        .css_layout_viewport;
    Ok((v.client_width, v.client_height))
}

/// The element at a viewport point (`DOM.getNodeForLocation`, as a mouse
/// reaches it), named by the accessibility tree, with its uid when an extract
/// of the current document listed it.
///
/// # Errors
/// CDP failures of the hit test; a node the accessibility tree cannot read is
/// `generic` without a name.
pub async fn hit(app: &App, tab: TabId, point: (f64, f64)) -> Result<Hit, BridgeError> {
    let node = frames::node_at(&Target::from(tab), point).await?;
    let tree = GetPartialAxTree {
        backend_node_id: node.clone(),
        fetch_relatives: true,
    };
    let nodes = cdp::send(tab, &tree)
        .await
        .map(|t| t.nodes)
        .unwrap_or_default();
    let (role, name, named) = hit_of(&nodes, &node);
    let uid = app
        .sessions
        .with(tab, |s| {
            named
                .and_then(|n| s.uids.uid_of(n.0))
                .or_else(|| s.uids.uid_of(node.0))
        })
        .flatten();
    Ok(Hit { role, name, uid })
}

fn mouse(kind: MouseEventType, (x, y): (f64, f64)) -> DispatchMouseEvent {
    DispatchMouseEvent {
        kind,
        ..DispatchMouseEvent::moved(x, y)
    }
}

/// A left-button event of a drag: the button held during moves, pressed or
/// released at the ends.
fn held(kind: MouseEventType, point: (f64, f64)) -> DispatchMouseEvent {
    DispatchMouseEvent {
        button: Some(MouseButton::Left),
        click_count: (kind != MouseEventType::MouseMoved).then_some(1),
        buttons: Some(u32::from(kind != MouseEventType::MouseReleased)),
        ..mouse(kind, point)
    }
}

/// `click` at a viewport point: pressed as it is, whatever is there (no scroll,
/// no cover check), the hit named in the result.
///
/// # Errors
/// `invalid_action` for a point outside the viewport; CDP failures.
pub async fn click_at(
    app: &App,
    tab: TabId,
    p: &Click,
    point: (f64, f64),
) -> Result<ActionResult, BridgeError> {
    check_point(point, viewport(tab).await?)?;
    let modifiers = Some(Modifier::mask(p.modifiers.as_deref().unwrap_or_default()));
    let button = match p.button.unwrap_or(Button::Left) {
        Button::Left => MouseButton::Left,
        Button::Middle => MouseButton::Middle,
        Button::Right => MouseButton::Right,
    };
    let moved = DispatchMouseEvent {
        modifiers,
        ..DispatchMouseEvent::moved(point.0, point.1)
    };
    cdp::send(tab, &moved).await?;
    // Named before the press: a click may navigate away from it.
    let hit = hit(app, tab, point).await?;
    let count = p.click_count();
    let watch = Watch::start(app, tab).await;
    let report = watch
        .run(async move {
            for n in 1..=count {
                for kind in [MouseEventType::MousePressed, MouseEventType::MouseReleased] {
                    let event = DispatchMouseEvent {
                        kind,
                        button: Some(button),
                        click_count: Some(u32::from(n)),
                        ..moved.clone()
                    };
                    cdp::send(tab, &event).await?;
                }
            }
            Ok(())
        })
        .await?;
    Ok(ActionResult::Click(ClickResult {
        tab_id: tab,
        url: report.url,
        navigated: report.navigated,
        hit: Some(hit),
        effects: report.effects,
        changes: None,
    }))
}

/// `hover` at a viewport point.
///
/// # Errors
/// `invalid_action` for a point outside the viewport; CDP failures.
pub async fn hover_at(
    app: &App,
    tab: TabId,
    point: (f64, f64),
) -> Result<ActionResult, BridgeError> {
    check_point(point, viewport(tab).await?)?;
    cdp::send(tab, &DispatchMouseEvent::moved(point.0, point.1)).await?;
    Ok(ActionResult::Hover(HoverResult {
        tab_id: tab,
        hit: Some(hit(app, tab, point).await?),
    }))
}

/// `invalid_…`/`element_…` of one end, its message naming the end.
fn at_end(end: &str) -> impl Fn(BridgeError) -> BridgeError + '_ {
    move |e| BridgeError::new(e.code, format!("{end}: {}", e.message))
}

/// A drag end's element (resolved), or `None` for a point inside the viewport.
async fn end_node(
    app: &App,
    tab: TabId,
    end: &str,
    target: &DragEnd,
    size: (f64, f64),
) -> Result<Option<dom::Node>, BridgeError> {
    match target.target().map_err(at_end(end))? {
        PointerTarget::Point { x, y } => {
            check_point((x, y), size).map_err(at_end(end))?;
            Ok(None)
        }
        PointerTarget::Element(t) => dom::resolve(app, tab, t)
            .await
            .map(Some)
            .map_err(at_end(end)),
    }
}

/// The viewport points of a drag's ends. An element `to` is scrolled into view
/// first, then `from` (which wins: it must be pressed where it is hit), then
/// `to` is measured where it now is, without scrolling.
async fn ends(app: &App, tab: TabId, p: &Drag) -> Result<((f64, f64), (f64, f64)), BridgeError> {
    let size = viewport(tab).await?;
    let to_node = end_node(app, tab, "to", &p.to, size).await?;
    let from_node = end_node(app, tab, "from", &p.from, size).await?;
    if let Some(n) = &to_node {
        click_point(tab, n).await.map_err(at_end("to"))?;
    }
    let from = match (&from_node, p.from.x.zip(p.from.y)) {
        (Some(n), _) => clear_click_point(tab, n).await.map_err(at_end("from"))?,
        (None, Some(point)) => point,
        (None, None) => return Err(BridgeError::internal("drag: from has no target")),
    };
    let to = match (&to_node, p.to.x.zip(p.to.y)) {
        (Some(n), _) => visible_point(tab, n).await.map_err(|e| {
            at_end("to")(BridgeError::new(
                e.code,
                format!(
                    "{} once from was scrolled into view: both ends must fit in the viewport",
                    e.message
                ),
            ))
        })?,
        (None, Some(point)) => point,
        (None, None) => return Err(BridgeError::internal("drag: to has no target")),
    };
    Ok((from, to))
}

/// `drag`: press at `from`, `steps` moves to `to` with the button held,
/// release there; as HTML5 drag-and-drop when the page starts one.
///
/// # Errors
/// The ends' (`from: …`/`to: …`): `invalid_action` (a point outside the
/// viewport), `element_not_found`, `element_stale`, `element_not_interactable`;
/// CDP failures.
pub async fn drag(app: &App, tab: TabId, p: Drag) -> Result<ActionResult, BridgeError> {
    let (from, to) = ends(app, tab, &p).await?;
    let path = drag_path(from, to, p.steps());
    let draggable = cdp::send(
        tab,
        &Evaluate::by_value(format!("{DRAGGABLE_AT}({}, {})", from.0, from.1)),
    )
    .await?
    .result
    .value
    .and_then(|v| v.as_bool())
        == Some(true);
    let intercepted = if draggable {
        let rx = app.events.wait::<DragIntercepted>(tab);
        cdp::send(tab, &SetInterceptDrags { enabled: true }).await?;
        Some(rx)
    } else {
        None
    };
    tabs::drawing(app, tab).await;
    let outcome = gesture(tab, from, &path, intercepted).await;
    if draggable {
        let _ = cdp::send(tab, &SetInterceptDrags { enabled: false }).await;
    }
    let drag_and_drop = match outcome {
        Ok(html5) => html5,
        Err(e) => {
            // Never leave the button held.
            let _ = cdp::send(tab, &held(MouseEventType::MouseReleased, to)).await;
            return Err(e.into());
        }
    };
    Ok(ActionResult::Drag(DragResult {
        tab_id: tab,
        drag_and_drop,
        hit: hit(app, tab, to).await.ok(),
        changes: None,
    }))
}

/// The input of a drag: whether it ran as HTML5 drag-and-drop. Moves are mouse
/// events until Chrome reports the drag the page started, drag events after.
async fn gesture(
    tab: TabId,
    from: (f64, f64),
    path: &[(f64, f64)],
    mut intercepted: Option<Receiver<DragIntercepted>>,
) -> Result<bool, CdpError> {
    let drag_event = |kind, (x, y): (f64, f64), data: &serde_json::Value| DispatchDragEvent {
        kind,
        x,
        y,
        data: data.clone(),
    };
    cdp::send(tab, &mouse(MouseEventType::MouseMoved, from)).await?;
    cdp::send(tab, &held(MouseEventType::MousePressed, from)).await?;
    let mut data: Option<serde_json::Value> = None;
    for &point in path {
        match &data {
            Some(d) => {
                cdp::send(tab, &drag_event(DragEventType::DragOver, point, d)).await?;
            }
            None => {
                cdp::send(tab, &held(MouseEventType::MouseMoved, point)).await?;
                if let Some(Ok(Some(event))) = intercepted.as_mut().map(Receiver::try_recv) {
                    intercepted = None;
                    cdp::send(
                        tab,
                        &drag_event(DragEventType::DragEnter, point, &event.data),
                    )
                    .await?;
                    cdp::send(
                        tab,
                        &drag_event(DragEventType::DragOver, point, &event.data),
                    )
                    .await?;
                    data = Some(event.data);
                }
            }
        }
    }
    let to = *path.last().unwrap_or(&from);
    if data.is_none()
        && let Some(rx) = intercepted
        && let Some(event) = within(rx, DRAG_START_MS).await
    {
        // Reported after the last move: the drag is over `to` now.
        cdp::send(tab, &drag_event(DragEventType::DragEnter, to, &event.data)).await?;
        cdp::send(tab, &drag_event(DragEventType::DragOver, to, &event.data)).await?;
        data = Some(event.data);
    }
    match data {
        Some(d) => {
            cdp::send(tab, &drag_event(DragEventType::Drop, to, &d)).await?;
            Ok(true)
        }
        None => {
            cdp::send(tab, &held(MouseEventType::MouseReleased, to)).await?;
            Ok(false)
        }
    }
}
