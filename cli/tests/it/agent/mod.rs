//! The built-in agent end to end without a browser: a scripted LLM server (real
//! HTTP, OpenAI and Anthropic wire formats) and a fake extension over a real
//! WebSocket into an in-process server, driven through the real hub.

mod scripted_llm;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use browser_bridge_agent::guard::Status;
use browser_bridge_agent::llm::{LlmClient, Provider, Usage};
use browser_bridge_agent::{AgentEvent, FinalReport, RunOptions, StopReason, run_task};
use browser_bridge_backend::server::ServerHandle;
use serde_json::{Value, json};

use scripted_llm::{Reply, ScriptedLlm, Wire, last_user_text, uid_for};

mod chat;
mod cli;
mod copilot;
mod handoff;
mod mcp_host;
mod memory;
mod redaction;

/// The page the fake extension shows: a claim form.
fn claim_page() -> Value {
    json!({
        "action": "extract", "tabId": 1, "url": "http://demo.test/claim/",
        "title": "File a claim", "text": "",
        "markdown": "# File a claim\n\nPolicy number (looks like P-1234)",
        "elements": [
            {"uid": "e1", "role": "textbox", "name": "Policy number"},
            {"uid": "e2", "role": "button", "name": "Submit claim"}
        ]
    })
}

/// A sign-in page with a high-confidence auth wall.
fn login_page() -> Value {
    json!({
        "action": "extract", "tabId": 1, "url": "http://demo.test/portal/login",
        "title": "Sign in", "text": "",
        "markdown": "# Sign in\n\nSign in to continue to the Acme customer portal.",
        "elements": [
            {"uid": "e1", "role": "textbox", "name": "Email"},
            {"uid": "e2", "role": "textbox", "name": "Password"},
            {"uid": "e3", "role": "button", "name": "Sign in"}
        ],
        "obstacle": {"type": "auth_wall", "confidence": "high",
                     "message": "a password field and a sign-in form fill the page"}
    })
}

