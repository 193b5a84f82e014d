//! `cargo xtask demo`: the main job on a fresh machine. Ensures the wasm32 target
//! and Chromium, builds the extension and the backend, then runs the demo binary
//! (`browser-bridge-demo`): the bundled demo site, `browser-bridge serve` on a
//! free port with a fresh config dir, headless Chromium with the extension paired
//! with the real token, and the scripted agent through the HTTP API.

use anyhow::Result;

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
    crate::env::run_with_browser("browser-bridge-demo", args)
}
