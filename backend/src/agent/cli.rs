//! `browser-bridge run "<task>"` and `browser-bridge verify`: argument parsing, the
//! model client from flags and environment, and reaching the browser the way `mcp`
//! does ([`crate::mcp::stdio::reach`]): a running `serve`, else the extension
//! WebSocket hosted in-process, waiting for the extension to connect.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode};
use clap::Args;

use crate::agent::llm::{self, LlmClient, Provider};
use crate::agent::output::CliProgress;
use crate::agent::runner::{self, RunOptions};
use crate::bridge::Bridge;
use crate::cli::{ConfigArgs, parse_duration};
use crate::hub::ExtensionHub;
use crate::mcp::stdio::{Reached, reach};
use crate::remote::RemoteBridge;
use crate::server::{DEFAULT_LISTEN, ServerHandle};

/// Every environment variable that configures the model of `run` and `verify`
/// ([`ModelArgs`] and [`llm::api_key`]). Tests that spawn the binary clear them so
/// that a developer's own settings cannot leak into the run.
pub const MODEL_ENV_VARIABLES: [&str; 6] = [
    llm::KEY_VARIABLE,
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "BROWSER_BRIDGE_BASE_URL",
    "BROWSER_BRIDGE_PROVIDER",
    "BROWSER_BRIDGE_MODEL",
];

/// Which model, where.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Wire format: OpenAI-compatible chat completions or Anthropic Messages.
    #[arg(
        long,
        env = "BROWSER_BRIDGE_PROVIDER",
        value_enum,
        default_value = "openai"
    )]
    pub provider: Provider,
    /// Model name (default: gpt-4.1-mini / claude-sonnet-4-5).
    #[arg(long, env = "BROWSER_BRIDGE_MODEL")]
    pub model: Option<String>,
    /// API base URL, e.g. `http://127.0.0.1:11434/v1` for Ollama, `https://api.deepseek.com/v1`.
    #[arg(long, env = "BROWSER_BRIDGE_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
}

impl ModelArgs {
    /// The base URL in use.
    pub fn base_url(&self) -> String {
        self.base_url
            .clone()
            .unwrap_or_else(|| self.provider.default_base_url().to_owned())
    }

    /// The client, with the key from the environment. `None` when there is no
    /// key and the base URL is not a loopback server (which may need none).
    pub fn client(&self) -> Option<LlmClient> {
        let key = llm::api_key(self.provider, |name| std::env::var(name).ok());
        let base = self.base_url();
        if key.is_none() && !is_loopback_url(&base) {
            return None;
        }
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| self.provider.default_model().to_owned());
        Some(LlmClient::new(self.provider, &base, &model, key))
    }

    /// Why there is no client.
    pub fn missing_key_message(&self) -> String {
        format!(
            "no API key: set {} or {} (a loopback --base-url such as Ollama's needs none)",
            llm::KEY_VARIABLE,
            self.provider.key_variable()
        )
    }
}

/// Where the browser is.
#[derive(Debug, Clone, Args)]
pub struct BrowserArgs {
    /// Address of the running `serve` to reuse, else the address to host the
    /// extension WebSocket on.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub config: ConfigArgs,
    /// When hosting the WebSocket: how long to wait for the extension to connect.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub connect_wait: Duration,
}

/// `run` arguments.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task, in words: "file a claim for policy P-1234 and tell me the reference".
    pub task: String,
    /// Open this URL first and show the model the page.
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelArgs,
    /// Most model calls.
    #[arg(long, default_value_t = runner::DEFAULT_MAX_STEPS)]
    pub max_steps: u32,
    /// Longest run: `300s`, `5m`.
    #[arg(long, value_name = "DURATION", default_value = "300s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Write one NDJSON event per line on stdout instead of the answer.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub browser: BrowserArgs,
}

/// The bridge the agent drives: a running `serve`, or the in-process hub.
#[derive(Debug, Clone)]
pub enum AgentBridge {
    /// Through a running `serve`'s HTTP API.
    Remote(RemoteBridge),
    /// Through the extension WebSocket hosted by this process.
    Hub(ExtensionHub),
}

impl Bridge for AgentBridge {
    async fn act(&self, action: Action) -> Result<ActionResult, BridgeError> {
        match self {
            AgentBridge::Remote(bridge) => bridge.act(action).await,
            AgentBridge::Hub(hub) => hub.act(action).await,
        }
    }
}

