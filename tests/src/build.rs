//! Building what the end-to-end tests run, once per test process: the extension
//! (`cargo xtask build-extension`, release profile) and the `browser-bridge` binary,
//! under a lock shared by every test process (so concurrent test binaries neither
//! build twice at once nor copy a half-written `extension/dist/`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};

/// Paths of the built pieces.
#[derive(Debug, Clone)]
pub struct Built {
    /// `extension/dist/` (do not load it directly: [`crate::harness::Stack`] loads a
    /// copy, see [`copy_extension`]).
    pub extension_dist: PathBuf,
    /// The `browser-bridge` binary.
    pub backend_bin: PathBuf,
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// A lock shared by every test process: a directory that exists while one process
/// builds or copies the extension (`File::lock` would need Rust 1.89, above the
/// workspace MSRV). A lock older than [`STALE_LOCK`] is taken as left by a killed
/// process and removed.
struct BuildLock(PathBuf);

/// Age after which a build lock is considered abandoned.
const STALE_LOCK: Duration = Duration::from_secs(600);

impl BuildLock {
    fn acquire() -> Result<BuildLock> {
        let dir = target_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("bb-e2e-build.lock");
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(BuildLock(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t.elapsed().unwrap_or_default() > STALE_LOCK);
                    if stale {
                        let _ = std::fs::remove_dir(&path);
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => return Err(e).context("creating the e2e build lock"),
            }
        }
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// Builds the extension (release profile, `cargo xtask build-extension`) and the
/// backend binary, once per process, holding a lock shared by all processes so concurrent
/// test binaries do not build or copy at the same time.
///
/// # Errors
/// When a build fails (the message carries cargo's exit status).
pub fn ensure_built() -> Result<Built> {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| build().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(|e| anyhow!(e))
}

/// Builds the `browser-bridge` binary alone (`cargo build -p browser-bridge`, dev
/// profile, no lock: cargo's own serialises it) and returns its path.
///
/// # Errors
/// When the build fails (the message carries cargo's exit status).
pub fn build_backend() -> Result<PathBuf> {
    cargo(&[
        "build",
        "--quiet",
        "-p",
        "browser-bridge",
        "--bin",
        "browser-bridge",
    ])?;
    Ok(target_dir().join("debug").join("browser-bridge"))
}

/// Runs `cargo <args>` at the workspace root.
fn cargo(args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(&cargo)
        .current_dir(workspace_root())
        .args(args)
        .status()?;
    if !status.success() {
        bail!("cargo {} failed: {status}", args.join(" "));
    }
    Ok(())
}

fn build() -> Result<Built> {
    let _lock = BuildLock::acquire()?;
    cargo(&["run", "--quiet", "-p", "xtask", "--", "build-extension"])?;
    let backend_bin = build_backend()?;
    Ok(Built {
        extension_dist: workspace_root().join("extension").join("dist"),
        backend_bin,
    })
}

/// Copies the built extension into `to` (under the lock: no build runs meanwhile),
/// so that a build during the test cannot change the files Chromium loads.
///
/// # Errors
/// A file cannot be read or written.
pub fn copy_extension(from: &Path, to: &Path) -> Result<()> {
    let _lock = BuildLock::acquire()?;
    copy_dir(from, to)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}
