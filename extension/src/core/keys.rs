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

/// Named `KeyboardEvent.key` values (UI Events "Key Values", every section) with
/// their `KeyboardEvent.code` (empty when no physical key has one) and Windows
/// virtual key code (0 when none). Enter, Space and F1…F24 are handled apart.
const NAMED: &[(&str, &str, u32)] = &[
    // Modifiers.
    ("Alt", "AltLeft", 18),
    ("AltGraph", "AltRight", 225),
    ("CapsLock", "CapsLock", 20),
    ("Control", "ControlLeft", 17),
    ("Fn", "Fn", 0),
    ("FnLock", "FnLock", 0),
    ("Hyper", "", 0),
    ("Meta", "MetaLeft", 91),
    ("NumLock", "NumLock", 144),
    ("ScrollLock", "ScrollLock", 145),
    ("Shift", "ShiftLeft", 16),
    ("Super", "", 0),
    ("Symbol", "", 0),
    ("SymbolLock", "", 0),
    // Whitespace, navigation, editing.
    ("Tab", "Tab", 9),
    ("ArrowLeft", "ArrowLeft", 37),
    ("ArrowUp", "ArrowUp", 38),
    ("ArrowRight", "ArrowRight", 39),
    ("ArrowDown", "ArrowDown", 40),
    ("Home", "Home", 36),
    ("End", "End", 35),
    ("PageUp", "PageUp", 33),
    ("PageDown", "PageDown", 34),
    ("Backspace", "Backspace", 8),
    ("Clear", "NumpadClear", 12),
    ("Copy", "Copy", 0),
    ("CrSel", "", 247),
    ("Cut", "Cut", 0),
    ("Delete", "Delete", 46),
    ("EraseEof", "", 249),
    ("ExSel", "", 248),
    ("Insert", "Insert", 45),
    ("Paste", "Paste", 0),
    ("Redo", "Again", 0),
    ("Undo", "Undo", 0),
    // UI.
    ("Accept", "", 30),
    ("Again", "Again", 0),
    ("Attn", "", 246),
    ("Cancel", "Abort", 3),
    ("ContextMenu", "ContextMenu", 93),
    ("Escape", "Escape", 27),
    ("Execute", "", 43),
    ("Find", "Find", 0),
    ("Finish", "", 0),
    ("Help", "Help", 47),
    ("Pause", "Pause", 19),
    ("Play", "", 250),
    ("Props", "Props", 0),
    ("Select", "Select", 41),
    ("ZoomIn", "", 0),
    ("ZoomOut", "", 0),
    // Device.
    ("BrightnessDown", "", 0),
    ("BrightnessUp", "", 0),
    ("Eject", "Eject", 0),
    ("LogOff", "", 0),
    ("Power", "Power", 0),
    ("PowerOff", "", 0),
    ("PrintScreen", "PrintScreen", 44),
    ("Hibernate", "", 0),
    ("Standby", "", 0),
    ("WakeUp", "WakeUp", 0),
    // IME and composition.
    ("AllCandidates", "", 0),
    ("Alphanumeric", "", 0),
    ("CodeInput", "", 0),
    ("Compose", "", 0),
    ("Convert", "Convert", 28),
    ("Dead", "", 0),
    ("FinalMode", "", 24),
    ("GroupFirst", "", 0),
    ("GroupLast", "", 0),
    ("GroupNext", "", 0),
    ("GroupPrevious", "", 0),
    ("ModeChange", "", 31),
    ("NextCandidate", "", 0),
    ("NonConvert", "NonConvert", 29),
    ("PreviousCandidate", "", 0),
    ("Process", "", 229),
    ("SingleCandidate", "", 0),
    ("HangulMode", "Lang1", 21),
    ("HanjaMode", "Lang2", 25),
    ("JunjaMode", "", 23),
    ("Eisu", "", 0),
    ("Hankaku", "", 0),
    ("Hiragana", "Lang4", 0),
    ("HiraganaKatakana", "KanaMode", 0),
    ("KanaMode", "KanaMode", 21),
    ("KanjiMode", "", 25),
    ("Katakana", "Lang3", 0),
    ("Romaji", "", 0),
    ("Zenkaku", "", 0),
    ("ZenkakuHankaku", "", 0),
    // Soft keys, multimedia, audio, phone, TV, media controller, speech, document,
    // application and browser keys.
    ("Soft1", "", 0),
    ("Soft2", "", 0),
    ("Soft3", "", 0),
    ("Soft4", "", 0),
    ("ChannelDown", "", 0),
    ("ChannelUp", "", 0),
    ("Close", "", 0),
    ("MailForward", "", 0),
    ("MailReply", "", 0),
    ("MailSend", "", 0),
    ("MediaClose", "", 0),
    ("MediaFastForward", "", 0),
    ("MediaPause", "", 0),
    ("MediaPlay", "", 0),
    ("MediaPlayPause", "MediaPlayPause", 179),
    ("MediaRecord", "", 0),
    ("MediaRewind", "", 0),
    ("MediaStop", "MediaStop", 178),
    ("MediaTrackNext", "MediaTrackNext", 176),
    ("MediaTrackPrevious", "MediaTrackPrevious", 177),
    ("New", "", 0),
    ("Open", "Open", 0),
    ("Print", "", 42),
    ("Save", "", 0),
    ("SpellCheck", "", 0),
    ("Key11", "", 0),
    ("Key12", "", 0),
    ("AudioBalanceLeft", "", 0),
    ("AudioBalanceRight", "", 0),
    ("AudioBassBoostDown", "", 0),
    ("AudioBassBoostToggle", "", 0),
    ("AudioBassBoostUp", "", 0),
    ("AudioFaderFront", "", 0),
    ("AudioFaderRear", "", 0),
    ("AudioSurroundModeNext", "", 0),
    ("AudioTrebleDown", "", 0),
    ("AudioTrebleUp", "", 0),
    ("AudioVolumeDown", "AudioVolumeDown", 174),
    ("AudioVolumeUp", "AudioVolumeUp", 175),
    ("AudioVolumeMute", "AudioVolumeMute", 173),
    ("MicrophoneToggle", "", 0),
    ("MicrophoneVolumeDown", "", 0),
    ("MicrophoneVolumeUp", "", 0),
    ("MicrophoneVolumeMute", "", 0),
    ("SpeechCorrectionList", "", 0),
    ("SpeechInputToggle", "", 0),
    ("LaunchApplication1", "LaunchApp1", 182),
    ("LaunchApplication2", "LaunchApp2", 183),
    ("LaunchCalendar", "", 0),
    ("LaunchContacts", "", 0),
    ("LaunchMail", "LaunchMail", 180),
    ("LaunchMediaPlayer", "MediaSelect", 181),
    ("LaunchMusicPlayer", "", 0),
    ("LaunchPhone", "", 0),
    ("LaunchScreenSaver", "", 0),
    ("LaunchSpreadsheet", "", 0),
    ("LaunchWebBrowser", "", 0),
    ("LaunchWebCam", "", 0),
    ("LaunchWordProcessor", "", 0),
    ("BrowserBack", "BrowserBack", 166),
    ("BrowserFavorites", "BrowserFavorites", 171),
    ("BrowserForward", "BrowserForward", 167),
    ("BrowserHome", "BrowserHome", 172),
    ("BrowserRefresh", "BrowserRefresh", 168),
    ("BrowserSearch", "BrowserSearch", 170),
    ("BrowserStop", "BrowserStop", 169),
    ("AppSwitch", "", 0),
    ("Call", "", 0),
    ("Camera", "", 0),
    ("CameraFocus", "", 0),
    ("EndCall", "", 0),
    ("GoBack", "", 0),
    ("GoHome", "", 0),
    ("HeadsetHook", "", 0),
    ("LastNumberRedial", "", 0),
    ("Notification", "", 0),
    ("MannerMode", "", 0),
    ("VoiceDial", "", 0),
    ("TV", "", 0),
    ("Dimmer", "", 0),
    ("Exit", "", 0),
    ("Guide", "", 0),
    ("Info", "", 0),
    ("MediaApps", "", 0),
    ("Settings", "", 0),
    ("Subtitle", "", 0),
    ("Teletext", "", 0),
    ("VideoModeNext", "", 0),
    ("Unidentified", "", 0),
];

