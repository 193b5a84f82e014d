//! `browser-bridge-verify`: `browser-bridge verify` against a real model on the
//! bundled demo site in real headless Chromium, with nothing else to set up. It
//! serves the demo site, starts `browser-bridge serve` and Chromium with the
//! extension paired (the end-to-end harness), then runs `browser-bridge verify
//! --site … --listen … --config-dir …` with the remaining arguments (`--provider`,
//! `--model`, `--base-url`, `--max-steps`, `--timeout`, `--json`) and exits with
//! its code. Without an API key (and no `--base-url`) it says so and exits 0
//! before starting anything.
//!
//! Usually run through `cargo xtask verify`.

use std::process::ExitCode;

use browser_bridge_tests::demo::site::DemoSite;
use browser_bridge_tests::harness::{Stack, ensure_built};

/// The variables `browser-bridge verify` takes the key (or a keyless local
/// server's URL) from.
const MODEL_VARIABLES: [&str; 4] = [
    "BROWSER_BRIDGE_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "BROWSER_BRIDGE_BASE_URL",
];

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let configured = args.iter().any(|a| a.starts_with("--base-url"))
        || MODEL_VARIABLES
            .iter()
            .any(|name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty()));
    if !configured {
        eprintln!(
            "verify: skipped: no API key (set BROWSER_BRIDGE_API_KEY, OPENAI_API_KEY or \
             ANTHROPIC_API_KEY, or pass --base-url of a local server)"
        );
        return ExitCode::SUCCESS;
    }
    match verify(args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("browser-bridge-verify: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn verify(args: Vec<String>) -> anyhow::Result<ExitCode> {
    let site = DemoSite::start().await?;
    let stack = Stack::start().await?;
    let built = tokio::task::spawn_blocking(ensure_built).await??;
    let listen = stack.base_url.trim_start_matches("http://").to_owned();
    eprintln!(
        "demo site {} · backend {} · Chromium pid {}",
        site.url("/"),
        stack.base_url,
        stack.chromium.pid()
    );
    let mut command = tokio::process::Command::new(&built.backend_bin);
    command
        .args(["verify", "--site", &site.url(""), "--listen", &listen])
        .arg("--config-dir")
        .arg(stack.config_dir.path())
        .args(&args)
        .kill_on_drop(true);
    let status = command.status().await?;
    drop(stack);
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}
