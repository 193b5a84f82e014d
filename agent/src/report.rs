//! What a run tells the world: the events (`--json` writes one per line) and the
//! final report.

use serde::Serialize;
use serde_json::Value;

use crate::guard::{Loop, Status};
use crate::llm::Usage;

/// One thing that happened in a run. Serialised tagged by `event` with camelCase
/// fields, e.g. `{"event":"tool_result","step":2,"callId":"c2",…}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "event",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AgentEvent {
    /// A step begins: the conversation is about to be sent. Step 0 is the
    /// prelude (navigating to `--url` and reading the page) before the first model call.
    StepStarted {
        /// 1-based step number (0: prelude).
        step: u32,
        /// Time since the run started (ms).
        elapsed_ms: u64,
    },
    /// The model asked for a tool call (or the prelude made one).
    ToolCall {
        /// Step number.
        step: u32,
        /// The provider's call id.
        call_id: String,
        /// The action name (`click`), or the tool name when it is not `browser`.
        action: String,
        /// What it acts on (uid, selector, URL…).
        target: String,
        /// The arguments as the model sent them.
        arguments: Value,
        /// Tokens of the model reply that made this call (0 for the prelude).
        usage: Usage,
    },
    /// The call's outcome.
    ToolResult {
        /// Step number.
        step: u32,
        /// The call id.
        call_id: String,
        /// The action name.
        action: String,
        /// It succeeded.
        ok: bool,
        /// It was refused without being executed (identical repeat).
        refused: bool,
        /// A few words (`12 elements`, `ok`, `element_not_found`).
        outcome: String,
        /// `code: message` when it failed.
        error: Option<String>,
        /// Wall time of the bridge call (ms; 0 when not executed).
        ms: u64,
    },
    /// The model was asked to reflect after a failure.
    Reflection {
        /// Step number.
        step: u32,
        /// The failure it reflects on.
        failure: String,
        /// Reflections left after this one.
        remaining: u32,
    },
    /// An MCP server was taken out of the run with its tools: it did not start
    /// (step 0) or it stopped. Sent once per server.
    ServerWithdrawn {
        /// Step number.
        step: u32,
        /// Its name in the MCP config.
        server: String,
        /// What happened.
        reason: String,
    },
    /// The run (or chat turn) ended.
    Final(FinalReport),
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The model ended with a `STATUS:` line (success only for `DONE` with no
    /// failed check).
    Status(Status),
    /// `STATUS: DONE` while a check had failed and was not resolved.
    FailedCheck(String),
    /// An extract reported an obstacle with confidence high.
    Obstacle {
        /// Its type (`auth_wall`).
        kind: String,
        /// Its message.
        message: String,
    },
    /// A terminal error code (`domain_blocked`, `cancelled`, `not_connected`…).
    Terminal(String),
    /// `--max-steps` model calls without a final status.
    MaxSteps(u32),
    /// `--timeout` passed.
    Timeout(u64),
    /// The same action pattern repeated.
    Loop(Loop),
    /// The model stopped calling tools without a `STATUS:` line, even when asked.
    NoStatus,
    /// The model API failed.
    Model(String),
    /// A chat turn: the model answered without a tool call.
    Answered,
}

impl StopReason {
    /// The snake_case reason code of the final event.
    pub fn code(&self) -> &'static str {
        match self {
            StopReason::Status(Status::Done) => "done",
            StopReason::Status(Status::Failed) => "failed",
            StopReason::FailedCheck(_) => "failed_check",
            StopReason::Obstacle { .. } => "obstacle",
            StopReason::Terminal(_) => "terminal_error",
            StopReason::MaxSteps(_) => "max_steps",
            StopReason::Timeout(_) => "timeout",
            StopReason::Loop(_) => "loop",
            StopReason::NoStatus => "no_status",
            StopReason::Model(_) => "model_error",
            StopReason::Answered => "answered",
        }
    }

    /// One line for people.
    pub fn detail(&self) -> String {
        match self {
            StopReason::Status(Status::Done) => "the model reported STATUS: DONE".into(),
            StopReason::Status(Status::Failed) => "the model reported STATUS: FAILED".into(),
            StopReason::FailedCheck(check) => {
                format!("the model reported DONE but a check failed: {check}")
            }
            StopReason::Obstacle { kind, message } => {
                format!("obstacle {kind} (high): {message}")
            }
            StopReason::Terminal(error) => error.clone(),
            StopReason::MaxSteps(n) => format!("stopped after {n} steps (--max-steps)"),
            StopReason::Timeout(ms) => format!("stopped after {} s (--timeout)", ms / 1000),
            StopReason::Loop(l) => format!(
                "stopped: the same {} call(s) repeated {} times",
                l.period, l.repeats
            ),
            StopReason::NoStatus => {
                "the model stopped without a STATUS: DONE / STATUS: FAILED line".into()
            }
            StopReason::Model(error) => format!("model API error: {error}"),
            StopReason::Answered => "the model answered".into(),
        }
    }
}

