//! Credentials a provider's error body echoes are never printed: `run` as a
//! process against the scripted server, whose error answers repeat the
//! request's `Authorization` (or `x-api-key`) header. The key, the GitHub token
//! and the Copilot session token appear neither on stderr nor in the `--json`
//! `final` event; `[redacted]` stands in their place.

use std::process::Output;

use serde_json::Value;

use super::cli::command;
use super::scripted_llm::{Reply, ScriptedLlm};
use super::{FakeBrowser, claim_page};

const KEY: &str = "sk-test-0123456789abcdef";
const GITHUB_TOKEN: &str = "gho_test0123456789";

async fn run(browser: &FakeBrowser, provider: &str, base: &str) -> Output {
    let mut command = command();
    let secret = if provider == "copilot" {
        ("GH_TOKEN", GITHUB_TOKEN)
    } else {
        ("BROWSER_BRIDGE_API_KEY", KEY)
    };
    command
        .env(secret.0, secret.1)
        .args(["run", "file a claim", "--json", "--provider", provider])
        .args([
            "--base-url",
            base,
            "--listen",
            &browser.server.addr.to_string(),
        ])
        .arg("--config-dir")
        .arg(&browser.server.config_dir);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The run failed with a model error in which `[redacted]` stands for every
/// one of `secrets`, on stderr and in the `final` event.
fn assert_redacted(output: &Output, status: &str, secrets: &[&str]) {
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "final", "{stdout}");
    let error = last.to_string();
    for secret in secrets {
        assert!(!stderr.contains(secret), "{secret} on stderr: {stderr}");
        assert!(!stdout.contains(secret), "{secret} on stdout: {stdout}");
    }
    for text in [&*stderr, &error] {
        assert!(text.contains(&format!("HTTP {status}")), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
}

/// OpenAI and Anthropic keys: a 401, and a 500 that stays after the retries.
#[tokio::test]
async fn a_key_echoed_in_an_error_body_is_redacted() {
    for (provider, status) in [("openai", 401), ("anthropic", 401), ("openai", 500)] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![Reply::status(status); 3]).await;
        let output = run(&browser, provider, &llm.base_url()).await;
        assert_redacted(&output, &status.to_string(), &[KEY]);
        // The server did get the key, and echoed it.
        assert!(!llm.requests().is_empty(), "{provider} {status}");
    }
}

/// Copilot: the exchange refused (its body echoes the GitHub token), and a
/// chat API that refuses both sessions (its body echoes the session token).
#[tokio::test]
async fn copilot_tokens_echoed_in_an_error_body_are_redacted() {
    let browser = FakeBrowser::start(claim_page()).await;
    let refused = ScriptedLlm::with_copilot_tokens(vec![Reply::text("unused")], Vec::new()).await;
    let output = run(&browser, "copilot", &refused.github_url()).await;
    assert_redacted(&output, "404", &[GITHUB_TOKEN]);
    assert_eq!(refused.exchanges(), [format!("token {GITHUB_TOKEN}")]);

    let browser = FakeBrowser::start(claim_page()).await;
    let sessions = ["tid=first-session;exp=1", "tid=second-session;exp=2"];
    let llm = ScriptedLlm::with_copilot_tokens(
        vec![Reply::status(401), Reply::status(401)],
        sessions.iter().map(|token| (*token, 1800)).collect(),
    )
    .await;
    let output = run(&browser, "copilot", &llm.github_url()).await;
    assert_redacted(&output, "401", &[GITHUB_TOKEN, sessions[0], sessions[1]]);
    let bearers: Vec<String> = llm
        .headers()
        .iter()
        .map(|h| h["authorization"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        bearers,
        sessions.map(|token| format!("Bearer {token}")),
        "both sessions were sent, and the second echoed"
    );
}
