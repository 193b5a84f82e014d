//! The end-to-end stack: the real backend (`browser-bridge serve`), headless
//! Chromium with the real wasm extension, paired with the real token, and a fixture
//! page server. Used by `tests/tests/e2e/` (one binary, a module per topic), the demo and the corpus runs.
//!
//! # How to use
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use browser_bridge_tests::harness::Stack;
//! use serde_json::json;
//! let stack = Stack::start().await?;                  // builds once, pairs, ~1–2 s
//! let url = stack.fixtures.url("basic.html");          // http://127.0.0.1:<port>/basic.html
//! let nav = stack.act(json!({"action": "navigate", "url": url})).await?;  // result JSON
//! let tab = nav["tabId"].as_i64().unwrap();
//! let r = stack.act(json!({"action": "evaluate", "tabId": tab, "expression": "return 1"})).await?;
//! assert_eq!(r["value"], 1);
//! let err = stack.act(json!({"action": "click", "tabId": tab, "selector": "#nope"})).await.unwrap_err();
//! assert_eq!(err.code, "element_not_found");
//! # Ok(()) }
//! ```
//!
//! - [`Stack::start`] / [`Stack::start_with`]`(StackOptions { fixtures_dir, .. })`:
//!   everything is torn down on drop (Chromium's process group killed, backend
//!   killed, temp dirs removed).
//! - [`Stack::act`]`(Value) -> Result<Value, ActError>`: `POST /v1/act` with the
//!   bearer token; `Ok(result)` (the result object, with `action`), or
//!   `Err(ActError { status, code, message })` (`code` is the §4 error code).
//! - [`Stack::status`]: `GET /v1/status` (`connected`, `sessions`, `events`).
//! - [`Stack::events`]: the `event` objects the backend received, oldest first.
//! - `stack.base_url` (`http://127.0.0.1:<port>`), `stack.token`, `stack.ws_url`,
//!   `stack.config_dir`, `stack.chromium` (a [`Chromium`] with a browser-level CDP
//!   pipe for what a *user* does: [`Chromium::open_page`], [`Chromium::eval`],
//!   [`Chromium::close_target`]), `stack.ack_ms` (Chromium spawn → extension
//!   connected, ms).
//! - [`Stack::popup`]: opens the extension popup as a page (a user's click on it)
//!   and returns its CDP session, to press its buttons with [`Chromium::eval`].
//! - [`uid_of`]`(extract, role, name)` / [`uid_named`]`(extract, name)`: the uid
//!   of an element in an `extract` result, for the next `click`/`fill`.
//! - [`ensure_built`]: builds the extension (`cargo xtask build-extension`) and the
//!   backend binary once per test process, under a file lock shared by every test
//!   binary; returns their paths.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use crate::build::copy_extension;
pub use crate::build::{Built, ensure_built, workspace_root};
use crate::chromium::{Chromium, EXTENSION_ID, TempDir};
use crate::fixtures::FixtureServer;

/// An error answer of `/v1/act`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActError {
    /// HTTP status (422, 503, 504, …).
    pub status: u16,
    /// The §4 error code (`element_not_found`).
    pub code: String,
    /// The message.
    pub message: String,
}

impl std::fmt::Display for ActError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status, self.message)
    }
}

impl std::error::Error for ActError {}

/// The `uid` of the first element of an `extract` result (its `elements` array)
/// with this `role` and accessible `name`; panics, printing the elements, when
/// there is none (a test's assertion that the page shows it).
pub fn uid_of(extract: &Value, role: &str, name: &str) -> String {
    find_uid(extract, Some(role), name)
}

/// [`uid_of`] for the first element with this accessible `name`, whatever its role.
pub fn uid_named(extract: &Value, name: &str) -> String {
    find_uid(extract, None, name)
}

fn find_uid(extract: &Value, role: Option<&str>, name: &str) -> String {
    extract["elements"]
        .as_array()
        .expect("an extract result has `elements`")
        .iter()
        .find(|e| role.is_none_or(|role| e["role"] == role) && e["name"] == name)
        .and_then(|e| e["uid"].as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {} {name:?} in {}",
                role.unwrap_or("element"),
                extract["elements"]
            )
        })
        .to_owned()
}

