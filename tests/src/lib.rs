//! browser-bridge test harness.

pub mod build;
pub mod chromium;
pub mod conformance;
pub mod demo;
pub mod fixtures;
pub mod harness;
pub mod corpus;
