//! Points a freshly launched headless Chromium, with an extension loaded, at a
//! backend (here: the extension-mode harness) through the extension's pairing link
//! `chrome-extension://<id>/pair.html#token=…&backendUrl=…`, as a user would.

use std::path::Path;

use anyhow::Result;

use crate::chromium::Chromium;

pub use crate::chromium::pairing_url;

/// Launches Chromium with `extension_dir`, waits for its service worker, and opens
/// the pairing link for `backend_url` and `token`. Chromium stops when the value
/// is dropped.
///
/// # Errors
/// Chromium is missing or does not start, or the extension's worker never runs.
pub async fn launch_paired(
    extension_dir: &Path,
    backend_url: &str,
    token: &str,
) -> Result<Chromium> {
    let chromium = Chromium::launch(extension_dir).await?;
    chromium.pair(backend_url, token).await?;
    Ok(chromium)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_carries_token_and_url() {
        let url = pairing_url("a+b", "ws://127.0.0.1:9/extension");
        assert!(
            url.ends_with("#token=a%2Bb&backendUrl=ws%3A%2F%2F127.0.0.1%3A9%2Fextension"),
            "{url}"
        );
    }
}
