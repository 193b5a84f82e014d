//! `serve`: one axum server on loopback with `/extension` (WebSocket), `/v1/act`,
//! `/v1/status`, (added by the MCP module) `/mcp` and the local console at `/`
//! ([`console`]) (docs/DESIGN.md "Backend").
//!
//! Embeddable: [`start_server`] binds, spawns and returns a [`ServerHandle`] (bound
//! address, hub, token, shutdown), so tests, `mcp` and the agent can host the
//! extension WebSocket in-process. [`run_serve`] is the CLI's `serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use axum::routing::{get, post};
use browser_bridge_protocol::version::{HELLO_TIMEOUT_MS, IDLE_CLOSE_MS};
use browser_bridge_protocol::{
    MAX_MESSAGE_BYTES, MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION,
};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub mod accept;
pub mod body;
pub mod console;
pub mod errors;
pub mod handshake;
pub mod hello;
pub mod http_api;
pub mod slots;
pub mod state;
pub mod ws;

pub use state::{AppState, ServerConfig};

use crate::config;
use crate::events::EventLog;
use crate::hub::{ExtensionHub, HubOptions};

/// Default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9333";

/// Everything `serve` can be told.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind; port 0 picks a free one (default 127.0.0.1:9333).
    pub listen: SocketAddr,
    /// `--config-dir`; `None` → `$BROWSER_BRIDGE_CONFIG_DIR` → platform dir.
    pub config_dir: Option<PathBuf>,
    /// Accept only `chrome-extension://<id>` with this id on `/extension`.
    pub extension_id: Option<String>,
    /// Lowest accepted `hello.protocolVersion` (default `PROTOCOL_VERSION`); a value
    /// below [`MIN_SUPPORTED_PROTOCOL_VERSION`] is raised to it (PROTOCOL.md §12).
    pub min_protocol_version: u32,
    /// How long a request waits for an extension to connect (default 5 s).
    pub connect_wait: Duration,
    /// Allow a non-loopback `listen` (and IP-literal `Host` headers).
    pub allow_remote: bool,
    /// Time allowed for `hello` after the upgrade (default 10 s; tests shorten it).
    pub hello_timeout: Duration,
    /// Close a connection from which nothing arrived for this long (default 60 s).
    pub idle_timeout: Duration,
    /// Drop an extension connection when one frame cannot be written to it within
    /// this (default [`ws::SEND_TIMEOUT_MS`], 10 s): the peer stopped reading.
    pub send_timeout: Duration,
    /// Cap on open connections, HTTP and WebSocket (default
    /// [`accept::MAX_CONNECTIONS`], 512).
    pub max_connections: usize,
    /// A connection must send a request head within this of being accepted or of
    /// its previous response (default [`accept::HEADER_READ_TIMEOUT_MS`], 10 s).
    pub header_read_timeout: Duration,
    /// Replaces every action's deadline (tests only; `None` in production).
    pub deadline_override: Option<Duration>,
    /// Keep `<config-dir>/audit.jsonl` (default true).
    pub audit: bool,
    /// Runs the console's tasks (the CLI's agent); `None`: the task box is
    /// disabled (docs/DESIGN.md "Local console").
    pub console_runner: Option<Arc<dyn console::TaskRunner>>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            listen: DEFAULT_LISTEN.parse().expect("valid default address"),
            config_dir: None,
            extension_id: None,
            min_protocol_version: PROTOCOL_VERSION,
            connect_wait: Duration::from_secs(5),
            allow_remote: false,
            hello_timeout: Duration::from_millis(HELLO_TIMEOUT_MS),
            idle_timeout: Duration::from_millis(IDLE_CLOSE_MS),
            send_timeout: Duration::from_millis(ws::SEND_TIMEOUT_MS),
            max_connections: accept::MAX_CONNECTIONS,
            header_read_timeout: Duration::from_millis(accept::HEADER_READ_TIMEOUT_MS),
            deadline_override: None,
            audit: true,
            console_runner: None,
        }
    }
}

