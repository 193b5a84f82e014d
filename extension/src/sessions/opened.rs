//! Tabs opened by session tabs (`window.open`, `target=_blank`): each becomes a
//! session at once and is reported once, as `openedTabs` of its opener's next
//! input action (§5).

use browser_bridge_protocol::TabId;
use browser_bridge_protocol::result::OpenedTab;

use super::Sessions;
use super::attach::tab_url;
use crate::chrome;

impl Sessions {
    /// `chrome.tabs.onCreated`: a tab opened by a session tab (`openerTabId`)
    /// becomes a session and is remembered for its opener's next report.
    pub fn on_tab_created(&self, tab: &chrome::Tab) {
        let (Some(id), Some(opener)) = (tab.id, tab.opener_tab_id) else {
            return;
        };
        let opener = TabId(opener);
        if !self.has(opener) {
            return;
        }
        let opened = OpenedTab {
            tab_id: TabId(id),
            url: tab_url(tab),
        };
        self.reg.borrow_mut().opened.push((opener, opened));
        self.ensure_in_background(TabId(id));
    }

    /// Takes the tabs `opener` opened since the last call.
    pub fn take_opened(&self, opener: TabId) -> Vec<OpenedTab> {
        let mut reg = self.reg.borrow_mut();
        let (mine, rest): (Vec<_>, Vec<_>) = reg.opened.drain(..).partition(|(t, _)| *t == opener);
        reg.opened = rest;
        mine.into_iter().map(|(_, t)| t).collect()
    }
}
