//! browser-bridge test harness.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

pub mod browsers;
pub mod build;
pub mod chromium;
pub mod conformance;
pub mod corpus;
pub mod demo;
pub mod fixtures;
pub mod harness;
pub mod profile;
pub mod reading;
