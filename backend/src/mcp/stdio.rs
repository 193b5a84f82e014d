//! `browser-bridge mcp`: MCP over stdin/stdout, for MCP clients that spawn their
//! servers (Claude Desktop, Claude Code, Cursor…).
//!
//! When a `serve` already answers `/v1/status` with the token on the configured
//! address, every tool call is forwarded to it ([`RemoteBridge`]); otherwise this
//! process hosts the extension WebSocket itself ([`start_server`]), so a single MCP
//! client works with nothing else running. A second `mcp` started meanwhile then
//! finds this one's server and forwards to it.
//!
//! stdout belongs to the protocol: nothing else may write to it, so logs go to
//! stderr (`main` sets that up).

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode};
use clap::Args;
use rmcp::ServiceExt;

use crate::bridge::Bridge;
use crate::cli::{ConfigArgs, parse_duration};
use crate::config;
use crate::mcp::BrowserServer;
use crate::remote::{RemoteBridge, probe, serve_answers};
use crate::server::{AddrInUse, DEFAULT_LISTEN, ServeOptions, ServerHandle, start_server};

/// `mcp` options: the same meaning and defaults as `serve`'s.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Address of the running `serve` to reuse, else the address to host the
    /// extension WebSocket on.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub config: ConfigArgs,
    /// How long a call waits for an extension to connect: `5s`, `500ms`, `5`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub connect_wait: Duration,
}

/// Runs `browser-bridge mcp` until the MCP client closes stdin.
///
/// # Errors
/// When the config directory or token cannot be used, or the MCP transport fails.
pub async fn run(args: McpArgs) -> anyhow::Result<()> {
    match reach(
        args.listen,
        args.config.config_dir.as_deref(),
        args.connect_wait,
    )
    .await?
    {
        Reached::Remote(bridge) => {
            tracing::info!(listen = %args.listen, "mcp: forwarding to the running serve");
            serve_stdio(bridge).await
        }
        Reached::Hosted(handle) => {
            tracing::info!(addr = %handle.addr, "mcp: hosting the extension WebSocket in-process");
            let served = serve_stdio(handle.hub.clone()).await;
            let stopped = handle.shutdown().await;
            served.and(stopped)
        }
        Reached::Unavailable(reason) => {
            // Still speak MCP: the model can then tell the user what is wrong,
            // which a server that dies at start-up cannot.
            tracing::error!(%reason, "mcp: cannot host the extension WebSocket");
            serve_stdio(Unavailable(reason.into())).await
        }
    }
}

/// How this process reaches the browser (shared by `mcp` and the agent's `run`).
#[derive(Debug)]
pub enum Reached {
    /// A `serve` answered on the address with the token: forward to it.
    Remote(RemoteBridge),
    /// No `serve` answered, so this process hosts the extension WebSocket.
    Hosted(ServerHandle),
    /// Neither: the in-process server could not start (why, and what to do).
    Unavailable(String),
}

/// Reuses a running `serve` on `listen` when it answers `/v1/status` with the
/// token ([`probe`]), else hosts the extension WebSocket there ([`start_server`])
/// with `connect_wait`.
///
/// # Errors
/// When the config directory or the token cannot be used.
pub async fn reach(
    listen: SocketAddr,
    config_dir: Option<&Path>,
    connect_wait: Duration,
) -> anyhow::Result<Reached> {
    let dir = config::resolve_config_dir(config_dir)?;
    let token = config::load_or_create_token(&dir)?;
    if probe(listen, &token).await {
        return Ok(Reached::Remote(RemoteBridge::new(listen, token)));
    }
    let opts = ServeOptions {
        listen,
        config_dir: Some(dir.clone()),
        connect_wait,
        ..ServeOptions::default()
    };
    Ok(match start_server(opts).await {
        Ok(handle) => Reached::Hosted(handle),
        // The probe with our token failed, yet a serve holds the port: its
        // token differs (another config directory).
        Err(e) if e.downcast_ref::<AddrInUse>().is_some() && serve_answers(listen).await => {
            Reached::Unavailable(format!(
                "a browser-bridge serve answers on {listen} but with another pairing token \
                 than the one in {}: start `browser-bridge mcp` with that serve's `--config-dir`",
                dir.display()
            ))
        }
        Err(e) => Reached::Unavailable(format!(
            "browser-bridge could not start its extension server ({e:#}); free the port or \
             start `browser-bridge serve`"
        )),
    })
}

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
    tracing::info!(?reason, "mcp: client closed stdio");
    Ok(())
}

/// The bridge when neither a running `serve` nor an in-process server is
/// available: every call answers `not_connected` with the start-up failure and
/// what to do about it.
#[derive(Clone)]
struct Unavailable(std::sync::Arc<str>);

impl Bridge for Unavailable {
    async fn act(&self, _action: Action) -> Result<ActionResult, BridgeError> {
        Err(BridgeError::new(ErrorCode::NotConnected, &*self.0))
    }
}
