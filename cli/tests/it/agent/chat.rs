//! `browser-bridge chat` as a process: turns from piped stdin, the scripted
//! model in both wire formats, the fake extension behind a running `serve`.

use std::io::Write;
use std::process::Stdio;

use serde_json::json;

use super::cli::command;
use super::scripted_llm::{Reply, ScriptedLlm, Wire};
use super::{FakeBrowser, claim_page};

/// Three turns, `/reset`, a fourth: turn 3's request carries turns 1–2 (the
/// user's lines, the model's answers, turn 1's tool call and its result); the
/// request after `/reset` carries none of them.
#[tokio::test]
async fn chat_keeps_the_history_across_turns_until_reset() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![
            Reply::call(json!({"action": "extract"})).usage(300, 20),
            Reply::text("It is a claim form.").usage(400, 10),
            Reply::text("The button Submit claim (e2).").usage(500, 10),
            Reply::text("You asked what the page is and which button submits it.").usage(600, 10),
            Reply::text("Hello again.").usage(100, 5),
        ])
        .await;
        let provider = if wire == Wire::OpenAi {
            "openai"
        } else {
            "anthropic"
        };
        let mut command = command();
        command
            .args([
                "chat",
                "--provider",
                provider,
                "--base-url",
                &llm.base_url(),
            ])
            .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
            .arg(&browser.server.config_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let output = tokio::task::spawn_blocking(move || {
            let mut child = command.spawn().unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(
                    b"what is this page?\nwhich button submits it?\n\n\
                      what did I ask so far?\n/reset\nhello\n",
                )
                .unwrap();
            child.wait_with_output().unwrap()
        })
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{wire:?}: {stderr}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "It is a claim form.\nThe button Submit claim (e2).\n\
             You asked what the page is and which button submits it.\nHello again.\n",
            "{wire:?}"
        );

        let requests = llm.requests();
        assert_eq!(requests.len(), 5, "{wire:?}");
        let third = requests[3]["messages"].to_string();
        for earlier in [
            "what is this page?",
            "It is a claim form.",
            "which button submits it?",
            "The button Submit claim (e2).",
            "e2 button \\\"Submit claim\\\"",
            "what did I ask so far?",
        ] {
            assert!(
                third.contains(earlier),
                "{wire:?}: {earlier} missing from {third}"
            );
        }
        let after_reset = requests[4]["messages"].to_string();
        assert!(after_reset.contains("hello"), "{wire:?}");
        for forgotten in ["what is this page?", "It is a claim form.", "which button"] {
            assert!(
                !after_reset.contains(forgotten),
                "{wire:?}: {forgotten} kept after /reset: {after_reset}"
            );
        }
        // Steps as in `run`, then each turn's tokens and the chat's.
        assert!(stderr.contains("  1 extract"), "{wire:?}: {stderr}");
        assert!(
            stderr.contains("turn 1: 700 prompt + 30 completion tokens · chat: 700 prompt + 30"),
            "{wire:?}: {stderr}"
        );
        assert!(
            stderr.contains("turn 4: 100 prompt + 5 completion tokens · chat: 1900 prompt + 55"),
            "{wire:?}: {stderr}"
        );
        assert!(stderr.contains("(conversation cleared)"), "{wire:?}");
        // The tabs are listed when a conversation starts, and after /reset.
        assert_eq!(
            browser.actions(),
            ["list_tabs", "extract", "list_tabs"],
            "{wire:?}"
        );
    }
}

/// `/quit` ends the chat at once: later lines are never sent.
#[tokio::test]
async fn chat_quit_ends_it() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![Reply::text("Hi."), Reply::text("never")]).await;
    let mut command = command();
    command
        .args(["chat", "--base-url", &llm.base_url()])
        .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
        .arg(&browser.server.config_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"hi\n/quit\nmore\n").unwrap();
        // stdin stays open: only /quit can end the chat.
        let output = child.wait_with_output().unwrap();
        drop(stdin);
        output
    })
    .await
    .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "Hi.\n");
    assert_eq!(llm.remaining(), 1);
}
