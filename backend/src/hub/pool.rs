//! Pure in-flight bookkeeping for the request pool (PROTOCOL.md §3, DESIGN.md
//! "Backend": id → pending, per-action deadline, late responses dropped).
//!
//! No I/O and no clock: every method that needs the time takes `now`, so the rules
//! are unit-tested without sleeping. The hub's owner task (`hub.rs`) is the only
//! user; it holds one [`InFlight`] for requests already sent on a socket and one
//! [`Waiting`] for requests that arrived while no extension was connected.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use browser_bridge_protocol::RequestId;

/// Number naming one accepted WebSocket connection inside this process.
pub type ConnNo = u64;

/// Requests sent to an extension and not answered yet.
#[derive(Debug)]
pub struct InFlight<T> {
    entries: HashMap<RequestId, Entry<T>>,
    /// Ordered by deadline so that expiry and the next wake-up are cheap.
    deadlines: BTreeSet<(Instant, RequestId)>,
}

#[derive(Debug)]
struct Entry<T> {
    conn: ConnNo,
    deadline: Instant,
    payload: T,
}

/// What [`InFlight::complete`] found for a response.
#[derive(Debug, PartialEq, Eq)]
pub enum Completion<T> {
    /// The request was in flight on this connection: answer it with `T`.
    Answered(T),
    /// No such id in flight: late (already timed out), unknown or duplicate. Drop and log.
    NotInFlight,
    /// The id is in flight but on another connection: a confused peer. Drop and log;
    /// the request stays pending.
    WrongConnection,
}

impl<T> Default for InFlight<T> {
    fn default() -> Self {
        InFlight {
            entries: HashMap::new(),
            deadlines: BTreeSet::new(),
        }
    }
}

impl<T> InFlight<T> {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `id` as sent on connection `conn`, due by `deadline`.
    /// Returns false (and records nothing) when `id` is already in flight.
    pub fn insert(&mut self, id: RequestId, conn: ConnNo, deadline: Instant, payload: T) -> bool {
        if self.entries.contains_key(&id) {
            return false;
        }
        self.deadlines.insert((deadline, id.clone()));
        self.entries.insert(
            id,
            Entry {
                conn,
                deadline,
                payload,
            },
        );
        true
    }

    /// Takes the entry answered by a response with `id` that arrived on `conn`.
    pub fn complete(&mut self, id: &RequestId, conn: ConnNo) -> Completion<T> {
        match self.entries.get(id) {
            None => Completion::NotInFlight,
            Some(entry) if entry.conn != conn => Completion::WrongConnection,
            Some(_) => {
                let entry = self.entries.remove(id).expect("checked above");
                self.deadlines.remove(&(entry.deadline, id.clone()));
                Completion::Answered(entry.payload)
            }
        }
    }

    /// Removes and returns every entry whose deadline is at or before `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<(RequestId, T)> {
        let mut expired = Vec::new();
        while let Some((deadline, _)) = self.deadlines.first() {
            if *deadline > now {
                break;
            }
            let (_, id) = self.deadlines.pop_first().expect("first exists");
            if let Some(entry) = self.entries.remove(&id) {
                expired.push((id, entry.payload));
            }
        }
        expired
    }

    /// Removes and returns every entry sent on `conn` (its socket dropped or was
    /// replaced); they are answered `not_connected`, never re-sent.
    pub fn drop_connection(&mut self, conn: ConnNo) -> Vec<(RequestId, T)> {
        let ids: Vec<RequestId> = self
            .entries
            .iter()
            .filter(|(_, e)| e.conn == conn)
            .map(|(id, _)| id.clone())
            .collect();
        ids.into_iter()
            .filter_map(|id| {
                let entry = self.entries.remove(&id)?;
                self.deadlines.remove(&(entry.deadline, id.clone()));
                Some((id, entry.payload))
            })
            .collect()
    }

    /// The earliest deadline, when anything is in flight.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.first().map(|(d, _)| *d)
    }

    /// The payloads of every request in flight, to update in place.
    pub fn payloads_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.entries.values_mut().map(|entry| &mut entry.payload)
    }

    /// Requests in flight.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Requests that arrived while no extension was connected, waiting up to the
