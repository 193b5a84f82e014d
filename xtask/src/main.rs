//! `cargo xtask …`: developer and CI tasks for browser-bridge.
//!
//! - `build-extension`: build the wasm extension into `extension/dist/`.
//! - `demo`: the main job: the demo scenario in real headless Chromium.
//! - `test`: everything CI runs (unit, socket, Chromium end-to-end, conformance, demo).

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
    BuildExtension,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::BuildExtension => anyhow::bail!("not built yet"),
    }
}
