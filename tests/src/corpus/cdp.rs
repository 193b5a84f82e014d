//! A minimal raw CDP client over the browser's DevTools WebSocket, for capturing what
//! `extract` gathers (DOMSnapshot, accessibility tree, innerText) straight from a
//! headless Chromium, without the extension. Used by the corpus tool to iterate on
//! markdown shaping natively and to record fixtures.
//!
//! Not [`crate::chromium::Chromium`] (which shares its flags and binary lookup):
//! that one always loads the extension, has no window size (a screenshot hang) and
//! drops CDP events; capturing needs no extension, the 1280×900 layout the
//! fixtures were recorded at, the load event, and NOTFOUND for external hosts.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use browser_bridge_cdp::page::{self, LoadEventFired};
use browser_bridge_cdp::target::{AttachToTarget, CreateTarget};
use browser_bridge_cdp::{Command as CdpCommand, Event};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::chromium::{COMMON_FLAGS, chromium_binary};

/// A headless Chromium with remote debugging on an ephemeral port; killed on drop.
pub struct Browser {
    child: Child,
    profile: PathBuf,
    /// `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub ws_url: String,
}

impl Browser {
    /// Starts Chromium with a fresh profile. Every host but 127.0.0.1 resolves to
    /// NOTFOUND so that corpus pages' external resources fail at once.
    pub async fn launch() -> Result<Browser> {
        let profile = std::env::temp_dir().join(format!("bb-corpus-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&profile)?;
        let child = Command::new(chromium_binary()?)
            .arg("--headless=new")
            .args(COMMON_FLAGS)
            .args([
                "--remote-debugging-port=0",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("spawning chromium")?;
        let port_file = profile.join("DevToolsActivePort");
        let mut waited = 0;
        let text = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && text.lines().count() >= 2
            {
                break text;
            }
            if waited > 200 {
                bail!("chromium wrote no DevToolsActivePort in 20 s");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 1;
        };
        let mut lines = text.lines();
        let port = lines.next().unwrap_or_default().trim().to_owned();
        let path = lines.next().unwrap_or_default().trim().to_owned();
        Ok(Browser {
            child,
            profile,
            ws_url: format!("ws://127.0.0.1:{port}{path}"),
        })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A sequential CDP connection: one command at a time, events stashed until asked for.
pub struct Cdp {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    events: Vec<Value>,
}

impl Cdp {
    /// Connects to the browser endpoint.
    pub async fn connect(ws_url: &str) -> Result<Cdp> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url).await?;
        Ok(Cdp {
            ws,
            next_id: 1,
            events: Vec::new(),
        })
    }

    /// Sends one typed command (to `session` when given); its decoded result.
    pub async fn send<C: CdpCommand>(
        &mut self,
        session: Option<&str>,
        command: &C,
    ) -> Result<C::Response> {
        let result = self
            .call(session, C::METHOD, serde_json::to_value(command)?)
            .await?;
        serde_json::from_value(result).with_context(|| format!("{}: unexpected result", C::METHOD))
    }

    /// Sends `method` (to `session` when given) and returns its `result`: the raw
    /// form under [`Cdp::send`], for the corpus tool's replay of arbitrary methods.
    pub async fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).await?;
        loop {
            let frame = self.read().await?;
            if frame.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(err) = frame.get("error") {
                    bail!("{method}: {err}");
                }
                return Ok(frame.get("result").cloned().unwrap_or(Value::Null));
            }
            if frame.get("method").is_some() {
                self.events.push(frame);
            }
        }
    }

    /// Waits up to `timeout` for the next `E`; stashed events count.
    pub async fn wait<E: Event>(&mut self, timeout: Duration) -> Result<E> {
        let frame = self.wait_event(E::METHOD, timeout).await?;
        let params = frame.get("params").cloned().unwrap_or_default();
        serde_json::from_value(params).with_context(|| format!("{}: unexpected params", E::METHOD))
    }

    /// Waits up to `timeout` for an event named `method` (the whole frame);
    /// stashed events count.
    pub async fn wait_event(&mut self, method: &str, timeout: Duration) -> Result<Value> {
        if let Some(i) = self.events.iter().position(|e| e["method"] == method) {
            return Ok(self.events.remove(i));
        }
        tokio::time::timeout(timeout, async {
            loop {
                let frame = self.read().await?;
                if frame["method"] == method {
                    return Ok(frame);
                }
            }
        })
        .await
        .map_err(|_| anyhow!("no {method} within {timeout:?}"))?
    }

    /// Forgets stashed events.
    pub fn clear_events(&mut self) {
        self.events.clear();
    }

    async fn read(&mut self) -> Result<Value> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(serde_json::from_str(&t)?),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
                None => bail!("CDP socket closed"),
            }
        }
    }
}

/// A page target attached with a flat session.
pub struct Tab {
    /// The CDP connection.
    pub cdp: Cdp,
    /// The flat session id of the page target.
    pub session: String,
}

impl Tab {
    /// Opens a new page target and enables Page events.
    pub async fn open(browser: &Browser) -> Result<Tab> {
        let mut cdp = Cdp::connect(&browser.ws_url).await?;
        let create = CreateTarget {
            url: "about:blank".into(),
        };
        let target_id = cdp.send(None, &create).await?.target_id;
        let attach = AttachToTarget {
            target_id,
            flatten: true,
        };
        let session = cdp.send(None, &attach).await?.session_id.0;
        cdp.send(Some(&session), &page::Enable {}).await?;
        Ok(Tab { cdp, session })
    }

    /// Sends one typed command to this page; its decoded result.
    pub async fn send<C: CdpCommand>(&mut self, command: &C) -> Result<C::Response> {
        self.cdp.send(Some(&self.session), command).await
    }

    /// Sends a command by name to this page (the raw form under [`Tab::send`]).
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.cdp.call(Some(&self.session), method, params).await
    }

    /// Navigates and waits for the load event (at most 15 s).
    pub async fn goto(&mut self, url: &str) -> Result<()> {
        self.cdp.clear_events();
        self.send(&page::Navigate {
            url: url.to_owned(),
        })
        .await?;
        self.cdp
            .wait::<LoadEventFired>(Duration::from_secs(15))
            .await?;
        Ok(())
    }
}
