//! Side effects an input action triggers (§5), reported, never waited on: tabs the
//! page opens become sessions at once and are reported as `openedTabs`.

use std::cell::RefCell;

use browser_bridge_protocol::TabId;
use browser_bridge_protocol::result::OpenedTab;
use wasm_bindgen_futures::spawn_local;

use crate::{chrome, sessions};

thread_local! {
    static OPENED: RefCell<Vec<(TabId, OpenedTab)>> = const { RefCell::new(Vec::new()) };
}

/// `chrome.tabs.onCreated`: a tab opened by a session tab (`openerTabId`) becomes a
/// session at once and is remembered for its opener's next report.
pub fn on_tab_created(tab: &chrome::Tab) {
    let (Some(id), Some(opener)) = (tab.id, tab.opener_tab_id) else { return };
    let opener = TabId(opener);
    if !sessions::has_session(opener) {
        return;
    }
    let url = tab.pending_url.clone().filter(|u| !u.is_empty()).unwrap_or_else(|| tab.url.clone());
    OPENED.with(|o| o.borrow_mut().push((opener, OpenedTab { tab_id: TabId(id), url })));
    spawn_local(async move {
        if let Err(e) = sessions::ensure_session(TabId(id)).await {
            chrome::log(&format!("session for opened tab {id}: {}", e.message));
        }
    });
}

/// Takes the tabs `opener` opened since the last call.
pub fn take_opened(opener: TabId) -> Vec<OpenedTab> {
    OPENED.with(|o| {
        let mut all = o.borrow_mut();
        let (mine, rest): (Vec<_>, Vec<_>) = all.drain(..).partition(|(t, _)| *t == opener);
        *all = rest;
        mine.into_iter().map(|(_, t)| t).collect()
    })
}