/// Why [`start_server`] (or a running server) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A non-loopback `listen` without `allow_remote`.
    #[error("refusing to listen on non-loopback address {0} without --allow-remote")]
    NotLoopback(SocketAddr),
    /// The listen address is taken (`EADDRINUSE`), most likely by another `serve`.
    #[error(
        "cannot listen on {0}: the address is already in use; another `browser-bridge serve` \
         may be running there (see `browser-bridge status --server http://{0}`), or listen \
         elsewhere with `--listen 127.0.0.1:0`"
    )]
    AddrInUse(SocketAddr),
    /// Any other failure to bind the address.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The config directory or the pairing token cannot be used.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// The running server failed, or a signal could not be awaited.
    #[error("server I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The server task panicked (a bug).
    #[error("the server task panicked")]
    Panicked,
}

/// Checks the loopback-only rule.
///
/// # Errors
/// [`ServeError::NotLoopback`] for a non-loopback address when `allow_remote` is
/// false.
pub fn check_listen(addr: SocketAddr, allow_remote: bool) -> Result<(), ServeError> {
    if addr.ip().is_loopback() || allow_remote {
        Ok(())
    } else {
        Err(ServeError::NotLoopback(addr))
    }
}

/// `/extension`, `/v1/act`, `/v1/status` (the latter two behind
/// [`http_api::require_auth`]), plus `extra_routes`, plus the console's routes
/// (its `/v1/console/link` behind the same guard) with `console_runner`.
pub fn router(state: AppState, console_runner: Option<Arc<dyn console::TaskRunner>>) -> Router {
    let console = console::ConsoleState {
        app: state.clone(),
        console: Arc::new(console::Console::new(console_runner)),
    };
    let api = Router::new()
        .route(
            "/v1/act",
            post(http_api::act).fallback(|method: Method, uri: Uri| async move {
                http_api::wrong_method("POST", &method, &uri)
            }),
        )
        .route(
            "/v1/status",
            get(http_api::status).fallback(|method: Method, uri: Uri| async move {
                http_api::wrong_method("GET, HEAD", &method, &uri)
            }),
        )
        .merge(extra_routes(&state).layer(axum::middleware::from_fn(body::buffered)))
        .merge(console::api::link_route(console.clone()))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            http_api::require_auth,
        ));
    Router::new()
        .route("/extension", get(ws::extension_socket))
        .merge(api)
        .merge(hello::routes(&state))
        .merge(console::api::routes(console))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
        .with_state(state)
}

/// Agent-facing routes added by other modules (the MCP module's `/mcp`). They are
/// merged under the same guard as `/v1/*` (Origin/Host 403, Bearer token 401),
/// and their bodies are read within the same deadline ([`body::buffered`]).
fn extra_routes(state: &AppState) -> Router<AppState> {
    crate::mcp::http::routes(state.hub.clone())
}

/// A running server.
#[derive(Debug)]
pub struct ServerHandle {
    /// The bound address (the real port when `listen` had port 0).
    pub addr: SocketAddr,
    /// The hub: call [`crate::Bridge::act`] on it to reach the extension in-process.
    pub hub: ExtensionHub,
    /// The pairing token the server accepts.
    pub token: String,
    /// The resolved config directory.
    pub config_dir: PathBuf,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl ServerHandle {
    /// `http://<addr>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `ws://<addr>/extension`.
    pub fn extension_url(&self) -> String {
        format!("ws://{}/extension", self.addr)
    }

    /// Stops accepting, closes the extension sockets (1001), lets open HTTP requests
    /// finish, and waits for the server task.
    ///
    /// # Errors
    /// The server's I/O error, if it failed.
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.hub.close_all();
        joined((&mut self.task).await)
    }