/// The CDP description of a `KeyboardEvent.key` (`Enter`, `ArrowDown`, `F5`,
/// `Shift`, `a`); `None` for a name that is no key value.
pub fn lookup(key: &str) -> Option<KeyInfo> {
    let named = |code: &str, key_code: u32| KeyInfo {
        code: code.to_owned(),
        key_code,
        text: None,
    };
    match key {
        "Enter" => {
            return Some(KeyInfo {
                text: Some("\r".into()),
                ..named("Enter", 13)
            });
        }
        " " | "Space" => {
            return Some(KeyInfo {
                text: Some(" ".into()),
                ..named("Space", 32)
            });
        }
        "Esc" => return Some(named("Escape", 27)),
        _ => {}
    }
    if let Some(n) = function_key(key) {
        // F1…F24: VK_F1 = 112.
        return Some(named(key, 111 + n));
    }
    if let Some(&(_, code, key_code)) = NAMED.iter().find(|(name, _, _)| *name == key) {
        return Some(named(code, key_code));
    }
    let mut chars = key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
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
    Some(KeyInfo {
        code,
        key_code,
        text: Some(c.to_string()),
    })
}

/// [`lookup`], with an unknown name pressed as a key without code or text.
pub fn key_info(key: &str) -> KeyInfo {
    lookup(key).unwrap_or(KeyInfo {
        code: key.to_owned(),
        key_code: 0,
        text: None,
    })
}

