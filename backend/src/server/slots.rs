//! Slots for extension sockets (PROTOCOL.md §1 "Transport limits", §2): who may
//! hold one, and who gives one up.
//!
//! A socket is *unproven* from its upgrade until its `auth` is accepted, then
//! *proven*. Any local process can open unproven sockets (the `Origin` header is
//! no secret), so they have their own small quota, [`MAX_UNPROVEN`]: a new one at
//! that quota (or at the total cap [`MAX_EXTENSION_SOCKETS`]) closes the oldest
//! unproven socket that has not sent `hello`, else the oldest unproven one, once
//! that one is [`UNPROVEN_GRACE_MS`] old; until then newcomers wait in turn, at
//! most [`MAX_ADMIT_WAIT_MS`]. The grace is what lets an extension through a
//! flood: however many sockets queue behind it, it has that long to send `hello`
//! (it does at once), and from then on every silent socket goes before it. A new
//! socket is refused (HTTP 503) at once only when every slot is proven, which
//! takes the token. A second proven socket of the same `clientId` replaces the
//! first in the hub.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

/// Extension sockets open at once, proven or not. An upgraded socket leaves the
/// HTTP connection cap ([`crate::server::accept::MAX_CONNECTIONS`]), so it has
/// its own; with every slot proven, one more is refused with 503 before the
/// upgrade.
pub const MAX_EXTENSION_SOCKETS: usize = 64;

/// Unproven extension sockets open at once (part of [`MAX_EXTENSION_SOCKETS`]);
/// one more closes the oldest of them.
pub const MAX_UNPROVEN: usize = 16;

/// An unproven socket is not closed for a newcomer before it is this old (ms).
pub const UNPROVEN_GRACE_MS: u64 = 250;

/// A newcomer waits at most this long for an unproven slot (ms), then is
/// refused with 503. Newcomers wait in turn, so one queued behind the most a
/// flood can queue (every HTTP connection, [`crate::server::accept::MAX_CONNECTIONS`])
/// is admitted within `512 / 16 × 250 ms` = 8 s.
pub const MAX_ADMIT_WAIT_MS: u64 = 10_000;

struct Unproven {
    admitted_at: Instant,
    said_hello: bool,
    evict: oneshot::Sender<()>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    proven: usize,
    /// By id, which grows with age: the first entry is the oldest.
    unproven: BTreeMap<u64, Unproven>,
}

/// One server's extension-socket slots; clones share them.
#[derive(Clone)]
pub struct ExtensionSlots {
    table: Arc<Mutex<Table>>,
    max_total: usize,
    max_unproven: usize,
    grace: Duration,
    /// Newcomers waiting for a slot take it in arrival order (tokio's mutex is
    /// fair).
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl Default for ExtensionSlots {
    fn default() -> Self {
        ExtensionSlots::new(MAX_EXTENSION_SOCKETS, MAX_UNPROVEN)
    }
}

impl std::fmt::Debug for ExtensionSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let table = self.lock();
        f.debug_struct("ExtensionSlots")
            .field("proven", &table.proven)
            .field("unproven", &table.unproven.len())
            .finish()
    }
}

/// Why [`ExtensionSlots::admit`] admitted no socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// Every slot holds a proven socket.
    AllProven,
    /// Try again at this instant, when the oldest unproven socket's grace ends.
    Until(Instant),
}

