//! Task memory through the real binary: `run` against a running `serve` with
//! the fake extension, the scripted model in both wire formats, and the real
//! multilingual embedder (installed by `cargo xtask install-model`). A failed
//! step is remembered; the next related run's first model request carries the
//! lesson, in English or Chinese; an unrelated one's does not.

use std::process::Output;

use serde_json::{Value, json};

use super::cli::{command, run_task_cli};
use super::scripted_llm::{Reply, ScriptedLlm, Wire};
use super::{FakeBrowser, claim_page};

const CLAIM_EN: &str = "file a claim for policy P-1234";
const CLAIM_ZH: &str = "为保单 P-5678 提交理赔";
const WEATHER: &str = "what is the weather in Paris tomorrow";

/// `browser-bridge run <task> --url <url>` on `browser`'s serve and config dir.
async fn run(
    browser: &FakeBrowser,
    llm: &ScriptedLlm,
    wire: Wire,
    task: &str,
    url: &str,
    extra: &[&str],
) -> Output {
    let provider = match wire {
        Wire::OpenAi => "openai",
        Wire::Anthropic => "anthropic",
    };
    let args = [&["--url", url, "--provider", provider][..], extra].concat();
    run_task_cli(browser, llm, task, &args).await
}

/// `browser-bridge memory <args> --config-dir <browser's>`.
async fn memory(browser: &FakeBrowser, args: &[&str]) -> Output {
    let mut command = command();
    command
        .arg("memory")
        .args(args)
        .args(["--config-dir", browser.server.config_dir.to_str().unwrap()]);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// `memory list --json`: the stored experiences.
async fn stored(browser: &FakeBrowser) -> Vec<Value> {
    let output = memory(browser, &["list", "--json"]).await;
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The text of the first user message of a request, in either wire format.
fn first_user_text(request: &Value) -> String {
    let message = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .expect("a user message");
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => panic!("unexpected content {other}"),
    }
}

/// A run that clicks a uid that is not there, reflects, clicks the right one
/// and still reports failure.
fn failing_script() -> Vec<Reply> {
    vec![
        Reply::call(json!({"action": "click", "uid": "e7"})),
        Reply::call(json!({"action": "click", "uid": "e2"})),
        Reply::text("The claim form did not confirm.\nSTATUS: FAILED"),
    ]
}

fn done() -> Vec<Reply> {
    vec![Reply::text("Done.\nSTATUS: DONE")]
}

/// A run of `first` fails and is remembered; a run of `related` (the other
/// language) gets its lesson in its first request; an unrelated task does not.
async fn remembered_and_recalled(wire: Wire, first: &str, related: &str) {
    let browser = FakeBrowser::start(claim_page()).await;
    let url = "http://demo.test/claim/";
    let llm = ScriptedLlm::start(failing_script()).await;
    let output = run(&browser, &llm, wire, first, url, &[]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("memory off"), "{stderr}");
    let first_request = first_user_text(&llm.requests()[0]);
    assert!(
        !first_request.contains("Lessons"),
        "empty store: {first_request}"
    );

    let all = stored(&browser).await;
    assert_eq!(all.len(), 1, "{all:?}");
    let e = &all[0];
    assert_eq!(e["task"], first);
    assert_eq!(
        (e["domain"].as_str(), e["outcome"].as_str()),
        (Some("demo.test"), Some("failed"))
    );
    assert_eq!(e["startUrl"], url);
    assert_eq!(
        e["failures"],
        json!([{"action": "click", "code": "element_not_found",
                "message": "no element with uid \"e7\" in tab 1: extract again"}])
    );
    assert_eq!(e["fixes"], json!(["click e2"]));

    let llm = ScriptedLlm::start(done()).await;
    let output = run(&browser, &llm, wire, related, url, &[]).await;
    assert!(output.status.success(), "{output:?}");
    let text = first_user_text(&llm.requests()[0]);
    assert!(text.starts_with(&format!("Task: {related}")), "{text}");
    let lesson = format!(
        "Lessons from earlier runs:\n- {}",
        e["text"].as_str().unwrap()
    );
    assert!(text.ends_with(&lesson), "{text}");
    assert!(text.contains("element_not_found") && text.contains("click e2"));
    assert_eq!(
        stored(&browser).await.len(),
        2,
        "the success is remembered too"
    );

    let llm = ScriptedLlm::start(done()).await;
    let output = run(&browser, &llm, wire, WEATHER, "http://weather.test/", &[]).await;
    assert!(output.status.success(), "{output:?}");
    let text = first_user_text(&llm.requests()[0]);
    assert!(!text.contains("Lessons"), "unrelated: {text}");
}

#[tokio::test]
async fn an_english_failure_is_recalled_by_a_chinese_task_openai() {
    remembered_and_recalled(Wire::OpenAi, CLAIM_EN, CLAIM_ZH).await;
}

#[tokio::test]
async fn a_chinese_failure_is_recalled_by_an_english_task_anthropic() {
    remembered_and_recalled(Wire::Anthropic, CLAIM_ZH, CLAIM_EN).await;
}

#[tokio::test]
async fn no_memory_reads_and_writes_nothing() {
    let browser = FakeBrowser::start(claim_page()).await;
    let url = "http://demo.test/claim/";
    let llm = ScriptedLlm::start(failing_script()).await;
    run(&browser, &llm, Wire::OpenAi, CLAIM_EN, url, &[]).await;
    assert_eq!(stored(&browser).await.len(), 1);
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let llm = ScriptedLlm::start(failing_script()).await;
        let output = run(&browser, &llm, wire, CLAIM_EN, url, &["--no-memory"]).await;
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let text = first_user_text(&llm.requests()[0]);
        assert!(!text.contains("Lessons"), "{text}");
    }
    assert_eq!(stored(&browser).await.len(), 1, "nothing written");
}

