//! The built-in agent on the demo site in real Chromium: the real backend
//! (`serve`, reached through its HTTP API as `run` does when a `serve` answers),
//! the real wasm extension, real extracts, and a scripted model (a real HTTP
//! server speaking the OpenAI and Anthropic wire formats) that picks uids from
//! the element lines it is shown and quotes what the page says, as a model would.

#[path = "../../backend/tests/agent/scripted_llm.rs"]
mod scripted_llm;

use std::time::Duration;

use browser_bridge::RemoteBridge;
use browser_bridge::agent::llm::{LlmClient, Provider};
use browser_bridge::agent::{AgentEvent, RunOptions, StopReason, run_task};
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
