//! The extension across Chrome's service-worker lifecycle (PROTOCOL.md §3, §10).
//!
//! Chrome stops an MV3 worker (idle eviction, update, DevTools, memory pressure)
//! and starts a new one on the next event; the new worker starts with empty memory:
//! no sessions, no uid caches, no dialog state, no socket. What survives is
//! `chrome.storage`, the tabs, and (measured, Chromium 156) the extension's
//! `chrome.debugger` attachments. So sessions are **restored**, not ended: every
//! change to a session is mirrored into `chrome.storage.session` (key `sessions`,
//! a JSON string of [`Record`]s), and [`restore`] takes them back on start — same
//! tab, same action count, same uids (the debugger is adopted when still attached,
//! re-attached otherwise). A tab that is gone ends its session with `tab_closed`;
//! one that cannot be attached again (or now shows a blocked or non-web page) ends
//! with `detached` (or `domain_blocked`). An open dialog is kept with its session;
//! CDP events of the gap (a dialog closed, a navigation) wake the new worker and are
//! queued by the loader until the restore is done, so they apply to the restored
//! session.
//!
//! A request in flight when the worker stops is answered `not_connected` by the
//! backend when the socket drops (PROTOCOL.md §2); the new worker never heard of it,
//! so it cannot answer it a second time. Requests that arrive after the new socket's
//! `ack` wait in [`restored`] until the restore is done.
//!
//! Also here: the panic hook. The extension profile builds with `panic = "abort"`,
//! so a panic traps the wasm instance; [`on_panic`] logs the message and hands it
//! to the JS loader (global `__browserBridgePanic`), which catches the trap,
//! stores the report (`chrome.storage.local` key `lastPanic`) and re-instantiates
//! the module (`static/background.js`).

use std::cell::{Cell, RefCell};

use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::event::SessionEnded;
use browser_bridge_protocol::result::DialogInfo;
use browser_bridge_protocol::{Event, SessionEndReason, TabId};
use futures::channel::oneshot;
use serde::{Deserialize, Serialize};
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use crate::sessions::{self, Session};
use crate::{chrome, connection};

/// `chrome.storage.session` key holding the live sessions.
pub const SESSIONS_KEY: &str = "sessions";
/// Global the panic hook writes the panic message to, for the JS loader's report.
pub const PANIC_GLOBAL: &str = "__browserBridgePanic";

/// What is kept of one session across a worker restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The tab.
    pub tab: TabId,
    /// The tab lives in the agent window.
    pub agent_window: bool,
    /// Actions run so far.
    pub action_count: u64,
    /// When the session started (ms since the epoch).
    pub started_at: u64,
    /// Last known main-frame URL.
    pub url: String,
    /// The uid cache (§6).
    pub uids: UidCache,
    /// The JavaScript dialog open in the tab (§5): without it a restarted worker
    /// could neither refuse actions that the dialog blocks nor `handle_dialog` it.
    #[serde(default)]
    pub dialog: Option<DialogInfo>,
}

impl Record {
    /// The record of a live session.
    pub fn of(s: &Session) -> Record {
        Record {
            tab: s.tab,
            agent_window: s.agent_window,
            action_count: s.action_count,
            started_at: s.started_at,
            url: s.url.clone(),
            uids: s.uids.clone(),
            dialog: s.dialog.clone(),
        }
    }
}

thread_local! {
    /// [`restore`] has not finished: requests wait ([`restored`]).
    static RESTORING: Cell<bool> = const { Cell::new(false) };
    /// Requests waiting for the restore.
    static WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// Set once [`restore`] has read the stored sessions: writing before that would
    /// overwrite what the previous worker left.
    static LOADED: Cell<bool> = const { Cell::new(false) };
    /// A write is scheduled (coalesces the changes of one turn into one write).
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
}

/// Closes the gate before anything can send a request (called first thing on
/// worker start); [`restore`] opens it.
pub fn begin_restore() {
    RESTORING.with(|r| r.set(true));
}

/// Waits until the sessions of the previous worker are restored (at once when
/// they are).
pub async fn restored() {
    if !RESTORING.with(Cell::get) {
        return;
    }
    let (tx, rx) = oneshot::channel();
    WAITERS.with(|w| w.borrow_mut().push(tx));
    let _ = rx.await;
}