/// connect-wait for one to (re)connect. First in, first out.
#[derive(Debug)]
pub struct Waiting<T> {
    queue: VecDeque<(Instant, T)>,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            queue: VecDeque::new(),
        }
    }
}

impl<T> Waiting<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `payload` until `give_up_at`.
    pub fn push(&mut self, give_up_at: Instant, payload: T) {
        // Keep the queue sorted by give-up time even if callers ever mix waits.
        let at = self.queue.partition_point(|(t, _)| *t <= give_up_at);
        self.queue.insert(at, (give_up_at, payload));
    }

    /// Removes and returns the entries whose wait ended at or before `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<T> {
        let split = self.queue.partition_point(|(t, _)| *t <= now);
        self.queue.drain(..split).map(|(_, p)| p).collect()
    }

    /// Takes every waiting entry, oldest first (an extension connected).
    pub fn take_all(&mut self) -> Vec<T> {
        self.queue.drain(..).map(|(_, p)| p).collect()
    }

    /// The earliest give-up time.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.queue.front().map(|(t, _)| *t)
    }

    /// Entries waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn id(n: u32) -> RequestId {
        RequestId(format!("id-{n}"))
    }

    #[test]
    fn answered_once_then_not_in_flight() {
        let t0 = Instant::now();
        let mut pool = InFlight::new();
        assert!(pool.insert(id(1), 7, t0 + Duration::from_secs(15), "a"));
        assert!(!pool.insert(id(1), 7, t0, "dup"), "ids are unique");
        assert_eq!(pool.complete(&id(1), 8), Completion::WrongConnection);
        assert_eq!(pool.complete(&id(1), 7), Completion::Answered("a"));
        assert_eq!(pool.complete(&id(1), 7), Completion::NotInFlight);
        assert!(pool.is_empty());
        assert_eq!(pool.next_deadline(), None);
    }

    #[test]
    fn expiry_by_deadline_then_late_response_is_not_in_flight() {
        let t0 = Instant::now();
        let mut pool = InFlight::new();
        pool.insert(id(1), 1, t0 + Duration::from_millis(100), 1);
        pool.insert(id(2), 1, t0 + Duration::from_millis(50), 2);
        pool.insert(id(3), 1, t0 + Duration::from_millis(300), 3);
        assert_eq!(pool.next_deadline(), Some(t0 + Duration::from_millis(50)));
        assert!(pool.expire(t0 + Duration::from_millis(49)).is_empty());
        let expired = pool.expire(t0 + Duration::from_millis(100));
        assert_eq!(expired, vec![(id(2), 2), (id(1), 1)]);
        assert_eq!(pool.complete(&id(1), 1), Completion::NotInFlight);
        assert_eq!(pool.len(), 1);
        assert_eq!(pool.next_deadline(), Some(t0 + Duration::from_millis(300)));
    }

    #[test]
    fn dropping_a_connection_takes_only_its_requests() {
        let t0 = Instant::now();
        let mut pool = InFlight::new();
        pool.insert(id(1), 1, t0, 'a');
        pool.insert(id(2), 2, t0, 'b');
        pool.insert(id(3), 1, t0 + Duration::from_secs(1), 'c');
        let mut dropped = pool.drop_connection(1);
        dropped.sort();
        assert_eq!(dropped, vec![(id(1), 'a'), (id(3), 'c')]);
        assert_eq!(pool.len(), 1);
        assert_eq!(pool.expire(t0), vec![(id(2), 'b')]);
        assert!(pool.is_empty());
    }

    #[test]
    fn waiting_expires_in_order_and_drains() {
        let t0 = Instant::now();
        let mut waiting = Waiting::new();
        waiting.push(t0 + Duration::from_secs(5), "late");
        waiting.push(t0 + Duration::from_secs(1), "early");
        waiting.push(t0 + Duration::from_secs(3), "mid");
        assert_eq!(waiting.next_deadline(), Some(t0 + Duration::from_secs(1)));
        assert_eq!(
            waiting.expire(t0 + Duration::from_secs(3)),
            vec!["early", "mid"]
        );
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting.take_all(), vec!["late"]);
        assert!(waiting.is_empty());
    }
}
