//! The `browser-bridge` command line (docs/DESIGN.md "Backend"): `serve`, `pair`, `act`,
//! `status`, `schema`.
//!
//! Only [`run`]'s result printing writes to stdout (stdout belongs to MCP in `mcp`
//! mode); logs and errors go to stderr. On failure the error JSON
//! `{"error":{"code","message"}}` goes to stderr and the exit code is non-zero.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use browser_bridge_protocol::{
    Action, BridgeError, ErrorCode, MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION,
};
use clap::{Args, Parser, Subcommand};

use crate::bridge::Bridge;
use crate::config;
use crate::remote::RemoteBridge;
use crate::server::{DEFAULT_LISTEN, ServeOptions};

/// `browser-bridge`: let an AI agent act in your real browser.
#[derive(Debug, Parser)]
#[command(name = "browser-bridge", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the backend: WebSocket for the extension, HTTP API for agents.
    Serve(ServeArgs),
    /// Print the pairing token (created on first use) and how to enter it.
    Pair(PairArgs),
    /// Send one action through a running `serve` and print its result JSON.
    Act(ActArgs),
    /// Print the running `serve`'s status JSON.
    Status(ClientArgs),
    /// Print a JSON Schema: the action union (default), the envelope, or the tool.
    Schema(SchemaArgs),
    /// MCP over stdio (one `browser` tool): reuses a running `serve`, else hosts
    /// the extension WebSocket itself.
    Mcp(crate::mcp::stdio::McpArgs),
    /// Complete a task in the browser with an LLM (the built-in agent).
    Run(crate::agent::cli::RunArgs),
    /// Run the demo-site task set against a real model (skipped without an API key).
    Verify(crate::agent::verify::VerifyArgs),
}

/// Where the config directory is.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// Config directory (token, audit log); else $BROWSER_BRIDGE_CONFIG_DIR, else
    /// the platform config dir + browser-bridge.
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// `serve` options.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub config: ConfigArgs,
    /// Accept only this extension id on /extension (chrome-extension://ID).
    #[arg(long, value_name = "ID")]
    pub extension_id: Option<String>,
    /// Lowest accepted extension protocol version (v5 is the oldest this build speaks).
    #[arg(long, value_name = "N", default_value_t = PROTOCOL_VERSION,
          value_parser = clap::value_parser!(u32).range(i64::from(MIN_SUPPORTED_PROTOCOL_VERSION)..=i64::from(PROTOCOL_VERSION)))]
    pub min_protocol_version: u32,
    /// How long a request waits for an extension to connect: `5s`, `500ms`, `5`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_duration)]
    pub connect_wait: Duration,
    /// Allow listening on a non-loopback address.
    #[arg(long)]
    pub allow_remote: bool,
}

/// How a client command reaches `serve`.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub config: ConfigArgs,
    /// Base URL of the running `serve`.
    #[arg(
        long,
        env = "BROWSER_BRIDGE_URL",
        default_value = "http://127.0.0.1:9333"
    )]
    pub server: String,
}

/// `pair` arguments.
#[derive(Debug, Args)]
pub struct PairArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub config: ConfigArgs,
    /// The extension's id, for the pairing link.
    #[arg(long, value_name = "ID", default_value = config::DEFAULT_EXTENSION_ID)]
    pub extension_id: String,
    /// The WebSocket URL the extension should dial.
    #[arg(
        long,
        value_name = "URL",
        default_value = "ws://127.0.0.1:9333/extension"
    )]
    pub backend_url: String,
}

/// `act` arguments.
#[derive(Debug, Args)]
pub struct ActArgs {
    /// The action JSON, e.g. '{"action":"list_tabs"}', or `-` to read stdin.
    pub action: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub client: ClientArgs,
}

/// `schema` arguments.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The envelope (every WebSocket message) instead of the action union.
    #[arg(long, conflicts_with = "tool")]
    pub envelope: bool,
    /// The flat `browser` tool input schema given to agents.
    #[arg(long)]
    pub tool: bool,
}

/// Parses `5s`, `500ms`, `2m` or a bare number of seconds.
///
/// # Errors
/// A message naming the accepted forms.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
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

