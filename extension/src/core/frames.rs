//! Which out-of-process iframes each tab has, and the slot that keeps each
//! frame document's `backendNodeId`s apart in the uid cache (PROTOCOL.md §6;
//! `browser_bridge_page::frames::FrameNodeId`). The shell
//! (`crate::sessions::frames`) feeds it CDP's target and navigation events and
//! the captures' `loaderId`s.
//!
//! A slot numbers the nodes of one document of one frame: slots count up from 1
//! and are not reused within a session, so that the uids of a document that is
//! gone resolve to `element_stale`, never to a node of another document (a
//! document in another process numbers its nodes afresh, from the same small
//! numbers).

use std::collections::HashMap;
use std::rc::Rc;

use browser_bridge_protocol::TabId;

/// Largest slot: `slot << 32 | backendNodeId` stays below 2^53, exact in a JS
/// number (the uid cache is mirrored through `chrome.storage.session`).
pub const SLOT_MAX: u32 = (1 << 21) - 1;

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
    /// The `loaderId` of the document whose nodes the slot numbers; `None` until
    /// a capture or `Page.frameNavigated` names one.
    pub loader: Option<String>,
}

/// The child frames of every tab, and the slot counter.
#[derive(Debug, Default)]
pub struct FrameRegistry {
    by_tab: HashMap<TabId, Vec<ChildFrame>>,
    next_slot: u32,
}

impl FrameRegistry {
    /// `Target.attachedToTarget` of an iframe: the frame `frame_id` in `session`,
    /// under `parent` (`None`: the tab's own session), with a new slot. A session
    /// attached again replaces its old entry.
    pub fn attach(&mut self, tab: TabId, session: &str, parent: Option<&str>, frame_id: &str) {
        let slot = take_slot(&mut self.next_slot);
        let frames = self.by_tab.entry(tab).or_default();
        frames.retain(|f| *f.session != *session);
        frames.push(ChildFrame {
            session: session.into(),
            parent: parent.map(Rc::from),
            frame_id: frame_id.to_owned(),
            slot,
            loader: None,
        });
    }

    /// The slot that numbers the nodes of the document `loader` of the frame
    /// `frame_id` in `session`; `None` when that frame is not known. A document
    /// other than the one the slot numbers gets a new slot. Both
    /// `Page.frameNavigated` and a capture that read the document call it, in
    /// either order: a command's answer may reach the worker before the event
    /// that preceded it. An empty `loader` (unknown) keeps the slot.
    pub fn slot_for_document(
        &mut self,
        tab: TabId,
        session: &str,
        frame_id: &str,
        loader: &str,
    ) -> Option<u32> {
        let frame = self
            .by_tab
            .get_mut(&tab)?
            .iter_mut()
            .find(|f| *f.session == *session && f.frame_id == frame_id)?;
        match frame.loader.as_deref() {
            // The slot's first document: no node of another was numbered under it.
            None if !loader.is_empty() => frame.loader = Some(loader.to_owned()),
            Some(known) if known != loader && !loader.is_empty() => {
                frame.slot = take_slot(&mut self.next_slot);
                frame.loader = Some(loader.to_owned());
            }
            _ => {}
        }
        Some(frame.slot)
    }

