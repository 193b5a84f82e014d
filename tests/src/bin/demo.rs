//! `browser-bridge-demo`: the product's main job, end to end. Serves the bundled
//! demo site, starts `browser-bridge serve` and headless Chromium with the built
//! extension paired with the real token, then runs the scripted agent through the
//! HTTP API, printing each step. Exit code 0 only when every check held.
//!
//! Usually run through `cargo xtask demo`, which builds what it needs first.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

use std::process::ExitCode;

use browser_bridge_tests::demo::{DemoOptions, run_demo};
use clap::Parser;

#[derive(Parser)]
#[command(
    name = "browser-bridge-demo",
    version,
    about = "browser-bridge: the scripted agent demo"
)]
struct Cli {
    /// Show the browser window (needs $DISPLAY).
    #[arg(long)]
    headed: bool,
    /// After the scenario, keep the browser, backend and site running until Ctrl-C.
    #[arg(long)]
    keep_open: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let options = DemoOptions {
        headed: cli.headed,
        keep_open: cli.keep_open,
        quiet: false,
    };
    // Ctrl-C must still tear down Chromium (its own process group, which the
    // terminal's SIGINT does not reach): dropping the demo future drops the stack.
    let outcome = tokio::select! {
        outcome = run_demo(&options) => outcome,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("browser-bridge-demo: interrupted, stopping Chromium and the backend");
            return ExitCode::from(130);
        }
    };
    match outcome {
        Ok(summary) if summary.passed() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("browser-bridge-demo: {e:#}");
            ExitCode::from(2)
        }
    }
}
