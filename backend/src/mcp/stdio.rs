//! MCP over stdin/stdout, for MCP clients that spawn their servers (Claude
//! Desktop, Claude Code, Cursor…): `browser-bridge mcp`.
//!
//! stdout belongs to the protocol: nothing else may write to it, so logs go to
//! stderr (the binary's `main` sets that up).

use rmcp::ServiceExt;

use crate::bridge::Bridge;
use crate::mcp::BrowserServer;

/// Serves the `browser` tool over this process's stdin/stdout until the client
/// closes the stream. `observe`: the tool's default for actions that take
/// `observe` ([`BrowserServer::with_observe`]).
///
/// # Errors
/// When the MCP handshake fails or the transport breaks.
pub async fn serve_stdio<B: Bridge>(bridge: B, observe: bool) -> Result<(), McpError> {
    let running = BrowserServer::new(bridge)
        .with_observe(observe)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError(e.to_string()))?;
    let reason = running
        .waiting()
        .await
        .map_err(|e| McpError(e.to_string()))?;
    tracing::info!(?reason, "mcp: client closed stdio");
    Ok(())
}

/// The MCP session failed: the initialization handshake, or the transport.
#[derive(Debug, thiserror::Error)]
#[error("MCP over stdio: {0}")]
pub struct McpError(String);