    /// Waits until the server stops (it runs until [`ServerHandle::shutdown`] or an
    /// I/O failure).
    ///
    /// # Errors
    /// The server's I/O error.
    pub async fn wait(mut self) -> Result<(), ServeError> {
        joined((&mut self.task).await)
    }
}

/// The server task's outcome as a [`ServeError`].
fn joined(outcome: Result<std::io::Result<()>, tokio::task::JoinError>) -> Result<(), ServeError> {
    outcome.map_err(|_| ServeError::Panicked)??;
    Ok(())
}

/// Resolves the config dir, loads (or creates) the token, binds `opts.listen`,
/// and serves in a spawned task. Returns once the socket is bound.
///
/// # Errors
/// [`ServeError::NotLoopback`], [`ServeError::Config`] (config dir or token),
/// [`ServeError::AddrInUse`] when the address is taken, else [`ServeError::Bind`].
pub async fn start_server(opts: ServeOptions) -> Result<ServerHandle, ServeError> {
    check_listen(opts.listen, opts.allow_remote)?;
    let config_dir = config::resolve_config_dir(opts.config_dir.as_deref())?;
    let token = config::load_or_create_token(&config_dir)?;
    let events = if opts.audit {
        EventLog::with_audit_file(config_dir.join(config::AUDIT_FILE))
    } else {
        EventLog::in_memory()
    };
    let hub = ExtensionHub::new(
        HubOptions {
            connect_wait: opts.connect_wait,
            deadline_override: opts.deadline_override,
            private_dir: Some(config_dir.clone()),
        },
        events,
    );
    let state = AppState {
        hub: hub.clone(),
        token: Arc::from(token.as_str()),
        config: Arc::new(ServerConfig {
            config_dir: config_dir.clone(),
            extension_id: opts.extension_id.clone(),
            min_protocol_version: opts
                .min_protocol_version
                .max(MIN_SUPPORTED_PROTOCOL_VERSION),
            hello_timeout: opts.hello_timeout,
            idle_timeout: opts.idle_timeout,
            send_timeout: opts.send_timeout,
            allow_remote: opts.allow_remote,
        }),
        extension_slots: slots::ExtensionSlots::default(),
    };
    let listener = match tokio::net::TcpListener::bind(opts.listen).await {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            return Err(ServeError::AddrInUse(opts.listen));
        }
        Err(source) => {
            return Err(ServeError::Bind {
                addr: opts.listen,
                source,
            });
        }
    };
    let addr = listener.local_addr()?;
    let (shutdown, shutdown_rx) = oneshot::channel::<()>();
    let app = router(state, opts.console_runner.clone());
    let limits = accept::Limits {
        max_connections: opts.max_connections,
        header_read_timeout: opts.header_read_timeout,
    };
    let task = tokio::spawn(accept::serve(listener, app, limits, async move {
        let _ = shutdown_rx.await;
    }));
    tracing::info!(%addr, config_dir = %config_dir.display(), "browser-bridge serving");
    Ok(ServerHandle {
        addr,
        hub,
        token,
        config_dir,
        shutdown: Some(shutdown),
        task,
    })
}

/// The CLI's `serve`: starts the server, prints `listening on http://<addr>` to
/// stderr once bound (test harnesses parse that line), and runs until Ctrl-C.
///
/// # Errors
/// As [`start_server`], or a server I/O failure.
pub async fn run_serve(opts: ServeOptions) -> Result<(), ServeError> {
    let mut handle = start_server(opts).await?;
    eprintln!("listening on {}", handle.base_url());
    tokio::select! {
        result = terminate_signal() => {
            result?;
            tracing::info!("signal received: shutting down");
            handle.shutdown().await
        }
        result = &mut handle.task => joined(result),
    }
}

/// Ctrl-C, or SIGTERM on Unix (how test harnesses and service managers stop us).
async fn terminate_signal() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result,
            _ = term.recv() => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await
    }
}
