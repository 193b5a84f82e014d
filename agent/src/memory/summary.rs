//! A run's experience, written from its events and final report alone
//! (deterministic: no model call): the task, where it started, the outcome,
//! what failed and what worked after a reflection.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::report::{AgentEvent, FinalReport};

/// At most this many failures and fixes are kept: the lesson stays short.
pub const MAX_ITEMS: usize = 4;

/// Longest kept error message (chars): the cause, not a page dump.
const MAX_MESSAGE: usize = 120;

/// One past run, as stored (`<config-dir>/memory/<id>.json`, camelCase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Experience {
    /// 12 hex digits, unique per store.
    pub id: String,
    /// When the run ended (unix ms).
    pub created: u64,
    /// The task, as the user gave it.
    pub task: String,
    /// `--url`, else the first URL the run navigated to ("" when none).
    pub start_url: String,
    /// The host of `start_url` ("" when none).
    pub domain: String,
    /// The final reason code (`done`, `failed`, `max_steps`…; see
    /// [`crate::report::StopReason::code`]).
    pub outcome: String,
    /// The run succeeded.
    pub success: bool,
    /// Model calls made.
    pub steps: u32,
    /// Failed tool calls, first ones first.
    pub failures: Vec<Failure>,
    /// The calls that succeeded first after each reflection (`click e2`).
    pub fixes: Vec<String>,
    /// The lesson as shown to the model (one line, see [`render`]).
    pub text: String,
}

/// A failed call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The action (`click`).
    pub action: String,
    /// The error code (`element_not_found`).
    pub code: String,
    /// The error message, cut to 120 chars.
    pub message: String,
}

/// The experience of a run from its `events` and `report`; `id` and
/// `created` (unix ms) come from the caller so that this stays pure.
pub fn summarize(
    id: &str,
    created: u64,
    task: &str,
    start_url: Option<&str>,
    events: &[AgentEvent],
    report: &FinalReport,
) -> Experience {
    let mut targets: HashMap<&str, String> = HashMap::new();
    let mut first_url = start_url.map(str::to_owned);
    let mut failures: Vec<Failure> = Vec::new();
    let mut fixes: Vec<String> = Vec::new();
    let mut reflected = false;
    for event in events {
        match event {
            AgentEvent::ToolCall {
                call_id,
                action,
                target,
                ..
            } => {
                if first_url.is_none() && matches!(action.as_str(), "navigate" | "open_tab") {
                    first_url = Some(target.clone()).filter(|t| t.contains("://"));
                }
                let shown = if target.is_empty() {
                    action.clone()
                } else {
                    format!("{action} {target}")
                };
                targets.insert(call_id, shown);
            }
            AgentEvent::ToolResult {
                call_id,
                action,
                ok,
                refused,
                error,
                ..
            } => {
                if !ok && !refused {
                    let (code, message) = split_error(error.as_deref().unwrap_or_default());
                    let failure = Failure {
                        action: action.clone(),
                        code,
                        message,
                    };
                    if failures.len() < MAX_ITEMS && !failures.contains(&failure) {
                        failures.push(failure);
                    }
                } else if *ok && reflected && !is_reading(action) {
                    reflected = false;
                    let fix = targets
                        .get(call_id.as_str())
                        .cloned()
                        .unwrap_or(action.clone());
                    if fixes.len() < MAX_ITEMS && !fixes.contains(&fix) {
                        fixes.push(fix);
                    }
                }
            }
            AgentEvent::Reflection { .. } => reflected = true,
            _ => {}
        }
    }
    let start_url = first_url.unwrap_or_default();
    let mut experience = Experience {
        id: id.to_owned(),
        created,
        task: task.trim().to_owned(),
        domain: domain_of(&start_url),
        start_url,
        outcome: report.reason.to_owned(),
        success: report.success,
        steps: report.steps,
        failures,
        fixes,
        text: String::new(),
    };
    experience.text = render(&experience);
    experience
}

/// The lesson line: `"file a claim" on demo.test: failed after 2 steps; failed:
/// click element_not_found (no element…); worked after reflecting: click e2`.
pub fn render(e: &Experience) -> String {
    let mut text = format!("\"{}\"", e.task);
    if !e.domain.is_empty() {
        text.push_str(&format!(" on {}", e.domain));
    }
    let verdict = if e.success { "succeeded" } else { &e.outcome };
    text.push_str(&format!(": {verdict} after {} steps", e.steps));
    if !e.failures.is_empty() {
        let failed: Vec<String> = e
            .failures
            .iter()
            .map(|f| format!("{} {} ({})", f.action, f.code, f.message))
            .collect();
        text.push_str(&format!("; failed: {}", failed.join(", ")));
    }
    if !e.fixes.is_empty() {
        text.push_str(&format!(
            "; worked after reflecting: {}",
            e.fixes.join(", ")
        ));
    }
    text
}

