//! The per-tab uid cache of PROTOCOL.md §6.
//!
//! A uid (`e0`, `e1`, …) names one DOM node for the life of a session. The cache maps
//! uid → CDP `backendNodeId` (never a selector, so class changes do not break it).
//! The counter is never reset within a session: after an invalidation (main-frame
//! navigation, `navigate`, `go_back`, `go_forward`, `reload`) old uids stay
//! recognisable, which is what lets [`UidCache::resolve`] tell `element_stale`
//! (issued, but its document is gone) from `element_not_found` (never issued).

use std::collections::HashMap;

use browser_bridge_protocol::error::{BridgeError, ErrorCode};
use browser_bridge_protocol::ids::Uid;

/// CDP `DOM.BackendNodeId`: stable for a node as long as its document lives.
pub type BackendNodeId = i64;

/// uid ↔ `backendNodeId` bookkeeping for one tab (one session).
///
/// Not tied to any clock or CDP call: the extension calls [`UidCache::assign`] after
/// each extract, [`UidCache::invalidate`] on a new document, and
/// [`UidCache::resolve`] before acting on a uid.
///
/// Serialisable (JSON, not a wire type) so that the extension can keep it in
/// `chrome.storage.session` and a restarted service worker resumes the session
/// with the same uids.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UidCache {
    /// Next counter value to hand out; never decreases.
    next: u64,
    /// Counter value of the first uid issued since the last invalidation.
    generation_start: u64,
    /// Live uids of the current document: node → counter value.
    by_node: HashMap<BackendNodeId, u64>,
    /// The reverse map: counter value → node.
    by_index: HashMap<u64, BackendNodeId>,
    /// The counter values of the elements the last extract listed, in its order
    /// (what `screenshot` `marks` draws, §5).
    #[serde(default)]
    listed: Vec<u64>,
    /// Counter values below this may have been handed out: stored before any of
    /// them is, so that a worker that stops before its later writes land leaves
    /// a successor that never hands one out again ([`UidCache::reserve_ahead`],
    /// [`UidCache::resume`]).
    #[serde(default)]
    reserved: u64,
}

impl UidCache {
    /// An empty cache whose first uid will be `e0`.
    pub fn new() -> Self {
        Self::default()
    }

    /// uids for `nodes`, given in document order: a node already issued keeps its
    /// uid, a new node gets the next counter value. A node listed twice gets one uid.
    pub fn assign(&mut self, nodes: &[BackendNodeId]) -> Vec<Uid> {
        nodes
            .iter()
            .map(|&node| {
                let index = *self.by_node.entry(node).or_insert_with(|| {
                    let index = self.next;
                    self.next += 1;
                    index
                });
                self.by_index.insert(index, node);
                Uid::from_index(index)
            })
            .collect()
    }

    /// The node behind `uid`.
    ///
    /// Errors: `element_stale` when the uid was issued before the last invalidation
    /// or its node was [forgotten](UidCache::forget); `element_not_found` when it was
    /// never issued in this session (or does not match `^e[0-9]+$`). A node that has
    /// left the DOM without the cache knowing is the caller's to report as
    /// `element_stale` (use [`stale_error`]) when CDP refuses its `backendNodeId`.
    pub fn resolve(&self, uid: &Uid) -> Result<BackendNodeId, BridgeError> {
        let Some(index) = uid.index() else {
            return Err(not_found_error(uid));
        };
        if index >= self.next {
            return Err(not_found_error(uid));
        }
        if index < self.generation_start {
            return Err(stale_error(uid));
        }
        self.by_index
            .get(&index)
            .copied()
            .ok_or_else(|| stale_error(uid))
    }

    /// The uid already issued for `node` in the current document, if any.
    pub fn uid_of(&self, node: BackendNodeId) -> Option<Uid> {
        self.by_node.get(&node).map(|&i| Uid::from_index(i))
    }

    /// Records the uids the last extract listed (its `elements`), replacing the
    /// previous list.
    pub fn set_listed(&mut self, uids: &[Uid]) {
        self.listed = uids.iter().filter_map(Uid::index).collect();
    }

