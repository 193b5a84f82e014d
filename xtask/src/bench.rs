//! `cargo xtask bench`: builds the release pieces (the `browser-bridge` binary,
//! the extension with the `extension` profile, the bench itself), then runs
//! `browser-bridge-bench` (tests/src/bin/bench/) once against the real stack in
//! headless Chromium and prints its table. Not a test: the numbers are for
//! reading, nothing asserts them.

use anyhow::Result;

use crate::env::{cargo, ensure_chromium, ensure_wasm_target, run, workspace_root};

/// Builds the release backend, the extension and the bench, then runs the bench;
/// `args` go to `browser-bridge-bench` (`--samples`, `--corpus`, …).
///
/// # Errors
/// A missing tool that cannot be installed, a failed build, or a failed bench run.
pub(crate) fn run_bench(args: &[String]) -> Result<()> {
    let root = workspace_root();
    ensure_wasm_target()?;
    let chromium = ensure_chromium()?;
    let dist = crate::extension::build_extension(true)?;
    run(cargo().current_dir(root).args([
        "build",
        "--release",
        "-p",
        "browser-bridge",
        "--bin",
        "browser-bridge",
        "-p",
        "browser-bridge-tests",
        "--bin",
        "browser-bridge-bench",
    ]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("release");
    run(
        std::process::Command::new(target.join("browser-bridge-bench"))
            .current_dir(root)
            .arg("--backend")
            .arg(target.join("browser-bridge"))
            .arg("--extension")
            .arg(dist)
            .args(args)
            .env("CHROMIUM", &chromium),
    )
}
