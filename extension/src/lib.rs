//! browser-bridge extension: a Rust/wasm MV3 service worker that executes the
//! agent's actions in Chrome tabs through `chrome.debugger` (CDP), connected to the
//! local backend over one WebSocket (PROTOCOL.md).
//!
//! The JS loader (`static/background.js`) registers every chrome.* listener in the
//! worker's first turn, initialises this module, creates the one [`Worker`] and
//! calls [`Worker::start`], then forwards the queued and later events to
//! [`Worker::handle_event`]. The popup talks to the worker with
//! `chrome.runtime.sendMessage`, answered by [`Worker::popup_message`].
//!
//! Modules, lower layers first (no module imports one above it):
//! - `core` — pure decisions, natively tested: the connection state machine,
//!   backoff, tab resolution, keys, image size, messages, settings keys;
//! - `chrome` (bindings), `cdp` (typed commands with timeouts, event waiters),
//!   `outbox` (what goes to the backend);
//! - `sessions` (§10), `handoffs` (what shows a hand-off to the person), then
//!   `lifecycle` (restart, panic hook) and `app` (the shared state);
//! - `actions` (§5), `extract` (§6), `page_tools` (§9), `runtime`;
//! - `dispatch` (one response per request), `connection` (socket, handshake,
//!   keep-alive);
//! - this file: the entry points, wiring them together.

pub mod actions;
pub mod app;
pub mod cdp;
pub mod chrome;
pub mod connection;
pub mod core;
pub mod dispatch;
pub mod extract;
pub mod handoffs;
pub mod lifecycle;
pub mod outbox;
pub mod page_tools;
pub mod runtime;
pub mod sessions;
pub mod timing;
pub mod webmcp;

use browser_bridge_protocol::{SessionEndReason, TabId};
use js_sys::{Array, Promise, Reflect};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::app::App;
use crate::connection::Connection;
use crate::core::connection::Status;
use crate::core::handoff::{Answer, PendingView, tab_of_notification};
use crate::core::settings::{Change, keys};
use crate::lifecycle::PanicSite;
use crate::sessions::devtools::devtools_routed;
use crate::sessions::popup::PopupSession;
use crate::sessions::routing::{always_routed, child_routed, child_to_tab};

/// Period of the keep-alive alarm (minutes): Chrome's minimum, below the 30 s idle
/// eviction so a suspended worker is woken and reconnects.
const KEEPALIVE_ALARM_MINUTES: f64 = 0.5;
/// `chrome.idle` detection interval (s): how long without input counts as idle.
const IDLE_DETECTION_SECONDS: u32 = 300;
/// `chrome.storage.local` key whose change panics inside an event handler: the
/// recovery self-test of that path, writable only by this extension's own pages.
const PANIC_SELF_TEST_KEY: &str = "panicSelfTest";

/// The worker: made once per module instance by the loader, which holds it
/// (`BridgeWorker` in JS: `Worker` is a Web API name).
#[wasm_bindgen(js_name = BridgeWorker)]
pub struct Worker {
    app: App,
    connection: Connection,
}

