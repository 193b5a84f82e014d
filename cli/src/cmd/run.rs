//! `browser-bridge run "<task>"`: the built-in agent ([`browser_bridge_agent`])
//! on a browser reached the way `mcp` reaches it
//! ([`browser_bridge_backend::connect`]): a running `serve`, else the extension
//! WebSocket hosted in-process, waiting for the extension to connect. Progress
//! goes to stderr ([`super::progress`]); the answer (or, with `--json`, the events) to
//! stdout. Exit code 0 only when the task succeeded. Each run is one client of
//! the backend (PROTOCOL.md §5 "Clients"), named `run-<12 hex>`.

use std::process::ExitCode;

use std::path::Path;

use browser_bridge_agent::llm::LlmClient;
use browser_bridge_agent::mcp::{McpHost, config as mcp_config};
use browser_bridge_agent::memory::Recorder;
use browser_bridge_agent::runner::{self, RunOptions};
use browser_bridge_backend::Bridge;
use browser_bridge_backend::connect::{Connected, connect};
use browser_bridge_backend::hub::clients::generated_name;
use browser_bridge_protocol::{BridgeError, ErrorCode};

use crate::args::{BrowserArgs, ModelArgs, RunArgs, ToolArgs};
use crate::cmd::memory;
use crate::cmd::progress::CliProgress;
use crate::output::{EXIT_FAILURE, EXIT_INTERRUPTED, fail, print_stdout};

/// `browser-bridge run`: exit code 0 only when the task succeeded.
pub(crate) async fn run(args: RunArgs) -> ExitCode {
    let (model, mut mcp, connected) =
        match start_agent(&args.model, &args.tools, &args.browser).await {
            Ok(started) => started,
            Err(error) => return fail(&error),
        };
    let memory = memory::open_for_run(
        args.limits.no_memory,
        args.browser.config.config_dir.as_deref(),
    );
    let url = args.url.as_deref().map(start_url);
    let lessons = memory::lessons(memory.as_ref(), &args.task, url.as_deref());
    let options = RunOptions {
        task: args.task,
        url,
        max_steps: args.limits.max_steps,
        timeout: args.limits.timeout,
        observe: !args.limits.no_observe,
        handoff: args.handoff,
        lessons,
    };
    let mut shown = CliProgress::new(args.json);
    let mut progress = Recorder::new(&mut shown);
    let bridge = connected.bridge.for_client(&generated_name("run"));
    let run = runner::run_task_with(&bridge, &model, &mut mcp, &options, &mut progress);
    let report = tokio::select! {
        report = run => report,
        _ = tokio::signal::ctrl_c() => {
            drop(shown);
            eprintln!("interrupted");
            mcp.close().await;
            connected.close().await;
            // 128 + SIGINT, as shells report it.
            return ExitCode::from(EXIT_INTERRUPTED);
        }
    };
    let events = progress.events;
    drop(shown);
    memory::remember(
        memory.as_ref(),
        &options.task,
        options.url.as_deref(),
        &events,
        &report,
    );
    mcp.close().await;
    connected.close().await;
    if !args.json {
        print_answer(&report.answer);
    }
    if report.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILURE)
    }
}

/// What `run` and `chat` start with: the model client, the MCP servers and the
/// browser (a running `serve`, else the extension WebSocket hosted here).
///
/// # Errors
/// `unauthorized` without a key the provider needs, `invalid_request` for a
/// bad `--mcp-config`, and [`connect`]'s errors.
pub(crate) async fn start_agent(
    model: &ModelArgs,
    tools: &ToolArgs,
    browser: &BrowserArgs,
) -> Result<(LlmClient, McpHost, Connected), BridgeError> {
    let config = model.config();
    let key = model.api_key.clone();
    let client = config
        .client_with_key(key, |name| std::env::var(name).ok())
        .ok_or_else(|| BridgeError::new(ErrorCode::Unauthorized, config.missing_key_message()))?;
    let mcp = start_mcp(tools.mcp_config.as_deref()).await?;
    let connected = connect(
        browser.listen,
        browser.config.config_dir.as_deref(),
        browser.connect_wait,
    )
    .await;
    match connected {
        Ok(connected) => Ok((client, mcp, connected)),
        Err(error) => {
            mcp.close().await;
            Err(error)
        }
    }
}

/// The MCP servers of `--mcp-config`, started (none without the flag). Servers
/// that fail to start are reported by the run, not here.
///
/// # Errors
/// `invalid_request` when the file cannot be read or is not an `mcpServers` file.
pub(crate) async fn start_mcp(file: Option<&Path>) -> Result<McpHost, BridgeError> {
    let Some(file) = file else {
        return Ok(McpHost::default());
    };
    let bad =
        |e: String| BridgeError::invalid_request(format!("--mcp-config {}: {e}", file.display()));
    let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
    let servers = mcp_config::parse(&text).map_err(bad)?;
    Ok(McpHost::start(servers).await)
}

fn print_answer(answer: &str) {
    print_stdout(answer);
}

/// `--url` as typed, with `https://` added when it has no scheme
/// (`example.com/a` → `https://example.com/a`).
pub(crate) fn start_url(url: &str) -> String {
    let url = url.trim();
    if url.contains("://") || url.starts_with("about:") {
        url.to_owned()
    } else {
        format!("https://{url}")
    }
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
}
