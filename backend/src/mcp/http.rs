//! MCP over streamable HTTP (`/mcp` on `serve`), with rmcp's
//! [`StreamableHttpService`]: one [`BrowserServer`] per MCP session, all sharing
//! the same [`Bridge`].
//!
//! Authentication is not done here: `serve` mounts [`router`] behind the same
//! bearer-token and Origin/Host guard as `/v1/act`. rmcp's own Host check
//! (loopback names only, against DNS rebinding) stays on as a second line.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::bridge::Bridge;
use crate::mcp::BrowserServer;

/// The path `serve` mounts MCP at.
pub const MCP_PATH: &str = "/mcp";

/// The streamable HTTP MCP service for `bridge` (a tower `Service`).
pub fn service<B: Bridge>(
    bridge: B,
) -> StreamableHttpService<BrowserServer<B>, LocalSessionManager> {
    let server = BrowserServer::new(bridge);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    )
}

/// An axum router with [`service`] at [`MCP_PATH`], to merge under the auth guard.
pub fn router<B: Bridge>(bridge: B) -> axum::Router {
    axum::Router::new().route_service(MCP_PATH, service(bridge))
}