/// A fake extension connected to an in-process server, answering every action
/// from a tiny page model and recording what reached it.
struct FakeBrowser {
    server: ServerHandle,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl FakeBrowser {
    async fn start(page: Value) -> FakeBrowser {
        let server = crate::common::start(crate::common::options()).await;
        let ws = crate::common::connect_extension(&server, "agent-test").await;
        crate::common::wait_connected(&server, "agent-test").await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        crate::common::serve_requests(ws, move |request| {
            let action = request["action"].clone();
            record.lock().unwrap().push(action.clone());
            Some(answer(request, &action, &page)).filter(|reply| !reply.is_null())
        });
        FakeBrowser { server, seen }
    }

    /// The action names that reached the extension, in order.
    fn actions(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|a| a["action"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

fn answer(request: &Value, action: &Value, page: &Value) -> Value {
    let ok = |result: Value| json!({"type": "response", "id": request["id"], "result": result});
    let error = |code: &str, message: &str| json!({"type": "response", "id": request["id"], "error": {"code": code, "message": message}});
    let uid = action["uid"].as_str().unwrap_or_default();
    let known = page["elements"]
        .as_array()
        .is_some_and(|elements| elements.iter().any(|e| e["uid"] == uid));
    match action["action"].as_str().unwrap_or_default() {
        "navigate"
            if action["url"]
                .as_str()
                .is_some_and(|u| u.contains("bank.test")) =>
        {
            error(
                "domain_blocked",
                "bank.test is on the user's blocklist: do not retry; tell the user",
            )
        }
        // Two tabs under control and none named.
        "navigate"
            if action["url"]
                .as_str()
                .is_some_and(|u| u.contains("several.test")) =>
        {
            error(
                "session_not_found",
                "several tabs are under control (3, 4): pass tabId",
            )
        }
        "open_tab" => ok(json!({"action": "open_tab", "tabId": 7, "windowId": 2,
                                "url": action["url"], "title": page["title"]})),
        "navigate" => ok(json!({"action": "navigate", "tabId": 1,
                                "url": action["url"], "title": page["title"]})),
        "extract" => ok(page.clone()),
        // One tab of the user's own, not under control.
        "list_tabs" => ok(json!({"action": "list_tabs", "tabs": [{
            "tabId": 9, "windowId": 1, "url": "https://bank.example/accounts",
            "title": "My bank accounts", "active": true, "agentWindow": false, "session": false
        }]})),
        "scroll" => ok(json!({"action": "scroll", "tabId": 1, "scrollX": 0.0, "scrollY": 600.0})),
        "click" if known => ok(json!({"action": "click", "tabId": 1,
                                      "url": page["url"], "navigated": false})),
        "type" if known => ok(json!({"action": "type", "tabId": 1, "value": action["text"]})),
        // Never answered: the run's own timeout must end it.
        "wait_for" if action["selector"] == "#never" => Value::Null,
        "wait_for" => error(
            "timeout",
            "the element did not become visible within 500 ms",
        ),
        _ => error(
            "element_not_found",
            &format!("no element with uid {uid:?} in tab 1: extract again"),
        ),
    }
}

fn client(llm: &ScriptedLlm, wire: Wire) -> LlmClient {
    let provider = match wire {
        Wire::OpenAi => Provider::Openai,
        Wire::Anthropic => Provider::Anthropic,
    };
    LlmClient::new(provider, &llm.base_url(), "scripted", None)
}

async fn run(
    browser: &FakeBrowser,
    llm: &ScriptedLlm,
    wire: Wire,
    options: RunOptions,
) -> (FinalReport, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let report = run_task(
        &browser.server.hub,
        &client(llm, wire),
        &options,
        &mut events,
    )
    .await;
    (report, events)
}

fn options(task: &str, url: Option<&str>) -> RunOptions {
    RunOptions {
        url: url.map(Into::into),
        timeout: Duration::from_secs(60),
        ..RunOptions::new(task)
    }
}

#[tokio::test]
async fn a_failed_action_brings_a_reflection_then_a_changed_call_succeeds() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e9"})),
        // The model finds the button's uid in the page it was shown.
        Reply::from_request(|request| {
            let uid = uid_for(request, "button", "Submit claim").expect("the button's line");
            Reply::call(json!({"action": "click", "uid": uid}))
                .saying("e9 does not exist on this page; the submit button has its own uid.")
        }),
        Reply::text("Submitted the claim.\nSTATUS: DONE"),
    ])
    .await;
    let (report, events) = run(
        &browser,
        &llm,
        Wire::OpenAi,
        options("submit the claim form", Some("http://demo.test/claim/")),
    )
    .await;

    assert!(report.success, "{report:?}");
    assert_eq!(report.stop, StopReason::Status(Status::Done));
    assert_eq!(report.answer, "Submitted the claim.");
    assert_eq!(report.reflections, 1);
    assert_eq!(report.steps, 3);
    // Prelude navigate + extract, then the two clicks; the one that succeeded
    // is observed (the agent's default): an extract follows it.
    assert_eq!(
        browser.actions(),
        ["navigate", "extract", "click", "click", "extract"]
    );
    assert_eq!(browser.seen.lock().unwrap()[3]["uid"], "e2");

    // The model saw the page before its first step.
    let requests = llm.requests();
    let first = last_user_text(&requests[0]);
    assert!(first.starts_with("Task: submit the claim form"), "{first}");
    assert!(first.contains("e2 button \"Submit claim\""), "{first}");
    // After the failure: the error observation, then the reflection request.
    let second = last_user_text(&requests[1]);
    assert!(
        second.starts_with("element_not_found: no element with uid \"e9\""),
        "{second}"
    );
    assert!(
        second.contains("state in one or two sentences the most likely cause"),
        "{second}"
    );

    let reflection = events
        .iter()
        .position(|e| matches!(e, AgentEvent::Reflection { remaining: 2, .. }))
        .expect("a reflection event");
    assert!(matches!(
        &events[reflection - 1],
        AgentEvent::ToolResult { ok: false, action, .. } if action == "click"
    ));
    assert!(matches!(events.last(), Some(AgentEvent::Final(r)) if r.success));
}

#[tokio::test]
async fn an_identical_repeated_call_is_refused_without_executing_it() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e9"})),
        Reply::call(json!({"uid": "e9", "action": "click"})),
        Reply::text("I could not find the button.\nSTATUS: FAILED"),
    ])
    .await;
    let (report, events) = run(&browser, &llm, Wire::Anthropic, options("submit", None)).await;

    assert!(!report.success);
    assert_eq!(report.stop, StopReason::Status(Status::Failed));
    // list_tabs (prelude) and one click: the repeat never reached the extension.
    assert_eq!(browser.actions(), ["list_tabs", "click"]);
    assert_eq!(report.actions, 2);
    let refused: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolResult { refused: true, .. }))
        .collect();
    assert_eq!(refused.len(), 1, "{events:#?}");
    // Before the first step the model learnt that no tab is under its control,
    // and nothing about the user's own tab.
    let first = last_user_text(&llm.requests()[0]);
    assert!(
        first.contains("No tab is under your control yet"),
        "{first}"
    );
    assert!(!first.contains("bank"), "{first}");
    let third = last_user_text(&llm.requests()[2]);
    assert!(
        third.starts_with("refused: this call is identical to the previous one, which failed"),
        "{third}"
    );
    assert_eq!(report.reflections, 2, "the refusal is a failure too");
}

