//! The facts of a saved download that the extension cannot read (PROTOCOL.md
//! §10.2): the backend runs on the browser's machine, so it reads the file a
//! `wait_for_download` names and fills in its size and SHA-256. The extension
//! only names the path; the file's content never crosses the socket.

use std::io::Read;
use std::path::Path;

use browser_bridge_protocol::ActionResult;
use browser_bridge_protocol::downloads::{DownloadState, WaitForDownloadResult};
use sha2::{Digest, Sha256};

/// Read buffer while hashing (bytes).
const CHUNK: usize = 64 * 1024;

/// Fills `bytes` and `sha256` of every complete `wait_for_download` in
/// `result` (a batch's included) from its file, on the blocking pool. A file
/// that cannot be read (gone, another machine's path) leaves `sha256` absent
/// and Chrome's byte count.
pub async fn fill(result: &mut ActionResult) {
    match result {
        ActionResult::WaitForDownload(r) => fill_one(r).await,
        ActionResult::Batch(b) => {
            for entry in &mut b.results {
                if let Some(ActionResult::WaitForDownload(r)) = &mut entry.result {
                    fill_one(r).await;
                }
            }
        }
        _ => {}
    }
}

async fn fill_one(r: &mut WaitForDownloadResult) {
    r.sha256 = None;
    if r.state != DownloadState::Complete || r.path.is_empty() {
        return;
    }
    let path = r.path.clone();
    let hashed = tokio::task::spawn_blocking(move || hash_file(Path::new(&path))).await;
    if let Ok(Ok((bytes, sha256))) = hashed {
        r.bytes = bytes;
        r.sha256 = Some(sha256);
    }
}

/// `(size in bytes, SHA-256 as 64 lowercase hex digits)` of a regular file.
///
/// # Errors
/// When `path` is not a regular file or cannot be read.
pub fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    let hex = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((bytes, hex))
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;

    use super::*;

    fn result(path: &str, state: DownloadState) -> ActionResult {
        ActionResult::WaitForDownload(WaitForDownloadResult {
            tab_id: TabId(3),
            download_id: 7,
            path: path.to_owned(),
            bytes: 1,
            sha256: Some("forged by the extension".into()),
            mime_type: "text/plain".into(),
            state,
            error: None,
        })
    }

    fn unwrap(r: ActionResult) -> WaitForDownloadResult {
        match r {
            ActionResult::WaitForDownload(r) => r,
            other => panic!("not a wait_for_download: {other:?}"),
        }
    }

    /// A complete download's size and hash come from its file (the known
    /// vector of "abc", and a file over one read chunk); whatever the
    /// extension sent as sha256 is replaced.
    #[tokio::test]
    async fn a_complete_download_is_hashed_from_its_file() {
        let dir = std::env::temp_dir().join(format!("bb-dl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("abc.txt");
        std::fs::write(&small, b"abc").unwrap();
        let mut r = result(small.to_str().unwrap(), DownloadState::Complete);
        fill(&mut r).await;
        let r = unwrap(r);
        assert_eq!(r.bytes, 3);
        assert_eq!(
            r.sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        let big = dir.join("big.bin");
        let content: Vec<u8> = (0..(CHUNK * 2 + 17)).map(|i| (i % 251) as u8).collect();
        std::fs::write(&big, &content).unwrap();
        let mut r = result(big.to_str().unwrap(), DownloadState::Complete);
        fill(&mut r).await;
        let r = unwrap(r);
        assert_eq!(r.bytes, content.len() as u64);
        let expected: String = Sha256::digest(&content)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(r.sha256.as_deref(), Some(expected.as_str()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// No hash for an interrupted download, a missing file or a directory:
    /// `sha256` is absent (never the extension's), the byte count Chrome's.
    #[tokio::test]
    async fn no_hash_without_a_complete_regular_file() {
        for (path, state) in [
            ("/nonexistent/bb/file.bin", DownloadState::Complete),
            ("/tmp", DownloadState::Complete),
            ("", DownloadState::Complete),
            ("/etc/hostname", DownloadState::Interrupted),
        ] {
            let mut r = result(path, state);
            fill(&mut r).await;
            let r = unwrap(r);
            assert_eq!(r.sha256, None, "{path:?} {state:?}");
            assert_eq!(r.bytes, 1, "{path:?}");
        }
    }
}
