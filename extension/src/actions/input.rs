//! Trusted input (§5): `click`, `hover`, `press_key` through `Input.dispatch*Event`,
//! after `DOM.scrollIntoViewIfNeeded` + `DOM.getBoxModel` (centre of the content
//! quad) and, for clicks, a hit test (`DOM.getNodeForLocation`) that must land on
//! the element or a descendant (across open shadow roots).

use browser_bridge_protocol::action::{Click, Hover, Modifier, MouseButton, PressKey};
use browser_bridge_protocol::result::{ClickResult, PressKeyResult, TabResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use serde_json::{Value, json};

use crate::actions::dom::{self, Node};
use crate::actions::effects::Watch;
use crate::cdp::{self, GetBoxModel, NodeForLocation};

/// Is `other` this element or inside it (crossing shadow roots)?
const CONTAINS: &str = r#"function (other) {
  for (let n = other; n; n = n.parentNode || n.host) { if (n === this) return true; }
  return false;
}"#;

/// `{disabled}` of an element.
const STATE: &str = r#"function () {
  return { disabled: !!this.disabled || this.getAttribute('aria-disabled') === 'true' };
}"#;

/// Scrolls `node` into view and returns its click point (CSS px, viewport).
///
/// # Errors
/// `element_not_interactable` when it is hidden, not rendered or zero-sized.
pub async fn click_point(tab: TabId, node: &Node) -> Result<(f64, f64), BridgeError> {
    let not_interactable = |why: &str| {
        BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is {why}", node.label),
        )
    };
    cdp::send(
        tab,
        "DOM.scrollIntoViewIfNeeded",
        json!({ "backendNodeId": node.backend_node_id }),
    )
    .await
    .map_err(|_| not_interactable("not rendered (display:none or detached)"))?;
    let model: GetBoxModel = cdp::call(
        tab,
        "DOM.getBoxModel",
        json!({ "backendNodeId": node.backend_node_id }),
    )
    .await
    .map_err(|_| not_interactable("hidden or not rendered (no box)"))?;
    let q = &model.model.content;
    let (xs, ys): (Vec<f64>, Vec<f64>) = (
        q.iter().step_by(2).copied().collect(),
        q.iter().skip(1).step_by(2).copied().collect(),
    );
    let width =
        xs.iter().cloned().fold(f64::MIN, f64::max) - xs.iter().cloned().fold(f64::MAX, f64::min);
    let height =
        ys.iter().cloned().fold(f64::MIN, f64::max) - ys.iter().cloned().fold(f64::MAX, f64::min);
    if q.len() < 8 || width <= 0.0 || height <= 0.0 {
        return Err(not_interactable("zero-sized"));
    }
    Ok(model.model.centre())
}

/// Checks that a click at `(x, y)` lands on `node` or a descendant.
///
/// # Errors
/// `element_not_interactable` naming the covering element.
pub async fn hit_test(tab: TabId, node: &Node, (x, y): (f64, f64)) -> Result<(), BridgeError> {
    // `DOM.getNodeForLocation` takes document coordinates (measured on Chromium
    // 156), the box model gives viewport ones: add the page's scroll offset.
    let metrics = cdp::send(tab, "Page.getLayoutMetrics", json!({})).await?;
    let page_x = metrics["cssLayoutViewport"]["pageX"]
        .as_f64()
        .unwrap_or(0.0);
    let page_y = metrics["cssLayoutViewport"]["pageY"]
        .as_f64()
        .unwrap_or(0.0);
    let hit: NodeForLocation = cdp::call(
        tab,
        "DOM.getNodeForLocation",
        json!({ "x": (x + page_x).round() as i64, "y": (y + page_y).round() as i64, "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": true }),
    )
    .await?;
    if hit.backend_node_id == node.backend_node_id {
        return Ok(());
    }
    let hit_object = dom::resolve_backend(tab, hit.backend_node_id).await?;
    if cdp_contains(tab, &node.object_id, &hit_object).await? {
        return Ok(());
    }
    let cover = dom::describe(tab, &hit_object).await;
    Err(BridgeError::new(
        ErrorCode::ElementNotInteractable,
        format!(
            "{} is covered at its click point ({x:.0}, {y:.0}) by {cover}: deal with the cover, then retry",
            node.label
        ),
    ))
}

async fn cdp_contains(tab: TabId, object_id: &str, other: &str) -> Result<bool, BridgeError> {
    let r: cdp::EvalResult = cdp::call(
        tab,
        "Runtime.callFunctionOn",
        json!({ "objectId": object_id, "functionDeclaration": CONTAINS, "arguments": [{ "objectId": other }], "returnByValue": true }),
    )
    .await?;
    Ok(r.result.value == Some(Value::Bool(true)))
}

fn button_name(b: Option<MouseButton>) -> &'static str {
    match b.unwrap_or(MouseButton::Left) {
        MouseButton::Left => "left",
        MouseButton::Middle => "middle",
        MouseButton::Right => "right",
    }
}

