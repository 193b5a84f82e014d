//! The extension's pure core: decisions with no `wasm-bindgen`, `js-sys` or
//! `web-sys`, unit-tested natively (`cargo test -p browser-bridge-extension`).
//! The shell modules gather inputs from Chrome, call these, and perform what they
//! answer.

pub mod backoff;
pub mod browser;
pub mod connection;
pub mod devtools;
pub mod downloads;
pub mod fill;
pub mod frames;
pub mod handoff;
pub mod image;
pub mod keys;
pub mod marks;
pub mod messages;
pub mod net_rule;
pub mod pointer;
pub mod settings;
pub mod tabs;
pub mod windows;
