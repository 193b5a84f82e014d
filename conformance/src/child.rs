//! The `browser-bridge` binary as a child process of a test: `serve` (or `mcp`
//! hosting the extension socket) on `127.0.0.1:0`, its bound address read back
//! from the `listening on http://<addr>` line it prints on stderr, so no test
//! picks a "free" port that another process may take first; and `mcp` behind
//! rmcp's client over the child's stdio.
//!
//! ```no_run
//! # async fn demo() {
//! use browser_bridge_conformance::child::spawn_listening;
//! let mut command = tokio::process::Command::new("browser-bridge");
//! command.args(["serve", "--listen", "127.0.0.1:0"]);
//! let serve = spawn_listening(command, "serve").await; // killed on drop
//! println!("ws://{}/extension", serve.addr);
//! # }
//! ```

use std::process::Stdio;
use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// How long a child may take to print its address.
const LISTEN_WAIT: Duration = Duration::from_secs(30);

/// A child that printed `listening on http://<addr>`; killed on drop.
#[derive(Debug)]
pub struct Listening {
    /// The bound `host:port`, e.g. `127.0.0.1:40123`.
    pub addr: String,
    /// The process (stdin and stdout are null; stderr is echoed to ours).
    pub child: Child,
}

/// Spawns `command` (a `serve`, say, told `--listen 127.0.0.1:0`) with null
/// stdin/stdout, waits for its `listening on http://<addr>` line on stderr and
/// echoes every stderr line to ours prefixed with `who`.
///
/// # Panics
/// The command cannot start, or it exits or stays silent for 30 s before printing
/// its address (a test failure).
pub async fn spawn_listening(mut command: Command, who: &'static str) -> Listening {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {who}: {e}"));
    let stderr = child.stderr.take().expect("piped stderr");
    let addr = wait_listening(&mut echo_stderr(stderr, who), who).await;
    Listening { addr, child }
}

/// `browser-bridge mcp` behind rmcp's client, initialized; the child ends when
/// the client is cancelled or dropped.
pub struct McpChild {
    /// The MCP client over the child's stdin/stdout.
    pub client: RunningService<RoleClient, ()>,
    listening: oneshot::Receiver<String>,
}

impl std::fmt::Debug for McpChild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpChild").finish_non_exhaustive()
    }
}

impl McpChild {
    /// The address of the extension server this `mcp` hosts in-process, from its
    /// `listening on http://<addr>` line (an `mcp` that forwards to a running
    /// `serve` prints none).
    ///
    /// # Panics
    /// No such line within 30 s.
    pub async fn hosted_addr(&mut self) -> String {
        wait_listening(&mut self.listening, "mcp").await
    }
}

/// Spawns `command` (`browser-bridge mcp …`) with piped stdio, echoes its stderr
/// to ours, and completes the MCP `initialize` handshake with rmcp's client.
///
/// # Panics
/// The command cannot start or the handshake fails (a test failure).
pub async fn spawn_mcp(command: Command) -> McpChild {
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn browser-bridge mcp");
    let stderr = stderr.expect("piped stderr");
    let listening = echo_stderr(stderr, "mcp");
    let client = ().serve(transport).await.expect("MCP initialize over stdio");
    McpChild { client, listening }
}

/// Echoes `stderr` line by line to ours (so the child never blocks on a full
/// pipe); the receiver gets the address of the first `listening on http://` line.
pub fn echo_stderr(
    stderr: impl AsyncRead + Unpin + Send + 'static,
    who: &'static str,
) -> oneshot::Receiver<String> {
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let mut tx = Some(tx);
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("{who}: {line}");
            if let Some(addr) = line.split("listening on http://").nth(1)
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(addr.trim().to_owned());
            }
        }
    });
    rx
}

async fn wait_listening(listening: &mut oneshot::Receiver<String>, who: &str) -> String {
    tokio::time::timeout(LISTEN_WAIT, listening)
        .await
        .unwrap_or_else(|_| panic!("{who} prints its address within 30 s"))
        .unwrap_or_else(|_| panic!("{who} exited before listening"))
}
