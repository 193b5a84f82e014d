//! Headless Chromium with the extension loaded, a fresh profile, and a browser-level
//! CDP connection over `--remote-debugging-pipe` (the "user's hand": what a user
//! would do by hand — open the pairing link, click the popup's Stop all, close a
//! tab — never used to drive pages on the agent's behalf).
//!
//! The process group is killed on drop (`kill -KILL -<pgid>`), and the profile
//! directory removed.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use browser_bridge_cdp::Command;
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_cdp::target::{
    AttachToTarget, CloseTarget, CreateTarget, GetTargets, TargetId, TargetInfo,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{Mutex, oneshot};

/// The extension's id, fixed by the public `key` in `extension/static/manifest.json`.
pub const EXTENSION_ID: &str = "dgkehcimnlkhnpfolfghdgfhlnedenka";

/// The pairing link `chrome-extension://<id>/pair.html#token=…&backendUrl=…` that
/// stores `token` and `backend_url` in the extension (both percent-encoded).
pub fn pairing_url(token: &str, backend_url: &str) -> String {
    format!(
        "chrome-extension://{EXTENSION_ID}/pair.html#token={}&backendUrl={}",
        percent_encode(token),
        percent_encode(backend_url)
    )
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The flags every test Chromium runs with,
/// besides `--headless=new`, the profile and how CDP is reached: no sandbox (root
/// in a container), no GPU, and none of the background traffic (QUIC, first-run,
/// component updates, sync) that would leave loopback.
pub const COMMON_FLAGS: [&str; 8] = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The profile's download folder, under the profile.
const DOWNLOADS_DIR: &str = "downloads";

/// A fresh profile's `Default/Preferences`: downloads go to
/// `<profile>/downloads` without asking, as a person's Chrome saves to its
/// Downloads folder (Chromium reads these preferences at start).
fn write_download_prefs(profile: &Path) -> Result<()> {
    let dir = profile.join(DOWNLOADS_DIR);
    std::fs::create_dir_all(&dir).context("creating the downloads folder")?;
    std::fs::create_dir_all(profile.join("Default")).context("creating the profile")?;
    let prefs = json!({
        "download": { "default_directory": dir, "prompt_for_download": false },
        "savefile": { "default_directory": dir },
    });
    std::fs::write(profile.join("Default/Preferences"), prefs.to_string())
        .context("writing the profile's preferences")
}

/// The Chromium binary: `$CHROMIUM`, else Debian's `/usr/lib/chromium/chromium`,
/// else `/usr/bin/chromium`.
///
/// # Errors
/// When none exists (install Debian's `chromium`).
pub fn chromium_binary() -> Result<PathBuf> {
    let candidates = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/lib/chromium/chromium",
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
            ]
            .map(PathBuf::from),
        );
    for c in candidates {
        if c.exists() {
            return Ok(c);
        }
    }
    bail!(
        "Chromium not found: install Debian's `chromium` (apt-get install -y chromium) or set CHROMIUM"
    )
}

