//! `browser-bridge-verify`: the built-in agent's demo-site task set
//! ([`browser_bridge_tests::demo::verify`]) against a real model, in real headless
//! Chromium, with nothing else to set up. It serves the demo site, starts
//! `browser-bridge serve` and Chromium with the extension paired (the end-to-end
//! harness), runs each task through the running `serve` and prints the table.
//! Without an API key (and no loopback `--base-url`) it says so and exits 0
//! before starting anything; else it exits 0 only when every task passed.
//!
//! Usually run through `cargo xtask verify`.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

use std::process::ExitCode;
use std::time::Duration;

use browser_bridge_agent::llm::{ModelConfig, Provider};
use browser_bridge_backend::RemoteBridge;
use browser_bridge_tests::demo::site::DemoSite;
use browser_bridge_tests::demo::verify::{all_passed, run_tasks, table};
use browser_bridge_tests::harness::{Stack, ensure_built};
use clap::{Parser, ValueEnum};

/// The model API's wire format.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ProviderArg {
    Openai,
    Anthropic,
}

/// Arguments, with the meaning and defaults of `browser-bridge run`'s.
#[derive(Debug, Parser)]
#[command(name = "browser-bridge-verify")]
struct Args {
    /// Wire format.
    #[arg(
        long,
        env = "BROWSER_BRIDGE_PROVIDER",
        value_enum,
        default_value = "openai"
    )]
    provider: ProviderArg,
    /// Model name (default per provider).
    #[arg(long, env = "BROWSER_BRIDGE_MODEL")]
    model: Option<String>,
    /// API base URL.
    #[arg(long, env = "BROWSER_BRIDGE_BASE_URL", value_name = "URL")]
    base_url: Option<String>,
    /// Most model calls per task.
    #[arg(long, default_value_t = browser_bridge_agent::runner::DEFAULT_MAX_STEPS)]
    max_steps: u32,
    /// Longest run per task: `180s` or `180` (seconds).
    #[arg(long, default_value = "180s", value_parser = seconds)]
    timeout: Duration,
}

fn seconds(text: &str) -> Result<Duration, String> {
    text.trim_end_matches('s')
        .parse()
        .map(Duration::from_secs)
        .map_err(|_| format!("invalid duration {text:?}: use e.g. 180s"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let config = ModelConfig {
        provider: match args.provider {
            ProviderArg::Openai => Provider::Openai,
            ProviderArg::Anthropic => Provider::Anthropic,
        },
        model: args.model.clone(),
        base_url: args.base_url.clone(),
    };
    let Some(model) = config.client(|name| std::env::var(name).ok()) else {
        eprintln!("verify: skipped: {}", config.missing_key_message());
        return ExitCode::SUCCESS;
    };
    match verify(&args, &model).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("browser-bridge-verify: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn verify(args: &Args, model: &browser_bridge_agent::llm::LlmClient) -> anyhow::Result<bool> {
    tokio::task::spawn_blocking(ensure_built).await??;
    let site = DemoSite::start().await?;
    let stack = Stack::start().await?;
    eprintln!(
        "demo site {} · backend {} · Chromium pid {}",
        site.url("/"),
        stack.base_url,
        stack.chromium.pid()
    );
    let bridge = RemoteBridge::with_base_url(stack.base_url.clone(), stack.token.clone());
    let rows = run_tasks(&bridge, model, &site.url(""), args.max_steps, args.timeout).await;
    println!("{}", table(&rows));
    drop(stack);
    Ok(all_passed(&rows))
}
