//! The out-of-process iframes of session tabs (PROTOCOL.md §6): each is a child
//! target the tab's `Target.setAutoAttach {flatten}` attached, with its own flat
//! session (`chrome.debugger.sendCommand({tabId, sessionId})`). A nested one is
//! attached by its parent frame's session. Each child session gets a `slot`, the
//! number that keeps its `backendNodeId`s apart from other frames' in the uid
//! cache ([`FrameNodeId`]); slots count up from 1, past those of the sessions a
//! previous worker left, so a slot is not reused within a session.

use std::collections::HashMap;
use std::rc::Rc;

use browser_bridge_cdp::target::{AttachedToTarget, SetAutoAttach};
use browser_bridge_page::frames::FrameNodeId;
use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::TabId;
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::cdp::{self, Target};
use crate::chrome;

/// Largest slot: `slot << 32 | backendNodeId` stays below 2^53, exact in a JS
/// number (the uid cache is mirrored through `chrome.storage.session`).
const SLOT_MAX: u32 = (1 << 21) - 1;

/// One out-of-process iframe of a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildFrame {
    /// Its flat session.
    pub session: Rc<str>,
    /// The session of the frame that holds its `<iframe>`; `None`: the tab's own.
    pub parent: Option<Rc<str>>,
    /// Its target id, which is its `Page.FrameId`.
    pub frame_id: String,
    /// Its slot (≥ 1).
    pub slot: u32,
}

impl ChildFrame {
    /// Where its commands go.
    pub fn target(&self, tab: TabId) -> Target {
        Target {
            tab,
            child: Some(self.session.clone()),
        }
    }

    /// Where its parent frame's commands go.
    pub fn parent_target(&self, tab: TabId) -> Target {
        Target {
            tab,
            child: self.parent.clone(),
        }
    }
}

/// The child frames of every tab (part of the sessions' registry).
#[derive(Debug, Default)]
pub(super) struct State {
    by_tab: HashMap<TabId, Vec<ChildFrame>>,
    next_slot: u32,
}

impl State {
    fn take_slot(&mut self) -> u32 {
        let slot = self.next_slot.max(1);
        self.next_slot = if slot >= SLOT_MAX { 1 } else { slot + 1 };
        slot
    }
}

impl Sessions {
    /// `Target.attachedToTarget` of an iframe, from the tab (`parent` `None`) or
    /// from a child session.
    pub(super) fn on_frame_attached(
        &self,
        tab: TabId,
        parent: Option<&str>,
        attached: &AttachedToTarget,
    ) {
        let mut reg = self.reg.borrow_mut();
        let slot = reg.frames.take_slot();
        let frames = reg.frames.by_tab.entry(tab).or_default();
        frames.retain(|f| *f.session != *attached.session_id.0);
        frames.push(ChildFrame {
            session: attached.session_id.0.as_str().into(),
            parent: parent.map(Rc::from),
            frame_id: attached.target_info.target_id.0.clone(),
            slot,
        });
    }

    /// `Page.frameNavigated` in the child session `session`: when it is that
    /// frame's own document that changed, the frame gets a new slot, so that its
    /// old uids are stale (a document in another process numbers its nodes
    /// afresh, and the session may carry over).
    pub(super) fn on_child_frame_navigated(&self, tab: TabId, session: &str, frame_id: &str) {
        let mut reg = self.reg.borrow_mut();
        let slot = reg.frames.take_slot();
        if let Some(frame) = reg.frames.by_tab.get_mut(&tab).and_then(|frames| {
            frames
                .iter_mut()
                .find(|f| *f.session == *session && f.frame_id == frame_id)
        }) {
            frame.slot = slot;
        }
    }

    /// `Target.detachedFromTarget`: the child session and those under it are gone.
    pub(super) fn on_frame_detached(&self, tab: TabId, session: &str) {
        let mut reg = self.reg.borrow_mut();
        let Some(frames) = reg.frames.by_tab.get_mut(&tab) else {
            return;
        };
        let mut gone = vec![Rc::<str>::from(session)];
        while let Some(g) = gone.pop() {
            frames.retain(|f| {
                let under = f.session == g || f.parent.as_ref() == Some(&g);
                if under && f.session != g {
                    gone.push(f.session.clone());
                }
                !under
            });
        }
    }

    /// Attaches anew to the child frames of `tab`, whose sessions a previous
    /// worker attached (a surviving debugger attachment keeps them, but this
    /// worker knows none): auto-attach off (Chrome detaches them) and on again
    /// (Chrome attaches every existing child, `Target.attachedToTarget`). In the
    /// background: a dialog open in the tab may hold these commands until it is
    /// answered, and the restored session must not wait for them.
    pub fn reattach_frames(&self, tab: TabId) {
        spawn_local(async move {
            let off = SetAutoAttach {
                auto_attach: false,
                ..SetAutoAttach::paused_children()
            };
            for command in [off, SetAutoAttach::paused_children()] {
                if let Err(e) = cdp::send(tab, &command).await {
                    chrome::log(&format!("frames of tab {tab}: {e}"));
                }
            }
        });
    }

    /// Hands out only slots above those in `uids` (a session a previous worker
    /// left: its live uids name nodes of its frames' slots).
    pub(super) fn reserve_slots(&self, uids: &UidCache) {
        let used = uids
            .nodes()
            .map(|id| FrameNodeId::decode(id).slot)
            .max()
            .unwrap_or(0);
        let mut reg = self.reg.borrow_mut();
        if used >= reg.frames.next_slot && used < SLOT_MAX {
            reg.frames.next_slot = used + 1;
        }
    }

    /// Forgets the child frames of `tab` (its debugger detached).
    pub(super) fn forget_frames(&self, tab: TabId) {
        self.reg.borrow_mut().frames.by_tab.remove(&tab);
    }

    /// The out-of-process iframes of `tab`, in attach order.
    pub fn child_frames(&self, tab: TabId) -> Vec<ChildFrame> {
        self.reg
            .borrow()
            .frames
            .by_tab
            .get(&tab)
            .cloned()
            .unwrap_or_default()
    }

    /// The child frame of `tab` with `slot`, if its session still lives.
    pub fn child_frame(&self, tab: TabId, slot: u32) -> Option<ChildFrame> {
        self.reg
            .borrow()
            .frames
            .by_tab
            .get(&tab)?
            .iter()
            .find(|f| f.slot == slot)
            .cloned()
    }
}
