//! The agent windows (PROTOCOL.md §10): the shared one, for requests that name
//! no client, and one per client named by a request's `client` (§3). Each is a
//! separate, minimized Chrome window created unfocused on a client's first new
//! tab and reused afterwards, so one client's tabs never share a window (nor its
//! active tab) with another's, and none steals the person's focus.
//!
//! Pure bookkeeping: which window a client's new tab goes to, which windows are
//! agent windows, and the JSON kept in `chrome.storage.session` (key
//! [`AGENT_WINDOWS_KEY`]) so a restarted worker reuses them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// `chrome.storage.session` key of the per-client windows: `{client: windowId}`.
pub const AGENT_WINDOWS_KEY: &str = "agentWindows";

/// The agent windows this worker knows (ids of `chrome.windows.Window`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentWindows {
    /// The window of requests without `client`.
    shared: Option<i64>,
    /// Each client's own window.
    by_client: BTreeMap<String, i64>,
}

impl AgentWindows {
    /// The window `client`'s new tabs go to (`None`: the shared one), when known.
    pub fn get(&self, client: Option<&str>) -> Option<i64> {
        match client {
            None => self.shared,
            Some(name) => self.by_client.get(name).copied(),
        }
    }

    /// Records `window` as `client`'s (`None`: the shared one).
    pub fn set(&mut self, client: Option<&str>, window: i64) {
        match client {
            None => self.shared = Some(window),
            Some(name) => {
                self.by_client.insert(name.to_owned(), window);
            }
        }
    }

    /// Forgets `window` (it was closed): the next new tab of its client
    /// creates a window again.
    pub fn forget(&mut self, window: i64) {
        if self.shared == Some(window) {
            self.shared = None;
        }
        self.by_client.retain(|_, w| *w != window);
    }

    /// Whether `window` is an agent window, shared or a client's.
    pub fn contains(&self, window: i64) -> bool {
        self.shared == Some(window) || self.by_client.values().any(|w| *w == window)
    }

    /// The client whose own window `window` is.
    pub fn owner(&self, window: i64) -> Option<&str> {
        self.by_client
            .iter()
            .find(|(_, w)| **w == window)
            .map(|(name, _)| name.as_str())
    }

    /// The per-client windows as stored: `{client: windowId}`.
    pub fn to_storage(&self) -> Value {
        Value::Object(
            self.by_client
                .iter()
                .map(|(name, w)| (name.clone(), Value::from(*w)))
                .collect::<Map<_, _>>(),
        )
    }

    /// Adds the per-client windows of a stored `{client: windowId}` (entries of
    /// another shape are skipped), keeping those already known.
    pub fn restore(&mut self, stored: &Value) {
        for (name, window) in stored.as_object().into_iter().flatten() {
            if let Some(window) = window.as_i64() {
                self.by_client.entry(name.clone()).or_insert(window);
            }
        }
    }

    /// Sets the shared window when none is known yet (the `agentWindowId` of
    /// `chrome.storage.local`, read at worker start).
    pub fn restore_shared(&mut self, window: Option<i64>) {
        if self.shared.is_none() {
            self.shared = window;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_client_has_its_own_window_and_the_rest_share_one() {
        let mut w = AgentWindows::default();
        assert_eq!(w.get(None), None);
        w.set(None, 1);
        w.set(Some("alice"), 2);
        w.set(Some("bob"), 3);
        assert_eq!(
            (w.get(None), w.get(Some("alice")), w.get(Some("bob"))),
            (Some(1), Some(2), Some(3))
        );
        assert_eq!(w.get(Some("carol")), None, "a new client gets a new window");
        assert!(w.contains(1) && w.contains(2) && w.contains(3) && !w.contains(4));
        assert_eq!(
            (w.owner(2), w.owner(1), w.owner(4)),
            (Some("alice"), None, None)
        );
    }

    #[test]
    fn a_closed_window_is_forgotten_for_its_client_only() {
        let mut w = AgentWindows::default();
        w.set(None, 1);
        w.set(Some("alice"), 2);
        w.set(Some("bob"), 3);
        w.forget(2);
        assert_eq!(
            (w.get(None), w.get(Some("alice")), w.get(Some("bob"))),
            (Some(1), None, Some(3))
        );
        assert!(!w.contains(2));
        w.forget(1);
        assert_eq!(w.get(None), None);
    }

    #[test]
    fn the_client_windows_survive_a_worker_restart_through_storage() {
        let mut before = AgentWindows::default();
        before.set(Some("alice"), 2);
        before.set(Some("mcp-1f2e3d4c5b6a"), 3);
        let stored = before.to_storage();
        assert_eq!(stored, json!({"alice": 2, "mcp-1f2e3d4c5b6a": 3}));
        let mut after = AgentWindows::default();
        after.restore(&stored);
        after.restore_shared(Some(1));
        before.set(None, 1);
        assert_eq!(after, before);
    }

    #[test]
    fn a_malformed_store_restores_what_it_can() {
        let mut w = AgentWindows::default();
        w.set(Some("bob"), 9);
        w.restore(&json!({"alice": 2, "bob": 4, "carol": "x", "dave": null}));
        assert_eq!(
            (w.get(Some("alice")), w.get(Some("bob"))),
            (Some(2), Some(9))
        );
        assert_eq!((w.get(Some("carol")), w.get(Some("dave"))), (None, None));
        w.restore(&json!([1, 2]));
        w.restore(&Value::Null);
        assert_eq!(w.get(Some("alice")), Some(2));
        w.restore_shared(Some(5));
        w.restore_shared(Some(6));
        assert_eq!(w.get(None), Some(5));
    }
}
