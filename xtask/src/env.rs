//! Toolchain pieces the extension build and the Chromium tests need: the
//! `wasm32-unknown-unknown` rustup target and a Chromium binary.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The rustup target the extension compiles to.
pub(crate) const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Where Debian's `chromium` package puts the real binary (the `/usr/bin/chromium`
/// wrapper adds flags of its own and an empty `--load-extension=`).
pub(crate) const CHROMIUM_PATHS: [&str; 3] = [
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
];

/// Makes sure the `wasm32-unknown-unknown` target is installed, running
/// `rustup target add` when it is missing.
///
/// # Errors
/// When rustup is missing or fails.
pub(crate) fn ensure_wasm_target() -> Result<()> {
    let out = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("running `rustup target list --installed` (is rustup installed?)")?;
    let installed = String::from_utf8_lossy(&out.stdout);
    if installed.lines().any(|l| l.trim() == WASM_TARGET) {
        return Ok(());
    }
    run(Command::new("rustup").args(["target", "add", WASM_TARGET]))
}

/// Ensures the `rustfmt` and `clippy` components that the lints of `cargo xtask
/// test` run (`rustup component add` is a no-op when they are there).
///
/// # Errors
/// rustup is missing or cannot add them.
pub(crate) fn ensure_lint_components() -> Result<()> {
    run(Command::new("rustup").args(["component", "add", "rustfmt", "clippy"]))
}

/// The Chromium binary: `$CHROMIUM` when set, else the first of [`CHROMIUM_PATHS`]
/// that exists. When none exists and we run as root, installs Debian's `chromium`
/// with apt-get.
///
/// # Errors
/// When Chromium is missing and cannot be installed (not root, or apt-get failed):
/// the message says what to install.
pub(crate) fn ensure_chromium() -> Result<PathBuf> {
    if let Some(found) = find_chromium() {
        return Ok(found);
    }
    if !is_root() {
        bail!(
            "Chromium not found (looked at $CHROMIUM and {}): install it, e.g. \
             `sudo apt-get install -y chromium` on Debian/Ubuntu, or set CHROMIUM=/path/to/chromium",
            CHROMIUM_PATHS.join(", ")
        );
    }
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get").args(["install", "-y", "chromium"]))?;
    find_chromium().context("apt-get installed chromium but no binary was found")
}

/// Xvfb and openbox, the X server and window manager of the headed e2e suite
/// (`focus::`; X11 minimizes no window without a window manager): when either
/// is not on `PATH` and we run as root, installs Debian's `xvfb` and `openbox`
/// with apt-get; otherwise says so (that suite then skips with a message) and
/// goes on.
pub(crate) fn ensure_headed_display() {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).exists()))
    };
    let present = || on_path("Xvfb") && on_path("openbox");
    if present() {
        return;
    }
    if is_root()
        && run(Command::new("apt-get").arg("update")).is_ok()
        && run(Command::new("apt-get").args(["install", "-y", "xvfb", "openbox"])).is_ok()
        && present()
    {
        return;
    }
    eprintln!(
        "xtask: Xvfb or openbox not found: the headed e2e suite (focus::) will be skipped; \
         install them with `sudo apt-get install -y xvfb openbox`"
    );
}

fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM").map(PathBuf::from)
        && path.exists()
    {
        return Some(path);
    }
    CHROMIUM_PATHS
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs a command, streaming its output; fails when it exits non-zero.
pub(crate) fn run(cmd: &mut Command) -> Result<()> {
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
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// The workspace root (the parent of xtask/).
pub(crate) fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
}
