//! The state every route shares ([`AppState`]): the hub, the pairing token and the
//! settings the handlers read. Its own module so that the handlers and the router
//! depend on it, not on each other.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::hub::ExtensionHub;
use crate::server::slots::ExtensionSlots;

/// The settings the request handlers read.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The resolved config directory (token, audit log).
    pub config_dir: PathBuf,
    /// See [`ServeOptions::extension_id`](super::ServeOptions::extension_id).
    pub extension_id: Option<String>,
    /// See [`ServeOptions::min_protocol_version`](super::ServeOptions::min_protocol_version).
    pub min_protocol_version: u32,
    /// See [`ServeOptions::hello_timeout`](super::ServeOptions::hello_timeout).
    pub hello_timeout: Duration,
    /// See [`ServeOptions::idle_timeout`](super::ServeOptions::idle_timeout).
    pub idle_timeout: Duration,
    /// See [`ServeOptions::send_timeout`](super::ServeOptions::send_timeout).
    pub send_timeout: Duration,
    /// See [`ServeOptions::allow_remote`](super::ServeOptions::allow_remote).
    pub allow_remote: bool,
}

/// Shared state of every route: the hub, the pairing token, the config.
#[derive(Clone)]
pub struct AppState {
    /// The extension hub (implements [`crate::Bridge`]).
    pub hub: ExtensionHub,
    /// The pairing token (never log it).
    pub token: Arc<str>,
    /// Settings.
    pub config: Arc<ServerConfig>,
    /// This server's extension-socket slots (PROTOCOL.md §1, §2).
    pub extension_slots: ExtensionSlots,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("token", &"<redacted>")
            .field("config", &self.config)
            .finish()
    }
}