/// Options of [`Stack::start_with`].
#[derive(Debug, Clone, Default)]
pub struct StackOptions {
    /// Serve this directory instead of `tests/fixtures/`.
    pub fixtures_dir: Option<PathBuf>,
    /// Show Chromium's window (needs a display; the demo's `--headed`).
    pub headed: bool,
    /// The X display Chromium shows its windows on (`:99`, a test's own Xvfb);
    /// `None`: the inherited `$DISPLAY`.
    pub display: Option<String>,
    /// Pieces built elsewhere (the bench's release backend) instead of
    /// [`ensure_built`]'s.
    pub built: Option<Built>,
    /// More `serve` arguments (the console's `--provider …`).
    pub serve_args: Vec<String>,
    /// Also open Chromium's DevTools port ([`Chromium::launch_full`]).
    pub devtools_port: bool,
}

/// The running stack; everything stops on drop.
pub struct Stack {
    /// The browser (drop order: first, so the extension does not reconnect noisily).
    pub chromium: Chromium,
    /// The fixture page server.
    pub fixtures: FixtureServer,
    /// `http://127.0.0.1:<port>` of the backend.
    pub base_url: String,
    /// `ws://127.0.0.1:<port>/extension`.
    pub ws_url: String,
    /// The pairing token.
    pub token: String,
    /// Chromium spawn → extension connected (`ack`), ms.
    pub ack_ms: u64,
    /// The backend's stderr so far (for failure messages).
    pub backend_log: Arc<Mutex<String>>,
    backend: Child,
    backend_bin: PathBuf,
    serve_args: Vec<String>,
    http: reqwest::Client,
    /// The backend's config dir (holds `pairing-token`).
    pub config_dir: TempDir,
    /// The copy of the extension the browser loads.
    extension: TempDir,
}

impl Stack {
    /// [`Stack::start_with`] with default options.
    ///
    /// # Errors
    /// When a build, the backend, Chromium or the pairing fails.
    pub async fn start() -> Result<Stack> {
        Self::start_with(StackOptions::default()).await
    }