    /// The uids the last extract of the current document listed that still
    /// resolve, with their nodes, in its order; empty when there was none.
    pub fn listed(&self) -> Vec<(Uid, BackendNodeId)> {
        self.listed
            .iter()
            .filter_map(|&i| Some((Uid::from_index(i), *self.by_index.get(&i)?)))
            .collect()
    }

    /// Drops every uid: a new document replaced the old one. The counter keeps
    /// running, so uids issued before stay recognisable as stale. Call it on
    /// `Page.frameNavigated` for the top frame and on explicit `navigate`,
    /// `go_back`, `go_forward`, `reload`; not on SPA route changes
    /// (`Page.navigatedWithinDocument`), which keep the document and its nodes.
    pub fn invalidate(&mut self) {
        self.by_node.clear();
        self.by_index.clear();
        self.listed.clear();
        self.generation_start = self.next;
    }

    /// Marks `node` as gone (e.g. `DOM.resolveNode` said it no longer exists): its
    /// uid resolves to `element_stale` from now on and is never handed out again.
    pub fn forget(&mut self, node: BackendNodeId) {
        if let Some(index) = self.by_node.remove(&node) {
            self.by_index.remove(&index);
        }
    }

    /// The nodes of the live uids, in no order.
    pub fn nodes(&self) -> impl Iterator<Item = BackendNodeId> + '_ {
        self.by_node.keys().copied()
    }

    /// Raises the reservation to `next + block` when uids were issued past it;
    /// `true` then: the cache must be stored before any of them is answered.
    /// One store per `block` uids, not one per extract.
    pub fn reserve_ahead(&mut self, block: u64) -> bool {
        if self.next <= self.reserved {
            return false;
        }
        self.reserved = self.next.saturating_add(block);
        true
    }

    /// A restarted worker took this cache back from storage: counting goes on
    /// from the reservation, so a uid the previous worker issued after its last
    /// stored write resolves to `element_stale`, never to another node.
    pub fn resume(&mut self) {
        self.next = self.next.max(self.reserved);
    }

    /// A value that changes whenever uids are issued, dropped or listed anew
    /// (the counter, the document's first uid, the live uids, the listing), and
    /// not when known nodes are only looked up or assigned again: whether a
    /// stored copy is still current, without comparing the maps.
    pub fn fingerprint(&self) -> u64 {
        let listed = self.listed.iter().fold(self.listed.len() as u64, |a, &i| {
            a.wrapping_mul(31).wrapping_add(i)
        });
        [self.generation_start, self.by_index.len() as u64, listed]
            .iter()
            .fold(self.next, |a, &x| a.wrapping_mul(1_000_003).wrapping_add(x))
    }

    /// How many uids this session has issued (the next counter value).
    pub fn issued(&self) -> u64 {
        self.next
    }

    /// How many uids of the current document resolve.
    pub fn live(&self) -> usize {
        self.by_index.len()
    }
}

/// `element_stale` for `uid`: its document was replaced or its node removed.
pub fn stale_error(uid: &Uid) -> BridgeError {
    BridgeError::new(
        ErrorCode::ElementStale,
        format!(
            "{uid} is stale: the page changed since it was issued; call extract and use a fresh uid"
        ),
    )
}

