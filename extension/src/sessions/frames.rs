//! The out-of-process iframes of session tabs (PROTOCOL.md §6): each is a child
//! target the tab's `Target.setAutoAttach {flatten}` attached, with its own flat
//! session (`chrome.debugger.sendCommand({tabId, sessionId})`). A nested one is
//! attached by its parent frame's session. Each frame document gets a `slot`,
//! the number that keeps its `backendNodeId`s apart from other documents' in
//! the uid cache ([`FrameNodeId`]); the registry and its rules are
//! [`crate::core::frames`], and slots count up past those of the sessions a
//! previous worker left, so a slot is not reused within a session.

use browser_bridge_cdp::page::Frame;
use browser_bridge_cdp::target::{AttachedToTarget, SetAutoAttach};
use browser_bridge_page::frames::FrameNodeId;
use browser_bridge_page::uids::UidCache;
use browser_bridge_protocol::TabId;
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::cdp::{self, Target};
use crate::chrome;

pub use crate::core::frames::ChildFrame;

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

impl Sessions {
    /// `Target.attachedToTarget` of an iframe, from the tab (`parent` `None`) or
    /// from a child session.
    pub(super) fn on_frame_attached(
        &self,
        tab: TabId,
        parent: Option<&str>,
        attached: &AttachedToTarget,
    ) {
        self.reg.borrow_mut().frames.attach(
            tab,
            &attached.session_id.0,
            parent,
            &attached.target_info.target_id.0,
        );
    }

    /// `Page.frameNavigated` in the child session `session`: when it is that
    /// frame's own document that changed, the frame numbers the new document under
    /// a new slot ([`Self::slot_for_document`]).
    pub(super) fn on_child_frame_navigated(&self, tab: TabId, session: &str, frame: &Frame) {
        self.slot_for_document(tab, session, &frame.id.0, &frame.loader_id);
    }

    /// The slot that numbers the nodes of the document `loader` of the child
    /// frame `frame_id` (in `session`); `None` when that frame is gone
    /// ([`FrameRegistry::slot_for_document`](crate::core::frames::FrameRegistry::slot_for_document)).
    pub fn slot_for_document(
        &self,
        tab: TabId,
        session: &str,
        frame_id: &str,
        loader: &str,
    ) -> Option<u32> {
        self.reg
            .borrow_mut()
            .frames
            .slot_for_document(tab, session, frame_id, loader)
    }

    /// `Target.detachedFromTarget`: the child session and those under it are gone.
    pub(super) fn on_frame_detached(&self, tab: TabId, session: &str) {
        self.reg.borrow_mut().frames.detach(tab, session);
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
        self.reg.borrow_mut().frames.reserve_above(used);
    }

    /// Forgets the child frames of `tab` (its debugger detached).
    pub(super) fn forget_frames(&self, tab: TabId) {
        self.reg.borrow_mut().frames.forget(tab);
    }

    /// The out-of-process iframes of `tab`, in attach order.
    pub fn child_frames(&self, tab: TabId) -> Vec<ChildFrame> {
        self.reg.borrow().frames.frames(tab)
    }

    /// The child frame of `tab` with `slot`, if its session still lives.
    pub fn child_frame(&self, tab: TabId, slot: u32) -> Option<ChildFrame> {
        self.reg.borrow().frames.frame(tab, slot)
    }
}
