//! The local console: a small page at `/` for the person at this machine
//! (browsers, sessions, events, Stop all, a task box running the agent), reached
//! through a one-time link from `browser-bridge console` (docs/DESIGN.md "Local
//! console", PROTOCOL.md §2.2 "Console").
//!
//! The backend does not know the agent: `serve`'s caller hands in a
//! [`TaskRunner`] ([`crate::ServeOptions::console_runner`]); without one the
//! task box is shown disabled. The console's routes have their own state
//! ([`ConsoleState`]), so the server's shared state knows nothing of it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crate::ExtensionHub;
use crate::server::state::AppState;

pub mod api;
pub mod auth;
pub mod runs;

pub use runs::RunSink;

/// The client name (PROTOCOL.md §5 "Clients") console runs act as.
pub const CONSOLE_CLIENT: &str = "console";

/// Starts agent runs for the console's task box.
pub trait TaskRunner: Send + Sync + std::fmt::Debug + 'static {
    /// Runs `task` in the browser through `hub` (already acting as
    /// [`CONSOLE_CLIENT`]), reporting each step, then the final report or an
    /// error, to `sink`. The future ends with the run; dropping it (Stop all)
    /// ends the run.
    fn run(
        &self,
        hub: ExtensionHub,
        task: String,
        sink: RunSink,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// The console's state, shared by its routes.
pub struct Console {
    /// Codes and sessions.
    pub auth: Mutex<auth::ConsoleAuth>,
    /// The task runs.
    pub runs: runs::Runs,
    /// The agent, when `serve` was given a model.
    pub runner: Option<Arc<dyn TaskRunner>>,
}

impl Console {
    /// A console running tasks with `runner` (`None`: task box disabled).
    pub fn new(runner: Option<Arc<dyn TaskRunner>>) -> Self {
        Console {
            auth: Mutex::default(),
            runs: runs::Runs::default(),
            runner,
        }
    }
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console")
            .field("runner", &self.runner.is_some())
            .finish_non_exhaustive()
    }
}

/// The state of the console's routes: the server's, and the console's own.
#[derive(Clone, Debug)]
pub struct ConsoleState {
    /// The server's shared state (hub, config).
    pub app: AppState,
    /// Codes, sessions, runs.
    pub console: Arc<Console>,
}
