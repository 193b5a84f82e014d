//! The conformance harness: the wire-only checks live in the
//! `browser-bridge-conformance` library (re-exported here); [`launch`] adds what
//! needs Chromium, for the `browser-bridge-conformance` binary's
//! `--launch-chromium`.

pub use browser_bridge_conformance::*;

pub mod launch;
