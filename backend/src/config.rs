//! The config directory and the pairing token (PROTOCOL.md §2, docs/DESIGN.md "Backend").
//!
//! The directory is `--config-dir`, else `$BROWSER_BRIDGE_CONFIG_DIR`, else the
//! platform config dir + `browser-bridge`. The token lives in
//! `<config-dir>/pairing-token` (mode 0600), created on first use.
//!
//! Files are private: the directory is created 0700, the token and the audit log
//! 0600. A token file others can read is narrowed to 0600 with a warning. Every
//! odd token file state (a dangling symlink, a directory, an empty file, a token
//! under [`MIN_TOKEN_CHARS`]) is one [`ConfigError::BadTokenFile`] that says how to
//! fix it.

use std::io::{Read, Write};
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

/// Shortest token accepted from the token file: [`TOKEN_BYTES`] bytes of entropy
/// in URL-safe base64 (43 characters).
pub const MIN_TOKEN_CHARS: usize = 43;

/// Longest token file read (bytes); a token is 43 characters, so anything larger
/// is not a token file (and is not read whole).
const MAX_TOKEN_FILE_BYTES: u64 = 4096;

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
    /// The token file is in a state no token can be read from or written to: a
    /// dangling symlink, a directory or other non-file, too short, too long, not
    /// UTF-8. `problem` says which.
    #[error(
        "{path}: {problem}; remove it (`rm -r '{path}'`) and run `browser-bridge pair` to make a new token"
    )]
    BadTokenFile {
        /// The token file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
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

/// Creates `dir` (and its parents) when missing, the last component mode 0700:
/// it holds the token and the audit log.
///
/// # Errors
/// [`ConfigError::Io`].
pub fn create_private_dir(dir: &Path) -> Result<(), ConfigError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(io_err("create the config directory", dir))
}

/// Reads `<dir>/pairing-token`, creating the directory (0700) and the file (mode
/// 0600, fresh random token) when it does not exist yet. An existing file others
/// can read or write is narrowed to 0600 with a warning.
///
/// # Errors
/// [`ConfigError::Io`] on a file-system failure, [`ConfigError::EmptyToken`] when
/// the file exists but is blank, [`ConfigError::BadTokenFile`] for any other file
/// state no token can come from (dangling symlink, directory, too short).
pub fn load_or_create_token(dir: &Path) -> Result<String, ConfigError> {
    let path = dir.join(TOKEN_FILE);
    if let Some(token) = read_existing(&path)? {
        return Ok(token);
    }
    create_private_dir(dir)?;
    let token = generate_token();
    let mut options = std::fs::OpenOptions::new();
    // create_new: two processes racing on first use must not overwrite each
    // other's token; the loser reads the winner's file (once: no recursion, so
    // an odd file state cannot loop).
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
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_existing(&path)?
            .ok_or_else(|| bad(&path, "it appeared while being created and vanished again")),
        Err(e) => Err(io_err("create the pairing token", &path)(e)),
    }
}

/// Reads an existing token without creating one; `None` when the file is missing.
///
/// # Errors
/// As [`load_or_create_token`], except that a missing file is `Ok(None)`.
pub fn read_token(dir: &Path) -> Result<Option<String>, ConfigError> {
    read_existing(&dir.join(TOKEN_FILE))
}

fn bad(path: &Path, problem: impl Into<String>) -> ConfigError {
    ConfigError::BadTokenFile {
        path: path.to_owned(),
        problem: problem.into(),
    }
}

