//! The `run` subcommand as processes: the real binary, a running
//! `serve` (in-process, with the fake extension) reached through its HTTP API,
//! and the scripted model.

use std::process::{Command, Output};

use browser_bridge_agent::llm::MODEL_ENV_VARIABLES;
use serde_json::{Value, json};

use super::scripted_llm::{Reply, ScriptedLlm};
use super::{FakeBrowser, claim_page};

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

/// The binary with no key or model settings inherited from the environment.
pub(super) fn command() -> Command {
    let mut command = Command::new(BIN);
    for var in MODEL_ENV_VARIABLES {
        command.env_remove(var);
    }
    command.env("BROWSER_BRIDGE_LOG", "warn");
    command
}

pub(super) async fn run_cli(browser: &FakeBrowser, llm: &ScriptedLlm, extra: &[&str]) -> Output {
    run_task_cli(browser, llm, "file a claim for policy P-1234", extra).await
}

/// `browser-bridge run <task>` on `browser`'s serve and config dir, with the
/// scripted model at `llm`; `extra` arguments after those.
pub(super) async fn run_task_cli(
    browser: &FakeBrowser,
    llm: &ScriptedLlm,
    task: &str,
    extra: &[&str],
) -> Output {
    let mut command = command();
    command.args(["run", task]).args([
        "--listen",
        &browser.server.addr.to_string(),
        "--config-dir",
        browser.server.config_dir.to_str().unwrap(),
        "--base-url",
        &llm.base_url(),
        "--model",
        "scripted",
    ]);
    command.args(extra);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

pub(super) fn claim_script() -> Vec<Reply> {
    vec![
        Reply::call(json!({"action": "type", "uid": "e1", "text": "P-1234"})).usage(900, 20),
        Reply::call(json!({"action": "click", "uid": "e2"})).usage(1000, 15),
        Reply::text("Claim reference: CLM-2026-000042\nSTATUS: DONE").usage(1100, 12),
    ]
}

#[tokio::test]
async fn run_prints_the_answer_and_exits_zero_on_success() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(claim_script()).await;
    let output = run_cli(&browser, &llm, &["--url", "http://demo.test/claim/"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Claim reference: CLM-2026-000042\n"
    );
    // Progress on stderr: each call with its tokens, its outcome and ms; the report.
    assert!(
        stderr.contains("  1 type e1 \"P-1234\" (900+20 tok)"),
        "{stderr}"
    );
    assert!(stderr.contains("    → ok · "), "{stderr}");
    assert!(
        stderr.contains("success · 3 steps · 4 actions · "),
        "{stderr}"
    );
    assert!(
        stderr.contains("3000 prompt + 47 completion tokens"),
        "{stderr}"
    );
    // It went through the running serve: the fake extension saw every action.
    // Each action is observed (the agent's default): an extract follows it.
    assert_eq!(
        browser.actions(),
        ["navigate", "extract", "type", "extract", "click", "extract"]
    );
}

#[tokio::test]
async fn run_json_writes_ndjson_events_and_fails_with_the_task() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e7"})),
        Reply::text("There is no such button.\nSTATUS: FAILED"),
    ])
    .await;
    let output = run_cli(&browser, &llm, &["--json", "--provider", "anthropic"]).await;
    assert_eq!(output.status.code(), Some(1));
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "step_started",
            "tool_call",
            "tool_result", // prelude: list_tabs
            "step_started",
            "tool_call",
            "tool_result",
            "reflection",
            "step_started",
            "final",
        ]
    );
    assert_eq!(
        events[5]["error"],
        "element_not_found: no element with uid \"e7\" in tab 1: extract again"
    );
    let last = &events[8];
    assert_eq!(last["success"], false);
    assert_eq!(last["reason"], "failed");
    assert_eq!(last["answer"], "There is no such button.");
    assert_eq!(
        last["usage"],
        json!({"promptTokens": 200, "cachedPromptTokens": 0, "completionTokens": 20})
    );
}

#[tokio::test]
async fn run_without_a_key_for_a_remote_api_is_refused() {
    let output = tokio::task::spawn_blocking(|| command().args(["run", "x"]).output().unwrap())
        .await
        .unwrap();
    // 4: unauthorized (the exit code table in `browser-bridge --help`).
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("\"code\":\"unauthorized\""), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
}

/// With no `serve` on `--listen`, `run` hosts the extension WebSocket itself and
/// waits for the extension; the fake extension dials in late (after the run
/// started) with the pairing token, and the task completes through the in-process hub.
#[tokio::test]
async fn run_hosts_the_extension_socket_and_waits_for_the_extension() {
    let dir = crate::common::temp_config_dir();
    let token = browser_bridge_backend::config::load_or_create_token(&dir).unwrap();
    // A free port: bound on :0 and released for the child to listen on.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let llm = ScriptedLlm::start(claim_script()).await;
    let mut command = command();
    command
        .args(["run", "file a claim for policy P-1234", "--listen"])
        .arg(addr.to_string())
        .arg("--config-dir")
        .arg(&dir)
        .args(["--base-url", &llm.base_url(), "--connect-wait", "20s"])
        .args(["--url", "http://demo.test/claim/"]);
    let child = tokio::task::spawn_blocking(move || command.output().unwrap());

    // Dial until the child listens, then shake hands with the token it uses.
    let url = format!("ws://{addr}/extension");
    let mut ws = None;
    for _ in 0..200 {
        let mut request =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                url.as_str(),
            )
            .unwrap();
        request
            .headers_mut()
            .insert("Origin", crate::common::EXT_ORIGIN.parse().unwrap());
        if let Ok((socket, _)) = tokio_tungstenite::connect_async(request).await {
            ws = Some(socket);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut ws = ws.expect("the run listens for the extension");
    let ack = crate::common::handshake(
        &mut ws,
        browser_bridge_protocol::PROTOCOL_VERSION,
        "late",
        &token,
    )
    .await
    .expect("ack");
    assert_eq!(ack["type"], "ack", "{ack}");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let page = claim_page();
    crate::common::serve_requests(ws, move |request| {
        record
            .lock()
            .unwrap()
            .push(request["action"]["action"].clone());
        Some(super::answer(request, &request["action"], &page))
    });

    let output = child.await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("waiting up to 20 s for the browser-bridge extension"),
        "{stderr}"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Claim reference: CLM-2026-000042\n"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [
            json!("navigate"),
            json!("extract"),
            json!("type"),
            json!("extract"),
            json!("click"),
            json!("extract")
        ]
    );
}

/// Ctrl-C (SIGINT) while an action is in flight ends `run` with 130.
#[tokio::test]
async fn run_stops_on_ctrl_c() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![Reply::call(
        json!({"action": "wait_for", "selector": "#never", "timeoutMs": 20000}),
    )])
    .await;
    let mut command = command();
    command
        .args(["run", "wait for nothing", "--listen"])
        .arg(browser.server.addr.to_string())
        .arg("--config-dir")
        .arg(&browser.server.config_dir)
        .args(["--base-url", &llm.base_url()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = command.spawn().unwrap();
    for _ in 0..400 {
        if browser.actions().iter().any(|a| a == "wait_for") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(
        browser.actions().iter().any(|a| a == "wait_for"),
        "the run reached the browser"
    );
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted"));
    assert!(output.stdout.is_empty());
}
