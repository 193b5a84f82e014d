//! The `Input` domain: trusted mouse and keyboard input (events the page sees
//! with `isTrusted`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Command, Empty, Event};

/// `Input.dispatchMouseEvent` `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MouseEventType {
    /// The pointer moves (hover).
    MouseMoved,
    /// A button goes down.
    MousePressed,
    /// A button goes up.
    MouseReleased,
}

/// `Input.MouseButton`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// Primary.
    Left,
    /// Wheel.
    Middle,
    /// Secondary (context menu).
    Right,
}

/// `Input.dispatchMouseEvent` at a viewport point (CSS px).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    /// What happens.
    #[serde(rename = "type")]
    pub kind: MouseEventType,
    /// X in the viewport.
    pub x: f64,
    /// Y in the viewport.
    pub y: f64,
    /// The button (presses and releases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// 1 for a click, 2 for the second press of a double click, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
    /// The buttons held (`MouseEvent.buttons`: left 1, right 2, middle 4), so a
    /// move during a drag reaches the page with its button down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u32>,
    /// Modifier bit mask: Alt 1, Ctrl 2, Meta 4, Shift 8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<u32>,
}

impl DispatchMouseEvent {
    /// A `mouseMoved` to `(x, y)`.
    pub fn moved(x: f64, y: f64) -> DispatchMouseEvent {
        DispatchMouseEvent {
            kind: MouseEventType::MouseMoved,
            x,
            y,
            button: None,
            click_count: None,
            buttons: None,
            modifiers: None,
        }
    }
}

impl Command for DispatchMouseEvent {
    const METHOD: &'static str = "Input.dispatchMouseEvent";
    type Response = Empty;
}

/// `Input.setInterceptDrags`: while enabled, a drag the page starts is not run
/// by the browser but reported as [`DragIntercepted`], to be played with
/// [`DispatchDragEvent`].
#[derive(Debug, Clone, Serialize)]
pub struct SetInterceptDrags {
    /// On or off.
    pub enabled: bool,
}

impl Command for SetInterceptDrags {
    const METHOD: &'static str = "Input.setInterceptDrags";
    type Response = Empty;
}

/// `Input.dragIntercepted`: the page started a drag (`dragstart` not cancelled)
/// while [`SetInterceptDrags`] was on.
#[derive(Debug, Clone, Deserialize)]
pub struct DragIntercepted {
    /// `Input.DragData` (items, files, `dragOperationsMask`), handed back as is.
    pub data: Value,
}

impl Event for DragIntercepted {
    const METHOD: &'static str = "Input.dragIntercepted";
}

/// `Input.dispatchDragEvent` `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DragEventType {
    /// The drag enters the point (`dragenter`).
    DragEnter,
    /// The drag moves over the point (`dragover`).
    DragOver,
    /// The drag ends at the point (`drop`, then `dragend` on the source).
    Drop,
    /// The drag is given up (`dragleave`, `dragend`).
    DragCancel,
}

/// `Input.dispatchDragEvent` at a viewport point (CSS px) with the data of a
/// [`DragIntercepted`].
#[derive(Debug, Clone, Serialize)]
pub struct DispatchDragEvent {
    /// What happens.
    #[serde(rename = "type")]
    pub kind: DragEventType,
    /// X in the viewport.
    pub x: f64,
    /// Y in the viewport.
    pub y: f64,
    /// The intercepted `Input.DragData`.
    pub data: Value,
}

impl Command for DispatchDragEvent {
    const METHOD: &'static str = "Input.dispatchDragEvent";
    type Response = Empty;
}

/// `Input.dispatchKeyEvent` `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum KeyEventType {
    /// A key down that produces `text`.
    KeyDown,
    /// A key down without text (named keys, shortcuts).
    RawKeyDown,
    /// The key goes up.
    KeyUp,
}

/// `Input.dispatchKeyEvent`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent {
    /// What happens.
    #[serde(rename = "type")]
    pub kind: KeyEventType,
    /// `KeyboardEvent.key` (`Enter`, `a`).
    pub key: String,
    /// `KeyboardEvent.code` (`KeyA`), empty when none.
    pub code: String,
    /// The Windows virtual key code (13 for Enter), 0 when none.
    pub windows_virtual_key_code: u32,
    /// Modifier bit mask: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub modifiers: u32,
    /// The text the key types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The text without modifiers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
}

impl Command for DispatchKeyEvent {
    const METHOD: &'static str = "Input.dispatchKeyEvent";
    type Response = Empty;
}

/// `Input.insertText`: types `text` into the focused element as one edit
/// (`beforeinput`/`input`, no key events).
#[derive(Debug, Clone, Serialize)]
pub struct InsertText {
    /// The text.
    pub text: String,
}

impl Command for InsertText {
    const METHOD: &'static str = "Input.insertText";
    type Response = Empty;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drag_events_use_cdp_names() {
        let drop = DispatchDragEvent {
            kind: DragEventType::DragEnter,
            x: 1.0,
            y: 2.0,
            data: json!({"items": [], "dragOperationsMask": 1}),
        };
        assert_eq!(
            serde_json::to_value(drop).unwrap(),
            json!({"type": "dragEnter", "x": 1.0, "y": 2.0, "data": {"items": [], "dragOperationsMask": 1}})
        );
        let moved = DispatchMouseEvent {
            buttons: Some(1),
            ..DispatchMouseEvent::moved(3.0, 4.0)
        };
        assert_eq!(
            serde_json::to_value(moved).unwrap(),
            json!({"type": "mouseMoved", "x": 3.0, "y": 4.0, "buttons": 1})
        );
    }

    #[test]
    fn mouse_and_key_events_use_cdp_names() {
        let press = DispatchMouseEvent {
            kind: MouseEventType::MousePressed,
            button: Some(MouseButton::Left),
            click_count: Some(2),
            modifiers: Some(8),
            ..DispatchMouseEvent::moved(1.5, 2.0)
        };
        assert_eq!(
            serde_json::to_value(press).unwrap(),
            json!({"type": "mousePressed", "x": 1.5, "y": 2.0, "button": "left", "clickCount": 2, "modifiers": 8})
        );
        assert_eq!(
            serde_json::to_value(DispatchMouseEvent::moved(3.0, 4.0)).unwrap(),
            json!({"type": "mouseMoved", "x": 3.0, "y": 4.0})
        );
        let key = DispatchKeyEvent {
            kind: KeyEventType::RawKeyDown,
            key: "Tab".into(),
            code: "Tab".into(),
            windows_virtual_key_code: 9,
            modifiers: 0,
            text: None,
            unmodified_text: None,
        };
        assert_eq!(
            serde_json::to_value(key).unwrap(),
            json!({"type": "rawKeyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "modifiers": 0})
        );
    }
}
