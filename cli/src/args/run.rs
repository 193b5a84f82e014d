//! `run`'s and `chat`'s arguments: the task, the model ([`ModelArgs`]), other
//! MCP servers ([`ToolArgs`]) and where the browser is ([`BrowserArgs`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use browser_bridge_agent::llm::{ModelConfig, Provider};
use browser_bridge_agent::runner;
use browser_bridge_backend::server::DEFAULT_LISTEN;
use clap::{Args, Subcommand, ValueEnum};

use super::{ConfigArgs, parse_duration};

/// Which model, where.
#[derive(Debug, Clone, Args)]
pub(crate) struct ModelArgs {
    /// Wire format: OpenAI-compatible chat completions, Anthropic Messages, or
    /// GitHub Copilot (the GitHub token from GITHUB_TOKEN / GH_TOKEN / --api-key).
    #[arg(
        long,
        env = "BROWSER_BRIDGE_PROVIDER",
        value_enum,
        default_value = "openai"
    )]
    pub(crate) provider: ProviderArg,
    /// Model name (default: gpt-4.1-mini / claude-sonnet-4-5 / gpt-4.1 for Copilot).
    #[arg(long, env = "BROWSER_BRIDGE_MODEL")]
    pub(crate) model: Option<String>,
    /// API base URL, e.g. `http://127.0.0.1:11434/v1` for Ollama, `https://api.deepseek.com/v1`;
    /// for Copilot the GitHub API of the token exchange (default `https://api.github.com`).
    #[arg(long, env = "BROWSER_BRIDGE_BASE_URL", value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// The API key (for Copilot: the GitHub token), over the environment's.
    /// Other users can read a process's arguments: prefer the variables.
    #[arg(long, value_name = "KEY")]
    pub(crate) api_key: Option<String>,
}

/// `--provider`: the model API's wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProviderArg {
    /// OpenAI-compatible chat completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// GitHub Copilot's chat API.
    Copilot,
}

impl ModelArgs {
    /// The agent's model configuration.
    pub(crate) fn config(&self) -> ModelConfig {
        ModelConfig {
            provider: match self.provider {
                ProviderArg::Openai => Provider::Openai,
                ProviderArg::Anthropic => Provider::Anthropic,
                ProviderArg::Copilot => Provider::Copilot,
            },
            model: self.model.clone(),
            base_url: self.base_url.clone(),
        }
    }
}

/// `serve`'s model for the console's task box: off without `--provider`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ServeModelArgs {
    /// Run the console's tasks with this model API (the task box is off without it).
    #[arg(long, value_enum)]
    pub(crate) provider: Option<ProviderArg>,
    /// As `run --model`.
    #[arg(long, env = "BROWSER_BRIDGE_MODEL")]
    pub(crate) model: Option<String>,
    /// As `run --base-url`.
    #[arg(long, env = "BROWSER_BRIDGE_BASE_URL", value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// As `run --api-key`; without it the key is read from BROWSER_BRIDGE_API_KEY,
    /// then OPENAI_API_KEY, ANTHROPIC_API_KEY or GITHUB_TOKEN/GH_TOKEN (copilot).
    #[arg(long, value_name = "KEY")]
    pub(crate) api_key: Option<String>,
}

impl ServeModelArgs {
    /// `run`'s [`ModelArgs`], when `--provider` was given.
    pub(crate) fn model_args(&self) -> Option<ModelArgs> {
        Some(ModelArgs {
            provider: self.provider?,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
        })
    }
}

/// Tools beside `browser`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ToolArgs {
    /// Offer the tools of these MCP servers too: the `mcpServers` JSON file of
    /// Claude Desktop and Cursor (`command`/`args`/`env`, or `url`/`headers`).
    #[arg(long, value_name = "FILE")]
    pub(crate) mcp_config: Option<PathBuf>,
}

/// Where the browser is.
#[derive(Debug, Clone, Args)]
pub(crate) struct BrowserArgs {
    /// Address of the running `serve` to reuse, else the address to host the
    /// extension WebSocket on.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) config: ConfigArgs,
    /// When hosting the WebSocket: how long to wait for the extension to connect.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub(crate) connect_wait: Duration,
}

/// `run` arguments.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The task, in words: "file a claim for policy P-1234 and tell me the reference".
    pub(crate) task: String,
    /// Open this URL first and show the model the page.
    #[arg(long)]
    pub(crate) url: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) limits: LoopArgs,
    /// At a login wall, captcha or denial (obstacle high), hand the tab to the
    /// person and go on once they press Done, instead of stopping; waits
    /// `--handoff=DURATION` (default and at most 10m). Their time does not count
    /// against --timeout.
    #[arg(long, value_name = "DURATION", num_args = 0..=1, require_equals = true,
          default_missing_value = "10m", value_parser = parse_handoff)]
    pub(crate) handoff: Option<Duration>,
    /// Write one NDJSON event per line on stdout instead of the answer.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) tools: ToolArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) browser: BrowserArgs,
}

/// The loop's limits and defaults, per run (`chat`: per turn).
#[derive(Debug, Clone, Args)]
pub(crate) struct LoopArgs {
    /// Most model calls of a run (`chat`: of a turn).
    #[arg(long, default_value_t = runner::DEFAULT_MAX_STEPS)]
    pub(crate) max_steps: u32,
    /// Longest run (`chat`: turn): `300s`, `5m`.
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_duration)]
    pub(crate) timeout: Duration,
    /// Do not observe: actions answer without `changes` unless the model sets
    /// `observe: true`.
    #[arg(long)]
    pub(crate) no_observe: bool,
    /// Neither read lessons from earlier runs nor remember this one.
    #[arg(long)]
    pub(crate) no_memory: bool,
}

/// `chat` arguments.
#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) model: ModelArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) limits: LoopArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) tools: ToolArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) browser: BrowserArgs,
}

/// A `--handoff` wait: a duration of 1 ms to 10 minutes (PROTOCOL.md §5
/// "Hand-off").
fn parse_handoff(text: &str) -> Result<Duration, String> {
    let wait = parse_duration(text)?;
    if wait.is_zero() || wait > browser_bridge_agent::handoff::DEFAULT_WAIT {
        return Err(format!("--handoff takes 1ms to 10m, got {text:?}"));
    }
    Ok(wait)
}

/// `memory` arguments.
#[derive(Debug, Args)]
pub(crate) struct MemoryArgs {
    /// What to do with the stored experiences.
    #[command(subcommand)]
    pub(crate) command: MemoryCommand,
    /// Config directory (as `run`'s); the memory is its `memory/`.
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) config_dir: Option<PathBuf>,
    /// JSON on stdout instead of lines (`list`, `search`).
    #[arg(long, global = true)]
    pub(crate) json: bool,
}

/// `memory`'s subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum MemoryCommand {
    /// Every stored experience, oldest first.
    List,
    /// The past runs closest to a task, best first, with their scores.
    Search {
        /// A task, in any language the model knows.
        query: String,
        /// How many (default 3); all of them with `--all`.
        #[arg(long, default_value_t = browser_bridge_agent::memory::DEFAULT_K)]
        k: usize,
        /// Also below the recall floor.
        #[arg(long)]
        all: bool,
    },
    /// Delete one experience.
    Forget {
        /// Its id (from `list`).
        id: String,
    },
    /// Delete every experience.
    Clear,
}
