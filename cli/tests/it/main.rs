//! The `browser-bridge` CLI's integration tests, one binary with a module per topic
//! (one link instead of ten). Everything runs without a browser: an in-process
//! server or the real binary as a child, and a fake extension on a real socket.
//!
//! Run one topic with `cargo test -p browser-bridge --test it -- mcp::`.

mod act;
mod agent;
mod browsers;
mod cli;
mod common;
mod config_files;
mod console;
mod extension_flood;
mod extension_socket;
mod hardening;
mod http_api;
mod mcp;
mod messages;
mod server_proof;
