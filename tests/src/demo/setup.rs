//! The demo's environment, from the end-to-end harness ([`crate::harness::Stack`]):
//! `browser-bridge serve` on a free port with a fresh config dir, and headless
//! Chromium with the built extension paired with the backend's real token through
//! the extension's pairing page (no bypass of the handshake).

use std::time::Instant;

use anyhow::Context;

use super::DemoOptions;
use crate::conformance::backend::HttpApi;
use crate::harness::{Stack, StackOptions};

/// A running backend and browser; [`DemoEnv::stop`] ends both.
pub struct DemoEnv {
    stack: Stack,
    api: HttpApi,
    setup_ms: u64,
}

impl std::fmt::Debug for DemoEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoEnv")
            .field("base_url", &self.stack.base_url)
            .finish_non_exhaustive()
    }
}

impl DemoEnv {
    /// Builds what is missing, starts the backend and Chromium, pairs them, and
    /// waits until the backend reports the extension connected.
    ///
    /// # Errors
    /// A build, the backend, Chromium or the pairing failed.
    pub async fn start(options: &DemoOptions) -> anyhow::Result<DemoEnv> {
        if options.headed {
            anyhow::ensure!(
                std::env::var_os("DISPLAY").is_some(),
                "--headed needs a display ($DISPLAY is not set)"
            );
        }
        let started = Instant::now();
        let stack = Stack::start_with(StackOptions {
            headed: options.headed,
            ..StackOptions::default()
        })
        .await
        .context("starting the backend and Chromium")?;
        let api = HttpApi::new(&stack.base_url, &stack.token);
        Ok(DemoEnv {
            api,
            setup_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            stack,
        })
    }

    /// A client of the backend's HTTP API with the pairing token.
    pub fn api(&self) -> HttpApi {
        self.api.clone()
    }

    /// The backend's HTTP base URL, `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> &str {
        &self.stack.base_url
    }

    /// The backend's config dir (holds `pairing-token`).
    pub fn config_dir(&self) -> &std::path::Path {
        self.stack.config_dir.path()
    }

    /// Where things run, for the demo's header.
    pub fn describe(&self) -> String {
        format!(
            "backend      {} (config dir {})\nchromium     pid {}, extension paired and connected {} ms after launch\nsetup        {} ms",
            self.stack.base_url,
            self.stack.config_dir.path().display(),
            self.stack.chromium.pid(),
            self.stack.ack_ms,
            self.setup_ms
        )
    }

    /// Stops Chromium and the backend (their processes are killed, temp dirs removed).
    pub async fn stop(self) {
        drop(self.stack);
    }
}
