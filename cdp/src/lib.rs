//! Typed Chrome DevTools Protocol (CDP): the commands browser-bridge sends and the
//! events it reads, in the style of chromiumoxide's `Command` trait, hand-written
//! for only the methods we use (chromiumoxide_cdp's 5 MB of generated code was
//! judged too heavy a compile for the project's build machines).
//!
//! One module per CDP domain, named as CDP names it; every param struct is the
//! command (`impl Command`), its field names are CDP's (`backendNodeId`,
//! `frameId`), optional params are `Option`s skipped when `None`. Responses keep
//! only the fields we read and tolerate every other one (no
//! `deny_unknown_fields`: CDP adds fields often). Pure serde: builds for wasm32
//! (the extension, over `chrome.debugger.sendCommand`) and natively (the test
//! clients, over a pipe or a WebSocket).
//!
//! [`gather`] declares the calls `extract` gathers a page with, once, for the
//! extension and the corpus capture.

pub mod accessibility;
pub mod dom;
pub mod dom_snapshot;
pub mod emulation;
pub mod fetch;
pub mod gather;
pub mod input;
pub mod inspector;
pub mod log;
pub mod network;
pub mod page;
pub mod runtime;
pub mod target;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};

/// A CDP command: the params struct, serialized as the command's `params`.
pub trait Command: Serialize {
    /// The CDP method, `Domain.method` (`DOM.getBoxModel`).
    const METHOD: &'static str;
    /// The command's result object.
    type Response: DeserializeOwned;
}

/// A CDP event: its params struct.
pub trait Event: DeserializeOwned {
    /// The CDP event name, `Domain.event` (`Page.loadEventFired`).
    const METHOD: &'static str;
}

/// The result of a command whose result we do not read (or that has none): any
/// JSON, even `null` or nothing, decodes to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Empty {}

impl<'de> Deserialize<'de> for Empty {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `deserialize_ignored_any`, not `IgnoredAny::deserialize`: the latter asks
        // for `any`, which a unit `null` satisfies but some decoders reject.
        deserializer.deserialize_ignored_any(IgnoredAny)?;
        Ok(Empty {})
    }
}

/// Declares a `#[serde(transparent)]` id newtype.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}
pub(crate) use id;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_accepts_any_result() {
        for text in ["{}", "null", r#"{"frameId":"F","extra":[1,2]}"#, "[]", "3"] {
            assert_eq!(
                serde_json::from_str::<Empty>(text).unwrap(),
                Empty {},
                "{text}"
            );
        }
        assert_eq!(serde_json::to_string(&Empty {}).unwrap(), "{}");
    }
}
