//! The conformance harness (`browser-bridge-conformance`): the protocol's
//! behavioural checks, run against any backend (the harness acts as an extension)
//! or any extension (the harness acts as a backend). PROTOCOL.md is the reference;
//! what crosses the wire is checked as raw JSON.

pub mod backend;
pub mod extension;
pub mod launch;
pub mod report;
pub mod wire;

pub use report::{CheckResult, Outcome, Report};