/// The host of `url` ("" when it has none).
pub fn domain_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Reading the page is not a fix: the action after it is.
fn is_reading(action: &str) -> bool {
    matches!(action, "extract" | "list_tabs" | "screenshot" | "find")
}

/// `code: message` as the runner writes it (see
/// [`AgentEvent::ToolResult::error`]) → its two parts.
fn split_error(error: &str) -> (String, String) {
    let (code, message) = match error.split_once(": ") {
        Some((code, message)) if !code.contains(' ') => (code, message),
        _ => ("error", error),
    };
    let message: String = if message.chars().count() > MAX_MESSAGE {
        message.chars().take(MAX_MESSAGE - 1).chain(['…']).collect()
    } else {
        message.to_owned()
    };
    (code.to_owned(), message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::Status;
    use crate::llm::Usage;
    use crate::report::StopReason;
    use serde_json::json;

    fn call(id: &str, action: &str, target: &str) -> AgentEvent {
        AgentEvent::ToolCall {
            step: 1,
            call_id: id.into(),
            action: action.into(),
            target: target.into(),
            arguments: json!({}),
            usage: Usage::default(),
        }
    }

    fn result(id: &str, action: &str, error: Option<&str>) -> AgentEvent {
        AgentEvent::ToolResult {
            step: 1,
            call_id: id.into(),
            action: action.into(),
            ok: error.is_none(),
            refused: false,
            outcome: String::new(),
            error: error.map(str::to_owned),
            ms: 3,
        }
    }

    fn report(stop: StopReason, steps: u32) -> FinalReport {
        FinalReport {
            success: stop == StopReason::Status(Status::Done),
            reason: stop.code(),
            detail: stop.detail(),
            answer: String::new(),
            steps,
            actions: 0,
            reflections: 1,
            wall_ms: 10,
            usage: Usage::default(),
            stop,
        }
    }

    fn failed_then_fixed() -> Vec<AgentEvent> {
        vec![
            call("p", "navigate", "http://demo.test/claim/"),
            result("p", "navigate", None),
            call("c1", "click", "e7"),
            result(
                "c1",
                "click",
                Some("element_not_found: no element with uid \"e7\""),
            ),
            AgentEvent::Reflection {
                step: 1,
                failure: "element_not_found".into(),
                remaining: 2,
            },
            call("c2", "extract", ""),
            result("c2", "extract", None),
            call("c3", "click", "e2"),
            result("c3", "click", None),
            call("c4", "type", "e1"),
            result("c4", "type", None),
        ]
    }

    #[test]
    fn a_failure_and_its_fix_are_kept_and_rendered() {
        let events = failed_then_fixed();
        let report = report(StopReason::Status(Status::Done), 4);
        let e = summarize("abc", 7, " file a claim ", None, &events, &report);
        assert_eq!(e.start_url, "http://demo.test/claim/");
        assert_eq!(e.domain, "demo.test");
        assert_eq!(e.task, "file a claim");
        assert_eq!(e.outcome, "done");
        assert_eq!(
            e.failures,
            [Failure {
                action: "click".into(),
                code: "element_not_found".into(),
                message: "no element with uid \"e7\"".into()
            }]
        );
        // The read after the reflection is not the fix; the later type is not
        // one either (no reflection before it).
        assert_eq!(e.fixes, ["click e2"]);
        assert_eq!(
            e.text,
            "\"file a claim\" on demo.test: succeeded after 4 steps; failed: click \
             element_not_found (no element with uid \"e7\"); worked after reflecting: click e2"
        );
        // Deterministic: the same run gives the same experience.
        assert_eq!(
            e,
            summarize("abc", 7, " file a claim ", None, &events, &report)
        );
    }

    #[test]
    fn the_start_url_wins_and_long_messages_are_cut() {
        let long = format!("timeout: {}", "x".repeat(300));
        let events = vec![
            call("c1", "wait_for", "#a"),
            result("c1", "wait_for", Some(&long)),
            result("c1", "wait_for", Some(&long)),
            call("c2", "click", "e1"),
            result("c2", "click", Some("went wrong badly")),
        ];
        let e = summarize(
            "i",
            1,
            "t",
            Some("https://shop.example:8443/a"),
            &events,
            &report(StopReason::MaxSteps(3), 3),
        );
        assert_eq!(e.domain, "shop.example");
        assert_eq!(e.failures.len(), 2, "the same failure is kept once");
        assert_eq!(e.failures[0].message.chars().count(), MAX_MESSAGE);
        assert_eq!(e.failures[1].code, "error");
        assert!(e.fixes.is_empty());
        assert!(
            e.text
                .starts_with("\"t\" on shop.example: max_steps after 3 steps")
        );
    }

    #[test]
    fn a_run_without_a_url_has_no_domain() {
        let e = summarize("i", 1, "t", None, &[], &report(StopReason::NoStatus, 1));
        assert_eq!((e.domain.as_str(), e.start_url.as_str()), ("", ""));
        assert_eq!(e.text, "\"t\": no_status after 1 steps");
    }
}
