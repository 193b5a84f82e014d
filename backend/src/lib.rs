//! browser-bridge backend (library): the WebSocket server the extension dials
//! into, the request hub, the HTTP API, the MCP server, and the client of a running
//! `serve`. The `browser-bridge` binary (crate `cli/`) and the built-in agent
//! (crate `agent/`) are built on it. docs/ARCHITECTURE.md has the code map.
//!
//! Layers, each depending only on those above it:
//! - [`bridge`] ([`Bridge`]: an action in, a result or error out), [`config`],
//!   [`events`] (audit log);
//! - [`observe`]: observed actions and `extract.since`, the per-tab baselines
//!   the hub keeps; [`downloads`]: a saved download's size and SHA-256, read
//!   from its file;
//! - [`hub`]: the one owner task of the extension connection and the in-flight
//!   requests ([`hub::pool`] is its pure bookkeeping);
//! - [`tool`]: the `browser` tool (description, schema, decoding, rendering);
//! - [`mcp`]: the rmcp server of that tool, over stdio or streamable HTTP;
//! - [`server`]: `serve` — `/extension` ([`server::ws`], [`server::handshake`]),
//!   `/v1/*` ([`server::http_api`], [`server::hello`]), `/mcp`;
//!   [`start_server`]`(ServeOptions) -> Result<ServerHandle, ServeError>`;
//! - [`client`]: [`RemoteBridge`], a [`Bridge`] over a running `serve`'s HTTP API,
//!   used only after the server proved it knows the token;
//! - [`connect`]: how `mcp` and `run` reach the browser (reuse a proven `serve`,
//!   else host the WebSocket in-process).

pub mod bridge;
pub mod client;
pub mod config;
pub mod connect;
pub mod downloads;
pub mod events;
pub mod hub;
pub mod mcp;
pub mod observe;
pub mod server;
pub mod timing;
pub mod tool;

pub use bridge::Bridge;
pub use client::{Probe, RemoteBridge, probe};
pub use hub::ExtensionHub;
pub use server::console;
pub use server::{AppState, ServeError, ServeOptions, ServerHandle, run_serve, start_server};