/// The token in `path`; `None` when nothing is there (not even a symlink).
fn read_existing(path: &Path) -> Result<Option<String>, ConfigError> {
    let link = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("read the pairing token", path)(e)),
    };
    // A symlink to a token file is followed (dotfile managers); a dangling one
    // must not read as "missing", or creating the file would fail forever.
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && link.file_type().is_symlink() => {
            return Err(bad(path, "it is a symlink to a file that does not exist"));
        }
        Err(e) => return Err(io_err("read the pairing token", path)(e)),
    };
    if meta.is_dir() {
        return Err(bad(path, "it is a directory, not a file"));
    }
    if !meta.is_file() {
        return Err(bad(path, "it is not a regular file"));
    }
    if meta.len() > MAX_TOKEN_FILE_BYTES {
        return Err(bad(
            path,
            format!(
                "it holds {} bytes, more than a token ({MAX_TOKEN_FILE_BYTES} at most)",
                meta.len()
            ),
        ));
    }
    narrow_permissions(path, &meta)?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_TOKEN_FILE_BYTES).read_to_end(&mut bytes))
        .map_err(io_err("read the pairing token", path))?;
    let text = String::from_utf8(bytes).map_err(|_| bad(path, "it is not UTF-8 text"))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(ConfigError::EmptyToken(path.to_owned()));
    }
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(bad(
            path,
            format!(
                "the token has {} characters, under the {MIN_TOKEN_CHARS} that carry \
                 {TOKEN_BYTES} bytes of entropy",
                token.chars().count()
            ),
        ));
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad(
            path,
            "the token contains whitespace or control characters",
        ));
    }
    Ok(Some(token.to_owned()))
}

/// Narrows a token file that others can read or write to 0600, with a warning.
#[cfg(unix)]
fn narrow_permissions(path: &Path, meta: &std::fs::Metadata) -> Result<(), ConfigError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 == 0 {
        return Ok(());
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io_err(
        "restrict the permissions of the pairing token",
        path,
    ))?;
    tracing::warn!(
        path = %path.display(),
        was = %format!("{mode:04o}"),
        "the pairing token file was readable by others: its mode is now 0600; \
         consider a new token (delete the file and run `browser-bridge pair`)"
    );
    Ok(())
}

#[cfg(not(unix))]
fn narrow_permissions(_: &Path, _: &std::fs::Metadata) -> Result<(), ConfigError> {
    Ok(())
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
/// Everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`).
const NOT_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn percent_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, NOT_UNRESERVED).to_string()
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

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn dir_is_0700_and_a_readable_token_is_narrowed_to_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("modes").join("nested");
        let token = load_or_create_token(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let path = dir.join(TOKEN_FILE);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(load_or_create_token(&dir).unwrap(), token);
        assert_eq!(mode(&path), 0o600);
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    /// Each odd state is one `BadTokenFile` (or `EmptyToken`) naming the file and
    /// the fix, from both the creating and the reading path; none recurses.
    #[test]
    fn odd_token_file_states_are_one_clear_error() {
        let dir = temp_dir("odd");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(TOKEN_FILE);
        let check = |expected: &str| {
            for e in [
                load_or_create_token(&dir).unwrap_err(),
                read_token(&dir).unwrap_err(),
            ] {
                let text = e.to_string();
                assert!(text.contains(expected), "{text}");
                assert!(text.contains("browser-bridge pair"), "{text}");
                assert!(text.contains(&path.display().to_string()), "{text}");
            }
        };
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("missing-target"), &path).unwrap();
            check("symlink to a file that does not exist");
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::create_dir(&path).unwrap();
        check("is a directory");
        std::fs::remove_dir(&path).unwrap();
        std::fs::write(&path, "\n").unwrap();
        check("empty pairing token");
        std::fs::write(&path, "short-token\n").unwrap();
        check("has 11 characters, under the 43");
        std::fs::write(&path, vec![b'a'; 5000]).unwrap();
        check("5000 bytes");
        std::fs::write(&path, [0xff_u8; 50]).unwrap();
        check("not UTF-8");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pairing_link_encodes_the_backend_url() {
        assert_eq!(
            pairing_link("abc", "t0k_-", "ws://127.0.0.1:9333/extension"),
            "chrome-extension://abc/pair.html#token=t0k_-&backendUrl=ws%3A%2F%2F127.0.0.1%3A9333%2Fextension"
        );
        // Unreserved characters stay; a space, `&`, `#` and non-ASCII are escaped
        // (UTF-8 bytes), so nothing in a value can end it.
        assert_eq!(percent_encode("a.b~c d&e#f"), "a.b~c%20d%26e%23f");
        assert_eq!(percent_encode("ü"), "%C3%BC");
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
