//! Sessions (PROTOCOL.md §10): one per controlled tab, keyed by `tabId`.
//!
//! A session starts on the first action that touches a tab (debugger attached,
//! `session_started` sent) and ends with a reason (`session_ended` with its
//! `actionCount`). [`Sessions`] is the handle every module uses; this file owns
//! the registry (sessions, per-tab locks, in-flight cancellation, the agent
//! window). By concern:
//! - [`attach`]: starting a session (debugger, CDP setup, controllable pages);
//! - [`end`]: ending sessions (reasons, closed tabs, detaches);
//! - [`policy`]: the blocklist and its network rule, Stop all / Resume, idle;
//! - [`requests`]: the `Fetch` interception of document requests, child targets;
//! - [`routing`]: which debugger events the sessions handle;
//! - [`dialogs`]: JavaScript dialogs (§5, §7);
//! - [`devtools`]: each session's console and network buffers (§10.1);
//! - [`downloads`]: each session's downloads, tied to their items (§10.2);
//! - [`frames`]: out-of-process iframes, their child sessions and slots;
//! - [`opened`]: tabs opened by session tabs;
//! - [`persist`]: the mirror in `chrome.storage.session` for a restarted worker;
//! - [`popup`]: the popup's session list.

pub mod attach;
pub mod devtools;
pub mod dialogs;
pub mod downloads;
pub mod end;
pub mod frames;
pub mod opened;
pub mod persist;
pub mod policy;
pub mod popup;
pub mod requests;
pub mod routing;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::result::DialogInfo;
use browser_bridge_protocol::{BridgeError, TabId};
use futures::channel::oneshot;
use futures::lock::Mutex;
use serde_json::json;
use wasm_bindgen_futures::spawn_local;

use crate::chrome;
use crate::core::frames::FrameRegistry;
use crate::core::settings::keys;
use crate::core::windows::{AGENT_WINDOWS_KEY, AgentWindows};
use crate::outbox::Outbox;

/// One controlled tab.
#[derive(Debug)]
pub struct Session {
    /// The tab.
    pub tab: TabId,
    /// The tab lives in the agent window.
    pub agent_window: bool,
    /// Actions run in this session so far.
    pub action_count: u64,
    /// uid ↔ backendNodeId cache (§6), cleared on main-frame navigation.
    pub uids: UidCache,
    /// The JavaScript dialog now open in the tab, if any (§5).
    pub dialog: Option<DialogInfo>,
    /// Number of `evaluate`s running (dialogs are auto-handled while > 0, §7).
    pub evaluating: u32,
    /// Last known main-frame URL.
    pub url: String,
    /// The backend's client that last ran a request on the tab (a request's
    /// `client`, §3), shown in the popup; `None` when no request named one.
    pub client: Option<String>,
    /// The renderer crashed (`Inspector.targetCrashed`) and was not reloaded yet:
    /// CDP calls hang until the tab navigates again.
    pub crashed: bool,
    /// When the session started (ms since the epoch).
    pub started_at: u64,
    /// The main frame's CDP `frameId` (`Page.getFrameTree` at attach), to tell
    /// main-frame document requests from iframe ones in `Fetch.requestPaused`.
    pub main_frame: Option<String>,
    /// The CDP `loaderId` of the main-frame document that `uids` numbers (from
    /// `Page.frameNavigated`, or an `extract` that read a document before its
    /// event came); `None` until either is seen.
    pub main_loader: Option<String>,
    /// `close_tab` asked Chrome to close the tab (`chrome.tabs.remove`): its
    /// removal ends the session as `stopped`, not `tab_closed` (§10). Cleared
    /// when the page's `beforeunload` prompt is dismissed.
    pub closing: bool,
}

impl Session {
    /// A main-frame document committed (`Page.frameNavigated`, its `loaderId`):
    /// `uids` number it from now on (§6: a new document, new uids). The document
    /// an `extract` already read first ([`Session::read_main_document`]) keeps
    /// its uids; an unknown (empty) loader always drops them.
    pub fn adopt_main_document(&mut self, loader: &str) {
        if loader.is_empty() || self.main_loader.as_deref() != Some(loader) {
            self.uids.invalidate();
        }
        self.main_loader = Some(loader.to_owned()).filter(|l| !l.is_empty());
    }

    /// A new worker found the main-frame document `loader` (`None`: it could
    /// not read it) in a session a previous worker left: the uids stay only when
    /// it is the document they number.
    pub fn confirm_main_document(&mut self, loader: Option<&str>) {
        if self.main_loader.is_some() {
            self.adopt_main_document(loader.unwrap_or_default());
        }
    }

    /// An `extract` read the main-frame document `loader` whole: a read that
    /// overtook that document's `Page.frameNavigated`, or one of a document
    /// already replaced, must not number its nodes with another document's uids
    /// (a document in another process numbers its nodes afresh). The first read
    /// of a session adopts its document as it is.
    pub fn read_main_document(&mut self, loader: &str) {
        if self.main_loader.is_some() {
            self.adopt_main_document(loader);
        } else {
            self.main_loader = Some(loader.to_owned()).filter(|l| !l.is_empty());
        }
    }
}