fn open_gate() {
    RESTORING.with(|r| r.set(false));
    for tx in WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        let _ = tx.send(());
    }
}

/// Mirrors the live sessions into `chrome.storage.session` (one write per turn,
/// after the turn's changes).
pub fn persist() {
    if !LOADED.with(Cell::get) || SCHEDULED.with(|s| s.replace(true)) {
        return;
    }
    spawn_local(async {
        SCHEDULED.with(|s| s.set(false));
        let records = sessions::records();
        let text = serde_json::to_string(&records).unwrap_or_else(|_| "[]".into());
        if let Err(e) = chrome::session_storage_set(&json!({ SESSIONS_KEY: text })).await {
            chrome::log(&format!("storage.session.set: {e}"));
        }
    });
}

/// Restores the sessions the previous worker left in `chrome.storage.session`, then
/// opens the gate ([`restored`]).
pub async fn restore() {
    let records: Vec<Record> = chrome::session_storage_get(&[SESSIONS_KEY])
        .await
        .ok()
        .and_then(|v| v[SESSIONS_KEY].as_str().map(str::to_owned))
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    LOADED.with(|l| l.set(true));
    for record in records {
        restore_one(record).await;
    }
    persist();
    // Only now: the previous worker's network rule guarded the restored tabs
    // until here (session rules outlive the worker).
    sessions::net_rule_ready();
    open_gate();
}

async fn restore_one(record: Record) {
    let tab = record.tab;
    let ended = |reason: SessionEndReason| {
        chrome::log(&format!(
            "session on tab {tab} not restored after a worker restart ({reason:?})"
        ));
        connection::send_event(Event::SessionEnded(SessionEnded {
            tab_id: tab,
            reason,
            action_count: record.action_count,
            ended_at: chrome::now_ms(),
        }));
    };
    let Ok(info) = chrome::tabs_get(tab.0).await else {
        return ended(SessionEndReason::TabClosed);
    };
    let url = info
        .pending_url
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or(info.url.clone());
    if sessions::check_controllable(tab, &url).is_err() {
        let _ = chrome::detach(tab.0).await;
        return ended(SessionEndReason::Detached);
    }
    if sessions::check_blocklist(&url, Some(tab)).is_err() {
        let _ = chrome::detach(tab.0).await;
        return ended(SessionEndReason::DomainBlocked);
    }
    let how = match chrome::attach(tab.0).await {
        Ok(()) => "re-attached",
        Err(e) if e.message.contains("already attached") => "still attached",
        Err(e) => {
            chrome::log(&format!("debugger.attach to tab {tab}: {e}"));
            return ended(SessionEndReason::Detached);
        }
    };
    let mut uids = record.uids;
    if url != record.url {
        // It navigated while no worker listened: its uids name a gone document.
        uids.invalidate();
    }
    sessions::insert_session(Session {
        tab,
        agent_window: record.agent_window,
        action_count: record.action_count,
        uids,
        dialog: record.dialog,
        evaluating: 0,
        url,
        crashed: false,
        started_at: record.started_at,
        main_frame: None,
    });
    if how == "re-attached" {
        sessions::prepare_tab(tab).await;
    } else {
        // A surviving attachment kept its CDP session and the domains enabled on
        // it; running the setup again would register the webdriver script twice.
        sessions::note_main_frame(tab).await;
    }
    chrome::log(&format!("session on tab {tab} restored (debugger {how})"));
}

/// The panic hook: logs the message and leaves it in the global
/// [`PANIC_GLOBAL`] for the loader, which reports it and re-instantiates the module
/// after the trap that follows (`panic = "abort"`).
pub fn on_panic(info: &std::panic::PanicHookInfo<'_>) {
    let message = info.to_string();
    web_sys::console::error_1(&format!("browser-bridge: panic: {message}").into());
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &PANIC_GLOBAL.into(),
        &JsValue::from_str(&message),
    );
}

/// The recovery self-test (popup message `{cmd: "panic", sync?}`, accepted only
/// from this extension's own pages): panics in a task, as a bug in an action would,
/// or with `sync` at once, inside the call from JS.
pub fn panic_on_request(sync: bool) {
    const MESSAGE: &str =
        "panic requested by the extension's own page (self-test of the recovery path)";
    if sync {
        panic!("{MESSAGE}");
    }
    spawn_local(async {
        panic!("{MESSAGE}");
    });
}
