//! `browser-bridge-conformance`: the protocol's behavioural checks against any
//! backend (`backend <ws-url>`, acting as an extension) or any extension
//! (`extension`, acting as a backend). One line per check, then `N passed, N failed`;
//! the exit code is non-zero when any check failed.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use browser_bridge_tests::conformance::Report;
use browser_bridge_tests::conformance::backend::{BackendTarget, DEFAULT_ORIGIN, http_base_of};
use browser_bridge_tests::conformance::extension::ExtensionHarness;
use browser_bridge_tests::conformance::launch::{launch_paired, pairing_url};
use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "browser-bridge-conformance",
    version,
    about = "browser-bridge protocol v4 conformance checks"
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Act as an extension against the backend listening at <WS_URL>. Run it on a
    /// backend no real extension is connected to: requests must reach the harness.
    Backend(BackendArgs),
    /// Act as a backend and wait for an extension to connect.
    Extension(ExtensionArgs),
}

#[derive(Args)]
struct BackendArgs {
    /// The backend's extension endpoint, e.g. ws://127.0.0.1:9333/extension.
    ws_url: String,
    /// The pairing token (else read from CONFIG_DIR/pairing-token).
    #[arg(long, conflicts_with = "config_dir")]
    token: Option<String>,
    /// The backend's config dir, holding `pairing-token`.
    #[arg(long)]
    config_dir: Option<PathBuf>,
    /// Base URL of the backend's HTTP API (default: the WebSocket's host and port).
    #[arg(long)]
    http: Option<String>,
    /// The `Origin` header to send (the backend may only accept its configured id).
    #[arg(long, default_value = DEFAULT_ORIGIN)]
    origin: String,
}

#[derive(Args)]
struct ExtensionArgs {
    /// Where to listen; the extension must be configured with ws://ADDR/extension.
    #[arg(long, default_value = "127.0.0.1:9333")]
    listen: SocketAddr,
    /// The pairing token the extension must present (default: a fresh random one).
    #[arg(long)]
    token: Option<String>,
    /// How long to wait for the extension to connect, in seconds.
    #[arg(long, default_value_t = 120)]
    wait: u64,
    /// Launch headless Chromium with the unpacked extension in this directory and
    /// pair it with this harness (the extension must have the repository's key).
    #[arg(long, value_name = "EXT_DIR")]
    launch_chromium: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(report) if report.failed() == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("browser-bridge-conformance: {e:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> Result<Report> {
    let mut report = Report::new();
    match cli.mode {
        Mode::Backend(args) => {
            let token = match (args.token, args.config_dir) {
                (Some(token), _) => token,
                (None, Some(dir)) => read_token(&dir)?,
                (None, None) => anyhow::bail!("give --token or --config-dir"),
            };
            let target = BackendTarget {
                http_base: args.http.unwrap_or_else(|| http_base_of(&args.ws_url)),
                ws_url: args.ws_url,
                token,
                origin: args.origin,
            };
            browser_bridge_tests::conformance::backend::run(&target, &mut report).await;
        }
        Mode::Extension(args) => {
            let token = args
                .token
                .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
            let harness = ExtensionHarness::bind(args.listen, &token)
                .await
                .with_context(|| format!("binding {}", args.listen))?;
            eprintln!(
                "waiting for an extension: backend URL {} pairing token {token}\n\
                 (for our extension, open {})",
                harness.ws_url(),
                pairing_url(&token, &harness.ws_url())
            );
            // Kept alive until the checks are done; dropping it kills Chromium.
            let _chromium = match &args.launch_chromium {
                Some(dir) => Some(launch_paired(dir, &harness.ws_url(), &token).await?),
                None => None,
            };
            harness
                .run(Duration::from_secs(args.wait), &mut report)
                .await;
        }
    }
    println!("{}", report.summary());
    Ok(report)
}

fn read_token(dir: &std::path::Path) -> Result<String> {
    let path = dir.join("pairing-token");
    let token =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(token.trim().to_owned())
}