/// A fresh directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/bb-<label>-<pid>-<n>`.
    ///
    /// # Errors
    /// When the directory cannot be created.
    pub fn new(label: &str) -> Result<TempDir> {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .subsec_nanos();
        let dir =
            std::env::temp_dir().join(format!("bb-{label}-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(TempDir(dir))
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

type Pending = Arc<std::sync::Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// A running headless Chromium.
pub struct Chromium {
    child: Child,
    pid: u32,
    stdin: Mutex<ChildStdin>,
    pending: Pending,
    next_id: AtomicU64,
    /// The profile (`--user-data-dir`).
    pub profile: TempDir,
    /// When the process was spawned.
    pub started_at: Instant,
}

impl Chromium {
    /// Launches Chromium ([`COMMON_FLAGS`] plus `--remote-debugging-pipe`)
    /// with `extension_dir` loaded, showing `about:blank`.
    ///
    /// # Errors
    /// When Chromium is missing or does not start.
    pub async fn launch(extension_dir: &Path) -> Result<Chromium> {
        Self::launch_with(extension_dir, false).await
    }

    /// [`Chromium::launch`], with a visible window when `headed` (needs a display;
    /// the demo's `--headed`).
    ///
    /// # Errors
    /// When Chromium is missing or does not start.
    pub async fn launch_with(extension_dir: &Path, headed: bool) -> Result<Chromium> {
        Self::launch_on(extension_dir, headed, None).await
    }

    /// [`Chromium::launch_with`] on the X display `display` (`:99`) instead of
    /// the inherited `$DISPLAY`, e.g. a test's own Xvfb.
    ///
    /// # Errors
    /// When Chromium is missing or does not start.
    pub async fn launch_on(
        extension_dir: &Path,
        headed: bool,
        display: Option<&str>,
    ) -> Result<Chromium> {
        Self::launch_full(extension_dir, headed, display, false).await
    }

    /// [`Chromium::launch_on`], with Chromium's DevTools WebSocket server on
    /// an ephemeral loopback port as well when `devtools_port` (the bench's
    /// second raw CDP reference; [`Chromium::devtools_port`]).
    ///
    /// # Errors
    /// When Chromium is missing or does not start.
    pub async fn launch_full(
        extension_dir: &Path,
        headed: bool,
        display: Option<&str>,
        devtools_port: bool,
    ) -> Result<Chromium> {
        let profile = TempDir::new("profile")?;
        write_download_prefs(profile.path())?;
        Self::launch_in(profile, extension_dir, headed, display, devtools_port).await
    }

    /// Kills this browser's process group (as a crash or a machine's restart
    /// ends it: no event reaches the backend), waits until the group is gone,
    /// and starts a new one on the same profile with `extension_dir` (headless,
    /// without the DevTools port, whatever this one had): the extension keeps
    /// its storage (pairing, `clientId`) and loses what a browser process holds
    /// (its tabs, `chrome.storage.session`).
    ///
    /// # Errors
    /// When the browser does not exit within 10 s or the new one does not start.
    pub async fn relaunch(&mut self, extension_dir: &Path) -> Result<()> {
        kill_group(self.pid);
        tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .context("the browser did not exit within 10 s of SIGKILL")??;
        // The whole group, so no process of the old run still holds the profile.
        let until = Instant::now() + Duration::from_secs(10);
        while group_alive(self.pid) {
            if Instant::now() > until {
                bail!("the browser's processes did not exit within 10 s of SIGKILL");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let profile = std::mem::replace(&mut self.profile, TempDir::new("spare")?);
        let fresh = Self::launch_in(profile, extension_dir, false, None, false).await?;
        let mut old = std::mem::replace(self, fresh);
        // Its group is gone; its number may be another's by now.
        old.pid = 0;
        Ok(())
    }

    async fn launch_in(
        profile: TempDir,
        extension_dir: &Path,
        headed: bool,
        display: Option<&str>,
        devtools_port: bool,
    ) -> Result<Chromium> {
        let binary = chromium_binary()?;
        let ext = extension_dir.display().to_string();
        let mut cmd = std::process::Command::new("sh");
        // fd 3 = our writes (Chromium reads CDP), fd 4 = Chromium's CDP output.
        cmd.arg("-c")
            .arg("exec \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg("sh")
            .arg(&binary)
            .args((!headed).then_some("--headless=new"))
            .args(COMMON_FLAGS)
            .args([
                "--silent-debugger-extension-api",
                // No --window-size: with it, Page.captureScreenshot of a tab in the
                // minimized agent window never answers (measured, Chromium 156).
                "--remote-debugging-pipe",
            ])
            .args(devtools_port.then_some("--remote-debugging-port=0"))
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--load-extension={ext}"))
            .arg(format!("--disable-extensions-except={ext}"))
            .arg("about:blank")
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if std::env::var_os("BB_CHROMIUM_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        if std::env::var_os("BB_CHROMIUM_LOG").is_some() {
            cmd.arg("--enable-logging=stderr");
        }
        if let Some(display) = display {
            cmd.env("DISPLAY", display);
        }
        let started_at = Instant::now();
        let mut child = tokio::process::Command::from(cmd)
            .kill_on_drop(true)
            .spawn()
            .context("spawning chromium")?;
        let pid = child
            .id()
            .ok_or_else(|| anyhow!("chromium exited at once"))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let pending: Pending = Arc::default();
        let reader_pending = pending.clone();
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                let n = match stdout.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                buf.extend_from_slice(&chunk[..n]);
                while let Some(end) = buf.iter().position(|b| *b == 0) {
                    let frame: Vec<u8> = buf.drain(..=end).collect();
                    let Ok(msg) = serde_json::from_slice::<Value>(&frame[..frame.len() - 1]) else {
                        continue;
                    };
                    if let Some(id) = msg.get("id").and_then(Value::as_u64)
                        && let Some(tx) = reader_pending.lock().expect("lock").remove(&id)
                    {
                        let _ = tx.send(msg);
                    }
                }
            }
        });
        Ok(Chromium {
            child,
            pid,
            stdin: Mutex::new(stdin),
            pending,
            next_id: AtomicU64::new(1),
            profile,
            started_at,
        })
    }

    /// Where the profile saves downloads (`<profile>/downloads`), never the
    /// user's own Downloads folder.
    pub fn downloads_dir(&self) -> PathBuf {
        self.profile.path().join(DOWNLOADS_DIR)
    }

    /// One typed CDP command ([`browser_bridge_cdp`]) to the browser, or to an
    /// attached `session`; its decoded result.
    ///
    /// # Errors
    /// CDP's error, no answer within 15 s, or a result that does not decode.
    pub async fn send<C: Command>(
        &self,
        command: &C,
        session: Option<&str>,
    ) -> Result<C::Response> {
        let result = self
            .cdp(C::METHOD, serde_json::to_value(command)?, session)
            .await?;
        serde_json::from_value(result).with_context(|| format!("{}: unexpected result", C::METHOD))
    }

    /// One CDP command by name with JSON params (optionally on an attached
    /// `session`); the `result` object. The raw form under [`Chromium::send`],
    /// kept for tests that send a method the typed crate does not declare
    /// (`Page.crash`).
    ///
    /// # Errors
    /// CDP's error, or no answer within 15 s.
    pub async fn cdp(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("lock").insert(id, tx);
        let mut bytes = serde_json::to_vec(&msg)?;
        bytes.push(0);
        {
            let mut stdin = self.stdin.lock().await;
            stdin
                .write_all(&bytes)
                .await
                .context("writing to chromium's CDP pipe")?;
            stdin.flush().await?;
        }
        let reply = tokio::time::timeout(Duration::from_secs(15), rx)
            .await
            .with_context(|| format!("{method}: no answer from chromium"))?
            .map_err(|_| anyhow!("{method}: chromium closed the pipe"))?;
        if let Some(error) = reply.get("error") {
            bail!("{method}: {error}");
        }
        Ok(reply["result"].clone())
    }

    /// Every target (`Target.getTargets`): pages, service workers, …
    ///
    /// # Errors
    /// As [`Chromium::send`].
    pub async fn target_infos(&self) -> Result<Vec<TargetInfo>> {
        Ok(self.send(&GetTargets {}, None).await?.target_infos)
    }

    /// [`Chromium::target_infos`] as CDP's whole JSON objects, for tests that
    /// read fields the typed [`TargetInfo`] leaves out (`attached`).
    ///
    /// # Errors
    /// As [`Chromium::cdp`].
    pub async fn targets(&self) -> Result<Vec<Value>> {
        let r = self.cdp(GetTargets::METHOD, json!({}), None).await?;
        Ok(r["targetInfos"].as_array().cloned().unwrap_or_default())
    }

    /// Whether `t` is this extension's service worker.
    fn is_extension_worker(t: &TargetInfo) -> bool {
        t.kind == "service_worker"
            && t.url
                .starts_with(&format!("chrome-extension://{EXTENSION_ID}/"))
    }

    /// Waits until the extension's service worker runs.
    ///
    /// # Errors
    /// When it does not start within `timeout`.
    pub async fn wait_for_extension(&self, timeout: Duration) -> Result<()> {
        let until = Instant::now() + timeout;
        loop {
            let found = self
                .target_infos()
                .await?
                .iter()
                .any(Self::is_extension_worker);
            if found {
                return Ok(());
            }
            if Instant::now() > until {
                bail!("the extension's service worker did not start within {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The extension's service-worker target (`Target.getTargets`), when it runs.
    ///
    /// # Errors
    /// As [`Chromium::send`].
    pub async fn extension_worker(&self) -> Result<Option<TargetInfo>> {
        Ok(self
            .target_infos()
            .await?
            .into_iter()
            .find(Self::is_extension_worker))
    }

    /// Stops the extension's service worker the way Chrome stops an idle one: its
    /// target is closed through the browser endpoint (`Target.closeTarget`, what
    /// Puppeteer's `WebWorker.close()` does for service workers), and this returns once
    /// the target is gone (at most 10 s). The worker runs again only when an event
    /// wakes it.
    ///
    /// # Errors
    /// When no worker runs, it does not stop in time, or as [`Chromium::cdp`].
    pub async fn stop_extension_worker(&self) -> Result<()> {
        let worker = self
            .extension_worker()
            .await?
            .context("the extension's service worker is not running")?;
        let id = worker.target_id;
        self.send(
            &CloseTarget {
                target_id: id.clone(),
            },
            None,
        )
        .await?;
        let until = Instant::now() + Duration::from_secs(10);
        while self.target_infos().await?.iter().any(|t| t.target_id == id) {
            if Instant::now() > until {
                bail!("the extension's service worker did not stop within 10 s");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(())
    }

    /// Pairs the extension with a backend as a user would: waits (at most 20 s) for
    /// its service worker, then opens [`pairing_url`] in a new tab; returns that
    /// tab's target id.
    ///
    /// # Errors
    /// When the worker does not start, or as [`Chromium::cdp`].
    pub async fn pair(&self, backend_url: &str, token: &str) -> Result<String> {
        self.wait_for_extension(Duration::from_secs(20)).await?;
        let (target, _) = self.open_page(&pairing_url(token, backend_url)).await?;
        Ok(target)
    }

    /// The loopback port of Chromium's DevTools WebSocket server, read from
    /// the profile's `DevToolsActivePort` (waits up to 5 s for Chromium to
    /// write it). Only for a browser from [`Chromium::launch_full`] with
    /// `devtools_port`.
    ///
    /// # Errors
    /// When the file does not appear or holds no port.
    pub async fn devtools_port(&self) -> Result<u16> {
        let file = self.profile.path().join("DevToolsActivePort");
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && let Some(Ok(port)) = text.lines().next().map(str::parse)
            {
                return Ok(port);
            }
            if Instant::now() > until {
                bail!("{} holds no port", file.display());
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Opens `url` in a new tab the way a user would, attaches to it and waits (at
    /// most 10 s) until its document has loaded; returns `(targetId, sessionId)`.
    ///
    /// # Errors
    /// As [`Chromium::cdp`].
    pub async fn open_page(&self, url: &str) -> Result<(String, String)> {
        let target = self
            .send(
                &CreateTarget {
                    url: url.to_owned(),
                },
                None,
            )
            .await?
            .target_id;
        let attach = AttachToTarget {
            target_id: target.clone(),
            flatten: true,
        };
        let session = self.send(&attach, None).await?.session_id.0;
        let target = target.0;
        // createTarget answers before the navigation commits: wait for the document
        // (an early evaluate would run in the initial about:blank and be destroyed).
        let until = Instant::now() + Duration::from_secs(10);
        let ready = "return location.href !== 'about:blank' && document.readyState === 'complete'";
        while Instant::now() < until
            && !matches!(self.eval(&session, ready).await, Ok(Value::Bool(true)))
        {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Ok((target, session))
    }

    /// Evaluates `body` in an attached page, wrapped like the `evaluate` action as
    /// `(async () => { body })()` (so `return` the value, `await` freely); its value.
    ///
    /// # Errors
    /// When CDP fails or the expression throws.
    pub async fn eval(&self, session: &str, body: &str) -> Result<Value> {
        let evaluate = Evaluate {
            await_promise: Some(true),
            ..Evaluate::by_value(format!("(async () => {{\n{body}\n}})()"))
        };
        let r = self.send(&evaluate, Some(session)).await?;
        if let Some(ex) = r.exception_details {
            bail!("{body}: threw {}", ex.message());
        }
        Ok(r.result.value.unwrap_or(Value::Null))
    }

    /// Closes a target (a tab), as a user closing it.
    ///
    /// # Errors
    /// As [`Chromium::send`].
    pub async fn close_target(&self, target: &str) -> Result<()> {
        let close = CloseTarget {
            target_id: TargetId(target.to_owned()),
        };
        self.send(&close, None).await.map(|_| ())
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }
}

/// SIGKILL to the process group `pid` leads: the browser and its
/// zygote/renderer children.
fn kill_group(pid: u32) {
    // `-s KILL --` matters: procps `kill -KILL -<pgid>` reads `-<pgid>` as
    // options and ends up calling kill(-1, SIGKILL), i.e. every process.
    let _ = std::process::Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pid}")])
        .status();
}

/// Whether any process of the group `pid` leads is left (`kill -0`).
fn group_alive(pid: u32) -> bool {
    std::process::Command::new("kill")
        .args(["-s", "0", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // 0: relaunched, its group already gone.
        if self.pid != 0 {
            kill_group(self.pid);
        }
        let _ = self.child.start_kill();
    }
}
