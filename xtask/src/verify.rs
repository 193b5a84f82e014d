//! `cargo xtask verify`: the built-in agent against a real model on the bundled
//! demo site in real headless Chromium, via the `browser-bridge-verify` binary of
//! the tests crate, which serves the site, pairs the browser and runs the task set.
//! Without an API key it says so and exits 0.

use anyhow::Result;

/// Builds what verification needs and runs it; `args` go to `browser-bridge-verify`
/// (`--provider`, `--model`, `--base-url`, `--max-steps`, `--timeout`).
///
/// # Errors
/// A missing tool, a failed build, or a task that did not pass (non-zero exit).
pub(crate) fn run_verify(args: &[String]) -> Result<()> {
    crate::demo::run_with_browser("browser-bridge-verify", args)
}
