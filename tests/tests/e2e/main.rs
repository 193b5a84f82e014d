//! The end-to-end suites, one binary with a module per topic: the real backend,
//! the real wasm extension in headless Chromium (`/usr/bin/chromium`), fixture
//! pages on 127.0.0.1; plus the demo site and the built-in agent on it. Each test
//! starts its own `Stack` (see `browser_bridge_tests::harness`).
//!
//! Run one topic with `cargo test -p browser-bridge-tests --test e2e -- lifecycle::`.

mod agent_demo;
mod browsers;
mod clickables;
mod clicks;
mod clients;
mod connection;
mod console;
mod controls;
mod deep_pages;
mod demo;
mod demo_site;
mod devtools;
mod dialogs;
mod downloads;
mod effects;
mod evaluate;
mod extract;
mod extract_options;
mod fill;
mod focus;
mod frames;
mod handoff;
mod input;
mod lifecycle;
mod mcp;
mod navigation;
mod new_tabs;
mod observe;
mod page_tools;
mod pointer;
mod policy;
mod robustness;
mod scrolling;
mod shared_cases;
mod smoke;
mod windows;
