//! A missing, truncated or corrupt model is an [`EmbedError`] whose message
//! says what is wrong and how to install — never a panic.

use std::path::{Path, PathBuf};

use browser_bridge_embed::{EmbedError, Embedder, MODEL_DIR_ENV};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("bb-embed-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn installed() -> PathBuf {
    Embedder::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// A model dir with the shipped files, `weights.npz` and `sp.model` passed through `edit_*`.
fn model_dir(
    name: &str,
    edit_npz: impl Fn(Vec<u8>) -> Vec<u8>,
    edit_sp: impl Fn(Vec<u8>) -> Vec<u8>,
) -> TempDir {
    let src = installed();
    let dir = TempDir::new(name);
    let npz = std::fs::read(src.join("weights.npz")).unwrap();
    std::fs::write(dir.0.join("weights.npz"), edit_npz(npz)).unwrap();
    let sp = std::fs::read(src.join("sp.model")).unwrap();
    std::fs::write(dir.0.join("sp.model"), edit_sp(sp)).unwrap();
    dir
}

fn load_err(dir: &Path) -> (EmbedError, String) {
    let e = Embedder::load(dir).expect_err("a broken model must not load");
    let msg = e.to_string();
    (e, msg)
}

#[test]
fn a_missing_directory_or_file_says_how_to_install() {
    let (e, msg) = load_err(Path::new("/nonexistent/browser-bridge-model"));
    assert!(matches!(e, EmbedError::NotInstalled { .. }), "{e:?}");
    assert!(
        msg.contains("cargo xtask install-model")
            && msg.contains("/nonexistent/browser-bridge-model"),
        "{msg}"
    );

    let dir = model_dir("nofile", |b| b, |b| b);
    std::fs::remove_file(dir.0.join("sp.model")).unwrap();
    let (e, msg) = load_err(&dir.0);
    assert!(matches!(e, EmbedError::NotInstalled { .. }), "{e:?}");
    assert!(
        msg.contains("sp.model") && msg.contains("cargo xtask install-model"),
        "{msg}"
    );
}

#[test]
fn a_truncated_or_corrupt_npz_is_an_npz_error() {
    let half = model_dir("npz-half", |b| b[..b.len() / 2].to_vec(), |b| b);
    let (e, msg) = load_err(&half.0);
    assert!(matches!(e, EmbedError::Npz { .. }), "{e:?}");
    assert!(
        msg.contains("weights.npz") && msg.contains("truncated"),
        "{msg}"
    );

    // The end-of-central-directory record intact, the last bytes of the data lost.
    let tail = model_dir(
        "npz-tail",
        |b| [&b[..1000], &b[b.len() - 3000..]].concat(),
        |b| b,
    );
    assert!(matches!(load_err(&tail.0).0, EmbedError::Npz { .. }));

    // Deflate data overwritten in the middle of the first (largest) member.
    let flipped = model_dir(
        "npz-flip",
        |mut b| {
            b[100_000..100_400].iter_mut().for_each(|x| *x ^= 0xA5);
            b
        },
        |b| b,
    );
    let (e, msg) = load_err(&flipped.0);
    assert!(matches!(e, EmbedError::Npz { .. }), "{e:?}");
    assert!(msg.contains("member q1"), "{msg}");

    let empty = model_dir("npz-empty", |_| Vec::new(), |b| b);
    assert!(matches!(load_err(&empty.0).0, EmbedError::Npz { .. }));
}

#[test]
fn a_corrupt_or_truncated_sentencepiece_model_is_a_tokenizer_error() {
    for (name, edit) in [
        (
            "sp-garbage",
            (|_| b"not a sentencepiece model".to_vec()) as fn(Vec<u8>) -> Vec<u8>,
        ),
        ("sp-half", |b| b[..b.len() / 2 + 3].to_vec()),
        ("sp-empty", |_| Vec::new()),
    ] {
        let dir = model_dir(name, |b| b, edit);
        let (e, msg) = load_err(&dir.0);
        assert!(matches!(e, EmbedError::Tokenizer { .. }), "{name}: {e:?}");
        assert!(
            msg.contains("sp.model") && msg.contains("corrupt SentencePiece model"),
            "{name}: {msg}"
        );
    }
}

/// `locate` with `$BROWSER_BRIDGE_MODEL_DIR` naming a missing directory, in a
/// child process (the environment is process-wide).
#[test]
fn locate_honours_the_env_var_and_says_how_to_install() {
    if std::env::var_os("BB_EMBED_LOCATE_CHILD").is_some() {
        let e = Embedder::locate().expect_err("the env var names a missing dir");
        assert!(matches!(e, EmbedError::NotInstalled { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("/nonexistent/bb-model") && msg.contains("cargo xtask install-model"),
            "{msg}"
        );
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "locate_honours_the_env_var_and_says_how_to_install",
            "--nocapture",
        ])
        .env("BB_EMBED_LOCATE_CHILD", "1")
        .env(MODEL_DIR_ENV, "/nonexistent/bb-model")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "child: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // And here, without the variable, the installed model is found.
    assert!(installed().join("weights.npz").is_file());
}
