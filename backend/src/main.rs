//! `browser-bridge`: see [`browser_bridge::cli`].

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr: stdout carries results (and MCP in `mcp` mode). Colour
    // only on a terminal: redirected logs (files, journald) get no ANSI codes.
    tracing_subscriber::fmt()
        .fmt_fields(browser_bridge::log::escaped_fields())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BROWSER_BRIDGE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    browser_bridge::cli::run(browser_bridge::cli::Cli::parse()).await
}
