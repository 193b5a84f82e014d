//! The worker's shared state, created once at start ([`crate::Worker`]) and
//! handed to the modules: each part is a cheap handle (`Rc` inside), so tasks
//! take a clone.

use crate::cdp::Events;
use crate::handoffs::Handoffs;
use crate::lifecycle::Gate;
use crate::outbox::Outbox;
use crate::sessions::Sessions;

/// What the dispatcher, the actions and the event routing share.
#[derive(Clone)]
pub struct App {
    /// Sessions, the agent window, the blocklist and Stop all (§10).
    pub sessions: Sessions,
    /// One-shot CDP event waiters.
    pub events: Events,
    /// Events and responses to the backend.
    pub outbox: Outbox,
    /// Closed until a new worker took back its sessions.
    pub gate: Gate,
    /// The hand-offs waiting for the person (§5 "Hand-off").
    pub handoffs: Handoffs,
}

impl Default for App {
    /// A new worker's state: no sessions, the gate closed.
    fn default() -> App {
        let outbox = Outbox::default();
        App {
            sessions: Sessions::new(outbox.clone()),
            events: Events::default(),
            outbox,
            gate: Gate::closed(),
            handoffs: Handoffs::default(),
        }
    }
}
