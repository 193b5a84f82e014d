//! Shared helpers: temp config dirs, the real binary (`serve`, `mcp` through
//! `browser_bridge_conformance::child`, `schema`), and reading tool results.

use std::path::{Path, PathBuf};

use browser_bridge_conformance::child::{self, Listening, McpChild};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use serde_json::Value;
use tokio::process::Command;

/// The `browser-bridge` binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

/// A fresh config directory holding a pairing token; removed on drop.
pub(crate) struct ConfigDir {
    pub(crate) path: PathBuf,
    pub(crate) token: String,
}

impl ConfigDir {
    pub(crate) fn new() -> ConfigDir {
        let path = std::env::temp_dir().join(format!("bb-mcp-test-{}", uuid::Uuid::new_v4()));
        let token = browser_bridge_backend::config::load_or_create_token(&path).expect("token");
        ConfigDir { path, token }
    }
}

impl Drop for ConfigDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Spawns `browser-bridge mcp --listen <listen> --config-dir <dir> --connect-wait 300ms`
/// behind rmcp's client (initialized). With `--listen 127.0.0.1:0` it hosts the
/// extension socket and [`McpChild::hosted_addr`] tells where; on a running
/// `serve`'s address it forwards there.
pub(crate) async fn spawn_mcp(listen: &str, dir: &Path) -> McpChild {
    let mut command = Command::new(BIN);
    command
        .args([
            "mcp",
            "--listen",
            listen,
            "--connect-wait",
            "300ms",
            "--config-dir",
        ])
        .arg(dir);
    child::spawn_mcp(command).await
}

/// Spawns `browser-bridge serve --listen 127.0.0.1:0 --connect-wait 300ms` and
/// waits for its `listening on http://<addr>` line; killed on drop.
pub(crate) async fn spawn_serve(dir: &Path) -> Listening {
    let mut command = Command::new(BIN);
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--connect-wait",
            "300ms",
            "--config-dir",
        ])
        .arg(dir);
    child::spawn_listening(command, "serve").await
}

/// `browser-bridge schema <args>`, parsed.
pub(crate) fn schema_from_cli(args: &[&str]) -> Value {
    let output = std::process::Command::new(BIN)
        .arg("schema")
        .args(args)
        .output()
        .expect("run browser-bridge schema");
    assert!(
        output.status.success(),
        "schema {args:?} failed: {output:?}"
    );
    serde_json::from_slice(&output.stdout).expect("schema JSON")
}

/// The action names of the strict union (`browser-bridge schema`): each `oneOf`
/// variant's `action` const, sorted.
pub(crate) fn union_action_names() -> Vec<String> {
    let schema = schema_from_cli(&[]);
    let mut names: Vec<String> = schema["oneOf"]
        .as_array()
        .expect("the action union is a oneOf")
        .iter()
        .map(|v| {
            v["properties"]["action"]["const"]
                .as_str()
                .expect("action const")
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

/// The action names of a tool schema's `action` enum, sorted.
pub(crate) fn action_enum(schema: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = schema["properties"]["action"]["enum"]
        .as_array()
        .expect("action enum")
        .iter()
        .map(|v| v.as_str().expect("action name").to_owned())
        .collect();
    names.sort();
    names
}

/// Calls the `browser` tool with `arguments` (a JSON object).
pub(crate) async fn call(
    client: &RunningService<RoleClient, ()>,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new("browser").with_arguments(arguments))
        .await
        .expect("tools/call answered")
}

/// The concatenated text content of a tool result.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts `result` is a tool error whose text starts with `code:` and returns the text.
pub(crate) fn expect_error(result: &CallToolResult, code: &str) -> String {
    let text = text_of(result);
    assert_eq!(
        result.is_error,
        Some(true),
        "expected a tool error, got {text}"
    );
    assert!(
        text.starts_with(&format!("{code}: ")),
        "expected `{code}: …`, got {text}"
    );
    text
}

/// Asserts `result` succeeded and returns its text.
pub(crate) fn expect_ok(result: &CallToolResult) -> String {
    let text = text_of(result);
    assert_ne!(result.is_error, Some(true), "expected success, got {text}");
    text
}