/// `n` for `F1`…`F24`.
fn function_key(key: &str) -> Option<u32> {
    let digits = key.strip_prefix('F')?;
    if digits.starts_with('0') {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (1..=24).contains(&n).then_some(n)
}

/// Whether `key` is a `KeyboardEvent.key` value [`key_info`] can press: a single
/// character or a named key value.
pub fn is_known_key(key: &str) -> bool {
    lookup(key).is_some()
}

/// The CDP modifier bit a modifier key sets while it is down (Alt 1, Control 2,
/// Meta 4, Shift 8), so that its own `keydown` reports it held, as Chrome does.
fn modifier_bit(key: &str) -> u32 {
    match key {
        "Alt" | "AltGraph" => 1,
        "Control" => 2,
        "Meta" => 4,
        "Shift" => 8,
        _ => 0,
    }
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
    let held = modifiers | modifier_bit(key);
    let event = |kind, text: Option<String>, modifiers| DispatchKeyEvent {
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
    [
        event(down, text, held),
        event(KeyEventType::KeyUp, None, modifiers),
    ]
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
    fn function_keys_f1_to_f24_only() {
        assert_eq!(key_info("F1"), info("F1", 112, None));
        assert_eq!(key_info("F12"), info("F12", 123, None));
        assert_eq!(key_info("F13"), info("F13", 124, None));
        assert_eq!(key_info("F24"), info("F24", 135, None));
        assert_eq!(key_info("F0"), info("F0", 0, None));
        for key in ["F0", "F25", "F01", "Fx"] {
            assert!(!is_known_key(key), "{key}");
        }
    }

    #[test]
    fn modifiers_locks_and_other_key_values() {
        assert_eq!(key_info("Shift"), info("ShiftLeft", 16, None));
        assert_eq!(key_info("Control"), info("ControlLeft", 17, None));
        assert_eq!(key_info("Alt"), info("AltLeft", 18, None));
        assert_eq!(key_info("Meta"), info("MetaLeft", 91, None));
        assert_eq!(key_info("CapsLock"), info("CapsLock", 20, None));
        assert_eq!(key_info("Insert"), info("Insert", 45, None));
        for key in [
            "ContextMenu",
            "PrintScreen",
            "MediaPlayPause",
            "AudioVolumeMute",
            "Dead",
            "Process",
            "Unidentified",
            "Copy",
            "BrowserBack",
            "NumLock",
            "Fn",
        ] {
            assert!(is_known_key(key), "{key}");
        }
        // A lone modifier's keydown reports itself held; its keyup does not.
        let [down, up] = key_events("Shift", 0);
        assert_eq!((down.kind, down.modifiers), (KeyEventType::RawKeyDown, 8));
        assert_eq!(up.modifiers, 0);
        let [down, _] = key_events("Control", 8);
        assert_eq!(down.modifiers, 10);
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
        for key in ["Enterr", "ctrl", "", "shift", "Ctrl", "ab"] {
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
