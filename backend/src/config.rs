//! The config directory and the pairing token (PROTOCOL.md §2, docs/DESIGN.md "Backend").
//!
//! The directory is `--config-dir`, else `$BROWSER_BRIDGE_CONFIG_DIR`, else the
//! platform config dir + `browser-bridge`. The token lives in
//! `<config-dir>/pairing-token` (mode 0600), created on first use.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use rand::RngCore;

/// Environment variable naming the config directory.
pub const CONFIG_DIR_ENV: &str = "BROWSER_BRIDGE_CONFIG_DIR";

/// File name of the pairing token inside the config directory.
pub const TOKEN_FILE: &str = "pairing-token";

/// File name of the event audit log (JSON lines) inside the config directory.
pub const AUDIT_FILE: &str = "audit.jsonl";

/// The id of the browser-bridge extension: fixed by the `key` in its manifest.json,
/// so the pairing link `chrome-extension://<id>/pair.html#…` is known in advance.
pub const DEFAULT_EXTENSION_ID: &str = "dgkehcimnlkhnpfolfghdgfhlnedenka";

/// Random bytes in a pairing token (before base64).
pub const TOKEN_BYTES: usize = 32;

/// Why the config directory or the token could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No `--config-dir`, no `$BROWSER_BRIDGE_CONFIG_DIR`, and no platform config dir.
    #[error("no config directory: pass --config-dir or set {CONFIG_DIR_ENV}")]
    NoConfigDir,
    /// Reading or writing a file failed.
    #[error("cannot {operation} {path}: {source}")]
    Io {
        /// What was being done, e.g. "create the config directory".
        operation: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The token file exists but holds no usable token.
    #[error("{0}: empty pairing token; delete the file and run `browser-bridge pair`")]
    EmptyToken(PathBuf),
}

fn io_err<'a>(
    operation: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> ConfigError + 'a {
    move |source| ConfigError::Io {
        operation,
        path: path.to_owned(),
        source,
    }
}

/// Resolves the config directory: `explicit` (from `--config-dir`), else
/// `$BROWSER_BRIDGE_CONFIG_DIR`, else `dirs::config_dir()/browser-bridge`.
/// Does not create it.
///
/// # Errors
/// [`ConfigError::NoConfigDir`] when none of the three is available.
pub fn resolve_config_dir(explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|d| d.join("browser-bridge"))
        .ok_or(ConfigError::NoConfigDir)
}

/// A fresh token: [`TOKEN_BYTES`] random bytes, URL-safe base64 without padding
/// (43 characters).
pub fn generate_token() -> String {
    let mut bytes = [0u8; TOKEN_BYTES];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Reads `<dir>/pairing-token`, creating the directory and the file (mode 0600,
/// fresh random token) when it does not exist yet.
///
/// # Errors
/// [`ConfigError::Io`] on a file-system failure, [`ConfigError::EmptyToken`] when
/// the file exists but is blank.
pub fn load_or_create_token(dir: &Path) -> Result<String, ConfigError> {
    let path = dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let token = text.trim();
            if token.is_empty() {
                return Err(ConfigError::EmptyToken(path));
            }
            return Ok(token.to_owned());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("read the pairing token", &path)(e)),
    }
    std::fs::create_dir_all(dir).map_err(io_err("create the config directory", dir))?;
    let token = generate_token();
    let mut options = std::fs::OpenOptions::new();
    // create_new: two processes racing on first use must not overwrite each
    // other's token; the loser reads the winner's file.
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(&path) {
        Ok(mut file) => {
            file.write_all(format!("{token}\n").as_bytes())
                .map_err(io_err("write the pairing token", &path))?;
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => load_or_create_token(dir),
        Err(e) => Err(io_err("create the pairing token", &path)(e)),
    }
}

/// Reads an existing token without creating one; `None` when the file is missing.
///
/// # Errors
/// [`ConfigError::Io`] on any other read failure.
pub fn read_token(dir: &Path) -> Result<Option<String>, ConfigError> {
    let path = dir.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("read the pairing token", &path)(e)),
    }
}

/// The pairing link the extension's `pair.html` understands:
/// `chrome-extension://<id>/pair.html#token=<token>&backendUrl=<ws url>`.
pub fn pairing_link(extension_id: &str, token: &str, backend_ws_url: &str) -> String {
    format!(
        "chrome-extension://{extension_id}/pair.html#token={}&backendUrl={}",
        percent_encode(token),
        percent_encode(backend_ws_url)
    )
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!(
            "bb-config-{name}-{}-{}",
            std::process::id(),
            generate_token()
        ))
    }

    #[test]
    fn token_is_created_once_with_mode_0600() {
        let dir = temp_dir("token");
        assert_eq!(read_token(&dir).unwrap(), None);
        let first = load_or_create_token(&dir).unwrap();
        assert_eq!(first.len(), 43, "32 bytes of URL-safe base64: {first}");
        assert!(
            first
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(load_or_create_token(&dir).unwrap(), first);
        assert_eq!(read_token(&dir).unwrap().as_deref(), Some(first.as_str()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(TOKEN_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pairing_link_encodes_the_backend_url() {
        assert_eq!(
            pairing_link("abc", "t0k_-", "ws://127.0.0.1:9333/extension"),
            "chrome-extension://abc/pair.html#token=t0k_-&backendUrl=ws%3A%2F%2F127.0.0.1%3A9333%2Fextension"
        );
    }

    #[test]
    fn tokens_differ() {
        assert_ne!(generate_token(), generate_token());
    }

    #[test]
    fn explicit_dir_wins() {
        let dir = PathBuf::from("/tmp/explicit-bb");
        assert_eq!(resolve_config_dir(Some(&dir)).unwrap(), dir);
    }
}
