//! Out-of-process iframes in `extract` (PROTOCOL.md §6): a cross-site iframe runs
//! in its own renderer, so the main frame's `DOMSnapshot.captureSnapshot` holds
//! only its `<iframe>` element. The extension captures each such frame in its own
//! CDP session (a flat child session of the tab) and [`merge_frames`] appends
//! those documents to the main snapshot, each under its `<iframe>` element
//! (`DOM.getFrameOwner`), as if it were a same-origin iframe: the rest of the
//! pipeline reads one composed tree, elements and text in document order.
//!
//! `backendNodeId`s are counted per renderer process, so two frames may use the
//! same number for different nodes. Every node of a child frame is therefore
//! renamed to a [`FrameNodeId`]: the frame's `slot` (a number the extension gives
//! each child session, never reused in a session) in the high 32 bits and the
//! frame's own `backendNodeId` in the low ones. Main-frame ids (slot 0) are left
//! as they are. The uid cache stores these ids, so a uid names one node of one
//! frame, and a uid of a frame whose session went away is stale.

use super::shape::PageInputs;
use super::snapshot::{CapturedSnapshot, RareInteger, RareString};

/// A node id unique across the tab's frames: `slot << 32 | backendNodeId`, slot 0
/// (the main frame and its same-origin iframes) being the plain `backendNodeId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameNodeId {
    /// The child session's slot; 0 for the tab's own session.
    pub slot: u32,
    /// The CDP `backendNodeId` in that session.
    pub backend_node_id: i64,
}

impl FrameNodeId {
    /// The one number for the uid cache.
    pub fn encode(self) -> i64 {
        if self.slot == 0 {
            self.backend_node_id
        } else {
            (i64::from(self.slot) << 32) | (self.backend_node_id & 0xffff_ffff)
        }
    }

    /// The frame and node behind [`FrameNodeId::encode`]'s number.
    pub fn decode(id: i64) -> FrameNodeId {
        if id >> 32 == 0 {
            return FrameNodeId {
                slot: 0,
                backend_node_id: id,
            };
        }
        FrameNodeId {
            slot: u32::try_from(id >> 32).unwrap_or(0),
            backend_node_id: id & 0xffff_ffff,
        }
    }
}

/// What the extension gathered in one out-of-process iframe's session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameCapture {
    /// The frame's slot (≥ 1, see [`FrameNodeId`]).
    pub slot: u32,
    /// The slot of the frame whose document holds the `<iframe>` element (0: the
    /// main frame or one of its same-origin iframes).
    pub parent_slot: u32,
    /// The `<iframe>` element's `backendNodeId` in the parent's session
    /// (`DOM.getFrameOwner`).
    pub owner: i64,
    /// `DOMSnapshot.captureSnapshot` in the frame's session.
    pub snapshot: CapturedSnapshot,
}

/// Appends each frame's documents to `inputs` under its `<iframe>` element, with
/// node ids renamed ([`FrameNodeId`]). A frame whose `<iframe>` element is not in
/// the merged documents (it went away, or its parent frame was not captured) is
/// left out; so is any frame when the main snapshot is empty.
pub fn merge_frames(inputs: &mut PageInputs, frames: Vec<FrameCapture>) {
    if inputs.snapshot.documents.is_empty() {
        return;
    }
    // Parents before children, so that every owner is in place when linked.
    let mut pending = frames;
    let mut merged_slots = vec![0u32];
    loop {
        let before = pending.len();
        let mut rest = Vec::new();
        for frame in pending {
            if !merged_slots.contains(&frame.parent_slot) {
                rest.push(frame);
                continue;
            }
            let owner = FrameNodeId {
                slot: frame.parent_slot,
                backend_node_id: frame.owner,
            }
            .encode();
            let Some((doc, index)) = find_node(&inputs.snapshot, owner) else {
                continue;
            };
            let slot = frame.slot;
            let first = append(&mut inputs.snapshot, frame.snapshot, slot);
            if let Some(first) = first {
                let link = &mut inputs.snapshot.documents[doc].nodes.content_document_index;
                link.index.push(index as i64);
                link.value.push(first as i64);
                merged_slots.push(slot);
            }
        }
        if rest.is_empty() || rest.len() == before {
            return;
        }
        pending = rest;
    }
}

/// `(document, node index)` of the node whose id is `id`.
fn find_node(snapshot: &CapturedSnapshot, id: i64) -> Option<(usize, usize)> {
    snapshot.documents.iter().enumerate().find_map(|(d, doc)| {
        doc.nodes
            .backend_node_id
            .iter()
            .position(|&b| b == id)
            .map(|i| (d, i))
    })
}

