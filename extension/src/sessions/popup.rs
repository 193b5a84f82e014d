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
    /// The backend's client that last acted on the tab (the popup groups by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl Sessions {
    /// Records `client` (when a request named one) as the last to act on `tab`.
    pub fn mark_client(&self, tab: TabId, client: Option<&str>) {
        if let Some(name) = client
            && self.with(tab, |s| s.client.as_deref() != Some(name)) == Some(true)
        {
            self.with(tab, |s| s.client = Some(name.to_owned()));
            self.persist();
        }
    }

    /// The live sessions, by client (those no client named first), then by tab id.
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
                client: s.client.clone(),
            })
            .collect();
        list.sort_unstable_by(|a, b| (&a.client, a.tab_id).cmp(&(&b.client, b.tab_id)));
        list
    }
}