/// The end of a run: verdict, answer, and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalReport {
    /// `STATUS: DONE` (a chat turn: an answer), no unresolved failed check, and
    /// no guardrail stop.
    pub success: bool,
    /// The reason code (see [`StopReason::code`]).
    pub reason: &'static str,
    /// The reason for people.
    pub detail: String,
    /// The model's final answer (without the status line), or the last thing it said.
    pub answer: String,
    /// Model calls made.
    pub steps: u32,
    /// Tool calls executed (refused ones excluded).
    pub actions: u32,
    /// Reflections injected.
    pub reflections: u32,
    /// Wall time of the whole run (ms).
    pub wall_ms: u64,
    /// Tokens summed over every reply, as the provider reported them.
    pub usage: Usage,
    /// Why it stopped, typed.
    #[serde(skip)]
    pub stop: StopReason,
}

impl FinalReport {
    /// The report's closing line:
    /// `success · 5 steps · 6 actions · 12.3 s · 8120 prompt (6000 cached) + 310
    /// completion tokens` (the cached part only when there is one).
    pub fn summary_line(&self) -> String {
        let cached = match self.usage.cached_prompt_tokens {
            0 => String::new(),
            n => format!(" ({n} cached)"),
        };
        format!(
            "{} · {} steps · {} actions · {:.1} s · {} prompt{cached} + {} completion tokens",
            if self.success { "success" } else { "failure" },
            self.steps,
            self.actions,
            self.wall_ms as f64 / 1000.0,
            self.usage.prompt_tokens,
            self.usage.completion_tokens,
        )
    }
}

/// Receives a run's events as they happen.
pub trait Progress: Send {
    /// One event.
    fn event(&mut self, event: &AgentEvent);

    /// The loop starts (`true`) or stops (`false`) waiting for the model.
    fn waiting_for_model(&mut self, _waiting: bool) {}
}

/// Keeps every event (tests, the demo-site task set).
impl Progress for Vec<AgentEvent> {
    fn event(&mut self, event: &AgentEvent) {
        self.push(event.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_tagged_with_camel_case_fields() {
        let event = AgentEvent::ToolResult {
            step: 2,
            call_id: "c2".into(),
            action: "click".into(),
            ok: false,
            refused: true,
            outcome: "refused".into(),
            error: Some("refused: …".into()),
            ms: 0,
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["event"], "tool_result");
        assert_eq!(json["callId"], "c2");
        assert_eq!(json["refused"], true);
        let started = serde_json::to_value(AgentEvent::StepStarted {
            step: 1,
            elapsed_ms: 5,
        })
        .unwrap();
        assert_eq!(
            started,
            serde_json::json!({"event": "step_started", "step": 1, "elapsedMs": 5})
        );
    }

    #[test]
    fn the_final_event_carries_tokens_and_the_reason() {
        let report = FinalReport {
            success: false,
            reason: StopReason::MaxSteps(3).code(),
            detail: StopReason::MaxSteps(3).detail(),
            answer: String::new(),
            steps: 3,
            actions: 3,
            reflections: 0,
            wall_ms: 1500,
            usage: Usage {
                prompt_tokens: 30,
                cached_prompt_tokens: 0,
                completion_tokens: 6,
            },
            stop: StopReason::MaxSteps(3),
        };
        let json = serde_json::to_value(AgentEvent::Final(report.clone())).unwrap();
        assert_eq!(json["event"], "final");
        assert_eq!(json["reason"], "max_steps");
        assert_eq!(json["usage"]["promptTokens"], 30);
        assert_eq!(json["wallMs"], 1500);
        assert_eq!(
            report.summary_line(),
            "failure · 3 steps · 3 actions · 1.5 s · 30 prompt + 6 completion tokens"
        );
    }
}
