//! The conformance harness (`browser-bridge-conformance`): the protocol's
//! behavioural checks, run against any backend (the harness acts as an extension)
//! or any extension (the harness acts as a backend). PROTOCOL.md is the reference;
//! what crosses the wire is checked as raw JSON.
//!
//! ```text
//! # against a running backend (with no real extension connected to it)
//! browser-bridge-conformance backend ws://127.0.0.1:9333/extension --config-dir ~/.config/browser-bridge
//! # against an extension: listen, then pair the extension with the printed link
//! browser-bridge-conformance extension --listen 127.0.0.1:9444 --token T
//! # ... or let the harness start headless Chromium with an unpacked extension
//! browser-bridge-conformance extension --listen 127.0.0.1:0 --launch-chromium extension/dist
//! ```
//!
//! Each check prints `ok  <area>: <what>` or `FAIL <area>: <what>: <reason>`; the
//! last line is exactly `N passed, N failed`, and the exit code is 1 when a check
//! failed (2 when the harness could not run at all).
//!
//! The same functions are a library: [`backend::run`] and
//! [`extension::ExtensionHarness::run`] record into a [`Report`].

pub mod backend;
pub mod extension;
pub mod launch;
pub mod report;
pub mod wire;

pub use report::{CheckResult, Outcome, Report};
