//! browser-bridge extension: a Rust/wasm MV3 service worker that executes the
//! agent's actions in Chrome tabs through `chrome.debugger` (CDP), connected to the
//! local backend over one WebSocket (PROTOCOL.md).
//!
//! The JS loader (`static/background.js`) registers every chrome.* listener in the
//! worker's first turn, initialises this module, calls [`start`], then forwards the
//! queued and later events to [`handle_event`]. The popup talks to the worker with
//! `chrome.runtime.sendMessage`, answered by [`popup_message`].
//!
//! Modules: `chrome` (bindings), `cdp` (commands with timeouts, event waiters),
//! `connection` (socket, handshake, reconnect, keep-alive), `sessions` (§10),
//! `dispatch` (one response per request), `actions` (§5), `extract` (§6).

pub mod actions;
pub mod cdp;
pub mod chrome;
pub mod connection;
pub mod core;
pub mod dispatch;
pub mod extract;
pub mod lifecycle;
pub mod page_tools;
pub mod runtime;
pub mod sessions;

use browser_bridge_protocol::TabId;
use js_sys::{Array, Promise, Reflect};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

/// Period of the keep-alive alarm (minutes): Chrome's minimum, below the 30 s idle
/// eviction so a suspended worker is woken and reconnects.
const KEEPALIVE_ALARM_MINUTES: f64 = 0.5;
/// `chrome.idle` detection interval (s): how long without input counts as idle.
const IDLE_DETECTION_SECONDS: u32 = 300;

/// Entry point, called by the loader once the module is initialised (on every
/// worker start, and again after the loader re-instantiated the module following a
/// panic): installs the panic hook, loads settings, connects, takes back the
/// sessions a previous worker left (lifecycle.rs), arms the keep-alive alarm.
///
/// The promise resolves once the sessions are restored; the loader queues chrome.*
/// events until then, so none reaches a session that is not back yet.
#[wasm_bindgen]
pub fn start() -> Promise {
    std::panic::set_hook(Box::new(lifecycle::on_panic));
    chrome::idle_set_detection_interval(IDLE_DETECTION_SECONDS);
    lifecycle::begin_restore();
    future_to_promise(async {
        sessions::load_settings().await;
        connection::ensure_connected();
        lifecycle::restore().await;
        if let Err(e) = chrome::alarms_create("keepalive", KEEPALIVE_ALARM_MINUTES).await {
            chrome::log(&format!("alarms.create: {e}"));
        }
        Ok(JsValue::UNDEFINED)
    })
}

/// One chrome.* event forwarded by the loader: `name` is the loader's label,
/// `args` the listener's arguments.
#[wasm_bindgen]
pub fn handle_event(name: &str, args: Array) {
    match name {
        "startup" | "installed" | "alarm" => connection::ensure_connected(),
        "debuggerEvent" => {
            let Some(tab) = tab_of(&args.get(0)) else {
                return;
            };
            let Some(method) = args.get(1).as_string() else {
                return;
            };
            // An event of a child target (out-of-process iframe) of the tab.
            if let Some(child) = Reflect::get(&args.get(0), &"sessionId".into())
                .ok()
                .and_then(|s| s.as_string())
            {
                if sessions::child_routed(&method) {
                    let params: Value = chrome::from_js(&args.get(2)).unwrap_or_default();
                    sessions::on_child_event(tab, &child, &method, &params);
                }
                return;
            }
            if sessions::always_routed(&method) || cdp::wanted(&method) {
                let params: Value = chrome::from_js(&args.get(2)).unwrap_or_default();
                sessions::on_debugger_event(tab, &method, &params);
            }
        }
        "debuggerDetach" => {
            if let Some(tab) = tab_of(&args.get(0)) {
                sessions::on_detach(tab, &args.get(1).as_string().unwrap_or_default());
            }
        }
        "tabRemoved" => {
            if let Some(id) = args.get(0).as_f64() {
                sessions::on_tab_removed(TabId(id as i64));
            }
        }
        "tabCreated" => {
            let tab: Option<chrome::Tab> = chrome::from_js(&args.get(0)).ok();
            if let Some(tab) = tab {
                actions::effects::on_tab_created(&tab);
            }
        }
        "idle" => sessions::on_idle_state(&args.get(0).as_string().unwrap_or_default()),
        "storage" => on_storage_changed(&args),
        other => chrome::log(&format!("unknown event {other} ignored")),
    }
}

fn tab_of(source: &JsValue) -> Option<TabId> {
    Reflect::get(source, &"tabId".into())
        .ok()?
        .as_f64()
        .map(|t| TabId(t as i64))
}

fn on_storage_changed(args: &Array) {
    if args.get(1).as_string().as_deref() != Some("local") {
        return;
    }
    let changes: Value = chrome::from_js(&args.get(0)).unwrap_or_default();
    if let Some(change) = changes.get("blocklist") {
        sessions::apply_blocklist_value(&change["newValue"]);
    }
    if changes.get("pairingToken").is_some() || changes.get("backendUrl").is_some() {
        // Re-pairing clears a fatal reject and reconnects at once.
        wasm_bindgen_futures::spawn_local(async {
            let _ = chrome::storage_set(&json!({ "fatalError": null })).await;
            connection::reconnect_now();
        });
    }
}

/// A popup/options request (`chrome.runtime.sendMessage`): `{cmd: "status" |
/// "stop" (with tabId) | "stopAll" | "resume" | "reconnect" | "panic" (with
/// `sync?`)}` (`panic`: the recovery self-test, [`lifecycle::panic_on_request`]);
/// resolves to the status object `{connection, sessions, globalStop}`.
#[wasm_bindgen]
pub fn popup_message(message: JsValue) -> Promise {
    let message: Value = chrome::from_js(&message).unwrap_or_default();
    if message["cmd"] == "panic" {
        // Self-test of the panic recovery (lifecycle.rs, background.js): only this
        // extension's own pages reach popup_message (the loader checks the sender),
        // and the worker recovers within milliseconds.
        lifecycle::panic_on_request(message["sync"] == true);
    }
    future_to_promise(async move {
        match message["cmd"].as_str() {
            Some("stop") => {
                if let Some(tab) = message["tabId"].as_i64() {
                    sessions::end_session(
                        TabId(tab),
                        browser_bridge_protocol::SessionEndReason::Stopped,
                        true,
                    );
                }
            }
            Some("stopAll") => sessions::stop_all().await,
            Some("resume") => sessions::resume().await,
            Some("reconnect") => connection::reconnect_now(),
            _ => {}
        }
        let status = json!({
            "connection": connection::status(),
            "sessions": sessions::popup_list(),
            "globalStop": sessions::global_stopped(),
        });
        Ok(chrome::to_js(&status))
    })
}
