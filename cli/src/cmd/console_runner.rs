//! The agent behind the console's task box: `serve --provider …` hands this
//! [`TaskRunner`] to the backend, which runs each task as client `console`
//! and streams its events to the page (docs/DESIGN.md "Local console").

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use browser_bridge_agent::llm::LlmClient;
use browser_bridge_agent::mcp::McpHost;
use browser_bridge_agent::memory::{Memory, Recorder};
use browser_bridge_agent::report::{AgentEvent, Progress};
use browser_bridge_agent::runner::{self, RunOptions};
use browser_bridge_backend::ExtensionHub;
use browser_bridge_backend::console::{RunSink, TaskRunner};
use browser_bridge_protocol::{BridgeError, ErrorCode};

use crate::args::ServeModelArgs;
use crate::cmd::memory;

/// The console's runner for `args`: `None` without `--provider`. Its runs
/// read and write the task memory under `config_dir` as `run` does.
///
/// # Errors
/// `unauthorized` when the provider's key is missing.
pub(crate) fn from_args(
    args: &ServeModelArgs,
    config_dir: Option<PathBuf>,
) -> Result<Option<Arc<dyn TaskRunner>>, BridgeError> {
    let Some(model) = args.model_args() else {
        return Ok(None);
    };
    let config = model.config();
    let client = config
        .client_with_key(model.api_key.clone(), |name| std::env::var(name).ok())
        .ok_or_else(|| BridgeError::new(ErrorCode::Unauthorized, config.missing_key_message()))?;
    Ok(Some(Arc::new(AgentRunner {
        model: client,
        config_dir,
        memory: Arc::new(OnceLock::new()),
    })))
}

/// Runs console tasks with the default limits (`run`'s defaults) and no MCP servers.
struct AgentRunner {
    model: LlmClient,
    config_dir: Option<PathBuf>,
    /// Opened at the first task (the model takes ~1 s to load), then shared.
    memory: Arc<OnceLock<Option<Memory>>>,
}

impl std::fmt::Debug for AgentRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRunner")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl TaskRunner for AgentRunner {
    fn run(
        &self,
        hub: ExtensionHub,
        task: String,
        sink: RunSink,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let model = self.model.clone();
        let (cell, config_dir) = (self.memory.clone(), self.config_dir.clone());
        Box::pin(async move {
            let opened = cell.clone();
            let loaded = tokio::task::spawn_blocking(move || {
                opened.get_or_init(|| memory::open_for_run(false, config_dir.as_deref()));
            })
            .await;
            let memory = loaded
                .ok()
                .and_then(|()| cell.get())
                .and_then(Option::as_ref);
            let mut options = RunOptions::new(task);
            options.lessons = memory::lessons(memory, &options.task, None);
            let mut shown = SinkProgress(sink);
            let mut progress = Recorder::new(&mut shown);
            let mut mcp = McpHost::default();
            let report =
                runner::run_task_with(&hub, &model, &mut mcp, &options, &mut progress).await;
            memory::remember(memory, &options.task, None, &progress.events, &report);
            mcp.close().await;
        })
    }
}

/// Each agent event to the page: the final report as `done`, the rest as `step`.
struct SinkProgress(RunSink);

impl Progress for SinkProgress {
    fn event(&mut self, event: &AgentEvent) {
        let value = match serde_json::to_value(event) {
            Ok(value) => value,
            Err(e) => {
                tracing::error!("cannot encode an event: {e}");
                return;
            }
        };
        match event {
            AgentEvent::Final(_) => self.0.done(value),
            _ => self.0.step(value),
        }
    }
}
