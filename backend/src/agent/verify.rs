//! `browser-bridge verify`: a fixed set of tasks on the bundled demo site
//! (tests/demo-site: to-do app, claim form, sign-in-gated portal) run against a
//! real model, reporting pass rate, steps, time and tokens per task. Without an
//! API key it says so and exits 0 (skipped). `cargo xtask verify` sets up the site
//! and a paired headless Chromium and runs it.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use crate::agent::cli::{BrowserArgs, ModelArgs, connect, fail};
use crate::agent::output::CliProgress;
use crate::agent::report::{FinalReport, StopReason};
use crate::agent::runner::{self, RunOptions};
use browser_bridge_protocol::{BridgeError, ErrorCode};

/// `verify` arguments.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Base URL of the running demo site, e.g. http://127.0.0.1:8123.
    /// `cargo xtask verify` serves the site, pairs a headless Chromium and passes
    /// this (and --listen, --config-dir) itself.
    #[arg(long, env = "BROWSER_BRIDGE_DEMO_URL", value_name = "URL")]
    pub site: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub model: ModelArgs,
    /// Most model calls per task.
    #[arg(long, default_value_t = runner::DEFAULT_MAX_STEPS)]
    pub max_steps: u32,
    /// Longest run per task.
    #[arg(long, value_name = "DURATION", default_value = "180s", value_parser = crate::cli::parse_duration)]
    pub timeout: Duration,
    /// Also write each task's events as NDJSON on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub browser: BrowserArgs,
}

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

/// `browser-bridge verify`: exit 0 when every task passed or when skipped.
pub async fn run(args: VerifyArgs) -> ExitCode {
    let Some(model) = args.model.client() else {
        eprintln!("verify: skipped: {}", args.model.missing_key_message());
        return ExitCode::SUCCESS;
    };
    let Some(site) = args
        .site
        .as_deref()
        .map(|s| s.trim_end_matches('/').to_owned())
    else {
        return fail(&BridgeError::invalid_request(
            "verify needs the demo site: pass --site http://127.0.0.1:PORT, or run \
             `cargo xtask verify`, which serves the site and a paired headless Chromium",
        ));
    };
    let connected = match connect(&args.browser).await {
        Ok(connected) => connected,
        Err(error) => return fail(&error),
    };
    let mut rows = Vec::new();
    for task in TASKS {
        eprintln!("── {} ──", task.name);
        let options = RunOptions {
            task: task.task.to_owned(),
            url: Some(format!("{site}{}", task.path)),
            max_steps: args.max_steps,
            timeout: args.timeout,
        };
        let mut progress = CliProgress::new(args.json);
        let report = runner::run_task(&connected.bridge, &model, &options, &mut progress).await;
        drop(progress);
        let ok = passed(task.expect, &report);
        if report.reason == StopReason::Terminal(String::new()).code()
            && report.detail.starts_with(ErrorCode::NotConnected.as_str())
        {
            eprintln!("verify: the browser went away; stopping");
            rows.push((task.name, ok, report));
            break;
        }
        rows.push((task.name, ok, report));
    }
    connected.close().await;
    print_table(&rows);
    if rows.len() == TASKS.len() && rows.iter().all(|(_, ok, _)| *ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_table(rows: &[(&str, bool, FinalReport)]) {
    crate::cli::print_stdout(&format!(
        "{:<22} {:<5} {:>5} {:>8} {:>9} {:>9} {:>10}  reason",
        "task", "pass", "steps", "time s", "prompt", "cached", "completion"
    ));
    for (name, ok, report) in rows {
        crate::cli::print_stdout(&format!(
            "{:<22} {:<5} {:>5} {:>8.1} {:>9} {:>9} {:>10}  {}",
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
    crate::cli::print_stdout(&format!("pass rate: {passed}/{}", TASKS.len()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::guard::Status;
    use crate::agent::llm::Usage;

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