#[tokio::test]
async fn max_steps_ends_the_run_without_success() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "extract"})),
        Reply::call(json!({"action": "scroll", "direction": "down"})),
        Reply::call(json!({"action": "extract"})),
        Reply::text("never asked for\nSTATUS: DONE"),
    ])
    .await;
    let options = RunOptions {
        max_steps: 3,
        ..options("read everything", None)
    };
    let (report, _) = run(&browser, &llm, Wire::OpenAi, options).await;

    assert!(!report.success);
    assert_eq!(report.stop, StopReason::MaxSteps(3));
    assert_eq!(report.steps, 3);
    assert_eq!(llm.requests().len(), 3);
    assert_eq!(llm.remaining(), 1);
}

#[tokio::test]
async fn an_auth_wall_ends_the_run_with_the_obstacle() {
    let browser = FakeBrowser::start(login_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "extract"})),
        Reply::call(json!({"action": "type", "uid": "e1", "text": "guess@example.com"})),
    ])
    .await;
    let (report, events) = run(
        &browser,
        &llm,
        Wire::Anthropic,
        options("open the portal", None),
    )
    .await;

    assert!(!report.success);
    assert_eq!(
        report.stop,
        StopReason::Obstacle {
            kind: "auth_wall".into(),
            message: "a password field and a sign-in form fill the page".into()
        }
    );
    assert_eq!(report.reason, "obstacle");
    assert!(report.answer.contains("auth_wall"), "{}", report.answer);
    assert_eq!(browser.actions(), ["list_tabs", "extract"], "nothing typed");
    assert_eq!(llm.requests().len(), 1);
    let Some(AgentEvent::Final(last)) = events.last() else {
        panic!("no final event")
    };
    assert_eq!(last.reason, "obstacle");
}

#[tokio::test]
async fn token_totals_are_summed_from_the_usage_fields() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![
            Reply::call(json!({"action": "type", "uid": "e1", "text": "P-1234"})).usage(1234, 56),
            Reply::call(json!({"action": "click", "uid": "e2"}))
                .usage(1411, 23)
                .cached(1024),
            Reply::text("Filed.\nSTATUS: DONE")
                .usage(1530, 7)
                .cached(1400),
        ])
        .await;
        let (report, events) = run(
            &browser,
            &llm,
            wire,
            options("file a claim", Some("http://demo.test/claim/")),
        )
        .await;
        assert!(report.success, "{wire:?}: {report:?}");
        assert_eq!(
            report.usage,
            Usage {
                prompt_tokens: 1234 + 1411 + 1530,
                cached_prompt_tokens: 1024 + 1400,
                completion_tokens: 56 + 23 + 7
            },
            "{wire:?}"
        );
        let per_call: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolCall { step, usage, .. } if *step > 0 => Some(usage.prompt_tokens),
                _ => None,
            })
            .collect();
        assert_eq!(per_call, [1234, 1411], "{wire:?}");
    }
}

#[tokio::test]
async fn done_after_a_failed_check_is_not_success() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e2"})),
        Reply::call(json!({"action": "wait_for", "selector": "#claim-result", "state": "visible"})),
        Reply::text("The claim is filed.\nSTATUS: DONE"),
    ])
    .await;
    let (report, _) = run(&browser, &llm, Wire::OpenAi, options("file it", None)).await;
    assert!(!report.success);
    assert_eq!(report.reason, "failed_check");
    assert!(report.detail.contains("timeout"), "{}", report.detail);
}

#[tokio::test]
async fn stopping_without_a_status_line_is_nudged_once_then_fails() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::text("I looked at the page."),
        Reply::text("It is a claim form."),
    ])
    .await;
    let (report, _) = run(&browser, &llm, Wire::Anthropic, options("look", None)).await;
    assert!(!report.success);
    assert_eq!(report.stop, StopReason::NoStatus);
    assert_eq!(report.answer, "It is a claim form.");
    let nudge = last_user_text(&llm.requests()[1]);
    assert!(
        nudge.starts_with("You stopped without a status line"),
        "{nudge}"
    );
}

#[tokio::test]
async fn a_loop_of_the_same_pattern_is_stopped() {
    let browser = FakeBrowser::start(claim_page()).await;
    let mut script = Vec::new();
    for _ in 0..5 {
        script.push(Reply::call(json!({"action": "click", "uid": "e1"})));
        script.push(Reply::call(json!({"action": "click", "uid": "e2"})));
    }
    let llm = ScriptedLlm::start(script).await;
    let (report, _) = run(&browser, &llm, Wire::OpenAi, options("dither", None)).await;
    assert_eq!(report.reason, "loop", "{report:?}");
    assert_eq!(report.steps, 6);
    assert!(!report.success);
}

