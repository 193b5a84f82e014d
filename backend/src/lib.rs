//! browser-bridge backend: the WebSocket server the extension dials into, the
//! request pool, the HTTP API, the MCP server and the CLI (docs/DESIGN.md "Backend").
//!
//! Embedding API (used by `mcp`, the agent, tests):
//! - [`server::start_server`]`(ServeOptions) -> anyhow::Result<ServerHandle>`: bind,
//!   serve `/extension` + `/v1/*`, return the bound address, the hub and shutdown.
//! - [`server::run_serve`]: the CLI's `serve`.
//! - [`server::router`]`(AppState) -> Router` and [`http_api::require_auth`] (the
//!   Origin/Host/Bearer guard, an axum `from_fn_with_state` middleware).
//! - [`hub::ExtensionHub`] and [`remote::RemoteBridge`] implement [`Bridge`];
//!   [`remote::probe`] checks whether a `serve` answers and proves it knows the
//!   token ([`http_hello`], PROTOCOL.md §2.1).
//! - [`agent::run_task`]`(&bridge, &model, &RunOptions, &mut progress) -> FinalReport`:
//!   the built-in agent (`run`, `verify`) over any [`Bridge`] and chat model.

pub mod accept;
pub mod agent;
pub mod bridge;
pub mod cli;
pub mod config;
pub mod events;
pub mod handshake;
pub mod http_api;
pub mod http_hello;
pub mod hub;
pub mod log;
pub mod mcp;
pub mod pool;
pub mod remote;
pub mod server;
pub mod ws;

pub use bridge::Bridge;
pub use hub::ExtensionHub;
pub use remote::{Probe, RemoteBridge, probe};
pub use server::{AppState, ServeOptions, ServerHandle, run_serve, start_server};
