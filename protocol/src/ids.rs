//! Id newtypes (PROTOCOL.md §3, §5, §6). Each is transparent on the wire.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A request id: a UUIDv4 string made by the backend and echoed by the extension (§3).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct RequestId(#[schemars(length(min = 1))] pub String);

/// A Chrome tab id (`chrome.tabs.Tab.id`), which names a session.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct TabId(pub i64);

/// A Chrome window id (`chrome.windows.Window.id`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct WindowId(pub i64);

/// Longest client name (bytes, PROTOCOL.md §5 "Clients").
pub const MAX_CLIENT_NAME: usize = 128;

/// A client name's shape as the schema states it: 1 to [`MAX_CLIENT_NAME`]
/// visible ASCII characters (`!`…`~`).
pub const CLIENT_NAME_PATTERN: &str = "^[!-~]{1,128}$";

/// True when `name` is a client name: 1 to [`MAX_CLIENT_NAME`] visible ASCII
/// characters, no spaces (§5 "Clients"; a `request`'s `client`, §3).
pub fn is_client_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_CLIENT_NAME && name.bytes().all(|b| b.is_ascii_graphic())
}

/// An element uid such as `e7` (§6): matches `^e[0-9]+$`, names one node for the
/// life of a session. [`Uid::parse`] checks the pattern; decoding an action checks it too.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Uid(pub String);

impl Uid {
    /// The uid pattern (§6), as the schema states it; [`Uid::is_valid`] checks it.
    pub const PATTERN: &str = "^e[0-9]+$";

    /// The uid for counter value `n` (`e{n}`).
    pub fn from_index(n: u64) -> Self {
        Uid(format!("e{n}"))
    }

    /// Checks the `^e[0-9]+$` pattern. Returns `None` when it does not match.
    pub fn parse(text: &str) -> Option<Self> {
        Self::is_valid(text).then(|| Uid(text.to_owned()))
    }

    /// True when `text` matches `^e[0-9]+$`.
    pub fn is_valid(text: &str) -> bool {
        text.strip_prefix('e')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The counter value behind the uid (`e7` → 7); `None` when it overflows `u64`
    /// or does not match the pattern.
    pub fn index(&self) -> Option<u64> {
        self.0.strip_prefix('e')?.parse().ok()
    }
}

impl JsonSchema for Uid {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Uid".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": Uid::PATTERN,
            "description": "Element uid from the last extract of this tab, e.g. \"e7\"."
        })
    }
}

macro_rules! display_inner {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    )*};
}
display_inner!(RequestId, TabId, WindowId, Uid);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_pattern() {
        assert!(Uid::is_valid("e0"));
        assert!(Uid::is_valid("e123"));
        for bad in ["", "e", "E1", "e1a", " e1", "f1e4", "e-1"] {
            assert!(!Uid::is_valid(bad), "{bad:?} should be refused");
        }
        assert_eq!(Uid::from_index(42).index(), Some(42));
    }
}