/// `click`.
///
/// # Errors
/// `element_not_found`, `element_stale`, `element_not_interactable`.
pub async fn click(tab: TabId, p: Click) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(tab, p.target()?).await?;
    if dom::call_on(tab, &node.object_id, STATE, &[]).await?["disabled"] == true {
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is disabled", node.label),
        ));
    }
    let point = click_point(tab, &node).await?;
    hit_test(tab, &node, point).await?;
    let modifiers = Modifier::mask(p.modifiers.as_deref().unwrap_or_default());
    let button = button_name(p.button);
    let count = p.click_count();
    let watch = Watch::start(tab).await;
    let (x, y) = point;
    let input = async move {
        cdp::send(
            tab,
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y, "modifiers": modifiers }),
        )
        .await?;
        for n in 1..=count {
            for kind in ["mousePressed", "mouseReleased"] {
                cdp::send(
                    tab,
                    "Input.dispatchMouseEvent",
                    json!({ "type": kind, "x": x, "y": y, "button": button, "clickCount": n, "modifiers": modifiers }),
                )
                .await?;
            }
        }
        Ok::<(), cdp::CdpError>(())
    };
    let report = watch.run(input).await?;
    Ok(ActionResult::Click(ClickResult {
        tab_id: tab,
        url: report.url,
        navigated: report.navigated,
        effects: report.effects,
    }))
}

/// `hover`: the mouse moves to the element's centre.
///
/// # Errors
/// `element_not_found`, `element_stale`, `element_not_interactable`.
pub async fn hover(tab: TabId, p: Hover) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(tab, p.target()?).await?;
    let (x, y) = click_point(tab, &node).await?;
    cdp::send(
        tab,
        "Input.dispatchMouseEvent",
        json!({ "type": "mouseMoved", "x": x, "y": y }),
    )
    .await?;
    Ok(ActionResult::Hover(TabResult { tab_id: tab }))
}

/// CDP key description of a `KeyboardEvent.key`: `(code, keyCode, text)`.
pub fn key_info(key: &str) -> (String, u32, Option<String>) {
    let named = |code: &str, kc: u32| (code.to_owned(), kc, None);
    match key {
        "Enter" => ("Enter".into(), 13, Some("\r".into())),
        "Tab" => named("Tab", 9),
        "Escape" | "Esc" => named("Escape", 27),
        "Backspace" => named("Backspace", 8),
        "Delete" => named("Delete", 46),
        "ArrowLeft" => named("ArrowLeft", 37),
        "ArrowUp" => named("ArrowUp", 38),
        "ArrowRight" => named("ArrowRight", 39),
        "ArrowDown" => named("ArrowDown", 40),
        "Home" => named("Home", 36),
        "End" => named("End", 35),
        "PageUp" => named("PageUp", 33),
        "PageDown" => named("PageDown", 34),
        " " | "Space" => ("Space".into(), 32, Some(" ".into())),
        k if k.len() > 1
            && k.starts_with('F')
            && k[1..].parse::<u32>().is_ok_and(|n| (1..=12).contains(&n)) =>
        {
            named(k, 111 + k[1..].parse::<u32>().unwrap_or(1))
        }
        k => {
            let mut chars = k.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => {
                    let upper = c.to_ascii_uppercase();
                    let code = if c.is_ascii_alphabetic() {
                        format!("Key{upper}")
                    } else if c.is_ascii_digit() {
                        format!("Digit{c}")
                    } else {
                        String::new()
                    };
                    let kc = if c.is_ascii_alphanumeric() {
                        upper as u32
                    } else {
                        0
                    };
                    (code, kc, Some(c.to_string()))
                }
                _ => named(k, 0),
            }
        }
    }
}

/// Whether `key` is a key [`key_info`] can press: a single character or one of
/// its named keys (every named key has a keyCode, every character a text).
pub fn is_known_key(key: &str) -> bool {
    let (_, key_code, text) = key_info(key);
    key_code != 0 || text.is_some()
}

/// Sends keyDown/keyUp for one key (with text for printable keys unless a command
/// modifier is held).
pub async fn press(tab: TabId, key: &str, modifiers: u32) -> Result<(), cdp::CdpError> {
    let (code, key_code, text) = key_info(key);
    let command = modifiers & (1 | 2 | 4) != 0;
    let text = text.filter(|_| !command);
    let mut down = json!({
        "type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
        "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": modifiers,
    });
    if let Some(t) = &text {
        down["text"] = json!(t);
        down["unmodifiedText"] = json!(t);
    }
    cdp::send(tab, "Input.dispatchKeyEvent", down).await?;
    cdp::send(
        tab,
        "Input.dispatchKeyEvent",
        json!({ "type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": modifiers }),
    )
    .await?;
    Ok(())
}

/// `press_key` in the focused element.
///
/// # Errors
/// `invalid_action` for a key name it does not know (Chrome would dispatch it as
/// a key with no code and no effect); CDP failures.
pub async fn press_key(tab: TabId, p: PressKey) -> Result<ActionResult, BridgeError> {
    if !is_known_key(&p.key) {
        return Err(BridgeError::invalid_action(format!(
            "unknown key {}: give a KeyboardEvent.key value such as Enter, Escape, \
             ArrowDown, Tab or a single character",
            super::dom::quote(&p.key)
        )));
    }
    let modifiers = Modifier::mask(p.modifiers.as_deref().unwrap_or_default());
    let watch = Watch::start(tab).await;
    let key = p.key.clone();
    let report = watch
        .run(async move { press(tab, &key, modifiers).await })
        .await?;
    Ok(ActionResult::PressKey(PressKeyResult {
        tab_id: tab,
        effects: report.effects,
    }))
}
