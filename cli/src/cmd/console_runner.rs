//! The agent behind the console's task box: `serve --provider …` hands this
//! [`TaskRunner`] to the backend, which runs each task as client `console`
//! and streams its events to the page (docs/DESIGN.md "Local console").

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use browser_bridge_agent::llm::LlmClient;
use browser_bridge_agent::mcp::McpHost;
use browser_bridge_agent::report::{AgentEvent, Progress};
use browser_bridge_agent::runner::{self, RunOptions};
use browser_bridge_backend::ExtensionHub;
use browser_bridge_backend::console::{RunSink, TaskRunner};
use browser_bridge_protocol::{BridgeError, ErrorCode};

use crate::args::ServeModelArgs;

/// The console's runner for `args`: `None` without `--provider`.
///
/// # Errors
/// `unauthorized` when the provider's key is missing.
pub(crate) fn from_args(args: &ServeModelArgs) -> Result<Option<Arc<dyn TaskRunner>>, BridgeError> {
    let Some(model) = args.model_args() else {
        return Ok(None);
    };
    let config = model.config();
    let client = config
        .client_with_key(model.api_key.clone(), |name| std::env::var(name).ok())
        .ok_or_else(|| BridgeError::new(ErrorCode::Unauthorized, config.missing_key_message()))?;
    Ok(Some(Arc::new(AgentRunner { model: client })))
}

/// Runs console tasks with the default limits (`run`'s defaults) and no MCP servers.
#[derive(Debug)]
struct AgentRunner {
    model: LlmClient,
}

impl TaskRunner for AgentRunner {
    fn run(
        &self,
        hub: ExtensionHub,
        task: String,
        sink: RunSink,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let model = self.model.clone();
        Box::pin(async move {
            let options = RunOptions::new(task);
            let mut progress = SinkProgress(sink);
            let mut mcp = McpHost::default();
            runner::run_task_with(&hub, &model, &mut mcp, &options, &mut progress).await;
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
