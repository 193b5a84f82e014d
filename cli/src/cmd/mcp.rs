//! `browser-bridge mcp`: MCP over stdin/stdout, for MCP clients that spawn their
//! servers (Claude Desktop, Claude Code, Cursor…).
//!
//! When a `serve` on the configured address proves it knows the pairing token
//! (`GET /v1/hello`, PROTOCOL.md §2.1), every tool call is forwarded to it; when
//! nothing answers there, this process hosts the extension WebSocket itself, so a
//! single MCP client works with nothing else running. A second `mcp` started
//! meanwhile then finds this one's server and forwards to it, and takes the
//! address over when that server goes ([`Failover`]). When something
//! answers without the proof, `mcp` exits non-zero naming the address, without
//! ever sending the token ([`browser_bridge_backend::connect`]). When it hosts,
//! it prints `listening on http://<addr>` to stderr, like `serve`.
//!
//! The process is one client of the backend (PROTOCOL.md §5 "Clients"): its
//! actions without `tabId` go to its own current tab, named `mcp-<12 hex>`.

use browser_bridge_backend::Bridge;
use browser_bridge_backend::connect::{Failover, Reached, Unavailable, reach};
use browser_bridge_backend::hub::clients::generated_name;
use browser_bridge_backend::mcp::stdio::serve_stdio;
use browser_bridge_protocol::BridgeError;

use crate::args::McpArgs;
use crate::output::internal;

/// Runs `mcp` until the MCP client closes stdin.
///
/// # Errors
/// `internal_error` when the config directory or token cannot be used, or the
/// MCP transport fails; the refusal (`unauthorized`, `protocol_mismatch`) when
/// the program on `--listen` did not prove it knows the token.
pub(crate) async fn mcp(args: McpArgs) -> Result<(), BridgeError> {
    let observe = !args.no_observe;
    let reached = reach(
        args.listen,
        args.config.config_dir.as_deref(),
        args.connect_wait,
    )
    .await
    .map_err(internal)?;
    let client = generated_name("mcp");
    match reached {
        Reached::Remote(bridge) => {
            tracing::info!(listen = %args.listen, "mcp: forwarding to the running serve");
            let bridge = Failover::new(
                bridge,
                args.listen,
                args.config.config_dir.as_deref(),
                args.connect_wait,
            );
            let served = serve_stdio(bridge.for_client(&client), observe)
                .await
                .map_err(internal);
            bridge.close().await;
            served
        }
        Reached::Hosted(handle) => {
            tracing::info!(addr = %handle.addr, "mcp: hosting the extension WebSocket in-process");
            // As `serve` does: with `--listen 127.0.0.1:0` this line is the only
            // place the bound port shows. stderr, never stdout (that is MCP's).
            eprintln!("listening on {}", handle.base_url());
            let served = serve_stdio(handle.hub.for_client(&client), observe)
                .await
                .map_err(internal);
            let stopped = handle.shutdown().await.map_err(internal);
            served.and(stopped)
        }
        Reached::Unavailable(reason) => {
            // Still speak MCP: the model can then tell the user what is wrong,
            // which a server that dies at start-up cannot.
            tracing::error!(%reason, "mcp: cannot host the extension WebSocket");
            serve_stdio(Unavailable(reason.into()), observe)
                .await
                .map_err(internal)
        }
        // Not `Unavailable`: this process cannot host (the port is taken) and must
        // not forward (that would send the token), and a server that merely
        // answers every call with an error would hide the cause in the MCP client.
        Reached::Refused(error) => Err(error),
    }
}
