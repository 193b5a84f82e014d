//! `cargo xtask test`: everything CI runs, on a fresh machine.
//!
//! Ensures the toolchain pieces (wasm32 target, Chromium), runs the lints (fmt,
//! clippy and rustdoc with warnings denied), builds the extension and the backend,
//! runs every test suite of the native crates (unit, golden vectors,
//! backend socket tests, MCP, agent, Chromium end-to-end, conformance in both
//! modes, corpus), then the demo, the product's main job.

use anyhow::{Context, Result, bail};

use crate::env::{
    cargo, ensure_chromium, ensure_lint_components, ensure_wasm_target, run, workspace_root,
};

/// The wasm-bindgen version the glue generator (the `wasm-bindgen-cli-support`
/// dependency of xtask) is pinned to; the extension's `wasm-bindgen` crate must match.
const WASM_BINDGEN_VERSION: &str = "0.2.130";

/// Checks that Cargo.lock pins `wasm-bindgen` at [`WASM_BINDGEN_VERSION`]: the glue
/// generator refuses wasm made by another version.
fn check_wasm_bindgen_lock() -> Result<()> {
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock"))
        .context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            let version = lines.next().unwrap_or_default();
            if version != format!("version = \"{WASM_BINDGEN_VERSION}\"") {
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

/// The checks that keep the code clean: no module import cycles
/// ([`crate::cycles`]), `cargo fmt --check`, clippy with warnings denied (native,
/// and wasm32 for the extension), rustdoc with warnings denied.
///
/// # Errors
/// The first check that fails.
fn lint() -> Result<()> {
    let root = workspace_root();
    crate::cycles::check(root)?;
    run(cargo().current_dir(root).args(["fmt", "--all", "--check"]))?;
    run(cargo().current_dir(root).args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    run(cargo().current_dir(root).args([
        "clippy",
        "-p",
        "browser-bridge-extension",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]))?;
    let native_docs: &[&str] = &["--workspace", "--exclude", "browser-bridge-extension"];
    let wasm_docs: &[&str] = &[
        "-p",
        "browser-bridge-extension",
        "--target",
        "wasm32-unknown-unknown",
    ];
    for which in [native_docs, wasm_docs] {
        run(cargo()
            .current_dir(root)
            .env("RUSTDOCFLAGS", "-D warnings")
            .args(["doc", "--no-deps"])
            .args(which))?;
    }
    Ok(())
}

/// The whole CI run; fails on the first suite that fails.
///
/// # Errors
/// A missing tool that cannot be installed, a lint, a failed build, a failed
/// test, or a demo whose checks did not all hold.
pub(crate) fn test() -> Result<()> {
    let root = workspace_root();
    check_wasm_bindgen_lock()?;
    ensure_wasm_target()?;
    ensure_lint_components()?;
    lint()?;
    ensure_chromium()?;
    crate::env::ensure_headed_display();
    crate::extension::build_extension(true)?;
    // The embedder's tests use the model as it ships.
    crate::model::install_model()?;
    run(cargo()
        .current_dir(root)
        .args(["build", "-p", "browser-bridge", "--bins"]))?;
    // Every crate, the extension's pure `core` included (natively). Without
    // backtraces, a failing test's own message ends the log, where a log cut
    // to its tail still shows it.
    run(cargo()
        .current_dir(root)
        .env("RUST_BACKTRACE", "0")
        .args(["test", "--workspace"]))?;
    crate::demo::run_demo(&[])?;
    eprintln!("xtask test: every suite and the demo passed");
    Ok(())
}
