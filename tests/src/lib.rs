//! browser-bridge test harness.

pub mod conformance;
pub mod demo;