/// Runs the parsed command line; returns the process exit code.
pub async fn run(cli: Cli) -> ExitCode {
    let outcome = match cli.command {
        // Their exit code is the task's verdict, not only an error.
        Command::Run(args) => return crate::agent::cli::run(args).await,
        Command::Verify(args) => return crate::agent::verify::run(args).await,
        Command::Serve(args) => serve(args).await,
        Command::Mcp(args) => crate::mcp::stdio::run(args).await.map_err(|e| {
            // A refused proof keeps its code (`unauthorized`); the rest is internal.
            e.downcast::<BridgeError>()
                .unwrap_or_else(|e| internal(format!("{e:#}")))
        }),
        Command::Pair(args) => pair(&args),
        Command::Act(args) => act(args).await,
        Command::Status(args) => status(args).await,
        Command::Schema(args) => {
            let schema = if args.envelope {
                browser_bridge_protocol::schema::envelope_schema()
            } else if args.tool {
                browser_bridge_protocol::schema::tool_schema()
            } else {
                browser_bridge_protocol::schema::action_schema()
            };
            print_json(&schema);
            Ok(())
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}", serde_json::json!({ "error": error }));
            ExitCode::FAILURE
        }
    }
}

fn print_json(value: &impl serde::Serialize) {
    print_stdout(&serde_json::to_string_pretty(value).expect("JSON values serialise"));
}

fn print_text(text: &str) {
    print_stdout(text);
}

/// Writes `text` and a newline to stdout, the CLI's result output (stdout is ours
/// outside `mcp`). A closed stdout (`browser-bridge status | head -3`) is a normal
/// end, as for other Unix tools: the process exits 0 quietly instead of panicking
/// like `println!`. Any other write failure exits 1 with the error JSON on stderr.
pub fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "{text}").and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!(
                "{}",
                serde_json::json!({ "error": internal(format!("cannot write to stdout: {e}")) })
            );
            std::process::exit(1);
        }
    }
}

fn internal(e: impl std::fmt::Display) -> BridgeError {
    BridgeError::internal(e.to_string())
}

async fn serve(args: ServeArgs) -> Result<(), BridgeError> {
    let opts = ServeOptions {
        listen: args.listen,
        config_dir: args.config.config_dir,
        extension_id: args.extension_id,
        min_protocol_version: args.min_protocol_version,
        connect_wait: args.connect_wait,
        allow_remote: args.allow_remote,
        ..ServeOptions::default()
    };
    crate::server::run_serve(opts)
        .await
        .map_err(|e| internal(format!("{e:#}")))
}

fn pair(args: &PairArgs) -> Result<(), BridgeError> {
    let dir = config::resolve_config_dir(args.config.config_dir.as_deref()).map_err(internal)?;
    let token = config::load_or_create_token(&dir).map_err(internal)?;
    print_text(&token);
    let link = config::pairing_link(&args.extension_id, &token, &args.backend_url);
    eprintln!(
        "Pairing token above (stored in {}).\n\
         To pair, open this link in the browser where the extension is installed:\n\
         \n  {link}\n\n\
         or open the browser-bridge extension's popup (its toolbar icon), paste the token\n\
         into the pairing token field and save. The extension then connects to\n\
         {} while `browser-bridge serve` runs.\n\
         Keep the token secret: it lets a program drive your browser.",
        dir.join(config::TOKEN_FILE).display(),
        args.backend_url
    );
    Ok(())
}

fn client(args: &ClientArgs) -> Result<RemoteBridge, BridgeError> {
    let dir = config::resolve_config_dir(args.config.config_dir.as_deref()).map_err(internal)?;
    let token = config::read_token(&dir).map_err(internal)?.ok_or_else(|| {
        BridgeError::new(
            ErrorCode::Unauthorized,
            format!(
                "no pairing token in {}: run `browser-bridge serve` or `browser-bridge pair` first",
                dir.display()
            ),
        )
    })?;
    Ok(RemoteBridge::with_base_url(args.server.clone(), token).with_token_dir(dir))
}

async fn act(args: ActArgs) -> Result<(), BridgeError> {
    let text = if args.action == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| BridgeError::invalid_request(format!("cannot read stdin: {e}")))?;
        text
    } else {
        args.action
    };
    // Validate locally first: a bad action never leaves this process.
    let action = Action::from_json(&text)?;
    let result = client(&args.client)?.act(action).await?;
    print_json(&result);
    Ok(())
}

async fn status(args: ClientArgs) -> Result<(), BridgeError> {
    let status = client(&args)?.status().await?;
    print_json(&status);
    Ok(())
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
}
