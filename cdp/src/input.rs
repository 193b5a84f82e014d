//! The `Input` domain: trusted mouse and keyboard input (events the page sees
//! with `isTrusted`).

use serde::Serialize;

use crate::{Command, Empty};

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
            modifiers: None,
        }
    }
}

impl Command for DispatchMouseEvent {
    const METHOD: &'static str = "Input.dispatchMouseEvent";
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
