//! More browsers on one [`Stack`] (PROTOCOL.md §5 "Browsers"): another
//! headless Chromium, with its own fresh profile and its own copy of the
//! extension, paired with the stack's `serve` as a person would; and a
//! browser's name set in the extension's options page.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::Value;

use crate::build::{copy_extension, ensure_built};
use crate::chromium::{Chromium, EXTENSION_ID, TempDir};
use crate::harness::Stack;

/// A browser started by [`Stack::add_browser`]; it stops on drop.
pub struct ExtraBrowser {
    /// The browser.
    pub chromium: Chromium,
    _extension: TempDir,
}

impl Stack {
    /// Launches another headless Chromium (a fresh `--user-data-dir`, its own
    /// copy of the extension), pairs it with this stack's `serve` through the
    /// pairing link, names it `name` in the options page ([`Stack::name_browser`])
    /// and returns once `/v1/status` lists it by that name.
    ///
    /// # Errors
    /// When Chromium, the pairing or the naming fails.
    pub async fn add_browser(&self, name: &str) -> Result<ExtraBrowser> {
        let built = tokio::task::spawn_blocking(ensure_built).await??;
        let extension = TempDir::new("extension")?;
        let (from, to) = (built.extension_dist.clone(), extension.path().to_path_buf());
        tokio::task::spawn_blocking(move || copy_extension(&from, &to)).await??;
        let chromium = Chromium::launch(extension.path()).await?;
        let pair = chromium.pair(&self.ws_url, &self.token).await?;
        self.name_browser(&chromium, name).await?;
        chromium.close_target(&pair).await?;
        Ok(ExtraBrowser {
            chromium,
            _extension: extension,
        })
    }

    /// Names `chromium`'s browser as a person does: the extension's options
    /// page, the "Browser name" field, Save (`browserName` in
    /// `chrome.storage.local`); returns its `/v1/status` `browsers` entry once
    /// it carries `name` (the extension reconnects with it).
    ///
    /// # Errors
    /// When the page fails or the backend does not list the name within 45 s
    /// (a second Chromium reconnecting on a loaded machine can take 20).
    pub async fn name_browser(&self, chromium: &Chromium, name: &str) -> Result<Value> {
        let url = format!("chrome-extension://{EXTENSION_ID}/options.html");
        let (target, session) = chromium.open_page(&url).await?;
        let name_js = serde_json::to_string(name)?;
        // The page fills the field from storage once read: wait for that, so
        // the value typed is not overwritten.
        let save = format!(
            "await chrome.storage.local.get(['browserName']);
             await new Promise(r => setTimeout(r, 50));
             document.getElementById('browser-name').value = {name_js};
             document.getElementById('options').requestSubmit();
             for (let i = 0; i < 200 && document.body.dataset.saved !== 'true'; i++)
               await new Promise(r => setTimeout(r, 25));
             return (await chrome.storage.local.get(['browserName'])).browserName;"
        );
        let stored = chromium.eval(&session, &save).await?;
        chromium.close_target(&target).await?;
        if stored != name {
            bail!("the options page stored browserName {stored}, not {name:?}");
        }
        self.wait_browser(name, Duration::from_secs(45)).await
    }

    /// The `/v1/status` `browsers` entry named `name`, polled for at most
    /// `timeout`.
    ///
    /// # Errors
    /// When none appears in time (the message shows the last list).
    pub async fn wait_browser(&self, name: &str, timeout: Duration) -> Result<Value> {
        let until = Instant::now() + timeout;
        loop {
            let status = self.status().await?;
            let browsers = status["browsers"].clone();
            if let Some(entry) = browsers
                .as_array()
                .and_then(|list| list.iter().find(|b| b["name"] == name))
            {
                return Ok(entry.clone());
            }
            if Instant::now() > until {
                bail!("no browser named {name:?} within {timeout:?}; browsers: {browsers}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