    /// `Target.detachedFromTarget`: `session` and the sessions under it are gone.
    pub fn detach(&mut self, tab: TabId, session: &str) {
        let Some(frames) = self.by_tab.get_mut(&tab) else {
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

    /// Hands out only slots above `used` (the highest slot a previous worker's
    /// live uids name). A frame attached before this (its event reached the new
    /// worker before the session was restored) and holding such a slot gets a
    /// new one: no uid of this worker names it yet, and an old uid must not.
    pub fn reserve_above(&mut self, used: u32) {
        if used >= self.next_slot && used < SLOT_MAX {
            self.next_slot = used + 1;
        }
        for frame in self.by_tab.values_mut().flatten() {
            if frame.slot <= used {
                frame.slot = take_slot(&mut self.next_slot);
            }
        }
    }

    /// Forgets the child frames of `tab` (its debugger detached).
    pub fn forget(&mut self, tab: TabId) {
        self.by_tab.remove(&tab);
    }

    /// The child frames of `tab`, in attach order.
    pub fn frames(&self, tab: TabId) -> Vec<ChildFrame> {
        self.by_tab.get(&tab).cloned().unwrap_or_default()
    }

    /// The child frame of `tab` whose current document `slot` numbers.
    pub fn frame(&self, tab: TabId, slot: u32) -> Option<ChildFrame> {
        self.by_tab
            .get(&tab)?
            .iter()
            .find(|f| f.slot == slot)
            .cloned()
    }
}

/// The next slot of the counter `next` (1 after [`SLOT_MAX`]).
fn take_slot(next: &mut u32) -> u32 {
    let slot = (*next).max(1);
    *next = if slot >= SLOT_MAX { 1 } else { slot + 1 };
    slot
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAB: TabId = TabId(7);

    fn registry() -> FrameRegistry {
        let mut r = FrameRegistry::default();
        r.attach(TAB, "S1", None, "F1");
        r
    }

    #[test]
    fn the_first_document_keeps_the_attach_slot() {
        let mut r = registry();
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", "L1"), Some(1));
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", "L1"), Some(1));
        assert_eq!(r.frame(TAB, 1).map(|f| f.loader), Some(Some("L1".into())));
    }

    #[test]
    fn a_new_document_gets_a_new_slot_whichever_reports_it_first() {
        // The event first, then a capture of the same document.
        let mut r = registry();
        r.slot_for_document(TAB, "S1", "F1", "L1");
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", "L2"), Some(2));
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", "L2"), Some(2));
        // The capture first (its answer overtook the event), then the event.
        let mut r = registry();
        r.slot_for_document(TAB, "S1", "F1", "L1");
        let read = r.slot_for_document(TAB, "S1", "F1", "L2");
        let event = r.slot_for_document(TAB, "S1", "F1", "L2");
        assert_eq!((read, event), (Some(2), Some(2)));
        assert!(r.frame(TAB, 1).is_none(), "the old document's slot is gone");
    }

    #[test]
    fn an_unknown_loader_or_frame_changes_nothing() {
        let mut r = registry();
        r.slot_for_document(TAB, "S1", "F1", "L1");
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", ""), Some(1));
        assert_eq!(r.slot_for_document(TAB, "S1", "F2", "L9"), None);
        assert_eq!(r.slot_for_document(TAB, "S2", "F1", "L9"), None);
        assert_eq!(r.slot_for_document(TabId(8), "S1", "F1", "L9"), None);
    }

    #[test]
    fn detach_takes_the_frames_under_it() {
        let mut r = registry();
        r.attach(TAB, "S2", Some("S1"), "F2");
        r.attach(TAB, "S3", Some("S2"), "F3");
        r.attach(TAB, "S4", None, "F4");
        r.detach(TAB, "S1");
        let left: Vec<_> = r.frames(TAB).into_iter().map(|f| f.frame_id).collect();
        assert_eq!(left, ["F4"]);
    }

    #[test]
    fn a_frame_attached_before_the_reservation_leaves_the_reserved_slots() {
        let mut r = registry();
        r.slot_for_document(TAB, "S1", "F1", "L1");
        r.reserve_above(3);
        let frame = &r.frames(TAB)[0];
        assert_eq!((frame.slot, frame.loader.as_deref()), (4, Some("L1")));
        assert_eq!(r.slot_for_document(TAB, "S1", "F1", "L1"), Some(4));
        r.attach(TAB, "S2", None, "F2");
        assert_eq!(r.frames(TAB)[1].slot, 5);
    }

    #[test]
    fn slots_are_not_reused_and_skip_reserved_ones() {
        let mut r = FrameRegistry::default();
        r.reserve_above(40);
        r.attach(TAB, "S1", None, "F1");
        assert_eq!(r.frames(TAB)[0].slot, 41);
        r.attach(TAB, "S1", None, "F1");
        assert_eq!(r.frames(TAB)[0].slot, 42, "re-attached: a new slot");
        r.reserve_above(3);
        r.attach(TAB, "S2", None, "F2");
        assert_eq!(r.frames(TAB)[1].slot, 43);
    }
}