/// `element_not_found` for `uid`: never issued in this tab.
pub fn not_found_error(uid: &Uid) -> BridgeError {
    BridgeError::new(
        ErrorCode::ElementNotFound,
        format!(
            "{uid} was never issued in this tab; call extract and pick a uid from its elements"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uids(names: &[Uid]) -> Vec<&str> {
        names.iter().map(|u| u.0.as_str()).collect()
    }

    #[test]
    fn the_fingerprint_changes_with_what_a_stored_copy_must_hold() {
        let mut cache = UidCache::new();
        let empty = cache.fingerprint();
        let first = cache.assign(&[10, 20, 30]);
        let issued = cache.fingerprint();
        assert_ne!(issued, empty, "uids issued");
        // Known nodes again, and lookups: nothing to store.
        cache.assign(&[30, 10]);
        cache.resolve(&first[1]).unwrap();
        assert_eq!(cache.fingerprint(), issued);
        cache.set_listed(&first);
        let listed = cache.fingerprint();
        assert_ne!(listed, issued, "a listing");
        cache.set_listed(&[first[1].clone(), first[0].clone(), first[2].clone()]);
        assert_ne!(
            cache.fingerprint(),
            listed,
            "the same uids listed in another order"
        );
        let before = cache.fingerprint();
        cache.forget(20);
        let forgotten = cache.fingerprint();
        assert_ne!(forgotten, before, "a node forgotten");
        cache.invalidate();
        assert_ne!(cache.fingerprint(), forgotten, "a new document");
        let invalidated = cache.fingerprint();
        cache.invalidate();
        assert_eq!(cache.fingerprint(), invalidated, "nothing issued since");
    }

    #[test]
    fn the_last_listing_is_kept_until_the_document_goes() {
        let mut cache = UidCache::new();
        let first = cache.assign(&[10, 20, 30]);
        cache.set_listed(&first);
        // A scoped extract lists fewer: that is the last listing.
        let scoped = cache.assign(&[20]);
        cache.set_listed(&scoped);
        assert_eq!(cache.listed(), vec![(Uid::from_index(1), 20)]);
        cache.set_listed(&first);
        cache.forget(10);
        assert_eq!(
            cache.listed(),
            vec![(Uid::from_index(1), 20), (Uid::from_index(2), 30)]
        );
        cache.invalidate();
        assert!(cache.listed().is_empty());
    }

    #[test]
    fn a_successor_never_hands_out_a_uid_issued_after_the_last_stored_write() {
        let mut cache = UidCache::new();
        cache.assign(&[10, 20]);
        assert!(cache.reserve_ahead(8), "e0, e1 are past the reservation");
        // The store of this state lands; the next uids fit in the reservation.
        let stored = serde_json::to_string(&cache).unwrap();
        let later = cache.assign(&[30, 40, 50]);
        assert!(!cache.reserve_ahead(8), "e2..e4 are inside the reservation");
        // The worker stops before writing again; its successor reads `stored`.
        let mut successor: UidCache = serde_json::from_str(&stored).unwrap();
        successor.resume();
        for uid in &later {
            assert_eq!(
                successor.resolve(uid).unwrap_err().code,
                ErrorCode::ElementStale,
                "{uid} was issued: stale, not unknown, and never another node"
            );
        }
        let fresh = successor.assign(&[60, 30]);
        assert_eq!(uids(&fresh), ["e10", "e11"]);
        assert!(fresh.iter().all(|u| !later.contains(u)));
        assert_eq!(successor.resolve(&Uid::from_index(0)), Ok(10));
        // Past its own reservation again: another store before answering.
        assert!(successor.reserve_ahead(8));
        assert!(!successor.reserve_ahead(8));
    }

    #[test]
    fn a_cache_stored_before_reservations_resumes_where_it_was() {
        let mut cache: UidCache = serde_json::from_str(
            r#"{"next":3,"generation_start":0,"by_node":{"7":2},"by_index":{"2":7}}"#,
        )
        .unwrap();
        cache.resume();
        assert_eq!(cache.issued(), 3);
        assert_eq!(cache.resolve(&Uid::from_index(2)), Ok(7));
    }

    #[test]
    fn first_extract_numbers_in_document_order() {
        let mut cache = UidCache::new();
        let got = cache.assign(&[501, 17, 940]);
        assert_eq!(uids(&got), ["e0", "e1", "e2"]);
        assert_eq!(cache.resolve(&Uid::from_index(1)), Ok(17));
        assert_eq!(cache.issued(), 3);
    }

    #[test]
    fn re_extract_keeps_uids_and_numbers_new_nodes_next() {
        let mut cache = UidCache::new();
        cache.assign(&[10, 20, 30]);
        // 25 is new and sits between known nodes in document order.
        let got = cache.assign(&[10, 25, 20, 30, 40]);
        assert_eq!(uids(&got), ["e0", "e3", "e1", "e2", "e4"]);
        assert_eq!(cache.resolve(&Uid::from_index(3)), Ok(25));
    }

    #[test]
    fn duplicate_node_in_one_list_gets_one_uid() {
        let mut cache = UidCache::new();
        let got = cache.assign(&[7, 7, 8]);
        assert_eq!(uids(&got), ["e0", "e0", "e1"]);
    }

    #[test]
    fn invalidation_makes_old_uids_stale_and_keeps_counting() {
        let mut cache = UidCache::new();
        cache.assign(&[1, 2, 3]);
        cache.invalidate();
        let err = cache.resolve(&Uid::from_index(0)).unwrap_err();
        assert_eq!(err.code, ErrorCode::ElementStale);
        // backendNodeIds may repeat across documents: still a new uid.
        let got = cache.assign(&[1, 9]);
        assert_eq!(uids(&got), ["e3", "e4"]);
        assert_eq!(cache.resolve(&Uid::from_index(3)), Ok(1));
        assert_eq!(
            cache.resolve(&Uid::from_index(2)).unwrap_err().code,
            ErrorCode::ElementStale
        );
        assert_eq!(cache.live(), 2);
    }

    #[test]
    fn never_issued_is_not_found() {
        let mut cache = UidCache::new();
        assert_eq!(
            cache.resolve(&Uid::from_index(0)).unwrap_err().code,
            ErrorCode::ElementNotFound
        );
        cache.assign(&[1, 2]);
        cache.invalidate();
        let err = cache.resolve(&Uid::from_index(2)).unwrap_err();
        assert_eq!(err.code, ErrorCode::ElementNotFound);
        assert!(err.message.contains("e2"), "{}", err.message);
        let bad = Uid("x1".into());
        assert_eq!(
            cache.resolve(&bad).unwrap_err().code,
            ErrorCode::ElementNotFound
        );
    }

    #[test]
    fn forgotten_node_is_stale_and_its_number_is_not_reused() {
        let mut cache = UidCache::new();
        cache.assign(&[1, 2]);
        cache.forget(2);
        assert_eq!(
            cache.resolve(&Uid::from_index(1)).unwrap_err().code,
            ErrorCode::ElementStale
        );
        // The same backendNodeId showing up again (re-inserted node) gets a new uid.
        let got = cache.assign(&[1, 2]);
        assert_eq!(uids(&got), ["e0", "e2"]);
        assert_eq!(cache.uid_of(2), Some(Uid::from_index(2)));
    }

    #[test]
    fn spa_route_change_needs_no_call_and_keeps_uids() {
        // pushState is not an invalidation: the extension simply does not call
        // invalidate(), and a re-extract of the same nodes returns the same uids.
        let mut cache = UidCache::new();
        let before = cache.assign(&[100, 200]);
        let after = cache.assign(&[200, 100, 300]);
        assert_eq!(after[0], before[1]);
        assert_eq!(after[1], before[0]);
        assert_eq!(after[2].0, "e2");
    }

    #[test]
    fn survives_a_json_round_trip_with_its_counter_and_staleness() {
        let mut cache = UidCache::new();
        cache.assign(&[11, 12]);
        cache.invalidate();
        cache.assign(&[21, 22, 23]);
        let text = serde_json::to_string(&cache).expect("serialise");
        let back: UidCache = serde_json::from_str(&text).expect("deserialise");
        assert_eq!(back, cache);
        assert_eq!(back.resolve(&Uid::from_index(3)).expect("live"), 22);
        assert_eq!(
            back.resolve(&Uid::from_index(0)).unwrap_err().code,
            ErrorCode::ElementStale
        );
        assert_eq!(
            back.resolve(&Uid::from_index(5)).unwrap_err().code,
            ErrorCode::ElementNotFound
        );
    }
}
