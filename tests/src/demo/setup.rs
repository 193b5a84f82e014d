//! The demo's environment: `browser-bridge serve` on a free port with a fresh
//! config dir, and headless Chromium with the built extension paired with the
//! backend's real token.

use super::DemoOptions;
use crate::conformance::backend::HttpApi;

/// A running backend and browser; [`DemoEnv::stop`] ends both.
#[derive(Debug)]
pub struct DemoEnv {
    api: HttpApi,
    base: String,
}

impl DemoEnv {
    /// Starts the backend and Chromium and waits until the extension is connected.
    ///
    /// # Errors
    /// The backend or Chromium cannot start, or the extension does not connect.
    pub async fn start(_options: &DemoOptions) -> anyhow::Result<DemoEnv> {
        anyhow::bail!("the Chromium harness is not wired yet")
    }

    /// A client of the backend's HTTP API with the pairing token.
    pub fn api(&self) -> HttpApi {
        self.api.clone()
    }

    /// Where things run, for the demo's header.
    pub fn describe(&self) -> String {
        format!("backend      {}", self.base)
    }

    /// Stops Chromium and the backend.
    pub async fn stop(self) {}
}
