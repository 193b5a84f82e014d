//! MCP over streamable HTTP (`/mcp` on `serve`), with rmcp's
//! [`StreamableHttpService`].
//!
//! Stateless JSON mode: every POST is answered with one JSON body and no session
//! is kept (the `browser` tool holds no per-client state), so no long-lived SSE
//! stream holds `serve` open at shutdown; `GET /mcp` answers 405 as the spec allows.
//!
//! Authentication is not done here: `serve` mounts [`routes`] behind the same
//! bearer-token and Origin/Host guard as `/v1/act`. rmcp's own Host check
//! (loopback names only, against DNS rebinding) stays on as a second line.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::bridge::Bridge;
use crate::mcp::BrowserServer;

/// The path `serve` mounts MCP at.
pub const MCP_PATH: &str = "/mcp";

/// The streamable HTTP MCP service for `bridge` (a tower `Service`).
pub fn service<B: Bridge>(
    bridge: B,
) -> StreamableHttpService<BrowserServer<B>, NeverSessionManager> {
    let server = BrowserServer::new(bridge);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Routes with [`service`] at [`MCP_PATH`], for any router state, to merge under
/// `serve`'s auth guard.
pub fn routes<S, B>(bridge: B) -> axum::Router<S>
where
    S: Clone + Send + Sync + 'static,
    B: Bridge,
{
    axum::Router::new().route_service(MCP_PATH, service(bridge))
}
