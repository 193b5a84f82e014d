//! The sessions across Chrome's service-worker lifecycle: every change is
//! mirrored into `chrome.storage.session` (key
//! `SESSIONS_KEY` of [`crate::core::settings`], a JSON string of
//! [`Record`]s), which a new worker reads back (`crate::lifecycle::restore`).

use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::result::DialogInfo;
use futures::future::LocalBoxFuture;
use gloo_timers::future::TimeoutFuture;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use wasm_bindgen_futures::spawn_local;

use super::{Session, Sessions};
use crate::chrome;
use crate::core::settings::SESSIONS_KEY;

/// uids reserved per awaited write ([`Sessions::reserve_uids`]).
pub const UID_RESERVATION: u64 = 4096;

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
    /// The client that last ran a request on the tab (§3 `client`).
    #[serde(default)]
    pub client: Option<String>,
    /// The main-frame document the uids number (its `loaderId`): a new worker
    /// that finds another one there drops them (same URL, new document).
    #[serde(default)]
    pub main_loader: Option<String>,
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
            client: s.client.clone(),
            main_loader: s.main_loader.clone(),
        }
    }

    /// The session it restores (`url`: what the tab shows now).
    pub fn into_session(self, url: String) -> Session {
        let mut uids = self.uids;
        if url != self.url {
            // It navigated while no worker listened: its uids name a gone document.
            uids.invalidate();
        }
        uids.resume();
        Session {
            tab: self.tab,
            agent_window: self.agent_window,
            action_count: self.action_count,
            uids,
            dialog: self.dialog,
            evaluating: 0,
            url,
            client: self.client,
            crashed: false,
            started_at: self.started_at,
            main_frame: None,
            main_loader: self.main_loader,
            closing: false,
        }
    }
}

/// Most the write after an action waits (ms; [`Sessions::persist_after_action`]).
/// The actions of a burst share one write, which then no longer competes with
/// the next request (measured: `evaluate` p50 1.9 → 1.6 ms). What it carries
/// late is only the action count: uid changes are written at once, uids past
/// their stored reservation before the answer (§6), and the URL, the document,
/// a dialog and the client where they change. A worker stopped (or a panic)
/// within the lag loses that burst's count.
pub const ACTION_WRITE_LAG_MS: u32 = 200;

/// The fingerprint of every session's uid cache ([`UidCache::fingerprint`]),
/// in no order.
fn uids_fingerprint(sessions: &HashMap<TabId, Session>) -> u64 {
    sessions.values().fold(0, |a, s| {
        a.wrapping_add((s.tab.0 as u64).wrapping_mul(0x9E37_79B9) ^ s.uids.fingerprint())
    })
}

/// The mirror's bookkeeping.
#[derive(Default)]
pub(super) struct State {
    /// The stored sessions were read: writing before that would overwrite what
    /// the previous worker left.
    loaded: bool,
    /// A write is scheduled (coalesces the changes of one turn into one write).
    scheduled: bool,
    /// A write after actions is waiting out [`ACTION_WRITE_LAG_MS`].
    lagging: bool,
    /// The uid caches' fingerprint at the last write ([`uids_fingerprint`]).
    written_uids: u64,
}

impl Sessions {
    /// Mirrors the live sessions into `chrome.storage.session` (one write per
    /// turn, after the turn's changes). No-op until [`Sessions::mark_loaded`].
    pub fn persist(&self) {
        {
            let mut reg = self.reg.borrow_mut();
            if !reg.persist.loaded || reg.persist.scheduled {
                return;
            }
            reg.persist.scheduled = true;
        }
        let sessions = self.clone();
        spawn_local(async move {
            sessions.reg.borrow_mut().persist.scheduled = false;
            sessions.persist_now().await;
        });
    }

    /// After an action: [`Sessions::persist`] at once when it changed uids (an
    /// `extract`, a new document: a restarted worker resolves them), else
    /// within [`ACTION_WRITE_LAG_MS`] (its count).
    pub fn persist_after_action(&self) {
        {
            let mut reg = self.reg.borrow_mut();
            if !reg.persist.loaded {
                return;
            }
            if reg.persist.written_uids != uids_fingerprint(&reg.sessions) {
                drop(reg);
                return self.persist();
            }
            if reg.persist.lagging {
                return;
            }
            reg.persist.lagging = true;
        }
        let sessions = self.clone();
        spawn_local(async move {
            TimeoutFuture::new(ACTION_WRITE_LAG_MS).await;
            sessions.reg.borrow_mut().persist.lagging = false;
            sessions.persist();
        });
    }

    /// Writes the live sessions now; the future ends once the write landed
    /// (no-op until [`Sessions::mark_loaded`]). An `extract` that handed out uids
    /// past their stored reservation ([`UidCache::reserve_ahead`]) answers only
    /// then, so that a worker stopped right after the answer leaves a successor
    /// that never issues them again. Boxed: one copy of the write in the wasm.
    pub fn persist_now(&self) -> LocalBoxFuture<'static, ()> {
        let text = {
            let mut reg = self.reg.borrow_mut();
            if !reg.persist.loaded {
                return Box::pin(async {});
            }
            let written = uids_fingerprint(&reg.sessions);
            let records: Vec<Record> = reg.sessions.values().map(Record::of).collect();
            reg.persist.written_uids = written;
            serde_json::to_string(&records).unwrap_or_else(|_| "[]".into())
        };
        Box::pin(async move {
            if let Err(e) = chrome::session_storage_set(&json!({ SESSIONS_KEY: text })).await {
                chrome::log(&format!("storage.session.set: {e}"));
            }
        })
    }

    /// Raises the uid reservation of every session that issued uids past it
    /// (§6; [`UidCache::reserve_ahead`]); `true` when one did: write with
    /// [`Sessions::persist_now`] before answering. A page's first `extract` waits
    /// for one write, later ones once per [`UID_RESERVATION`] new uids.
    pub fn reserve_uids(&self) -> bool {
        let mut reg = self.reg.borrow_mut();
        reg.sessions
            .values_mut()
            .fold(false, |any, s| s.uids.reserve_ahead(UID_RESERVATION) | any)
    }

    /// The previous worker's sessions were read: from now on [`Sessions::persist`]
    /// writes.
    pub fn mark_loaded(&self) {
        self.reg.borrow_mut().persist.loaded = true;
    }

    /// Takes back a session a previous worker left.
    pub fn restore(&self, session: Session) {
        self.reserve_slots(&session.uids);
        self.insert(session);
        wasm_bindgen_futures::spawn_local(self.sync_net_rule());
    }
}