/// A reached browser; keeps the in-process server alive until [`Connected::close`].
#[derive(Debug)]
pub struct Connected {
    /// The bridge to act through.
    pub bridge: AgentBridge,
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
pub async fn connect(args: &BrowserArgs) -> Result<Connected, BridgeError> {
    let reached = reach(
        args.listen,
        args.config.config_dir.as_deref(),
        args.connect_wait,
    )
    .await
    .map_err(|e| BridgeError::internal(format!("{e:#}")))?;
    match reached {
        Reached::Remote(bridge) => {
            tracing::info!(listen = %args.listen, "run: using the running serve");
            Ok(Connected {
                bridge: AgentBridge::Remote(bridge),
                server: None,
            })
        }
        Reached::Unavailable(reason) => Err(BridgeError::new(ErrorCode::NotConnected, reason)),
        Reached::Refused(error) => Err(error),
        Reached::Hosted(handle) => {
            eprintln!(
                "waiting up to {} s for the browser-bridge extension to connect to {} …",
                args.connect_wait.as_secs(),
                handle.extension_url()
            );
            let started = Instant::now();
            while !handle.hub.is_connected().await {
                if started.elapsed() >= args.connect_wait {
                    let url = handle.extension_url();
                    let _ = handle.shutdown().await;
                    return Err(BridgeError::new(
                        ErrorCode::NotConnected,
                        format!(
                            "no extension connected to {url} within {} s: open Chrome with the \
                             browser-bridge extension paired (`browser-bridge pair`)",
                            args.connect_wait.as_secs()
                        ),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(Connected {
                bridge: AgentBridge::Hub(handle.hub.clone()),
                server: Some(handle),
            })
        }
    }
}

/// `browser-bridge run`: exit code 0 only when the task succeeded.
pub async fn run(args: RunArgs) -> ExitCode {
    let Some(model) = args.model.client() else {
        return fail(&BridgeError::new(
            ErrorCode::Unauthorized,
            args.model.missing_key_message(),
        ));
    };
    let connected = match connect(&args.browser).await {
        Ok(connected) => connected,
        Err(error) => return fail(&error),
    };
    let options = RunOptions {
        task: args.task,
        url: args.url.as_deref().map(start_url),
        max_steps: args.max_steps,
        timeout: args.timeout,
    };
    let mut progress = CliProgress::new(args.json);
    let run = runner::run_task(&connected.bridge, &model, &options, &mut progress);
    let report = tokio::select! {
        report = run => report,
        _ = tokio::signal::ctrl_c() => {
            drop(progress);
            eprintln!("interrupted");
            connected.close().await;
            // 128 + SIGINT, as shells report it.
            return ExitCode::from(130);
        }
    };
    drop(progress);
    connected.close().await;
    if !args.json {
        print_answer(&report.answer);
    }
    if report.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_answer(answer: &str) {
    crate::cli::print_stdout(answer);
}

/// Prints the error JSON the other subcommands print and returns failure.
pub(crate) fn fail(error: &BridgeError) -> ExitCode {
    eprintln!("{}", serde_json::json!({ "error": error }));
    ExitCode::FAILURE
}

/// `--url` as typed, with `https://` added when it has no scheme
/// (`example.com/a` → `https://example.com/a`).
pub fn start_url(url: &str) -> String {
    let url = url.trim();
    if url.contains("://") || url.starts_with("about:") {
        url.to_owned()
    } else {
        format!("https://{url}")
    }
}

/// True for `http(s)://127.0.0.1…`, `localhost` and `[::1]` URLs.
pub fn is_loopback_url(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_urls_get_a_scheme() {
        assert_eq!(start_url("example.com/claim"), "https://example.com/claim");
        assert_eq!(
            start_url(" http://127.0.0.1:8080/ "),
            "http://127.0.0.1:8080/"
        );
        assert_eq!(start_url("about:blank"), "about:blank");
    }

    #[test]
    fn loopback_urls_need_no_key() {
        assert!(is_loopback_url("http://127.0.0.1:11434/v1"));
        assert!(is_loopback_url("http://localhost:1234/v1"));
        assert!(is_loopback_url("http://[::1]:8080/v1"));
        assert!(!is_loopback_url("https://api.openai.com/v1"));
        assert!(!is_loopback_url("not a url"));
    }
}
