//! The protocol's behavioural checks, wire only: run against any backend (the
//! checks act as an extension, [`backend::run`]) or any extension (they act as a
//! backend, [`extension::ExtensionHarness::run`]), recording into a [`Report`].
//! PROTOCOL.md is the reference; what crosses the wire is checked as raw JSON.
//!
//! The `browser-bridge-conformance` binary (in the `browser-bridge-tests` crate,
//! because it can also launch Chromium) prints one line per check:
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
//! [`fake`] is the one fake extension of the workspace's tests and benches: it
//! dials a backend, does the v5 handshake and answers requests with a closure.
//! [`child`] runs the `browser-bridge` binary under test as `serve` or `mcp`.

pub mod backend;
pub mod child;
pub mod extension;
pub mod fake;
pub mod report;
pub mod wire;

pub use report::{CheckResult, Outcome, Report};