impl ExtensionSlots {
    /// At most `max_total` sockets, of which at most `max_unproven` (≥ 1) unproven.
    pub fn new(max_total: usize, max_unproven: usize) -> Self {
        ExtensionSlots {
            table: Arc::default(),
            max_total,
            max_unproven: max_unproven.clamp(1, max_total.max(1)),
            grace: Duration::from_millis(UNPROVEN_GRACE_MS),
            turn: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot at `now` for a new, unproven socket, and whether an older unproven
    /// socket was told to close to make room for it.
    ///
    /// # Errors
    /// [`Full::AllProven`] when every slot holds a proven socket;
    /// [`Full::Until`] while every unproven one is in its grace.
    pub fn admit(&self, now: Instant) -> Result<(Slot, bool), Full> {
        let mut table = self.lock();
        let full = table.unproven.len() >= self.max_unproven
            || table.proven + table.unproven.len() >= self.max_total;
        let mut evicted = false;
        if full {
            let Some(oldest) = table.unproven.values().next() else {
                return Err(Full::AllProven);
            };
            let oldest_until = oldest.admitted_at + self.grace;
            let past_grace = |u: &&Unproven| u.admitted_at + self.grace <= now;
            let victim = table
                .unproven
                .iter()
                .find(|(_, u)| !u.said_hello && past_grace(u))
                .or_else(|| table.unproven.iter().find(|(_, u)| past_grace(u)))
                .map(|(id, _)| *id)
                .ok_or(Full::Until(oldest_until))?;
            if let Some(old) = table.unproven.remove(&victim) {
                let _ = old.evict.send(());
            }
            evicted = true;
        }
        table.next_id += 1;
        let id = table.next_id;
        let (evict, evicted_rx) = oneshot::channel();
        table.unproven.insert(
            id,
            Unproven {
                admitted_at: now,
                said_hello: false,
                evict,
            },
        );
        let slot = Slot {
            slots: self.clone(),
            id,
            proven: false,
            evicted: evicted_rx,
        };
        Ok((slot, evicted))
    }

    /// A slot for a new socket, waiting in turn while every unproven one is in
    /// its grace, at most [`MAX_ADMIT_WAIT_MS`]; `None` (HTTP 503) when every
    /// slot is proven or the wait ran out.
    pub async fn wait_for_slot(&self) -> Option<(Slot, bool)> {
        let wait = async {
            let _turn = self.turn.lock().await;
            loop {
                match self.admit(Instant::now()) {
                    Ok(admitted) => return Some(admitted),
                    Err(Full::Until(at)) => tokio::time::sleep_until(at).await,
                    Err(Full::AllProven) => return None,
                }
            }
        };
        let limit = Duration::from_millis(MAX_ADMIT_WAIT_MS);
        tokio::time::timeout(limit, wait).await.ok().flatten()
    }

    /// `(proven, unproven)` sockets holding a slot now.
    pub fn counts(&self) -> (usize, usize) {
        let table = self.lock();
        (table.proven, table.unproven.len())
    }
}

/// One socket's slot; dropping it frees the slot.
pub struct Slot {
    slots: ExtensionSlots,
    id: u64,
    proven: bool,
    evicted: oneshot::Receiver<()>,
}

impl Slot {
    /// The socket sent an acceptable `hello`: it is evicted after those that did not.
    pub fn said_hello(&self) {
        if let Some(entry) = self.slots.lock().unproven.get_mut(&self.id) {
            entry.said_hello = true;
        }
    }

    /// The socket proved the token: it leaves the unproven quota. False when it was
    /// evicted first (it must close).
    pub fn prove(&mut self) -> bool {
        let mut table = self.slots.lock();
        if table.unproven.remove(&self.id).is_none() {
            return false;
        }
        table.proven += 1;
        self.proven = true;
        true
    }

    /// Resolves when a newer socket took this unproven one's slot; pending
    /// forever once proven.
    pub async fn evicted(&mut self) {
        if self.proven || (&mut self.evicted).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut table = self.slots.lock();
        if self.proven {
            table.proven -= 1;
        } else {
            table.unproven.remove(&self.id);
        }
    }
}

/// Folds a repeated log line: [`Folded::due`] lets one through per
/// [`FOLD_WINDOW_MS`] and counts the rest, so a flood of refused sockets cannot
/// flood the log.
#[derive(Debug, Default)]
pub struct Folded {
    state: Mutex<(Option<Instant>, u64)>,
}

/// At most one line per this many ms for each [`Folded`] line.
pub const FOLD_WINDOW_MS: u64 = 1_000;

impl Folded {
    /// A line with nothing folded yet.
    pub const fn new() -> Self {
        Folded {
            state: Mutex::new((None, 0)),
        }
    }

    /// One more occurrence at `now`: `Some(folded)` when its line is due, with the
    /// count of occurrences since the last line that wrote none; `None` when it is
    /// folded into the next line.
    pub fn due(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (last, folded) = &mut *state;
        if last.is_some_and(|at| now < at + Duration::from_millis(FOLD_WINDOW_MS)) {
            *folded += 1;
            return None;
        }
        *last = Some(now);
        Some(std::mem::take(folded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_unproven_socket_evicts_the_oldest_silent_one_past_its_grace_never_a_proven_one() {
        let slots = ExtensionSlots::new(4, 2);
        let t0 = Instant::now();
        let grace = Duration::from_millis(UNPROVEN_GRACE_MS);
        let (mut real, evicted) = slots.admit(t0).unwrap();
        assert!(!evicted);
        let (mut silent, _) = slots.admit(t0 + grace / 2).unwrap();
        // At the quota, both in their grace: the newcomer waits for the older.
        assert_eq!(slots.admit(t0).err(), Some(Full::Until(t0 + grace)));
        real.said_hello();
        // Both past it: the silent one goes, though the real one is older.
        let t1 = t0 + grace * 2;
        let (mut flood, evicted) = slots.admit(t1).unwrap();
        assert!(evicted);
        assert!(silent.evicted.try_recv().is_ok());
        assert!(!silent.prove(), "an evicted socket cannot prove");
        drop(silent);
        assert_eq!(slots.counts(), (0, 2));
        assert!(real.prove());
        assert_eq!(slots.counts(), (1, 1));
        // Proven sockets do not count against the quota: two unproven fit again.
        let (mut second, evicted) = slots.admit(t1).unwrap();
        assert!(!evicted);
        assert!(flood.evicted.try_recv().is_err());
        // At the quota again: the oldest silent one (`flood`) goes after its grace.
        let t2 = t1 + grace;
        let (mut third, _) = slots.admit(t2).unwrap();
        assert_eq!(slots.counts(), (1, 2));
        assert!(flood.evicted.try_recv().is_ok());
        drop(flood);
        assert!(third.prove());
        let (mut fourth, _) = slots.admit(t2).unwrap();
        assert!(fourth.prove());
        assert_eq!(slots.counts(), (3, 1));
        // At the total cap (4), below the quota: the unproven one goes.
        let (fifth, evicted) = slots.admit(t2).unwrap();
        assert!(evicted);
        assert!(second.evicted.try_recv().is_ok());
        assert_eq!(slots.counts(), (3, 1));
        let (mut sixth, _) = slots.admit(t2 + grace).unwrap();
        drop(fifth);
        assert!(sixth.prove());
        assert_eq!(
            slots.admit(t2 + grace).err(),
            Some(Full::AllProven),
            "every slot proven"
        );
        drop(real);
        assert_eq!(slots.counts(), (3, 0));
        assert!(slots.admit(t2 + grace).is_ok());
    }

    #[test]
    fn a_folded_line_is_written_once_a_window_with_the_count_it_folded() {
        let line = Folded::new();
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(line.due(t0), Some(0));
        assert_eq!(line.due(t0 + ms(10)), None);
        assert_eq!(line.due(t0 + ms(999)), None);
        assert_eq!(line.due(t0 + ms(FOLD_WINDOW_MS)), Some(2));
        assert_eq!(line.due(t0 + ms(FOLD_WINDOW_MS + 1)), None);
        assert_eq!(line.due(t0 + ms(5 * FOLD_WINDOW_MS)), Some(1));
    }
}
