//! browser-bridge test harness.

pub mod build;
pub mod chromium;
pub mod conformance;
pub mod corpus;
pub mod demo;
pub mod fixtures;
pub mod harness;