    /// Builds (once), starts the backend and the fixture server, launches Chromium
    /// with a copy of the extension, opens the pairing link
    /// `chrome-extension://<id>/pair.html#token=…&backendUrl=…` as a user would, and
    /// waits until the backend reports the extension connected.
    ///
    /// # Errors
    /// As [`Stack::start`].
    pub async fn start_with(options: StackOptions) -> Result<Stack> {
        let built = match options.built.clone() {
            Some(built) => built,
            None => tokio::task::spawn_blocking(ensure_built).await??,
        };
        let extension = TempDir::new("extension")?;
        let (from, to) = (built.extension_dist.clone(), extension.path().to_path_buf());
        tokio::task::spawn_blocking(move || copy_extension(&from, &to)).await??;
        let config_dir = TempDir::new("config")?;

        let backend_log = Arc::new(Mutex::new(String::new()));
        let (backend, base_url) = spawn_backend(
            &built.backend_bin,
            config_dir.path(),
            "127.0.0.1:0",
            &options.serve_args,
            &backend_log,
        )
        .await?;
        let token = std::fs::read_to_string(config_dir.path().join("pairing-token"))
            .context("reading the pairing token")?
            .trim()
            .to_owned();
        let ws_url = format!("{}/extension", base_url.replacen("http://", "ws://", 1));

        let fixtures = match &options.fixtures_dir {
            Some(dir) => FixtureServer::start_dir(dir.clone()).await?,
            None => FixtureServer::start().await?,
        };
        let chromium = Chromium::launch_full(
            extension.path(),
            options.headed,
            options.display.as_deref(),
            options.devtools_port,
        )
        .await?;
        let pair_target = chromium.pair(&ws_url, &token).await?;
        let mut stack = Stack {
            chromium,
            fixtures,
            base_url,
            ws_url,
            token,
            ack_ms: 0,
            backend_log,
            backend,
            backend_bin: built.backend_bin.clone(),
            serve_args: options.serve_args.clone(),
            http: reqwest::Client::new(),
            config_dir,
            extension,
        };
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            if stack
                .status()
                .await
                .map(|s| s["connected"] == true)
                .unwrap_or(false)
            {
                break;
            }
            if Instant::now() > until {
                bail!(
                    "the extension did not connect within 20 s; backend log:\n{}",
                    stack.backend_log()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stack.ack_ms = stack.chromium.started_at.elapsed().as_millis() as u64;
        stack.chromium.close_target(&pair_target).await?;
        Ok(stack)
    }

    /// `POST /v1/act`: the result object, or the error.
    ///
    /// # Errors
    /// [`ActError`] with the backend's status and §4 code (`transport` when the HTTP
    /// call itself failed).
    pub async fn act(&self, action: Value) -> Result<Value, ActError> {
        self.act_with(None, action).await
    }

    /// `POST /v1/act` as the client `client` (header `Browser-Bridge-Client`,
    /// PROTOCOL.md §5 "Clients"): its actions without `tabId` go to its own
    /// current tab.
    ///
    /// # Errors
    /// As [`Stack::act`].
    pub async fn act_as(&self, client: &str, action: Value) -> Result<Value, ActError> {
        self.act_with(Some(client), action).await
    }

    /// `POST /v1/act` asking for the backend's timing marks
    /// (`Browser-Bridge-Timing`): the result and the response's `Server-Timing`
    /// value (`browser_bridge_backend::timing`).
    ///
    /// # Errors
    /// As [`Stack::act`]; `transport` when the header is missing.
    pub async fn act_timed(&self, action: Value) -> Result<(Value, String), ActError> {
        let timing = std::sync::Mutex::new(None);
        let result = self.send_act(None, true, action, &timing).await?;
        let timing = timing
            .lock()
            .expect("lock")
            .take()
            .ok_or_else(|| ActError {
                status: 200,
                code: "transport".into(),
                message: "no Server-Timing header".into(),
            })?;
        Ok((result, timing))
    }

    async fn act_with(&self, client: Option<&str>, action: Value) -> Result<Value, ActError> {
        self.send_act(client, false, action, &std::sync::Mutex::new(None))
            .await
    }

    async fn send_act(
        &self,
        client: Option<&str>,
        timed: bool,
        action: Value,
        timing: &std::sync::Mutex<Option<String>>,
    ) -> Result<Value, ActError> {
        let mut request = self.http.post(format!("{}/v1/act", self.base_url));
        if let Some(client) = client {
            request = request.header("Browser-Bridge-Client", client);
        }
        if timed {
            request = request.header("Browser-Bridge-Timing", "1");
        }
        let response = request
            .bearer_auth(&self.token)
            .json(&action)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .map_err(|e| ActError {
                status: 0,
                code: "transport".into(),
                message: e.to_string(),
            })?;
        let status = response.status().as_u16();
        *timing.lock().expect("lock") = response
            .headers()
            .get("server-timing")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body: Value = response.json().await.map_err(|e| ActError {
            status,
            code: "transport".into(),
            message: format!("body: {e}"),
        })?;
        if status == 200 {
            return Ok(body);
        }
        Err(ActError {
            status,
            code: body["error"]["code"].as_str().unwrap_or("?").to_owned(),
            message: body["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// Navigates to the fixture `path` (in `tab`, or the default session / a new
    /// agent-window tab when `None`) and returns the tab id.
    ///
    /// # Errors
    /// The navigate error.
    pub async fn open(&self, path: &str, tab: Option<i64>) -> Result<i64, ActError> {
        let mut action =
            serde_json::json!({ "action": "navigate", "url": self.fixtures.url(path) });
        if let Some(t) = tab {
            action["tabId"] = t.into();
        }
        let r = self.act(action).await?;
        Ok(r["tabId"].as_i64().unwrap_or_default())
    }

    /// `evaluate` in `tab` and its `value` (the expression must `return`).
    ///
    /// # Errors
    /// The evaluate error.
    pub async fn eval(&self, tab: i64, expression: &str) -> Result<Value, ActError> {
        let r = self
            .act(
                serde_json::json!({ "action": "evaluate", "tabId": tab, "expression": expression }),
            )
            .await?;
        Ok(r["value"].clone())
    }

    /// `extract` of `tab`: the whole result (`markdown`, `elements`, …).
    ///
    /// # Panics
    /// When the extract fails: every caller needs the page.
    pub async fn extract(&self, tab: i64) -> Value {
        self.act(serde_json::json!({ "action": "extract", "tabId": tab }))
            .await
            .unwrap_or_else(|e| panic!("extract of tab {tab}: {e}"))
    }

    /// `GET /v1/status`.
    ///
    /// # Errors
    /// When the backend does not answer.
    pub async fn status(&self) -> Result<Value> {
        let r = self
            .http
            .get(format!("{}/v1/status", self.base_url))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(10))
            .send()
            .await?;
        Ok(r.json().await?)
    }

    /// The `event` objects the backend received (`{"event":"session_started",…}`),
    /// oldest first.
    ///
    /// # Errors
    /// When the backend does not answer.
    pub async fn events(&self) -> Result<Vec<Value>> {
        let status = self.status().await?;
        Ok(status["events"]
            .as_array()
            .map(|a| a.iter().map(|r| r["event"].clone()).collect())
            .unwrap_or_default())
    }

    /// Polls [`Stack::events`] until one satisfies `pred` (at most `timeout`).
    ///
    /// # Errors
    /// When none arrives in time (the message lists the events seen).
    pub async fn wait_event(
        &self,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        let until = Instant::now() + timeout;
        loop {
            let events = self.events().await?;
            if let Some(e) = events.iter().find(|e| pred(e)) {
                return Ok(e.clone());
            }
            if Instant::now() > until {
                bail!(
                    "no matching event within {timeout:?}; events: {}",
                    Value::Array(events)
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Opens the extension popup as a page (what a user's click on the toolbar icon
    /// shows) and returns `(targetId, sessionId)` for [`Chromium::eval`], after its
    /// first status render.
    ///
    /// # Errors
    /// When the page does not open or render.
    pub async fn popup(&self) -> Result<(String, String)> {
        let (target, session) = self
            .chromium
            .open_page(&format!("chrome-extension://{EXTENSION_ID}/popup.html"))
            .await?;
        let until = Instant::now() + Duration::from_secs(20);
        let probe = "return !!document.body && document.body.dataset.globalStop !== undefined";
        while self.chromium.eval(&session, probe).await? != true {
            if Instant::now() > until {
                let shown = self
                    .chromium
                    .eval(
                        &session,
                        "return document.body ? document.body.innerText : document.readyState",
                    )
                    .await?;
                bail!("the popup did not render its status; it shows: {shown}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok((target, session))
    }

    /// Kills the backend and starts a new one on the same address and config dir
    /// (same token), as after a backend crash or upgrade; the extension has to
    /// reconnect by itself.
    ///
    /// # Errors
    /// When the new backend does not start.
    pub async fn restart_backend(&mut self) -> Result<()> {
        self.backend.kill().await.context("killing the backend")?;
        let listen = self.base_url.trim_start_matches("http://").to_owned();
        let (backend, base_url) = spawn_backend(
            &self.backend_bin,
            self.config_dir.path(),
            &listen,
            &self.serve_args,
            &self.backend_log,
        )
        .await?;
        self.backend = backend;
        self.base_url = base_url;
        Ok(())
    }

    /// Kills the browser and starts it again on the same profile
    /// ([`Chromium::relaunch`]), then waits up to 20 s for its extension to
    /// connect again (a `connectionId` other than the last).
    ///
    /// # Errors
    /// When the browser does not restart or the extension does not reconnect.
    pub async fn restart_browser(&mut self) -> Result<()> {
        let before = self.status().await?["extension"]["connectionId"].clone();
        self.chromium.relaunch(self.extension.path()).await?;
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let status = self.status().await.unwrap_or_default();
            let now = &status["extension"]["connectionId"];
            if status["connected"] == true && now.is_string() && *now != before {
                return Ok(());
            }
            if Instant::now() > until {
                bail!(
                    "the extension did not reconnect within 20 s of the browser's restart; \
                     backend log:\n{}",
                    self.backend_log()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The `browser-bridge` binary running as the backend (for its other commands).
    pub fn backend_bin(&self) -> &Path {
        &self.backend_bin
    }

    /// The backend's stderr so far.
    pub fn backend_log(&self) -> String {
        self.backend_log.lock().expect("lock").clone()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        let _ = self.backend.start_kill();
    }
}

/// Starts `browser-bridge serve` on `listen` and returns it with its base URL, read
/// from its `listening on http://…` line; later stderr lines go to `log`.
async fn spawn_backend(
    bin: &Path,
    config_dir: &Path,
    listen: &str,
    extra: &[String],
    log: &Arc<Mutex<String>>,
) -> Result<(Child, String)> {
    let mut backend = tokio::process::Command::new(bin)
        .args([
            "serve",
            "--listen",
            listen,
            "--extension-id",
            EXTENSION_ID,
            "--config-dir",
        ])
        .arg(config_dir)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("spawning {}", bin.display()))?;
    let mut lines = BufReader::new(backend.stderr.take().expect("piped")).lines();
    let base_url = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await? {
            log.lock().expect("lock").push_str(&format!("{line}\n"));
            if let Some(url) = line.trim().strip_prefix("listening on ") {
                return Ok::<_, anyhow::Error>(url.trim().to_owned());
            }
        }
        bail!("the backend exited before listening")
    })
    .await
    .context("the backend did not print `listening on …` within 20 s")??;
    let log = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            log.lock().expect("lock").push_str(&format!("{line}\n"));
        }
    });
    Ok((backend, base_url))
}
