//! The `browser-bridge` command line, as clap structs: every subcommand's
//! arguments, the shared groups ([`ConfigArgs`], [`ClientArgs`]) and
//! [`parse_duration`]; `run`'s are in [`run`] (feature `agent`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use browser_bridge_backend::config;
use browser_bridge_backend::server::DEFAULT_LISTEN;
use browser_bridge_protocol::{MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION};
use clap::{Args, Parser, Subcommand};

#[cfg(feature = "agent")]
mod run;
#[cfg(feature = "agent")]
pub(crate) use run::{
    BrowserArgs, ChatArgs, MemoryArgs, MemoryCommand, ModelArgs, RunArgs, ServeModelArgs, ToolArgs,
};
/// `browser-bridge`: let an AI agent act in your real browser.
#[derive(Debug, Parser)]
#[command(name = "browser-bridge", version, about, after_help = crate::output::EXIT_CODES_HELP)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the backend: WebSocket for the extension, HTTP API for agents.
    Serve(ServeArgs),
    /// Print the pairing token (created on first use) and how to enter it.
    Pair(PairArgs),
    /// Send one action through a running `serve` and print its result JSON.
    Act(ActArgs),
    /// Print the running `serve`'s status JSON.
    Status(ClientArgs),
    /// Print a one-time link (60 s) that opens the running `serve`'s console page.
    Console(ClientArgs),
    /// Print a JSON Schema: the action union (default), the envelope, or the tool.
    Schema(SchemaArgs),
    /// MCP over stdio (one `browser` tool): reuses a running `serve`, else hosts
    /// the extension WebSocket itself.
    Mcp(McpArgs),
    /// Complete a task in the browser with an LLM (the built-in agent).
    #[cfg(feature = "agent")]
    Run(RunArgs),
    /// Talk with the built-in agent on the terminal, one stdin line per turn
    /// (`/reset` forgets the conversation, `/quit` or end of input ends it).
    #[cfg(feature = "agent")]
    Chat(ChatArgs),
    /// The built-in agent's task memory: `list`, `search "<task>"`,
    /// `forget <id>`, `clear`.
    #[cfg(feature = "agent")]
    Memory(MemoryArgs),
}

/// Where the config directory is.
#[derive(Debug, Clone, Args)]
pub(crate) struct ConfigArgs {
    /// Config directory (token, audit log); else $BROWSER_BRIDGE_CONFIG_DIR, else
    /// the platform config dir + browser-bridge.
    #[arg(long, value_name = "DIR")]
    pub(crate) config_dir: Option<PathBuf>,
}

/// `serve` options.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on (port 0: any free port).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) config: ConfigArgs,
    /// Accept only this extension id on /extension (chrome-extension://ID).
    #[arg(long, value_name = "ID")]
    pub(crate) extension_id: Option<String>,
    /// Lowest accepted extension protocol version (v5 is the oldest this build speaks).
    #[arg(long, value_name = "N", default_value_t = PROTOCOL_VERSION,
          value_parser = clap::value_parser!(u32).range(i64::from(MIN_SUPPORTED_PROTOCOL_VERSION)..=i64::from(PROTOCOL_VERSION)))]
    pub(crate) min_protocol_version: u32,
    /// How long a request waits for an extension to connect: `5s`, `500ms`, `5`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub(crate) connect_wait: Duration,
    /// Allow listening on a non-loopback address.
    #[arg(long)]
    pub(crate) allow_remote: bool,
    #[cfg(feature = "agent")]
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) console_model: ServeModelArgs,
}

/// How a client command reaches `serve`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ClientArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) config: ConfigArgs,
    /// Base URL of the running `serve`.
    #[arg(
        long,
        env = "BROWSER_BRIDGE_URL",
        default_value = "http://127.0.0.1:9333"
    )]
    pub(crate) server: String,
}

/// `pair` arguments.
#[derive(Debug, Args)]
pub(crate) struct PairArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) config: ConfigArgs,
    /// The extension's id, for the pairing link.
    #[arg(long, value_name = "ID", default_value = config::DEFAULT_EXTENSION_ID)]
    pub(crate) extension_id: String,
    /// The WebSocket URL the extension should dial.
    #[arg(
        long,
        value_name = "URL",
        default_value = "ws://127.0.0.1:9333/extension"
    )]
    pub(crate) backend_url: String,
}

/// `act` arguments.
#[derive(Debug, Args)]
pub(crate) struct ActArgs {
    /// The action JSON, e.g. '{"action":"list_tabs"}', or `-` to read stdin.
    pub(crate) action: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) client: ClientArgs,
}

/// `schema` arguments.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The envelope (every WebSocket message) instead of the action union.
    #[arg(long, conflicts_with = "tool")]
    pub(crate) envelope: bool,
    /// The flat `browser` tool input schema given to agents.
    #[arg(long)]
    pub(crate) tool: bool,
}

/// `mcp` options: the same meaning and defaults as `serve`'s.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Address of the running `serve` to reuse, else the address to host the
    /// extension WebSocket on.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub(crate) config: ConfigArgs,
    /// How long a call waits for an extension to connect: `5s`, `500ms`, `5`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub(crate) connect_wait: Duration,
    /// Do not observe by default: actions answer without `changes` unless the
    /// call sets `observe: true`.
    #[arg(long)]
    pub(crate) no_observe: bool,
}

/// Parses `5s`, `500ms`, `2m` or a bare number of seconds.
///
/// # Errors
/// A message naming the accepted forms.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let bad = || format!("invalid duration {text:?}: use e.g. 5s, 500ms, 2m");
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        _ => return Err(bad()),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("5h").is_err());
        assert!(parse_duration("x").is_err());
    }

    #[test]
    fn cli_parses() {
        let cli = Cli::try_parse_from([
            "browser-bridge",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--connect-wait",
            "0s",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("not serve")
        };
        assert_eq!(args.connect_wait, Duration::ZERO);
        assert!(Cli::try_parse_from(["browser-bridge", "schema", "--envelope", "--tool"]).is_err());
    }

    /// `--handoff` alone waits 10 minutes and leaves the task to be the task;
    /// `--handoff=D` takes 1 ms to 10 minutes.
    #[test]
    fn handoff_waits() {
        let handoff = |args: &[&str]| {
            let argv = [&["browser-bridge", "run"], args].concat();
            Cli::try_parse_from(argv).map(|cli| match cli.command {
                Command::Run(run) => (run.handoff, run.task),
                _ => panic!("not run"),
            })
        };
        let ten = Some(Duration::from_secs(600));
        assert_eq!(
            handoff(&["--handoff", "log in"]).unwrap(),
            (ten, "log in".into())
        );
        assert_eq!(
            handoff(&["log in", "--handoff"]).unwrap(),
            (ten, "log in".into())
        );
        let two = Some(Duration::from_secs(120));
        assert_eq!(handoff(&["--handoff=2m", "x"]).unwrap(), (two, "x".into()));
        assert_eq!(handoff(&["x"]).unwrap(), (None, "x".into()));
        assert!(handoff(&["--handoff=11m", "x"]).is_err());
        assert!(handoff(&["--handoff=0s", "x"]).is_err());
    }
}