#[tokio::test]
async fn domain_blocked_ends_the_run_at_once() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "navigate", "url": "https://bank.test/"})),
        Reply::call(json!({"action": "navigate", "url": "https://www.bank.test/"})),
    ])
    .await;
    let (report, _) = run(
        &browser,
        &llm,
        Wire::OpenAi,
        options("check my balance", None),
    )
    .await;
    assert!(!report.success);
    assert_eq!(report.reason, "terminal_error");
    assert!(
        report.detail.starts_with("domain_blocked: "),
        "{}",
        report.detail
    );
    assert_eq!(browser.actions(), ["list_tabs", "navigate"]);
    assert_eq!(llm.remaining(), 1, "no retry around the block");
}

#[tokio::test]
async fn reflections_stop_after_three_per_task() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call(json!({"action": "click", "uid": "e11"})),
        Reply::call(json!({"action": "click", "uid": "e12"})),
        Reply::call(json!({"action": "click", "uid": "e13"})),
        Reply::call(json!({"action": "click", "uid": "e14"})),
        Reply::text("No such buttons.\nSTATUS: FAILED"),
    ])
    .await;
    let (report, events) = run(&browser, &llm, Wire::OpenAi, options("click", None)).await;
    assert_eq!(report.reflections, 3);
    let remaining: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Reflection { remaining, .. } => Some(*remaining),
            _ => None,
        })
        .collect();
    assert_eq!(remaining, [2, 1, 0]);
    let requests = llm.requests();
    assert!(last_user_text(&requests[3]).contains("Reflections left for this task: 0."));
    let after_fourth = last_user_text(&requests[4]);
    assert!(
        after_fourth.starts_with("element_not_found"),
        "{after_fourth}"
    );
    assert!(!after_fourth.contains("Reflections left"), "{after_fourth}");
}

#[tokio::test]
async fn the_overall_timeout_ends_a_run_stuck_on_the_browser() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![Reply::call(
        json!({"action": "wait_for", "selector": "#never", "timeoutMs": 20000}),
    )])
    .await;
    let options = RunOptions {
        timeout: Duration::from_millis(800),
        ..options("wait", None)
    };
    let (report, events) = run(&browser, &llm, Wire::Anthropic, options).await;
    assert_eq!(report.stop, StopReason::Timeout(800), "{events:#?}");
    assert!(!report.success);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolResult { action, .. } if action == "wait_for")),
        "the stuck call never produced a result"
    );
}

#[tokio::test]
async fn a_busy_provider_is_retried() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![
            Reply::status(429),
            Reply::status(529),
            Reply::text("Nothing to do.\nSTATUS: DONE").usage(300, 5),
        ])
        .await;
        let (report, _) = run(&browser, &llm, wire, options("nothing", None)).await;
        assert!(report.success, "{wire:?}: {report:?}");
        assert_eq!(report.steps, 1, "{wire:?}");
        assert_eq!(report.usage.prompt_tokens, 300, "{wire:?}");
        assert_eq!(llm.requests().len(), 3, "{wire:?}");
    }
    // Past the retries the status ends the run as a model error.
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::status(503),
        Reply::status(503),
        Reply::status(503),
    ])
    .await;
    let (report, _) = run(&browser, &llm, Wire::OpenAi, options("nothing", None)).await;
    assert_eq!(report.reason, "model_error");
    assert!(report.detail.contains("HTTP 503"), "{}", report.detail);
}

#[tokio::test]
async fn with_several_tabs_under_control_the_prelude_opens_its_own() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![Reply::text("Seen it.\nSTATUS: DONE")]).await;
    let (report, _) = run(
        &browser,
        &llm,
        Wire::OpenAi,
        options("look", Some("http://several.test/claim/")),
    )
    .await;
    assert!(report.success, "{report:?}");
    assert_eq!(browser.actions(), ["navigate", "open_tab", "extract"]);
    assert_eq!(
        browser.seen.lock().unwrap()[2]["tabId"],
        7,
        "the new tab is read"
    );
    let first = last_user_text(&llm.requests()[0]);
    assert!(first.contains("e2 button \"Submit claim\""), "{first}");
}

#[tokio::test]
async fn an_empty_reply_is_nudged_and_not_sent_back() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm =
            ScriptedLlm::start(vec![Reply::text(""), Reply::text("Done.\nSTATUS: DONE")]).await;
        let (report, _) = run(&browser, &llm, wire, options("look", None)).await;
        // The scripted server answers 400 to an empty assistant message, as the APIs do.
        assert!(report.success, "{wire:?}: {report:?}");
        assert_eq!(report.steps, 2, "{wire:?}");
    }
}
