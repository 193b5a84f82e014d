//! The extension across Chrome's service-worker lifecycle (PROTOCOL.md §3, §10).
//!
//! Chrome stops an MV3 worker (idle eviction, update, DevTools, memory pressure)
//! and starts a new one on the next event; the new worker starts with empty memory:
//! no sessions, no uid caches, no dialog state, no socket. What survives is
//! `chrome.storage`, the tabs, and (measured, Chromium 156) the extension's
//! `chrome.debugger` attachments. So sessions are **restored**, not ended: every
//! change to a session is mirrored into `chrome.storage.session`
//! (`crate::sessions::persist`; an action's count within 200 ms), and
//! [`restore`] takes them back on start — same tab, same action count, same
//! uids (the debugger is adopted when still attached, re-attached otherwise).
//! A tab that is gone ends its session with `tab_closed`; one that cannot be
//! attached again (or now shows a blocked or non-web page) ends
//! with `detached` (or `domain_blocked`). An open dialog is kept with its session;
//! CDP events of the gap (a dialog closed, a navigation) wake the new worker and are
//! queued by the loader until the restore is done, so they apply to the restored
//! session.
//!
//! A request in flight when the worker stops is answered `not_connected` by the
//! backend when the socket drops (PROTOCOL.md §2); the new worker never heard of it,
//! so it cannot answer it a second time. Requests that arrive after the new socket's
//! `ack` wait at the [`Gate`] until the restore is done.
//!
//! Also here: the panic hook. The extension profile builds with `panic = "abort"`,
//! so a panic traps the wasm instance; [`on_panic`] logs the message and hands it
//! to the JS loader (global [`PANIC_GLOBAL`]), which catches the trap, stores the
//! report (`chrome.storage.local` key `lastPanic`, shown by the popup) and
//! re-instantiates the module (`static/background.js`).

use std::cell::RefCell;
use std::rc::Rc;

use browser_bridge_protocol::event::SessionEnded;
use browser_bridge_protocol::{Event, SessionEndReason};
use futures::channel::oneshot;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use crate::chrome;
use crate::core::settings::SESSIONS_KEY;
use crate::core::windows::AGENT_WINDOWS_KEY;
use crate::outbox::Outbox;
use crate::sessions::Sessions;
use crate::sessions::attach::{check_controllable, tab_url};
use crate::sessions::persist::Record;

/// Global the panic hook writes the panic message to, for the JS loader's report.
pub const PANIC_GLOBAL: &str = "__browserBridgePanic";

/// Holds requests until the previous worker's sessions are back: closed at
/// start, opened by [`restore`].
#[derive(Clone)]
pub struct Gate {
    /// `None` once open; else the requests waiting.
    waiting: Rc<RefCell<Option<Vec<oneshot::Sender<()>>>>>,
}

impl Gate {
    /// A closed gate.
    pub fn closed() -> Gate {
        Gate {
            waiting: Rc::new(RefCell::new(Some(Vec::new()))),
        }
    }

    /// Waits until the gate is open (at once when it is).
    pub async fn passed(&self) {
        let rx = {
            let mut waiting = self.waiting.borrow_mut();
            let Some(waiting) = waiting.as_mut() else {
                return;
            };
            let (tx, rx) = oneshot::channel();
            waiting.push(tx);
            rx
        };
        let _ = rx.await;
    }

    fn open(&self) {
        let waiting = self.waiting.borrow_mut().take();
        for tx in waiting.unwrap_or_default() {
            let _ = tx.send(());
        }
    }
}

/// Restores the sessions the previous worker left in `chrome.storage.session`,
/// then opens the `gate`.
pub async fn restore(sessions: &Sessions, outbox: &Outbox, gate: &Gate) {
    let stored = chrome::session_storage_get(&[SESSIONS_KEY, AGENT_WINDOWS_KEY])
        .await
        .unwrap_or_default();
    let records: Vec<Record> = stored
        .get(SESSIONS_KEY)
        .and_then(|v| v.as_str())
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default();
    // The clients' agent windows: their next tabs open there again (§10).
    if let Some(windows) = stored.get(AGENT_WINDOWS_KEY) {
        sessions.restore_agent_windows(windows);
    }
    sessions.mark_loaded();
    for record in records {
        restore_one(sessions, outbox, record).await;
    }
    sessions.persist();
    // Only now: the previous worker's network rule guarded the restored tabs
    // until here (session rules outlive the worker).
    sessions.net_rule_ready();
    gate.open();
}

async fn restore_one(sessions: &Sessions, outbox: &Outbox, record: Record) {
    let tab = record.tab;
    let ended = |reason: SessionEndReason| {
        chrome::log(&format!(
            "session on tab {tab} not restored after a worker restart ({reason:?})"
        ));
        outbox.event(Event::SessionEnded(SessionEnded {
            tab_id: tab,
            reason,
            action_count: record.action_count,
            ended_at: chrome::now_ms(),
        }));
    };
    let Ok(info) = chrome::tabs_get(tab.0).await else {
        return ended(SessionEndReason::TabClosed);
    };
    let url = tab_url(&info);
    if check_controllable(tab, &url).is_err() {
        let _ = chrome::detach(tab.0).await;
        return ended(SessionEndReason::Detached);
    }
    if sessions.check_blocklist(&url, Some(tab)).is_err() {
        let _ = chrome::detach(tab.0).await;
        return ended(SessionEndReason::DomainBlocked);
    }
    let reattached = match chrome::attach(tab.0).await {
        Ok(()) => true,
        Err(e) if e.message.contains("already attached") => false,
        Err(e) => {
            chrome::log(&format!("debugger.attach to tab {tab}: {e}"));
            return ended(SessionEndReason::Detached);
        }
    };
    sessions.restore(record.into_session(url));
    if reattached {
        sessions.prepare(tab).await;
    } else {
        // A surviving attachment kept its CDP session and the domains enabled on
        // it; running the setup again would register the webdriver script twice.
        sessions.note_main_frame(tab).await;
        sessions.reattach_frames(tab);
    }
    let how = if reattached {
        "re-attached"
    } else {
        "still attached"
    };
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

/// Where the recovery self-test panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicSite {
    /// In a task, as a bug in an action would.
    Task,
    /// At once, inside the call from JS (a popup message).
    Call,
}

/// The recovery self-test (popup message `{cmd: "panic", sync?}` or the
/// `panicSelfTest` storage change, both only from this extension's own pages):
/// panics at `site`.
pub fn panic_on_request(site: PanicSite) {
    const MESSAGE: &str =
        "panic requested by the extension's own page (self-test of the recovery path)";
    match site {
        PanicSite::Call => panic!("{MESSAGE}"),
        PanicSite::Task => spawn_local(async {
            panic!("{MESSAGE}");
        }),
    }
}
