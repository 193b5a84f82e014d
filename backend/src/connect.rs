//! How a process reaches the browser, shared by `mcp` and the agent's `run`: a
//! running `serve` that proves it knows the pairing token ([`probe`]) is reused;
//! when nothing answers on the address, this process hosts the extension WebSocket
//! itself ([`start_server`]); when something answers without the proof, it is
//! refused and the token is never sent.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode};

use crate::bridge::Bridge;
use crate::client::{Probe, RemoteBridge, probe};
use crate::config::{self, ConfigError};
use crate::hub::ExtensionHub;
use crate::server::{ServeOptions, ServerHandle, start_server};

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
) -> Result<Reached, ConfigError> {
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

/// The bridge a reached browser is driven through: a running `serve`, or the
/// in-process hub.
#[derive(Debug, Clone)]
pub enum AnyBridge {
    /// Through a running `serve`'s HTTP API.
    Remote(RemoteBridge),
    /// Through the extension WebSocket hosted by this process.
    Hub(ExtensionHub),
}

impl Bridge for AnyBridge {
    async fn act(&self, action: Action) -> Result<ActionResult, BridgeError> {
        match self {
            AnyBridge::Remote(bridge) => bridge.act(action).await,
            AnyBridge::Hub(hub) => hub.act(action).await,
        }
    }

    fn for_client(&self, client: &str) -> Self {
        match self {
            AnyBridge::Remote(bridge) => AnyBridge::Remote(bridge.for_client(client)),
            AnyBridge::Hub(hub) => AnyBridge::Hub(hub.for_client(client)),
        }
    }

    fn for_browser(&self, browser: Option<&str>) -> Self {
        match self {
            AnyBridge::Remote(bridge) => AnyBridge::Remote(bridge.for_browser(browser)),
            AnyBridge::Hub(hub) => AnyBridge::Hub(hub.for_browser(browser)),
        }
    }
}

/// A reached browser; keeps the in-process server alive until [`Connected::close`].
#[derive(Debug)]
pub struct Connected {
    /// The bridge to act through.
    pub bridge: AnyBridge,
    server: Option<ServerHandle>,
}

impl Connected {
    /// Stops the in-process server, if any.
    pub async fn close(self) {
        if let Some(server) = self.server
            && let Err(e) = server.shutdown().await
        {
            tracing::warn!("extension server: {e:#}");
        }
    }
}

/// Reaches the browser ([`reach`]); when hosting, waits up to `connect_wait` for
/// the extension to connect.
///
/// # Errors
/// `not_connected` when the server cannot start or no extension connects in time;
/// `unauthorized` (or `protocol_mismatch`) when the program on `--listen` did not
/// prove it knows the token, which was then not sent; `internal_error` for
/// config/token failures.
pub async fn connect(
    listen: SocketAddr,
    config_dir: Option<&Path>,
    connect_wait: Duration,
) -> Result<Connected, BridgeError> {
    let reached = reach(listen, config_dir, connect_wait)
        .await
        .map_err(|e| BridgeError::internal(e.to_string()))?;
    match reached {
        Reached::Remote(bridge) => {
            tracing::info!(listen = %listen, "using the running serve");
            Ok(Connected {
                bridge: AnyBridge::Remote(bridge),
                server: None,
            })
        }
        Reached::Unavailable(reason) => Err(BridgeError::new(ErrorCode::NotConnected, reason)),
        Reached::Refused(error) => Err(error),
        Reached::Hosted(handle) => {
            eprintln!(
                "waiting up to {} s for the browser-bridge extension to connect to {} …",
                connect_wait.as_secs(),
                handle.extension_url()
            );
            let started = Instant::now();
            while !handle.hub.is_connected().await {
                if started.elapsed() >= connect_wait {
                    let url = handle.extension_url();
                    let _ = handle.shutdown().await;
                    return Err(BridgeError::new(
                        ErrorCode::NotConnected,
                        format!(
                            "no extension connected to {url} within {} s: open Chrome with the \
                             browser-bridge extension paired (`browser-bridge pair`)",
                            connect_wait.as_secs()
                        ),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(Connected {
                bridge: AnyBridge::Hub(handle.hub.clone()),
                server: Some(handle),
            })
        }
    }
}

/// The bridge when neither a running `serve` nor an in-process server is
/// available: every call answers `not_connected` with the start-up failure and
/// what to do about it.
#[derive(Debug, Clone)]
pub struct Unavailable(pub std::sync::Arc<str>);

impl Bridge for Unavailable {
    async fn act(&self, _action: Action) -> Result<ActionResult, BridgeError> {
        Err(BridgeError::new(ErrorCode::NotConnected, &*self.0))
    }
}

/// The bridge of a long-lived process (`mcp`) that found a running `serve`: it
/// forwards there, and when a call answers `not_connected` it reaches again
/// ([`reach`]). When that `serve` (or the `mcp` that hosted it) has gone, this
/// process finds the next one or hosts the extension WebSocket itself on the same
/// address, and the call answers `not_connected` saying to call again once the
/// extension has reconnected: it is not re-sent, since the old server may have
/// passed it on before it went. A refusal on the address (a program without the
/// proof) is answered as such; the token is never sent to it.
#[derive(Debug, Clone)]
pub struct Failover {
    listen: SocketAddr,
    config_dir: Option<std::path::PathBuf>,
    connect_wait: Duration,
    client: Option<std::sync::Arc<str>>,
    /// [`Bridge::for_browser`]'s choice, applied to whichever bridge is current.
    browser: Option<std::sync::Arc<str>>,
    state: std::sync::Arc<tokio::sync::Mutex<FailoverState>>,
}

#[derive(Debug)]
struct FailoverState {
    bridge: AnyBridge,
    hosted: Option<ServerHandle>,
}

impl Failover {
    /// Starts from `bridge`, the running `serve` [`reach`] found on `listen`.
    pub fn new(
        bridge: RemoteBridge,
        listen: SocketAddr,
        config_dir: Option<&Path>,
        connect_wait: Duration,
    ) -> Failover {
        Failover {
            listen,
            config_dir: config_dir.map(Path::to_path_buf),
            connect_wait,
            client: None,
            browser: None,
            state: std::sync::Arc::new(tokio::sync::Mutex::new(FailoverState {
                bridge: AnyBridge::Remote(bridge),
                hosted: None,
            })),
        }
    }

    /// Stops the extension server this process took over, if it did.
    pub async fn close(&self) {
        if let Some(server) = self.state.lock().await.hosted.take()
            && let Err(e) = server.shutdown().await
        {
            tracing::warn!("extension server: {e:#}");
        }
    }

    /// After `error` (`not_connected`) from a remote: reaches again when the
    /// `serve` is gone, and says what happened.
    async fn reach_again(&self, error: BridgeError) -> BridgeError {
        let mut state = self.state.lock().await;
        if !matches!(state.bridge, AnyBridge::Remote(_)) {
            return error;
        }
        let Ok(reached) = reach(self.listen, self.config_dir.as_deref(), self.connect_wait).await
        else {
            return error;
        };
        match reached {
            // The serve is up (its extension is not): nothing to take over.
            Reached::Remote(bridge) => {
                state.bridge = AnyBridge::Remote(bridge);
                error
            }
            Reached::Hosted(handle) => {
                tracing::info!(addr = %handle.addr, "the serve is gone: hosting the extension WebSocket in-process");
                eprintln!("listening on {}", handle.base_url());
                let url = handle.extension_url();
                state.bridge = AnyBridge::Hub(handle.hub.clone());
                state.hosted = Some(handle);
                BridgeError::new(
                    ErrorCode::NotConnected,
                    format!(
                        "the browser-bridge serve this process used is gone; it now hosts the \
                         extension WebSocket at {url} itself: call again once the extension has \
                         reconnected (a few seconds)"
                    ),
                )
            }
            Reached::Refused(refused) => refused,
            Reached::Unavailable(_) => error,
        }
    }
}

impl Bridge for Failover {
    async fn act(&self, action: Action) -> Result<ActionResult, BridgeError> {
        let bridge = self.state.lock().await.bridge.clone();
        let bridge = match &self.client {
            Some(client) => bridge.for_client(client),
            None => bridge,
        }
        .for_browser(self.browser.as_deref());
        match bridge.act(action).await {
            Err(error) if error.code == ErrorCode::NotConnected => {
                Err(self.reach_again(error).await)
            }
            answered => answered,
        }
    }

    fn for_client(&self, client: &str) -> Self {
        Failover {
            client: Some(std::sync::Arc::from(client)),
            ..self.clone()
        }
    }

    fn for_browser(&self, browser: Option<&str>) -> Self {
        Failover {
            browser: browser.map(std::sync::Arc::from),
            ..self.clone()
        }
    }
}
