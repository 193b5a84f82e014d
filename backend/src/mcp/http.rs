//! MCP over streamable HTTP (`/mcp` on `serve`), with rmcp's
//! [`StreamableHttpService`].
//!
//! Stateless JSON mode: every POST is answered with one JSON body and rmcp keeps
//! no session, so no long-lived SSE stream holds `serve` open at shutdown;
//! `GET /mcp` and `DELETE /mcp` answer 405 as the spec allows. Only the client's
//! identity is kept: a POST without `Mcp-Session-Id` (the `initialize`) gets a
//! fresh one in its response ([`issue_session_id`]), which the MCP client sends
//! back on every later request, so each `/mcp` session is a client with its own
//! current tab (PROTOCOL.md §5 "Clients").
//!
//! Authentication is not done here: `serve` mounts [`routes`] behind the same
//! bearer-token and Origin/Host guard as `/v1/act`. rmcp's own Host check
//! (loopback names only, against DNS rebinding) stays on as a second line.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::bridge::Bridge;
use crate::hub::clients::generated_name;
use crate::mcp::BrowserServer;
use crate::mcp::handler::SESSION_HEADER;

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
    axum::Router::new()
        .route_service(MCP_PATH, service(bridge))
        .layer(axum::middleware::from_fn(issue_session_id))
}

/// Gives a successful POST that carries no `Mcp-Session-Id` a fresh one
/// (`mcp-` and 12 hex digits) in its response. MCP clients keep the one of the
/// `initialize` response and send it with every later request; the tool call
/// acts for that client.
pub async fn issue_session_id(request: Request, next: Next) -> Response {
    let fresh = request.method() == Method::POST && !request.headers().contains_key(SESSION_HEADER);
    let mut response = next.run(request).await;
    if fresh
        && response.status().is_success()
        && let Ok(id) = HeaderValue::from_str(&generated_name("mcp"))
    {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}
