//! `run --provider copilot` as a process against the scripted server playing both
//! GitHub's token exchange and Copilot's chat API.

use std::process::Output;

use super::cli::{claim_script, command};
use super::scripted_llm::{Reply, ScriptedLlm};
use super::{FakeBrowser, claim_page};

async fn run_copilot(browser: &FakeBrowser, llm: &ScriptedLlm, github_token: &str) -> Output {
    let mut command = command();
    command
        .env("GH_TOKEN", github_token)
        .args([
            "run",
            "file a claim for policy P-1234",
            "--provider",
            "copilot",
        ])
        .args([
            "--base-url",
            &llm.github_url(),
            "--url",
            "http://demo.test/claim/",
        ])
        .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
        .arg(&browser.server.config_dir);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The GitHub token is exchanged for a session token, the chat goes to the chat
/// base the exchange named with Copilot's headers, and the first token (expired
/// at once) is exchanged again before the next request.
#[tokio::test]
async fn copilot_exchanges_the_github_token_and_refreshes_an_expired_session() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm =
        ScriptedLlm::with_copilot_tokens(claim_script(), vec![("tid=1", 0), ("tid=2", 1800)]).await;
    let output = run_copilot(&browser, &llm, "gho_test").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Claim reference: CLM-2026-000042\n"
    );
    // Two exchanges: the first session expired at once, the second lasts.
    assert_eq!(llm.exchanges(), ["token gho_test", "token gho_test"]);
    let headers = llm.headers();
    let bearers: Vec<&str> = headers
        .iter()
        .map(|h| h["authorization"].as_str().unwrap())
        .collect();
    assert_eq!(bearers, ["Bearer tid=1", "Bearer tid=2", "Bearer tid=2"]);
    for sent in &headers {
        assert_eq!(sent["copilot-integration-id"], "vscode-chat", "{sent}");
        assert!(
            sent["editor-version"]
                .as_str()
                .unwrap()
                .starts_with("vscode/"),
            "{sent}"
        );
        assert!(
            sent["user-agent"]
                .as_str()
                .unwrap()
                .starts_with("GitHubCopilotChat/"),
            "{sent}"
        );
    }
    // The OpenAI wire format, with Copilot's default model.
    assert_eq!(llm.requests()[0]["model"], "gpt-4.1");
}

/// An account without Copilot (the exchange answers 404) ends the run as a
/// model error that says which step failed; no chat request is made.
#[tokio::test]
async fn copilot_says_when_the_exchange_is_refused() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::with_copilot_tokens(vec![Reply::text("unused")], Vec::new()).await;
    let output = run_copilot(&browser, &llm, "gho_no_copilot").await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("HTTP 404"), "{stderr}");
    assert!(
        stderr.contains("the Copilot token exchange failed"),
        "{stderr}"
    );
    assert_eq!(llm.exchanges(), ["token gho_no_copilot"]);
    assert!(llm.requests().is_empty());
}

/// Without a GitHub token, even against a loopback base, `run` refuses to start
/// and names the variables.
#[tokio::test]
async fn copilot_without_a_github_token_is_refused() {
    let output = tokio::task::spawn_blocking(|| {
        command()
            .args(["run", "x", "--provider", "copilot"])
            .args(["--base-url", "http://127.0.0.1:9/"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("GITHUB_TOKEN or GH_TOKEN"), "{stderr}");
}

/// A session the chat API refuses (401) before its expiry is exchanged again
/// and the request sent once more with the new one.
#[tokio::test]
async fn copilot_exchanges_again_when_the_chat_api_refuses_the_session() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::with_copilot_tokens(
        vec![
            Reply::status(401),
            Reply::text("Nothing to do.\nSTATUS: DONE"),
        ],
        vec![("tid=revoked", 1800), ("tid=new", 1800)],
    )
    .await;
    let output = run_copilot(&browser, &llm, "gho_test").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(llm.exchanges().len(), 2);
    let bearers: Vec<String> = llm
        .headers()
        .iter()
        .map(|h| h["authorization"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(bearers, ["Bearer tid=revoked", "Bearer tid=new"]);
}
