//! The key table of `press_key` (PROTOCOL.md §5): `KeyboardEvent.key` names to
//! what `Input.dispatchKeyEvent` needs.

use browser_bridge_cdp::input::{DispatchKeyEvent, KeyEventType};

/// What CDP needs to press one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// `KeyboardEvent.code` (`KeyA`, `Enter`), empty when none.
    pub code: String,
    /// Windows virtual key code, 0 when none.
    pub key_code: u32,
    /// The text the key types (printable keys, Enter, Space).
    pub text: Option<String>,
}

/// The CDP description of a `KeyboardEvent.key` (`Enter`, `ArrowDown`, `F5`, `a`).
pub fn key_info(key: &str) -> KeyInfo {
    let named = |code: &str, key_code: u32| KeyInfo {
        code: code.to_owned(),
        key_code,
        text: None,
    };
    let typed = |code: &str, key_code: u32, text: &str| KeyInfo {
        code: code.to_owned(),
        key_code,
        text: Some(text.to_owned()),
    };
    match key {
        "Enter" => typed("Enter", 13, "\r"),
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
        " " | "Space" => typed("Space", 32, " "),
        k if function_key(k).is_some() => named(k, 111 + function_key(k).unwrap_or(1)),
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
                    let key_code = if c.is_ascii_alphanumeric() {
                        upper as u32
                    } else {
                        0
                    };
                    KeyInfo {
                        code,
                        key_code,
                        text: Some(c.to_string()),
                    }
                }
                _ => named(k, 0),
            }
        }
    }
}

/// `n` for `F1`…`F12`.
fn function_key(key: &str) -> Option<u32> {
    let n: u32 = key.strip_prefix('F')?.parse().ok()?;
    (1..=12).contains(&n).then_some(n)
}

/// Whether `key` is a key [`key_info`] can press: a single character or one of
/// its named keys (every named key has a keyCode, every character a text).
pub fn is_known_key(key: &str) -> bool {
    let info = key_info(key);
    info.key_code != 0 || info.text.is_some()
}

/// Alt, Ctrl and Meta in CDP's modifier mask: with one held a key types no text.
const COMMAND_MODIFIERS: u32 = 1 | 2 | 4;

/// The key-down and key-up events of one press of `key` with `modifiers` (CDP
/// mask: Alt 1, Ctrl 2, Meta 4, Shift 8). Printable keys carry their text unless
/// a command modifier is held (then it is a shortcut, `rawKeyDown`).
pub fn key_events(key: &str, modifiers: u32) -> [DispatchKeyEvent; 2] {
    let KeyInfo {
        code,
        key_code,
        text,
    } = key_info(key);
    let text = text.filter(|_| modifiers & COMMAND_MODIFIERS == 0);
    let event = |kind, text: Option<String>| DispatchKeyEvent {
        kind,
        key: key.to_owned(),
        code: code.clone(),
        windows_virtual_key_code: key_code,
        modifiers,
        unmodified_text: text.clone(),
        text,
    };
    let down = if text.is_some() {
        KeyEventType::KeyDown
    } else {
        KeyEventType::RawKeyDown
    };
    [event(down, text), event(KeyEventType::KeyUp, None)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(code: &str, key_code: u32, text: Option<&str>) -> KeyInfo {
        KeyInfo {
            code: code.into(),
            key_code,
            text: text.map(Into::into),
        }
    }

    #[test]
    fn named_keys() {
        assert_eq!(key_info("Enter"), info("Enter", 13, Some("\r")));
        assert_eq!(key_info("Tab"), info("Tab", 9, None));
        assert_eq!(key_info("Esc"), info("Escape", 27, None));
        assert_eq!(key_info("ArrowDown"), info("ArrowDown", 40, None));
        assert_eq!(key_info("PageUp"), info("PageUp", 33, None));
        assert_eq!(key_info(" "), info("Space", 32, Some(" ")));
        assert_eq!(key_info("Space"), info("Space", 32, Some(" ")));
    }

    #[test]
    fn function_keys_f1_to_f12_only() {
        assert_eq!(key_info("F1"), info("F1", 112, None));
        assert_eq!(key_info("F12"), info("F12", 123, None));
        assert_eq!(key_info("F13"), info("F13", 0, None));
        assert_eq!(key_info("F0"), info("F0", 0, None));
        assert!(!is_known_key("F13"));
        assert!(!is_known_key("Fx"));
    }

    #[test]
    fn characters() {
        assert_eq!(key_info("a"), info("KeyA", 65, Some("a")));
        assert_eq!(key_info("Z"), info("KeyZ", 90, Some("Z")));
        assert_eq!(key_info("7"), info("Digit7", 55, Some("7")));
        assert_eq!(key_info("/"), info("", 0, Some("/")));
        assert_eq!(key_info("é"), info("", 0, Some("é")));
        assert!(is_known_key("/"));
    }

    #[test]
    fn unknown_names_are_refused() {
        for key in ["Enterr", "ctrl", "", "CapsLock"] {
            assert!(!is_known_key(key), "{key}");
        }
    }

    #[test]
    fn events_of_a_press() {
        let [down, up] = key_events("a", 8);
        assert_eq!(down.kind, KeyEventType::KeyDown);
        assert_eq!(down.text.as_deref(), Some("a"));
        assert_eq!(down.unmodified_text.as_deref(), Some("a"));
        assert_eq!((down.modifiers, down.windows_virtual_key_code), (8, 65));
        assert_eq!(up.kind, KeyEventType::KeyUp);
        assert_eq!(up.text, None);
        // Ctrl+A is a shortcut: no text.
        let [down, _] = key_events("a", 2);
        assert_eq!(down.kind, KeyEventType::RawKeyDown);
        assert_eq!(down.text, None);
        let [down, _] = key_events("Tab", 0);
        assert_eq!(down.kind, KeyEventType::RawKeyDown);
        assert_eq!(down.code, "Tab");
    }
}