#[tokio::test]
async fn without_the_model_the_run_goes_on_and_says_so_once() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(done()).await;
    let mut command = command();
    command.env(
        "BROWSER_BRIDGE_MODEL_DIR",
        browser.server.config_dir.join("no-model"),
    );
    command
        .args(["run", CLAIM_EN, "--url", "http://demo.test/claim/"])
        .args([
            "--listen",
            &browser.server.addr.to_string(),
            "--config-dir",
            browser.server.config_dir.to_str().unwrap(),
            "--base-url",
            &llm.base_url(),
            "--model",
            "scripted",
        ]);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.matches("memory off:").count(), 1, "{stderr}");
    assert!(stderr.contains("cargo xtask install-model"), "{stderr}");
    assert!(stored(&browser).await.is_empty());
}

#[tokio::test]
async fn list_search_forget_and_clear_a_real_store() {
    let browser = FakeBrowser::start(claim_page()).await;
    for (task, url) in [
        (CLAIM_EN, "http://demo.test/claim/"),
        (WEATHER, "http://weather.test/"),
    ] {
        let llm = ScriptedLlm::start(done()).await;
        let output = run(&browser, &llm, Wire::OpenAi, task, url, &[]).await;
        assert!(output.status.success(), "{output:?}");
    }
    let all = stored(&browser).await;
    let ids: Vec<&str> = all.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(all[0]["task"], CLAIM_EN, "oldest first");

    let list = memory(&browser, &["list"]).await;
    let lines = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(lines.lines().count(), 2, "{lines}");
    assert!(
        lines.starts_with(&format!(
            "{}  \"{CLAIM_EN}\" on demo.test: succeeded",
            ids[0]
        )),
        "{lines}"
    );

    // Chinese query, English past run: only the claim is close.
    let search = memory(&browser, &["search", "提交保险理赔", "--json"]).await;
    assert!(search.status.success(), "{search:?}");
    let found: Vec<Value> = serde_json::from_slice(&search.stdout).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["experience"]["id"], ids[0]);
    let score = found[0]["score"].as_f64().unwrap();
    assert!((0.3..=1.0).contains(&score), "{score}");
    let human = memory(&browser, &["search", "天气预报"]).await;
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(human.contains(ids[1]) && !human.contains(ids[0]), "{human}");

    let forget = memory(&browser, &["forget", ids[0]]).await;
    assert!(forget.status.success(), "{forget:?}");
    let again = memory(&browser, &["forget", ids[0]]).await;
    assert_eq!(again.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("\"code\":\"invalid_request\"") && stderr.contains(ids[0]),
        "{stderr}"
    );
    // An id is never a path: a file beside the memory cannot be deleted.
    let outside = browser.server.config_dir.join("keep.json");
    std::fs::write(&outside, "{}").unwrap();
    let bad = memory(&browser, &["forget", "../keep"]).await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(outside.exists());
    assert_eq!(stored(&browser).await.len(), 1);

    let clear = memory(&browser, &["clear"]).await;
    assert!(clear.status.success());
    assert!(String::from_utf8_lossy(&clear.stderr).contains("forgot 1 experience"));
    assert!(stored(&browser).await.is_empty());
}

/// `chat` with `lines` on stdin against `browser`'s serve.
async fn chat(browser: &FakeBrowser, llm: &ScriptedLlm, lines: &'static [u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut command = command();
    command
        .args([
            "chat",
            "--provider",
            "anthropic",
            "--base-url",
            &llm.base_url(),
        ])
        .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
        .arg(&browser.server.config_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(lines).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

/// Each chat turn is remembered; a new conversation's first turn (at the
/// start or after `/reset`) gets the lessons, a turn inside one does not.
#[tokio::test]
async fn chat_turns_are_remembered_and_a_new_conversation_gets_the_lessons() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e7"})),
        Reply::text("There is no such button."),
    ])
    .await;
    let output = chat(
        &browser,
        &llm,
        "file a claim for policy P-1234\n".as_bytes(),
    )
    .await;
    assert!(output.status.success(), "{output:?}");
    let all = stored(&browser).await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["failures"][0]["code"], "element_not_found");

    let llm = ScriptedLlm::start(vec![
        Reply::text("Which policy?"),
        Reply::text("Noted."),
        Reply::text("Filing it."),
    ])
    .await;
    let lines = "为保单提交理赔\nP-5678\n/reset\n提交保险理赔\n".as_bytes();
    let output = chat(&browser, &llm, lines).await;
    assert!(output.status.success(), "{output:?}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    let firsts: Vec<bool> = requests
        .iter()
        .map(|r| {
            r["messages"]
                .to_string()
                .contains("Lessons from earlier runs")
        })
        .collect();
    // The second request repeats the first turn (with its lessons): the
    // history is kept, no new lessons are added for "P-5678".
    assert!(first_user_text(&requests[0]).contains("element_not_found"));
    assert_eq!(firsts, [true, true, true]);
    let second = requests[1]["messages"].to_string();
    assert_eq!(
        second.matches("Lessons from earlier runs").count(),
        1,
        "{second}"
    );
    assert!(first_user_text(&requests[2]).starts_with("提交保险理赔"));
    assert!(first_user_text(&requests[2]).contains("Lessons from earlier runs"));
    assert_eq!(stored(&browser).await.len(), 4, "every turn is remembered");
}
