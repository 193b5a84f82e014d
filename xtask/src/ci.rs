//! `cargo xtask test`: everything CI runs, on a fresh machine.
//!
//! Ensures the toolchain pieces (wasm32 target, Chromium), builds the extension and
//! the backend, runs every test suite of the native crates (unit, golden vectors,
//! backend socket tests, MCP, Chromium end-to-end, conformance in both modes,
//! corpus), then the demo, the product's main job.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The wasm-bindgen version the glue generator (the `wasm-bindgen-cli-support`
/// dependency of xtask) is pinned to; the extension's `wasm-bindgen` crate must match.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// Runs a command, streaming its output; fails when it exits non-zero.
pub fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// `cargo` as invoked by this xtask (the same toolchain).
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// The workspace root (the parent of xtask/).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
}

/// Checks that Cargo.lock pins `wasm-bindgen` at [`WASM_BINDGEN_VERSION`]: the glue
/// generator refuses wasm from another version.
pub fn check_wasm_bindgen_lock() -> Result<()> {
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock"))
        .context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            let version = lines.next().unwrap_or_default();
            let expected = format!("version = \"{WASM_BINDGEN_VERSION}\"");
            if version != expected {
                bail!(
                    "Cargo.lock has wasm-bindgen {version} but xtask's glue generator is \
                     {WASM_BINDGEN_VERSION}: keep both pinned to the same version"
                );
            }
            return Ok(());
        }
    }
    bail!("Cargo.lock has no wasm-bindgen entry")
}

/// The whole CI run.
pub fn test() -> Result<()> {
    let root = workspace_root();
    check_wasm_bindgen_lock()?;
    crate::env::ensure_wasm_target()?;
    crate::env::ensure_chromium()?;
    crate::extension::build_extension(true)?;
    run(cargo().current_dir(root).args(["build", "-p", "browser-bridge", "--bins"]))?;
    run(cargo().current_dir(root).args(["test", "--workspace", "--exclude", "browser-bridge-extension"]))?;
    crate::demo::run_demo(&[])?;
    eprintln!("xtask test: all suites and the demo passed");
    Ok(())
}
