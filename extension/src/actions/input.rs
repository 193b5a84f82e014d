//! Trusted input (§5): `click`, `hover`, `press_key` through `Input.dispatch*Event`,
//! at the point [`super::point`] finds (scrolled into view, settled, hit-tested);
//! for clicks the hit test is repeated after the mouse moves (hover styles), and
//! where the press landed is checked ([`super::landing`]). Key names are read by
//! [`crate::core::keys`].

use browser_bridge_cdp::input::{DispatchMouseEvent, MouseButton as CdpButton, MouseEventType};
use browser_bridge_cdp::runtime::CallFunctionOn;
use browser_bridge_protocol::action::{Click, Hover, Modifier, MouseButton, PressKey};
use browser_bridge_protocol::pointer::HoverResult;
use browser_bridge_protocol::result::{ClickResult, PressKeyResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

use crate::actions::dom::{self, Node};
use crate::actions::effects::{Ended, Watch};
use crate::actions::landing;
use crate::actions::point::{
    Spot, clear_click_point, clear_click_spot, click_point, hit_test, visible_spot,
};
use crate::actions::tabs;
use crate::app::App;
use crate::cdp;
use crate::core::keys::{is_known_key, key_events};
use crate::core::messages::{cap, quote};

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