#[derive(Default)]
struct Registry {
    sessions: HashMap<TabId, Session>,
    locks: HashMap<TabId, Rc<Mutex<()>>>,
    inflight: HashMap<TabId, Vec<oneshot::Sender<BridgeError>>>,
    agent_windows: AgentWindows,
    /// Held while an agent window is looked up or created, so that two new
    /// tabs of one client never make two windows.
    window_lock: Rc<Mutex<()>>,
    policy: policy::State,
    opened: Vec<(TabId, browser_bridge_protocol::result::OpenedTab)>,
    persist: persist::State,
    frames: FrameRegistry,
    devtools: HashMap<TabId, devtools::Buffers>,
    downloads: HashMap<TabId, Vec<downloads::Tracked>>,
}

/// The sessions of this worker: a cheap handle (clones share the registry).
#[derive(Clone)]
pub struct Sessions {
    reg: Rc<RefCell<Registry>>,
    outbox: Outbox,
}

impl Sessions {
    /// No sessions; events go to `outbox`.
    pub fn new(outbox: Outbox) -> Sessions {
        Sessions {
            reg: Rc::default(),
            outbox,
        }
    }

    /// Runs `f` on the tab's session, `None` when there is none.
    pub fn with<R>(&self, tab: TabId, f: impl FnOnce(&mut Session) -> R) -> Option<R> {
        self.reg.borrow_mut().sessions.get_mut(&tab).map(f)
    }

    /// Whether `tab` has a session.
    pub fn has(&self, tab: TabId) -> bool {
        self.reg.borrow().sessions.contains_key(&tab)
    }

    /// Tabs with a session, sorted, with their agent-window flag.
    pub fn tabs(&self) -> Vec<(TabId, bool)> {
        let mut tabs: Vec<_> = self
            .reg
            .borrow()
            .sessions
            .values()
            .map(|s| (s.tab, s.agent_window))
            .collect();
        tabs.sort_unstable();
        tabs
    }

    /// Adds a session (attach, or a restarted worker taking one back); the
    /// caller then puts its tab under the network rule ([`Sessions::sync_net_rule`]).
    fn insert(&self, session: Session) {
        self.reg.borrow_mut().sessions.insert(session.tab, session);
        self.persist();
    }

    /// Removes a session without ending it (no event).
    fn remove(&self, tab: TabId) -> Option<Session> {
        let session = self.reg.borrow_mut().sessions.remove(&tab);
        self.forget_frames(tab);
        self.forget_devtools(tab);
        self.forget_downloads(tab);
        self.persist();
        spawn_local(self.sync_net_rule());
        session
    }

    /// The agent window `client`'s new tabs go to (`None`: the shared one), when
    /// one was created and not known to be closed (§10).
    pub fn agent_window(&self, client: Option<&str>) -> Option<i64> {
        self.reg.borrow().agent_windows.get(client)
    }

    /// Whether `window` is an agent window, the shared one or a client's.
    pub fn is_agent_window(&self, window: i64) -> bool {
        self.reg.borrow().agent_windows.contains(window)
    }

    /// The lock held while an agent window is looked up or created.
    pub fn window_lock(&self) -> Rc<Mutex<()>> {
        self.reg.borrow().window_lock.clone()
    }

    /// Records `client`'s agent window and stores it so a restarted worker reuses
    /// it: the shared one in `chrome.storage.local`, a client's in
    /// `chrome.storage.session` ([`AGENT_WINDOWS_KEY`]).
    pub fn set_agent_window(&self, client: Option<&str>, id: i64) {
        self.reg.borrow_mut().agent_windows.set(client, id);
        if client.is_none() {
            spawn_local(async move {
                let _ = chrome::storage_set(&json!({ keys::AGENT_WINDOW_ID: id })).await;
            });
        }
        self.store_agent_windows();
    }

    /// Forgets an agent window that is gone (the person closed it).
    pub fn forget_agent_window(&self, id: i64) {
        self.reg.borrow_mut().agent_windows.forget(id);
        self.store_agent_windows();
    }

    /// Adds the client windows a previous worker stored (`{client: windowId}`).
    pub fn restore_agent_windows(&self, stored: &serde_json::Value) {
        self.reg.borrow_mut().agent_windows.restore(stored);
    }

    fn store_agent_windows(&self) {
        let stored = self.reg.borrow().agent_windows.to_storage();
        spawn_local(async move {
            if let Err(e) = chrome::session_storage_set(&json!({ AGENT_WINDOWS_KEY: stored })).await
            {
                chrome::log(&format!("storage.session.set: {e}"));
            }
        });
    }

    /// The per-tab lock: requests on one tab run one at a time.
    pub fn lock(&self, tab: TabId) -> Rc<Mutex<()>> {
        self.reg.borrow_mut().locks.entry(tab).or_default().clone()
    }

    /// Registers an in-flight request on `tab`: the receiver fires with the error
    /// to answer when the session ends or the renderer crashes.
    pub fn register_inflight(&self, tab: TabId) -> oneshot::Receiver<BridgeError> {
        let (tx, rx) = oneshot::channel();
        self.reg
            .borrow_mut()
            .inflight
            .entry(tab)
            .or_default()
            .push(tx);
        rx
    }

    /// Answers every in-flight request on `tab` with `error`.
    fn fail_inflight(&self, tab: TabId, error: &BridgeError) {
        let senders = self.reg.borrow_mut().inflight.remove(&tab);
        for tx in senders.unwrap_or_default() {
            let _ = tx.send(error.clone());
        }
    }
}