/// Appends `frame`'s documents and strings to `into`, renaming its node ids to
/// `slot`; returns the index of its first document (`None` when it has none).
fn append(into: &mut CapturedSnapshot, frame: CapturedSnapshot, slot: u32) -> Option<usize> {
    if frame.documents.is_empty() {
        return None;
    }
    let strings = into.strings.len() as i64;
    let docs = into.documents.len() as i64;
    let shift = |i: &mut i64| {
        if *i >= 0 {
            *i += strings;
        }
    };
    let shift_rare = |r: &mut RareString| r.value.iter_mut().for_each(shift);
    let first = into.documents.len();
    into.strings.extend(frame.strings);
    for mut doc in frame.documents {
        for i in [
            &mut doc.document_url,
            &mut doc.title,
            &mut doc.base_url,
            &mut doc.frame_id,
        ] {
            shift(i);
        }
        let n = &mut doc.nodes;
        n.node_name.iter_mut().for_each(shift);
        n.node_value.iter_mut().for_each(shift);
        n.attributes.iter_mut().flatten().for_each(shift);
        shift_rare(&mut n.shadow_root_type);
        shift_rare(&mut n.input_value);
        shift_rare(&mut n.pseudo_type);
        let RareInteger { value, .. } = &mut n.content_document_index;
        value.iter_mut().for_each(|d| *d += docs);
        for id in &mut n.backend_node_id {
            *id = FrameNodeId {
                slot,
                backend_node_id: *id,
            }
            .encode();
        }
        doc.layout.styles.iter_mut().flatten().for_each(shift);
        into.documents.push(doc);
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{DocumentSnapshot, LayoutTree, NodeTree};

    #[test]
    fn ids_round_trip_and_main_frame_ids_stay() {
        let main = FrameNodeId {
            slot: 0,
            backend_node_id: 42,
        };
        assert_eq!(main.encode(), 42);
        assert_eq!(FrameNodeId::decode(42), main);
        let child = FrameNodeId {
            slot: 3,
            backend_node_id: 42,
        };
        assert_ne!(child.encode(), 42);
        assert_eq!(FrameNodeId::decode(child.encode()), child);
    }

    /// A document `#document > html > body > <tag>` with backend ids 1..=4.
    fn doc(url: &str, tag: &str) -> CapturedSnapshot {
        let strings: Vec<String> = [url, "#document", "HTML", "BODY", tag]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        CapturedSnapshot {
            documents: vec![DocumentSnapshot {
                document_url: 0,
                title: -1,
                base_url: 0,
                frame_id: -1,
                nodes: NodeTree {
                    parent_index: vec![-1, 0, 1, 2],
                    node_type: vec![9, 1, 1, 1],
                    node_name: vec![1, 2, 3, 4],
                    node_value: vec![-1, -1, -1, -1],
                    backend_node_id: vec![1, 2, 3, 4],
                    attributes: vec![vec![], vec![], vec![], vec![]],
                    ..NodeTree::default()
                },
                // Rendered, so that the snapshot lists the `<tag>` as an element.
                layout: LayoutTree {
                    node_index: vec![1, 2, 3],
                    styles: vec![vec![]; 3],
                    bounds: vec![vec![0.0, 0.0, 100.0, 20.0]; 3],
                },
                ..DocumentSnapshot::default()
            }],
            strings,
        }
    }

    #[test]
    fn frames_nest_under_their_iframe_elements_with_their_own_ids() {
        let mut inputs = PageInputs {
            snapshot: doc("https://shop.test/", "IFRAME"),
            ..PageInputs::default()
        };
        let card = FrameCapture {
            slot: 1,
            parent_slot: 0,
            owner: 4,
            snapshot: doc("https://pay.test/card", "IFRAME"),
        };
        let inner = FrameCapture {
            slot: 2,
            parent_slot: 1,
            owner: 4,
            snapshot: doc("https://3ds.test/", "BUTTON"),
        };
        let lost = FrameCapture {
            slot: 5,
            parent_slot: 9,
            owner: 4,
            snapshot: doc("https://gone.test/", "P"),
        };
        // Children may come before their parents.
        merge_frames(&mut inputs, vec![inner, lost, card]);
        let s = &inputs.snapshot;
        assert_eq!(s.documents.len(), 3);
        assert_eq!(
            s.string(s.documents[1].document_url),
            Some("https://pay.test/card")
        );
        assert_eq!(
            s.string(s.documents[2].document_url),
            Some("https://3ds.test/")
        );
        assert_eq!(s.string(s.documents[2].nodes.node_name[3]), Some("BUTTON"));
        assert_eq!(s.documents[0].nodes.content_document_index.index, [3]);
        assert_eq!(s.documents[0].nodes.content_document_index.value, [1]);
        assert_eq!(s.documents[1].nodes.content_document_index.value, [2]);
        let button = s.documents[2].nodes.backend_node_id[3];
        assert_eq!(
            FrameNodeId::decode(button),
            FrameNodeId {
                slot: 2,
                backend_node_id: 4
            }
        );
        let dom = crate::dom::Dom::new(s);
        let button = dom.nodes.iter().find(|n| n.tag == "button").unwrap();
        assert_eq!(dom.document_url(button.doc), "https://3ds.test/");

        // The shaped extract lists the inner frame's button with its origin.
        let result = crate::shape_extract(
            browser_bridge_protocol::ids::TabId(1),
            &inputs,
            &mut crate::uids::UidCache::new(),
        );
        let listed: Vec<_> = result
            .elements
            .iter()
            .map(|e| (e.role.as_str(), e.frame_origin.as_deref()))
            .collect();
        assert!(
            listed.contains(&("button", Some("https://3ds.test"))),
            "{listed:?}"
        );
    }
}
