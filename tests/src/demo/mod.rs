//! The demo: the bundled demo site, the real backend, real headless Chromium with
//! the built extension, and a scripted agent driving them through the HTTP API.
//!
//! [`run_demo`] sets everything up ([`setup`]) and runs [`run_scenario`], which
//! only needs the HTTP API of some running backend with a paired extension.

pub mod agent;
pub mod scenario;
pub mod setup;
pub mod site;
pub mod verify;

use std::time::Instant;

use crate::conformance::backend::HttpApi;

use self::agent::{Agent, Step};
use self::site::DemoSite;

/// How to run the demo.
#[derive(Debug, Clone, Default)]
pub struct DemoOptions {
    /// Show the browser window (only when `$DISPLAY` is set).
    pub headed: bool,
    /// After the scenario, keep everything running until Ctrl-C.
    pub keep_open: bool,
    /// Print nothing (tests).
    pub quiet: bool,
}

/// What the scenario did.
#[derive(Debug, Clone)]
pub struct DemoSummary {
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// Wall time of the scenario (ms), setup excluded.
    pub total_ms: u64,
    /// Bytes of JSON returned by the `extract` calls.
    pub extract_bytes: usize,
    /// The first step that did not hold, if any.
    pub failure: Option<String>,
}

impl DemoSummary {
    /// Every step and check held.
    pub fn passed(&self) -> bool {
        self.failure.is_none() && self.steps.iter().all(|s| s.ok)
    }

    /// The closing line, e.g. `27 steps, 3 extracts … all checks held`.
    pub fn line(&self) -> String {
        let actions = self.steps.iter().filter(|s| s.action != "check").count();
        let checks = self.steps.len() - actions;
        let verdict = match &self.failure {
            None => "every check held".to_owned(),
            Some(why) => format!("FAILED: {why}"),
        };
        format!(
            "{} steps ({actions} actions, {checks} checks) in {:.2} s, {} bytes of extract output; {verdict}",
            self.steps.len(),
            self.total_ms as f64 / 1000.0,
            self.extract_bytes
        )
    }
}

/// Runs the scenario on `site` through `api`; never panics on a failed step.
pub async fn run_scenario(api: HttpApi, site: &DemoSite, quiet: bool) -> DemoSummary {
    let mut agent = Agent::new(api, quiet);
    let started = Instant::now();
    let outcome = scenario::run(&mut agent, site).await;
    DemoSummary {
        steps: agent.steps().to_vec(),
        total_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        extract_bytes: agent.extract_bytes(),
        failure: outcome.err(),
    }
}

/// Sets up the site, the backend and Chromium, runs the scenario, tears down.
///
/// # Errors
/// The setup failed (backend, Chromium, pairing); a failed scenario is a
/// [`DemoSummary`] whose [`DemoSummary::passed`] is false.
pub async fn run_demo(options: &DemoOptions) -> anyhow::Result<DemoSummary> {
    let say = |line: String| {
        if !options.quiet {
            println!("{line}");
        }
    };
    let site = DemoSite::start().await?;
    say(format!("demo site    {}", site.url("/")));
    let env = setup::DemoEnv::start(options).await?;
    say(env.describe());
    say(String::new());
    say(agent::header());
    let summary = run_scenario(env.api(), &site, options.quiet).await;
    say(String::new());
    say(summary.line());
    if options.keep_open {
        say(format!(
            "--keep-open: the demo site is at {}; act on the browser yourself with\n  \
             browser-bridge act --server {} --config-dir {} '{{\"action\":\"list_tabs\"}}'\n\
             Ctrl-C to stop",
            site.url("/"),
            env.base_url(),
            env.config_dir().display()
        ));
        tokio::signal::ctrl_c().await?;
    }
    env.stop().await;
    Ok(summary)
}
