//! `cargo xtask demo`: the main job on a fresh machine. Ensures the wasm32 target
//! and Chromium, builds the extension and the backend, then runs the demo binary
//! (`browser-bridge-demo`): the bundled demo site, `browser-bridge serve` on a
//! free port with a fresh config dir, headless Chromium with the extension paired
//! with the real token, and the scripted agent through the HTTP API.

use anyhow::Result;

use crate::env::{cargo, ensure_chromium, ensure_wasm_target, run, workspace_root};

/// Builds what the demo needs and runs it; `args` go to `browser-bridge-demo`
/// (`--headed`, `--keep-open`).
///
/// # Errors
/// A missing tool that cannot be installed (the message says what to install), a
/// failed build, or a demo whose checks did not all hold (non-zero exit).
pub(crate) fn run_demo(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--headed") && std::env::var_os("DISPLAY").is_none() {
        anyhow::bail!(
            "--headed needs a display ($DISPLAY is not set); run without it for headless"
        );
    }
    run_with_browser("browser-bridge-demo", args)
}

/// Ensures the wasm32 target and Chromium, builds the extension and the backend,
/// then runs `bin` from the tests crate (a program that starts `serve`, Chromium
/// with the paired extension and the demo site) with `args`.
///
/// # Errors
/// A missing tool that cannot be installed (the message says what to install), a
/// failed build, or `bin` exiting non-zero.
pub(crate) fn run_with_browser(bin: &str, args: &[String]) -> Result<()> {
    let root = workspace_root();
    ensure_wasm_target()?;
    let chromium = ensure_chromium()?;
    crate::extension::build_extension(true)?;
    run(cargo().current_dir(root).args([
        "build",
        "-p",
        "browser-bridge",
        "--bin",
        "browser-bridge",
    ]))?;
    run(cargo()
        .current_dir(root)
        .args(["run", "-p", "browser-bridge-tests", "--bin", bin, "--"])
        .args(args)
        .env("CHROMIUM", &chromium))
}
