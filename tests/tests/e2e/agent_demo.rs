//! The built-in agent on the demo site in real Chromium: the real backend
//! (`serve`, reached through its HTTP API as `run` does when a `serve` answers),
//! the real wasm extension, real extracts, and a scripted model (a real HTTP
//! server speaking the OpenAI and Anthropic wire formats) that picks uids from
//! the element lines it is shown and quotes what the page says, as a model would.

#[path = "../../../cli/tests/it/agent/scripted_llm.rs"]
pub(crate) mod scripted_llm;

use std::time::Duration;

use browser_bridge_agent::llm::MODEL_ENV_VARIABLES;
use browser_bridge_agent::llm::{LlmClient, Provider};
use browser_bridge_agent::{AgentEvent, RunOptions, StopReason, run_task};
use browser_bridge_backend::RemoteBridge;
use browser_bridge_tests::demo::site::DemoSite;
use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

use scripted_llm::{Reply, ScriptedLlm, uid_for};

/// A call on the element whose line has `role` and a name containing `name`; a
/// `STATUS: FAILED` reply naming what was missing when the page has no such line.
fn on_element(role: &'static str, name: &'static str, call: Value) -> Reply {
    Reply::from_request(move |request| match uid_for(request, role, name) {
        Some(uid) => {
            let mut call = call.clone();
            call["uid"] = json!(uid);
            Reply::call(call)
        }
        None => Reply::text(&format!(
            "no {role} named {name:?} in the page I was shown\nSTATUS: FAILED"
        )),
    })
}

/// `CLM-YYYY-NNNNNN` in `text`, if any.
fn claim_reference(text: &str) -> Option<String> {
    text.match_indices("CLM-").find_map(|(at, _)| {
        let candidate: String = text[at..].chars().take(15).collect();
        let digits = |range: std::ops::Range<usize>| {
            candidate
                .get(range)
                .is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()))
        };
        (candidate.len() == 15 && digits(4..8) && &candidate[8..9] == "-" && digits(9..15))
            .then_some(candidate)
    })
}

#[tokio::test]
async fn the_agent_files_a_claim_and_stops_at_the_portal_sign_in() {
    let site = DemoSite::start().await.expect("demo site");
    let stack = Stack::start()
        .await
        .expect("backend + Chromium + extension");
    let bridge = RemoteBridge::with_base_url(stack.base_url.clone(), stack.token.clone());

    // 1. A multi-step claim on the real form, OpenAI wire format.
    let llm = ScriptedLlm::start(vec![
        on_element(
            "textbox",
            "Policy number",
            json!({"action": "type", "text": "P-1234"}),
        ),
        on_element(
            "textbox",
            "Date of incident",
            json!({"action": "type", "text": "2026-03-14"}),
        ),
        on_element(
            "textbox",
            "What happened",
            json!({"action": "type", "text": "A stone cracked the windscreen."}),
        ),
        on_element("button", "Submit claim", json!({"action": "click"})),
        Reply::call(json!({"action": "wait_for", "selector": "#claim-result", "state": "visible"})),
        Reply::call(json!({"action": "extract"})),
        Reply::from_request(|request| {
            match claim_reference(&scripted_llm::last_user_text(request)) {
                Some(reference) => {
                    Reply::text(&format!("Claim reference: {reference}\nSTATUS: DONE"))
                }
                None => Reply::text("the page shows no claim reference\nSTATUS: FAILED"),
            }
        }),
    ])
    .await;
    let model = LlmClient::new(Provider::Openai, &llm.base_url(), "scripted", None);
    let options = RunOptions {
        url: Some(site.url("/claim/")),
        timeout: Duration::from_secs(120),
        ..RunOptions::new("File a claim for policy P-1234 and tell me the reference number.")
    };
    let mut events = Vec::new();
    let report = run_task(&bridge, &model, &options, &mut events).await;
    let log: Vec<String> = events
        .iter()
        .filter_map(|e| serde_json::to_string(e).ok())
        .collect();
    let log = log.join("\n");
    assert!(report.success, "{report:?}\n{log}\n{}", stack.backend_log());
    // What each step sent (bytes of request JSON; ~4 bytes a token), for the record.
    let sizes: Vec<usize> = llm.requests().iter().map(|r| r.to_string().len()).collect();
    eprintln!("claim run: request bytes per step {sizes:?}");
    let reference = claim_reference(&report.answer).expect("a reference in the answer");
    assert_eq!(report.answer, format!("Claim reference: {reference}"));
    assert_eq!(report.steps, 7, "{log}");
    assert_eq!(
        report.actions, 8,
        "navigate + extract, then six calls: {log}"
    );
    assert_eq!(report.reflections, 0, "{log}");
    assert_eq!(report.usage.prompt_tokens, 700);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolResult { ok: false, .. })),
        "{log}"
    );
    // The page itself shows the reference the agent reported.
    let page = stack
        .act(json!({"action": "extract"}))
        .await
        .expect("extract after the run");
    assert!(
        page["markdown"]
            .as_str()
            .unwrap_or_default()
            .contains(&reference),
        "{page}"
    );

    // 2. The portal is behind a sign-in page: the real extract reports the auth
    // wall (confidence high) and the run ends before the model acts, Anthropic wire.
    let llm = ScriptedLlm::start(vec![Reply::text("never asked\nSTATUS: DONE")]).await;
    let model = LlmClient::new(Provider::Anthropic, &llm.base_url(), "scripted", None);
    let options = RunOptions {
        url: Some(site.url("/portal")),
        timeout: Duration::from_secs(60),
        ..RunOptions::new("Tell me the balance of my account.")
    };
    let mut events = Vec::new();
    let report = run_task(&bridge, &model, &options, &mut events).await;
    assert!(!report.success);
    assert!(
        matches!(&report.stop, StopReason::Obstacle { kind, .. } if kind == "auth_wall"),
        "{report:?}"
    );
    assert_eq!(report.steps, 0);
    assert!(llm.requests().is_empty(), "the model was never asked");
}

