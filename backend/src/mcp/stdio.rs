//! `browser-bridge mcp`: MCP over stdin/stdout.
//!
//! stdout belongs to the protocol: nothing else may write to it, so logs go to
//! stderr (the CLI sets that up before calling in here).

use rmcp::ServiceExt;

use crate::bridge::Bridge;
use crate::mcp::BrowserServer;

/// Serves the `browser` tool over this process's stdin/stdout until the client
/// closes the stream.
///
/// # Errors
/// When the MCP handshake fails or the transport breaks.
pub async fn serve_stdio<B: Bridge>(bridge: B) -> anyhow::Result<()> {
    let running = BrowserServer::new(bridge)
        .serve(rmcp::transport::stdio())
        .await?;
    let reason = running.waiting().await?;
    tracing::info!(?reason, "MCP client closed stdio");
    Ok(())
}
