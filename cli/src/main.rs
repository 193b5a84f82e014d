//! `browser-bridge`: let an AI agent act in your real browser. A thin binary over
//! the backend library ([`browser_bridge_backend`]) and, with the default feature
//! `agent`, the built-in agent (`browser_bridge_agent`, the `run` subcommand):
//! [`args`] is the command line, [`cmd`] one module per subcommand, [`output`] what
//! goes to stdout/stderr and the exit codes.

mod args;
mod cmd;
mod log;
mod output;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr: stdout carries results (and MCP in `mcp` mode). Colour
    // only on a terminal: redirected logs (files, journald) get no ANSI codes.
    tracing_subscriber::fmt()
        .fmt_fields(log::escaped_fields())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BROWSER_BRIDGE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    cmd::run(args::Cli::parse()).await
}
