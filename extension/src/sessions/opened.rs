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
        if !self.has(opener) || self.has(TabId(id)) {
            return;
        }
        // Seen already (a query after `Page.windowOpen` came first).
        if self
            .reg
            .borrow()
            .opened
            .iter()
            .any(|(_, t)| t.tab_id == TabId(id))
        {
            return;
        }
        let opened = OpenedTab {
            tab_id: TabId(id),
            url: tab_url(tab),
        };
        self.reg.borrow_mut().opened.push((opener, opened));
        self.ensure_in_background(TabId(id));
    }

    /// Records `tab` as opened by `opener`, whatever its `openerTabId` says (Chrome
    /// gives a tab opened from a background tab the active tab as its opener), and
    /// starts its session.
    pub fn record_opened(&self, opener: TabId, tab: &chrome::Tab) {
        let Some(id) = tab.id.map(TabId) else {
            return;
        };
        let opened = OpenedTab {
            tab_id: id,
            url: tab_url(tab),
        };
        let mut reg = self.reg.borrow_mut();
        reg.opened.retain(|(_, t)| t.tab_id != id);
        reg.opened.push((opener, opened));
        drop(reg);
        self.ensure_in_background(id);
    }

    /// Takes the tabs `opener` opened since the last call.
    pub fn take_opened(&self, opener: TabId) -> Vec<OpenedTab> {
        let mut reg = self.reg.borrow_mut();
        let (mine, rest): (Vec<_>, Vec<_>) = reg.opened.drain(..).partition(|(t, _)| *t == opener);
        reg.opened = rest;
        mine.into_iter().map(|(_, t)| t).collect()
    }
}
