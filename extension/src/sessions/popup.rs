//! The popup's list of live sessions (its Stop buttons name the tabs).

use browser_bridge_protocol::TabId;
use serde::Serialize;

use super::Sessions;

/// One row of the popup's list (`status` message, `sessions` field).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PopupSession {
    /// The tab.
    pub tab_id: TabId,
    /// Its main-frame URL.
    pub url: String,
    /// The tab lives in the agent window.
    pub agent_window: bool,
    /// Actions run so far.
    pub action_count: u64,
    /// When the session started (ms since the epoch).
    pub started_at: u64,
}

impl Sessions {
    /// The live sessions, by tab id.
    pub fn popup_list(&self) -> Vec<PopupSession> {
        let reg = self.reg.borrow();
        let mut list: Vec<PopupSession> = reg
            .sessions
            .values()
            .map(|s| PopupSession {
                tab_id: s.tab,
                url: s.url.clone(),
                agent_window: s.agent_window,
                action_count: s.action_count,
                started_at: s.started_at,
            })
            .collect();
        list.sort_by_key(|s| s.tab_id);
        list
    }
}
