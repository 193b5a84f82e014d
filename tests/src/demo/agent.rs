//! The scripted agent's hands: one action per `POST /v1/act`, each printed as a
//! step (action, target, outcome, ms) as it completes.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::conformance::backend::HttpApi;
use crate::conformance::wire::short;

/// One printed step of the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The action name, or `check` for an assertion on what was read.
    pub action: String,
    /// What it acted on (uid and name, URL, expression).
    pub target: String,
    /// What happened, in a few words.
    pub outcome: String,
    /// Wall time of the call (ms); 0 for checks.
    pub ms: u64,
    /// The step did what the scenario needed.
    pub ok: bool,
}

/// Runs actions through the backend's HTTP API and keeps the record of steps.
#[derive(Debug)]
pub struct Agent {
    api: HttpApi,
    tab: Option<u64>,
    steps: Vec<Step>,
    extract_bytes: usize,
    quiet: bool,
}

/// A failed step: what the scenario was doing and why it could not go on.
pub type StepError = String;

impl Agent {
    /// An agent talking to `api`; `quiet` turns off printing.
    pub fn new(api: HttpApi, quiet: bool) -> Self {
        Agent {
            api,
            tab: None,
            steps: Vec::new(),
            extract_bytes: 0,
            quiet,
        }
    }

    /// Every step so far.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Total bytes of JSON returned by `extract` calls.
    pub fn extract_bytes(&self) -> usize {
        self.extract_bytes
    }

    /// Sends `action` (with the agent's tab once it has one) and returns the
    /// result; an error answer fails the step.
    ///
    /// # Errors
    /// The call failed or answered an error; the step is recorded as failed.
    pub async fn act(&mut self, mut action: Value, target: &str) -> Result<Value, StepError> {
        if let (Some(tab), Some(fields)) = (self.tab, action.as_object_mut()) {
            fields.entry("tabId").or_insert(json!(tab));
        }
        let name = action["action"].as_str().unwrap_or("?").to_owned();
        let started = Instant::now();
        let answer = self.api.act(&action).await;
        let ms = elapsed_ms(started.elapsed());
        let failure = match answer {
            Ok((200, result)) => {
                if name == "extract" {
                    self.extract_bytes += result.to_string().len();
                }
                if let Some(tab) = result.get("tabId").and_then(Value::as_u64) {
                    self.tab.get_or_insert(tab);
                }
                self.record(&name, target, describe(&name, &result), ms, true);
                return Ok(result);
            }
            Ok((status, body)) => format!("HTTP {status} {}", short(&body)),
            Err(e) => e,
        };
        self.record(&name, target, failure.clone(), ms, false);
        Err(format!("{name} {target}: {failure}"))
    }

    /// Records an assertion on what the agent read.
    ///
    /// # Errors
    /// `ok` is false; the step is recorded as failed.
    pub fn check(&mut self, what: &str, ok: bool, outcome: String) -> Result<(), StepError> {
        self.record("check", what, outcome.clone(), 0, ok);
        if ok {
            Ok(())
        } else {
            Err(format!("check {what}: {outcome}"))
        }
    }

    fn record(&mut self, action: &str, target: &str, outcome: String, ms: u64, ok: bool) {
        let step = Step {
            action: action.to_owned(),
            target: target.to_owned(),
            outcome,
            ms,
            ok,
        };
        if !self.quiet {
            println!("{}", line(self.steps.len() + 1, &step));
        }
        self.steps.push(step);
    }
}

/// The column titles above the [`line()`]s.
pub fn header() -> String {
    format!(
        "{:>3}  {:<9} {:<38} {:<52} {:>9}",
        "#", "action", "target", "outcome", "time"
    )
}

/// `  3  type     e1 "New item"    value "Buy milk"    12 ms`.
pub fn line(n: usize, step: &Step) -> String {
    let mark = if step.ok { "" } else { "FAILED: " };
    let time = if step.action == "check" {
        String::new()
    } else {
        format!("{:>6} ms", step.ms)
    };
    format!(
        "{n:>3}  {:<9} {:<38} {mark}{:<52} {time}",
        step.action,
        clip(&step.target, 38),
        clip(&step.outcome, 52)
    )
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

fn elapsed_ms(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

/// A few words on a successful result.
fn describe(action: &str, result: &Value) -> String {
    match action {
        "navigate" => format!(
            "tab {} \"{}\"",
            result["tabId"],
            result["title"].as_str().unwrap_or("")
        ),
        "extract" => {
            let elements = result["elements"].as_array().map_or(0, Vec::len);
            let markdown = result["markdown"].as_str().map_or(0, str::len);
            let obstacle = result["obstacle"]["type"]
                .as_str()
                .map(|o| format!(", obstacle {o}"))
                .unwrap_or_default();
            format!("{elements} elements, {markdown} B markdown{obstacle}")
        }
        "type" => format!("value {}", result["value"]),
        "click" => match result["navigated"].as_bool() {
            Some(true) => "clicked, navigated".into(),
            _ => "clicked".into(),
        },
        "evaluate" => format!(
            "{} {}",
            result["type"].as_str().unwrap_or("?"),
            result["value"]
        ),
        _ => "ok".into(),
    }
}
