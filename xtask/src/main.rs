//! `cargo xtask …`: developer and CI tasks for browser-bridge.
//!
//! - `build-extension`: build the wasm extension into `extension/dist/`.
//! - `demo`: the main job: the demo scenario in real headless Chromium.
//! - `verify`: the built-in agent against a real model on the demo site.
//! - `bench`: latency of the real stack (release) beside raw CDP and Playwright.
//! - `install-model`: the local sentence-embedding model of task memory.
//! - `test`: everything CI runs (unit, socket, Chromium end-to-end, conformance, demo).

mod bench;
mod ci;
mod cycles;
mod demo;
mod env;
mod extension;
mod model;
mod verify;
mod wasm_opt;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "xtask", about = "browser-bridge developer tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the extension (wasm + glue + static files) into extension/dist/.
    BuildExtension {
        /// Dev profile (faster to compile, bigger wasm); default: the size-optimised
        /// `extension` profile, which is what ships and what the end-to-end tests load.
        #[arg(long)]
        dev: bool,
    },
    /// The main job: build everything, then run the scripted agent on the bundled
    /// demo site in real headless Chromium through the backend's HTTP API.
    Demo {
        /// Show the browser window (needs $DISPLAY).
        #[arg(long)]
        headed: bool,
        /// Leave the browser and backend running after the scenario until Ctrl-C.
        #[arg(long)]
        keep_open: bool,
    },
    /// The built-in agent against a real model on the demo site in headless
    /// Chromium (the demo-site task set); skipped without an API key. Arguments
    /// after `--` go to `browser-bridge-verify` (e.g. `-- --provider anthropic`).
    Verify {
        /// Passed to `browser-bridge-verify`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Latency of the real stack, release build, in headless Chromium: evaluate,
    /// list_tabs, click/type/press_key, extract, beside raw CDP (and Playwright
    /// when installed), plus the wasm size and the extension's start; prints a
    /// Markdown table. Arguments after `--` go to `browser-bridge-bench`.
    Bench {
        /// Passed to `browser-bridge-bench` (e.g. `-- --samples 100`).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Download the local sentence-embedding model (USE multilingual v3, 31.7 MB,
    /// sha256-pinned) into $BROWSER_BRIDGE_MODEL_DIR or the data dir; no-op when present.
    InstallModel,
    /// Everything CI runs: unit, socket, MCP, agent, Chromium end-to-end,
    /// conformance and corpus suites, then the demo.
    Test,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::BuildExtension { dev } => extension::build_extension(!dev).map(|_| ()),
        Command::Demo { headed, keep_open } => {
            let flags = [(headed, "--headed"), (keep_open, "--keep-open")];
            let args: Vec<String> = flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, flag)| (*flag).to_owned())
                .collect();
            demo::run_demo(&args)
        }
        Command::Verify { args } => verify::run_verify(&args),
        Command::Bench { args } => bench::run_bench(&args),
        Command::InstallModel => model::install_model(),
        Command::Test => ci::test(),
    }
}
