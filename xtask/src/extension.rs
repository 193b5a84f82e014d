//! `cargo xtask build-extension`: the wasm extension, packaged into
//! `extension/dist/` for Chrome's "Load unpacked" (or `--load-extension`).
//!
//! Steps: ensure the wasm32 target, `cargo build -p browser-bridge-extension
//! --target wasm32-unknown-unknown --profile extension` (or the dev profile), glue
//! with the `wasm-bindgen-cli-support` library (`--target web`, no TypeScript) into
//! `dist/pkg/`, then copy `extension/static/` over `dist/`. No wasm-opt: Debian's
//! binaryen (version 108) breaks this module at init.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::env::{WASM_TARGET, cargo, ensure_wasm_target, run, workspace_root};

/// The crate's library name, which names the `.wasm` file and the glue.
const LIB_NAME: &str = "browser_bridge_extension";

/// Builds the extension into `extension/dist/` and returns that directory.
///
/// `release` selects the `extension` profile (size-optimised, what ships and what
/// the end-to-end tests load); otherwise the dev profile (faster to compile).
/// Neither build carries a pairing token or test hooks.
///
/// # Errors
/// When the target cannot be installed, cargo or wasm-bindgen fails, or the files
/// cannot be copied.
pub(crate) fn build_extension(release: bool) -> Result<PathBuf> {
    let root = workspace_root();
    ensure_wasm_target()?;
    let profile = if release { "extension" } else { "dev" };
    run(cargo().current_dir(root).args([
        "build",
        "-p",
        "browser-bridge-extension",
        "--target",
        WASM_TARGET,
        "--profile",
        profile,
    ]))?;
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let profile_dir = if release { "extension" } else { "debug" };
    let wasm = target_dir
        .join(WASM_TARGET)
        .join(profile_dir)
        .join(format!("{LIB_NAME}.wasm"));

    let dist = root.join("extension").join("dist");
    let staging = root.join("extension").join(".dist-staging");
    if staging.exists() {
        fs::remove_dir_all(&staging).context("clearing extension/.dist-staging")?;
    }
    fs::create_dir_all(staging.join("pkg"))?;
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .web(true)?
        .typescript(false)
        // Exports `__wbg_reset_state`: the loader re-instantiates the module after a
        // panic trapped it (panic = "abort"), and callbacks of the dead instance
        // become inert instead of calling into the new one.
        .reset_state_function(true)
        // Function names only serve stack traces: 30 % of the module; keep them in dev.
        .remove_name_section(release)
        .remove_producers_section(release)
        .generate(staging.join("pkg"))
        .with_context(|| format!("wasm-bindgen on {}", wasm.display()))?;
    copy_dir(&root.join("extension").join("static"), &staging)?;
    // Swap in one rename so a concurrently starting Chromium never sees half a dist.
    if dist.exists() {
        fs::remove_dir_all(&dist).context("removing the old extension/dist")?;
    }
    fs::rename(&staging, &dist).context("moving the build into extension/dist")?;
    let size = fs::metadata(dist.join("pkg").join(format!("{LIB_NAME}_bg.wasm")))?.len();
    eprintln!("extension built: {} ({size} bytes of wasm)", dist.display());
    Ok(dist)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            fs::create_dir_all(&dest)?;
            copy_dir(&entry.path(), &dest)?;
        } else {
            fs::copy(entry.path(), &dest)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
