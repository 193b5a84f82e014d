//! The demo-site task set for the built-in agent: a fixed set of tasks on the
//! bundled demo site (to-do app, claim form, sign-in-gated portal) run against a
//! real model, reporting pass rate, steps, time and tokens per task. A developer
//! tool, not part of the product binary: `cargo xtask verify` runs it through the
//! `browser-bridge-verify` binary, which serves the site and a paired headless
//! Chromium.

use std::time::Duration;

use browser_bridge_agent::llm::LlmClient;
use browser_bridge_agent::report::{AgentEvent, FinalReport, Progress, StopReason};
use browser_bridge_agent::runner::{self, RunOptions};
use browser_bridge_backend::Bridge;
use browser_bridge_protocol::ErrorCode;

/// What a task must end with to pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Success, and the answer contains this text.
    DoneWith(&'static str),
    /// `STATUS: FAILED` (the task is impossible; saying so is the right answer).
    Failed,
    /// Stopped by a high-confidence obstacle of this type.
    Obstacle(&'static str),
}

/// One verification task.
#[derive(Debug, Clone, Copy)]
pub struct VerifyTask {
    /// Short name for the table.
    pub name: &'static str,
    /// Path on the demo site to start from.
    pub path: &'static str,
    /// The task as a user would say it.
    pub task: &'static str,
    /// What passes.
    pub expect: Expect,
}

/// The fixed task set.
pub const TASKS: [VerifyTask; 4] = [
    VerifyTask {
        name: "todo",
        path: "/todo/",
        task: "Add two items to the to-do list, \"buy milk\" and \"call the plumber\", then tell \
               me the item count the page shows.",
        expect: Expect::DoneWith("2"),
    },
    VerifyTask {
        name: "claim",
        path: "/claim/",
        task: "File a claim for policy P-1234: the incident was on 2026-03-14, a cracked \
               windscreen. Tell me the claim reference number.",
        expect: Expect::DoneWith("CLM-"),
    },
    VerifyTask {
        name: "claim-unknown-policy",
        path: "/claim/",
        task: "File a claim for policy P-9999 (incident 2026-03-14, hail damage) and tell me \
               the claim reference number.",
        expect: Expect::Failed,
    },
    VerifyTask {
        name: "portal",
        path: "/portal",
        task: "Open the customer portal and tell me the balance of my account.",
        expect: Expect::Obstacle("auth_wall"),
    },
];

/// Whether `report` meets `expect`.
pub fn passed(expect: Expect, report: &FinalReport) -> bool {
    match expect {
        Expect::DoneWith(text) => report.success && report.answer.contains(text),
        Expect::Failed => report.reason == "failed",
        Expect::Obstacle(kind) => {
            matches!(&report.stop, StopReason::Obstacle { kind: found, .. } if found == kind)
        }
    }
}

/// One finished task: its name, whether it passed, and the run's report.
pub type Row = (&'static str, bool, FinalReport);

/// Runs every task of [`TASKS`] on `site` (its base URL) through `bridge` with
/// `model`; stops early when the browser goes away. Progress lines go to stderr.
pub async fn run_tasks<B: Bridge>(
    bridge: &B,
    model: &LlmClient,
    site: &str,
    max_steps: u32,
    timeout: Duration,
) -> Vec<Row> {
    let site = site.trim_end_matches('/');
    let mut rows = Vec::new();
    for task in TASKS {
        eprintln!("── {} ──", task.name);
        let options = RunOptions {
            task: task.task.to_owned(),
            url: Some(format!("{site}{}", task.path)),
            max_steps,
            timeout,
            observe: true,
            handoff: None,
            lessons: None,
        };
        let report = runner::run_task(bridge, model, &options, &mut StderrProgress).await;
        let ok = passed(task.expect, &report);
        let gone = report.reason == StopReason::Terminal(String::new()).code()
            && report.detail.starts_with(ErrorCode::NotConnected.as_str());
        rows.push((task.name, ok, report));
        if gone {
            eprintln!("verify: the browser went away; stopping");
            break;
        }
    }
    rows
}

/// True when every task ran and passed.
pub fn all_passed(rows: &[Row]) -> bool {
    rows.len() == TASKS.len() && rows.iter().all(|(_, ok, _)| *ok)
}

/// One stderr line per event, as JSON.
struct StderrProgress;

impl Progress for StderrProgress {
    fn event(&mut self, event: &AgentEvent) {
        if let Ok(line) = serde_json::to_string(event) {
            eprintln!("{line}");
        }
    }
}

/// The result table, one row per task, and the pass rate.
pub fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<22} {:<5} {:>5} {:>8} {:>9} {:>9} {:>10}  reason\n",
        "task", "pass", "steps", "time s", "prompt", "cached", "completion"
    );
    for (name, ok, report) in rows {
        out.push_str(&format!(
            "{:<22} {:<5} {:>5} {:>8.1} {:>9} {:>9} {:>10}  {}\n",
            name,
            if *ok { "yes" } else { "no" },
            report.steps,
            report.wall_ms as f64 / 1000.0,
            report.usage.prompt_tokens,
            report.usage.cached_prompt_tokens,
            report.usage.completion_tokens,
            report.reason
        ));
    }
    let passed = rows.iter().filter(|(_, ok, _)| *ok).count();
    out.push_str(&format!("pass rate: {passed}/{}", TASKS.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser_bridge_agent::guard::Status;
    use browser_bridge_agent::llm::Usage;

    fn report(stop: StopReason, answer: &str) -> FinalReport {
        FinalReport {
            success: stop == StopReason::Status(Status::Done),
            reason: stop.code(),
            detail: stop.detail(),
            answer: answer.into(),
            steps: 1,
            actions: 1,
            reflections: 0,
            wall_ms: 1,
            usage: Usage::default(),
            stop,
        }
    }

    #[test]
    fn expectations() {
        let done = report(
            StopReason::Status(Status::Done),
            "Reference CLM-2026-001234",
        );
        assert!(passed(Expect::DoneWith("CLM-"), &done));
        assert!(!passed(
            Expect::DoneWith("CLM-"),
            &report(StopReason::Status(Status::Done), "ok")
        ));
        assert!(!passed(Expect::Failed, &done));
        assert!(passed(
            Expect::Failed,
            &report(StopReason::Status(Status::Failed), "no")
        ));
        let wall = StopReason::Obstacle {
            kind: "auth_wall".into(),
            message: "sign in".into(),
        };
        assert!(passed(Expect::Obstacle("auth_wall"), &report(wall, "")));
        assert!(!passed(
            Expect::Obstacle("auth_wall"),
            &report(StopReason::NoStatus, "")
        ));
    }
}
