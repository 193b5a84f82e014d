//! The `browser-bridge` binary: `serve` on port 0 announces its address, `act`
//! goes through it to a fake extension, errors go to stderr with a non-zero exit,
//! `pair` prints the token, `schema` prints JSON Schemas.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::common::{EXT_ORIGIN, echo_evaluate, handshake};
use browser_bridge_protocol::PROTOCOL_VERSION;
use serde_json::Value;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_serve(dir: &Path, extra: &[&str]) -> (Serve, String) {
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--config-dir"])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("serve announces its address").unwrap();
        if let Some(rest) = line.strip_prefix("listening on ") {
            break rest.to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (Serve(child), base)
}

async fn run(args: &[&str], dir: &Path, base: &str) -> Output {
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(args)
        .arg("--config-dir")
        .arg(dir)
        .env("BROWSER_BRIDGE_URL", base);
    command.output().await.unwrap()
}

fn stderr_error(output: &Output) -> Value {
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text.lines().last().expect("an error line on stderr");
    serde_json::from_str(line).unwrap_or_else(|_| panic!("stderr is not JSON: {text}"))
}

#[tokio::test]
async fn serve_act_status_pair_and_errors() {
    let dir = crate::common::temp_config_dir();
    let (_serve, base) = spawn_serve(&dir, &["--connect-wait", "200ms"]);
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0);

    // pair prints the token serve created, on stdout.
    let pair = run(&["pair"], &dir, &base).await;
    assert!(pair.status.success());
    let token = String::from_utf8(pair.stdout).unwrap().trim().to_owned();
    let on_disk = std::fs::read_to_string(dir.join("pairing-token")).unwrap();
    assert_eq!(token, on_disk.trim());
    let instructions = String::from_utf8_lossy(&pair.stderr);
    assert!(instructions.contains("popup"), "{instructions}");
    let link = format!(
        "chrome-extension://{}/pair.html#token={token}&backendUrl=ws%3A%2F%2F127.0.0.1%3A9333%2Fextension",
        browser_bridge_backend::config::DEFAULT_EXTENSION_ID
    );
    assert!(instructions.contains(&link), "{instructions}");

    // No extension yet: not_connected after the connect-wait, error JSON on
    // stderr, exit 3 (the exit code table in `--help`).
    let out = run(&["act", r#"{"action":"list_tabs"}"#], &dir, &base).await;
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    assert_eq!(stderr_error(&out)["error"]["code"], "not_connected");

    // An invalid action never leaves the CLI: a usage error, exit 2.
    let out = run(&["act", r#"{"action":"click"}"#], &dir, &base).await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr_error(&out)["error"]["code"], "invalid_request");

    // Connect a fake extension, then act goes through.
    let mut request = format!("{}/extension", base.replacen("http", "ws", 1))
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("Origin", HeaderValue::from_static(EXT_ORIGIN));
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    let ack = handshake(&mut ws, PROTOCOL_VERSION, "cli-ext", &token).await;
    assert_eq!(ack.unwrap()["type"], "ack");
    let _ext = crate::common::serve_requests(ws, echo_evaluate);

    let out = run(
        &["act", r#"{"action":"evaluate","expression":"return 12"}"#],
        &dir,
        &base,
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["action"], "evaluate");
    assert_eq!(result["value"], 12);

    // `browser` beside the action (PROTOCOL.md §5 "Browsers"): by clientId it
    // goes through; a browser not connected is refused, nothing sent.
    let named = r#"{"action":"evaluate","expression":"return 13","browser":"cli-ext"}"#;
    let out = run(&["act", named], &dir, &base).await;
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["value"],
        13,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let other = r#"{"action":"evaluate","expression":"return 14","browser":"Office"}"#;
    let out = run(&["act", other], &dir, &base).await;
    assert!(!out.status.success());
    assert_eq!(stderr_error(&out)["error"]["code"], "session_not_found");

    // `-` reads the action from stdin.
    let mut child = tokio::process::Command::new(BIN)
        .args(["act", "-", "--config-dir"])
        .arg(&dir)
        .env("BROWSER_BRIDGE_URL", &base)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(br#"{"action":"evaluate","expression":"return 13"}"#)
            .await
            .unwrap();
    }
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["value"],
        13
    );

    let out = run(&["status"], &dir, &base).await;
    assert!(out.status.success());
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["connected"], true);
    assert_eq!(status["extension"]["clientId"], "cli-ext");
}

#[tokio::test]
async fn serve_refuses_a_non_loopback_listen() {
    let dir = crate::common::temp_config_dir();
    let out = tokio::process::Command::new(BIN)
        .args(["serve", "--listen", "0.0.0.0:0", "--config-dir"])
        .arg(&dir)
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let error = stderr_error(&out);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--allow-remote"),
        "{error}"
    );
}

#[tokio::test]
async fn schema_prints_the_three_schemas() {
    use browser_bridge_protocol::schema::{action_schema, envelope_schema, tool_schema};
    for (flag, expect) in [
        (None, action_schema()),
        (Some("--envelope"), envelope_schema()),
        (Some("--tool"), tool_schema()),
    ] {
        let mut args = vec!["schema"];
        args.extend(flag);
        let out = tokio::process::Command::new(BIN)
            .args(&args)
            .output()
            .await
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(schema, expect, "{args:?}");
    }
}

/// `browser-bridge schema | head -3`: stdout closed before the output is written
/// is a normal end (exit 0, nothing on stderr), not a "Broken pipe" panic (101).
#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    let dir = crate::common::temp_config_dir();
    let dir = dir.to_str().unwrap();
    for args in [&["schema"][..], &["pair", "--config-dir", dir][..]] {
        // The read end is closed before the child starts, so every write fails
        // with EPIPE (Rust ignores SIGPIPE, so the write returns the error).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN)
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

/// `serve 2> file`: logs written to a non-terminal carry no ANSI colour codes.
#[test]
fn logs_to_a_non_terminal_have_no_colour_codes() {
    let dir = crate::common::temp_config_dir();
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--config-dir"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let _serve = Serve(child);
    let mut logged = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line.starts_with("listening on ") {
            break;
        }
        logged.push(line);
    }
    // The "browser-bridge serving" INFO line comes before the address.
    assert!(
        logged
            .iter()
            .any(|l| l.contains("INFO") && l.contains("serving")),
        "{logged:?}"
    );
    assert!(logged.iter().all(|l| !l.contains('\x1b')), "{logged:?}");
}
