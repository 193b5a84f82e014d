//! `cargo xtask verify`: the built-in agent against a real model on the bundled
//! demo site in real headless Chromium (`browser-bridge verify`, via the
//! `browser-bridge-verify` binary, which serves the site and pairs the browser).
//! Without an API key it says so and exits 0.

use anyhow::Result;

use crate::env::{cargo, ensure_chromium, ensure_wasm_target, run, workspace_root};
use crate::extension::build_extension;

/// Builds what verification needs and runs it; `args` go to `browser-bridge verify`
/// (`--provider`, `--model`, `--base-url`, `--max-steps`, `--timeout`, `--json`).
///
/// # Errors
/// A missing tool, a failed build, or a task that did not pass (non-zero exit).
pub(crate) fn run_verify(args: &[String]) -> Result<()> {
    let root = workspace_root();
    ensure_wasm_target()?;
    let chromium = ensure_chromium()?;
    build_extension(true)?;
    run(cargo().current_dir(root).args([
        "build",
        "-p",
        "browser-bridge",
        "--bin",
        "browser-bridge",
    ]))?;
    run(cargo()
        .current_dir(root)
        .args([
            "run",
            "-p",
            "browser-bridge-tests",
            "--bin",
            "browser-bridge-verify",
            "--",
        ])
        .args(args)
        .env("CHROMIUM", &chromium))
}
