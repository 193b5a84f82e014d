//! The one way the agent-facing layers (HTTP API, MCP, CLI, agent loop) reach the
//! browser: one action in, one result out (PROTOCOL.md §5).

use std::future::Future;

use browser_bridge_protocol::{Action, ActionResult, BridgeError};

/// Sends one validated action to the browser and waits for its one answer.
///
/// Implemented by the in-process extension hub (the WebSocket server's request
/// pool) and by a client of a running `serve` (`/v1/act`). Every call ends with
/// exactly one result or one [`BridgeError`]: `not_connected` when no extension is
/// reachable, `timeout` past the action's deadline (`Action::deadline_ms`).
pub trait Bridge: Clone + Send + Sync + 'static {
    /// Runs `action` and returns its result.
    fn act(&self, action: Action)
    -> impl Future<Output = Result<ActionResult, BridgeError>> + Send;

    /// The same bridge acting for the client named `client` (PROTOCOL.md §5
    /// "Clients": an action without `tabId` goes to that client's current tab).
    /// The name is valid (`hub::clients::check_client_name`). Bridges that
    /// know no clients return themselves.
    fn for_client(&self, client: &str) -> Self {
        let _ = client;
        self.clone()
    }

    /// The same bridge sending to the browser named `browser` (a browser's
    /// name or its extension's `clientId`, PROTOCOL.md §5 "Browsers"); `None`:
    /// the backend chooses. Bridges that know one browser return themselves.
    fn for_browser(&self, browser: Option<&str>) -> Self {
        let _ = browser;
        self.clone()
    }
}