/// `N items` in `text`, if any.
fn item_count(text: &str) -> Option<u32> {
    text.match_indices(" items")
        .chain(text.match_indices(" item"))
        .find_map(|(at, _)| {
            text[..at]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
}

/// `browser-bridge-verify` as a process (it serves the demo site and starts its
/// own `serve` and real Chromium), with the scripted model answering all four
/// tasks in order: the table reports every task passed.
#[tokio::test]
async fn verify_runs_the_demo_task_set_and_reports_the_pass_rate() {
    let new_item = || {
        on_element(
            "textbox",
            "New item",
            json!({"action": "type", "text": "buy milk"}),
        )
    };
    let script = vec![
        // todo: two items, then read the count.
        new_item(),
        on_element("button", "Add", json!({"action": "click"})),
        on_element(
            "textbox",
            "New item",
            json!({"action": "type", "text": "call the plumber"}),
        ),
        on_element("button", "Add", json!({"action": "click"})),
        Reply::call(json!({"action": "extract"})),
        Reply::from_request(
            |request| match item_count(&scripted_llm::last_user_text(request)) {
                Some(n) => Reply::text(&format!("The list shows {n} items.\nSTATUS: DONE")),
                None => Reply::text("no count on the page\nSTATUS: FAILED"),
            },
        ),
        // claim: P-1234.
        on_element(
            "textbox",
            "Policy number",
            json!({"action": "type", "text": "P-1234"}),
        ),
        on_element(
            "textbox",
            "What happened",
            json!({"action": "type", "text": "A cracked windscreen."}),
        ),
        on_element("button", "Submit claim", json!({"action": "click"})),
        Reply::call(json!({"action": "extract"})),
        Reply::from_request(|request| {
            match claim_reference(&scripted_llm::last_user_text(request)) {
                Some(reference) => Reply::text(&format!("Reference: {reference}\nSTATUS: DONE")),
                None => Reply::text("no reference\nSTATUS: FAILED"),
            }
        }),
        // claim-unknown-policy: P-9999 is refused by the form.
        on_element(
            "textbox",
            "Policy number",
            json!({"action": "type", "text": "P-9999"}),
        ),
        on_element("button", "Submit claim", json!({"action": "click"})),
        Reply::call(json!({"action": "extract"})),
        Reply::from_request(|request| {
            if scripted_llm::last_user_text(request).contains("P-9999 was not found") {
                Reply::text("The form says policy P-9999 was not found.\nSTATUS: FAILED")
            } else {
                Reply::text("Filed.\nSTATUS: DONE")
            }
        }),
        // portal: the auth wall ends the run before the model is asked.
    ];
    let replies = script.len();
    let llm = ScriptedLlm::start(script).await;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_browser-bridge-verify"));
    for var in MODEL_ENV_VARIABLES {
        command.env_remove(var);
    }
    command
        .args(["--base-url", &llm.base_url(), "--model", "scripted"])
        .env("BROWSER_BRIDGE_LOG", "warn");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .skip(1)
        .take(4)
        .map(|line| line.split_whitespace().collect())
        .collect();
    let verdicts: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| (row[0], row[1], *row.last().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("todo", "yes", "done"),
            ("claim", "yes", "done"),
            ("claim-unknown-policy", "yes", "failed"),
            ("portal", "yes", "obstacle"),
        ],
        "{stdout}\n{stderr}"
    );
    // Steps and tokens per task: todo took 6 model calls at 100 + 10 tokens each.
    assert_eq!(rows[0][2], "6", "{stdout}");
    assert_eq!(rows[0][4], "600", "{stdout}");
    assert_eq!(rows[3][2], "0", "{stdout}");
    assert!(stdout.contains("pass rate: 4/4"), "{stdout}");
    assert_eq!(llm.requests().len(), replies);
}

/// `cargo xtask verify` without a model configured: says so and exits 0 before
/// starting a browser.
#[tokio::test]
async fn verify_without_a_key_says_so_and_is_skipped() {
    let output = tokio::task::spawn_blocking(|| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_browser-bridge-verify"));
        for var in MODEL_ENV_VARIABLES {
            command.env_remove(var);
        }
        command.output().unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("verify: skipped: no API key"), "{stderr}");
    assert!(output.stdout.is_empty());
}