#[wasm_bindgen(js_class = BridgeWorker)]
impl Worker {
    /// A worker with no sessions and no connection yet.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Worker {
        let app = App::default();
        let dispatcher = app.clone();
        let connection = Connection::new(&app.outbox, move |request| {
            dispatch::spawn_request(&dispatcher, request)
        });
        Worker { app, connection }
    }

    /// Starts the worker (on every worker start, and again after the loader
    /// re-instantiated the module following a panic): installs the panic hook,
    /// loads settings, connects, takes back the sessions a previous worker left
    /// (lifecycle.rs), arms the keep-alive alarm.
    ///
    /// The promise resolves once the sessions are restored; the loader queues
    /// chrome.* events until then, so none reaches a session that is not back yet.
    pub fn start(&self) -> Promise {
        std::panic::set_hook(Box::new(lifecycle::on_panic));
        chrome::idle_set_detection_interval(IDLE_DETECTION_SECONDS);
        let app = self.app.clone();
        let connection = self.connection.clone();
        future_to_promise(async move {
            app.sessions.load_settings().await;
            connection.ensure();
            // Not awaited: nothing of the connection or the sessions waits on it.
            let handoffs = app.handoffs.clone();
            wasm_bindgen_futures::spawn_local(async move { handoffs.clear_leftovers().await });
            lifecycle::restore(&app.sessions, &app.outbox, &app.gate).await;
            if let Err(e) = chrome::alarms_create("keepalive", KEEPALIVE_ALARM_MINUTES).await {
                chrome::log(&format!("alarms.create: {e}"));
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// One chrome.* event forwarded by the loader: `name` is the loader's label,
    /// `args` the listener's arguments.
    pub fn handle_event(&self, name: &str, args: Array) {
        let sessions = &self.app.sessions;
        match name {
            "startup" | "installed" | "alarm" => self.connection.ensure(),
            "debuggerEvent" => self.on_debugger_event(&args),
            "debuggerDetach" => {
                if let Some(tab) = tab_of(&args.get(0)) {
                    sessions.on_detach(tab, &args.get(1).as_string().unwrap_or_default());
                }
            }
            "tabRemoved" => {
                if let Some(id) = args.get(0).as_f64() {
                    sessions.on_tab_removed(TabId(id as i64));
                    crate::actions::tabs::forget(TabId(id as i64));
                }
            }
            "tabCreated" => {
                if let Ok(tab) = chrome::from_js::<chrome::Tab>(&args.get(0)) {
                    sessions.on_tab_created(&tab);
                }
            }
            "idle" => sessions.on_idle_state(&args.get(0).as_string().unwrap_or_default()),
            "notificationButton" => {
                let tab = args
                    .get(0)
                    .as_string()
                    .and_then(|id| tab_of_notification(&id));
                let answer = args
                    .get(1)
                    .as_f64()
                    .and_then(|i| Answer::of_button(i as u32));
                if let (Some(tab), Some(answer)) = (tab, answer) {
                    self.app.handoffs.answer(tab, answer);
                }
            }
            "storage" => self.on_storage_changed(&args),
            other => chrome::log(&format!("unknown event {other} ignored")),
        }
    }

    /// A popup/options request (`chrome.runtime.sendMessage`): `{cmd: "status" |
    /// "stop" (with tabId) | "stopAll" | "resume" | "reconnect" | "handoffDone" |
    /// "handoffGiveUp" (with tabId) | "panic" (with `sync?`)}` (`panic`: the
    /// recovery self-test, [`lifecycle::panic_on_request`]); resolves to the
    /// status object `{connection, sessions, globalStop, handoffs}`.
    pub fn popup_message(&self, message: JsValue) -> Promise {
        let message: PopupMessage = chrome::from_js(&message).unwrap_or_default();
        if message.cmd == "panic" {
            // Only this extension's own pages reach popup_message (the loader
            // checks the sender), and the worker recovers within milliseconds.
            lifecycle::panic_on_request(if message.sync {
                PanicSite::Call
            } else {
                PanicSite::Task
            });
        }
        let app = self.app.clone();
        let connection = self.connection.clone();
        future_to_promise(async move {
            let sessions = &app.sessions;
            match message.cmd.as_str() {
                "stop" => {
                    if let Some(tab) = message.tab_id {
                        sessions.end(tab, SessionEndReason::Stopped, true);
                    }
                }
                "stopAll" => sessions.stop_all().await,
                "resume" => sessions.resume().await,
                "reconnect" => connection.reconnect(),
                cmd => {
                    if let (Some(answer), Some(tab)) = (Answer::of_popup(cmd), message.tab_id) {
                        app.handoffs.answer(tab, answer);
                    }
                }
            }
            let status = PopupStatus {
                connection: connection.status(),
                sessions: sessions.popup_list(),
                global_stop: sessions.global_stopped(),
                handoffs: app.handoffs.views(),
            };
            Ok(chrome::to_js(&status))
        })
    }
}

impl Worker {
    /// `chrome.debugger.onEvent(source, method, params)`: to the sessions and the
    /// event waiters; params are converted only when someone handles them.
    fn on_debugger_event(&self, args: &Array) {
        let (Some(tab), Some(method)) = (tab_of(&args.get(0)), args.get(1).as_string()) else {
            return;
        };
        let params = || chrome::from_js::<Value>(&args.get(2)).unwrap_or_default();
        let child = Reflect::get(&args.get(0), &"sessionId".into())
            .ok()
            .and_then(|s| s.as_string());
        if devtools_routed(&method) {
            // Decoded straight into the few fields the buffers keep.
            self.app
                .sessions
                .on_devtools_event(tab, child.as_deref(), &method, &args.get(2));
        }
        // An event of a child target (out-of-process iframe) of the tab.
        if let Some(child) = child {
            if child_routed(&method) {
                self.app
                    .sessions
                    .on_child_event(tab, &child, &method, &params());
            }
            if child_to_tab(&method) && self.app.events.wanted(&method) {
                self.app.events.deliver(tab, &method, &params());
            }
            return;
        }
        let handled = always_routed(&method);
        if handled || self.app.events.wanted(&method) {
            let params = params();
            if handled {
                self.app.sessions.on_debugger_event(tab, &method, &params);
            }
            self.app.events.deliver(tab, &method, &params);
        }
    }

    /// `chrome.storage.onChanged` of the `local` area.
    fn on_storage_changed(&self, args: &Array) {
        if args.get(1).as_string().as_deref() != Some("local") {
            return;
        }
        let changes: Value = chrome::from_js(&args.get(0)).unwrap_or_default();
        if changes.get(PANIC_SELF_TEST_KEY).is_some() {
            lifecycle::panic_on_request(PanicSite::Call);
        }
        let change = Change::from_changes(&changes);
        if let Some(blocklist) = &change.blocklist {
            self.app.sessions.apply_blocklist_value(blocklist);
        }
        if change.repaired {
            // Re-pairing clears a fatal reject and reconnects at once.
            let connection = self.connection.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = chrome::storage_set(&json!({ keys::FATAL_ERROR: null })).await;
                connection.reconnect();
            });
        } else if change.renamed {
            self.connection.reconnect();
        }
    }
}

fn tab_of(source: &JsValue) -> Option<TabId> {
    Reflect::get(source, &"tabId".into())
        .ok()?
        .as_f64()
        .map(|t| TabId(t as i64))
}

/// A popup/options message.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct PopupMessage {
    cmd: String,
    tab_id: Option<TabId>,
    sync: bool,
}

/// What the popup shows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PopupStatus {
    connection: Option<Status>,
    sessions: Vec<PopupSession>,
    global_stop: bool,
    handoffs: Vec<PendingView>,
}
