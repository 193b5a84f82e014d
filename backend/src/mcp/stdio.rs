//! `browser-bridge mcp`: MCP over stdin/stdout, for MCP clients that spawn their
//! servers (Claude Desktop, Claude Code, Cursor…).
//!
//! When a `serve` on the configured address proves it knows the pairing token
//! (`GET /v1/hello`, PROTOCOL.md §2.1, [`probe`]), every tool call is forwarded to
//! it ([`RemoteBridge`]); when nothing answers there, this process hosts the
//! extension WebSocket itself ([`start_server`]), so a single MCP client works with
//! nothing else running. A second `mcp` started meanwhile then finds this one's
//! server and forwards to it. When something answers without the proof, `mcp`
//! exits non-zero naming the address, without ever sending the token.
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
use crate::remote::{Probe, RemoteBridge, probe};
use crate::server::{DEFAULT_LISTEN, ServeOptions, ServerHandle, start_server};

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
/// When the config directory or token cannot be used, or the MCP transport fails;
/// a [`BridgeError`] (`unauthorized`, `protocol_mismatch`) when the program on
/// `--listen` did not prove it knows the token ([`Reached::Refused`]).
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
        // Not `Unavailable`: this process cannot host (the port is taken) and must
        // not forward (that would send the token), and a server that merely
        // answers every call with an error would hide the cause in the MCP client.
        Reached::Refused(error) => Err(error.into()),
    }
}

/// How this process reaches the browser (shared by `mcp` and the agent's `run`).
#[derive(Debug)]
pub enum Reached {
    /// A `serve` on the address proved it knows the token: forward to it.
    Remote(RemoteBridge),
    /// Nothing answered, so this process hosts the extension WebSocket.
    Hosted(ServerHandle),
    /// Neither: the in-process server could not start (why, and what to do).
    Unavailable(String),
    /// Something answered on the address without proving it knows the token
    /// (another program, or a serve paired with another token): the error naming
    /// the address. The token was not sent.
    Refused(BridgeError),
}

/// Reuses a running `serve` on `listen` when it proves it knows the token
/// ([`probe`]); refuses when something else answers there; else hosts the
/// extension WebSocket there ([`start_server`]) with `connect_wait`.
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
    match probe(listen, &token, Some(&dir)).await {
        Probe::Proven(bridge) => return Ok(Reached::Remote(bridge)),
        Probe::Refused(error) => return Ok(Reached::Refused(error)),
        Probe::Absent => {}
    }
    let opts = ServeOptions {
        listen,
        config_dir: Some(dir.clone()),
        connect_wait,
        ..ServeOptions::default()
    };
    Ok(match start_server(opts).await {
        Ok(handle) => Reached::Hosted(handle),
        // Something holds the port but was silent for the probe: `start_server`'s
        // AddrInUse message says so.
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
