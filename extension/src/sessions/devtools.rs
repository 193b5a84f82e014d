//! Each session's console and network buffers (PROTOCOL.md §10.1), fed by the
//! debugger events of the tab and of its out-of-process iframes from attach on;
//! the buffers' logic is `core::devtools`. A restarted worker starts with empty
//! buffers.

use browser_bridge_cdp::Event as _;
use browser_bridge_cdp::log::{self, EntryAdded};
use browser_bridge_cdp::network::{
    self, LoadingFailed, LoadingFinished, RequestWillBeSent, ResponseReceived,
};
use browser_bridge_cdp::runtime::{self, ConsoleApiCalled, ExceptionThrown};
use browser_bridge_protocol::devtools::{
    ConsoleMessage, ConsoleMessages, NetworkRequest, NetworkRequests,
};
use browser_bridge_protocol::{BridgeError, TabId};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::core::devtools::{
    BodySource, ConsoleLog, NetworkLog, from_console_api, from_exception, from_log_entry,
};
use crate::{cdp, chrome};

/// One session's buffers.
#[derive(Debug, Default)]
pub struct Buffers {
    console: ConsoleLog,
    network: NetworkLog,
}

/// The events that feed the buffers, from the tab and from its child sessions.
pub fn devtools_routed(method: &str) -> bool {
    [
        ConsoleApiCalled::METHOD,
        ExceptionThrown::METHOD,
        EntryAdded::METHOD,
        RequestWillBeSent::METHOD,
        ResponseReceived::METHOD,
        LoadingFinished::METHOD,
        LoadingFailed::METHOD,
    ]
    .contains(&method)
}

/// `params` as `E`, straight from the JS object (only the fields read are
/// converted); `None` when they do not fit.
fn decode<E: browser_bridge_cdp::Event>(params: &JsValue) -> Option<E> {
    chrome::from_js(params).ok()
}

impl Sessions {
    /// Turns on the domains that feed the buffers on the tab (`child: None`) or
    /// one of its child sessions, without waiting: the commands go out in order
    /// before the ones that follow, and no action waits for their answers.
    pub(super) fn enable_devtools(tab: TabId, child: Option<String>) {
        spawn_local(async move {
            let child = child.as_deref();
            let timeout = cdp::COMMAND_TIMEOUT_MS;
            let (a, b, c) = futures::future::join3(
                cdp::send_to(tab, child, &runtime::Enable {}, timeout),
                cdp::send_to(tab, child, &log::Enable {}, timeout),
                cdp::send_to(tab, child, &network::Enable {}, timeout),
            )
            .await;
            for result in [a.err(), b.err(), c.err()].into_iter().flatten() {
                chrome::log(&format!("console and network of tab {tab}: {result}"));
            }
        });
    }

    /// One event of [`devtools_routed`] from `tab` or its child session `child`,
    /// into the tab's buffers (only while it has a session).
    pub fn on_devtools_event(
        &self,
        tab: TabId,
        child: Option<&str>,
        method: &str,
        params: &JsValue,
    ) {
        let mut reg = self.reg.borrow_mut();
        if !reg.sessions.contains_key(&tab) {
            return;
        }
        let buffers = reg.devtools.entry(tab).or_default();
        let console = &mut buffers.console;
        let network = &mut buffers.network;
        match method {
            ConsoleApiCalled::METHOD => {
                if let Some(e) = decode::<ConsoleApiCalled>(params) {
                    console.push(from_console_api(&e));
                }
            }
            ExceptionThrown::METHOD => {
                if let Some(e) = decode::<ExceptionThrown>(params) {
                    console.push(from_exception(&e));
                }
            }
            EntryAdded::METHOD => {
                if let Some(e) = decode::<EntryAdded>(params) {
                    console.push(from_log_entry(&e.entry));
                }
            }
            RequestWillBeSent::METHOD => {
                if let Some(e) = decode::<RequestWillBeSent>(params) {
                    network.sent(&e, child);
                }
            }
            ResponseReceived::METHOD => {
                if let Some(e) = decode::<ResponseReceived>(params) {
                    network.responded(&e);
                }
            }
            LoadingFinished::METHOD => {
                if let Some(e) = decode::<LoadingFinished>(params) {
                    network.finished(&e);
                }
            }
            LoadingFailed::METHOD => {
                if let Some(e) = decode::<LoadingFailed>(params) {
                    network.failed(&e);
                }
            }
            _ => {}
        }
    }

    /// `console_messages` of `tab` (empty for a session with no message yet).
    pub fn console_messages(&self, tab: TabId, params: &ConsoleMessages) -> Vec<ConsoleMessage> {
        self.reg
            .borrow()
            .devtools
            .get(&tab)
            .map(|b| b.console.list(params))
            .unwrap_or_default()
    }

    /// `network_requests` of `tab`.
    pub fn network_requests(&self, tab: TabId, params: &NetworkRequests) -> Vec<NetworkRequest> {
        self.reg
            .borrow()
            .devtools
            .get(&tab)
            .map(|b| b.network.list(params))
            .unwrap_or_default()
    }

    /// Where to read the body of `request_id` of `tab`.
    ///
    /// # Errors
    /// `invalid_action` as [`NetworkLog::body_source`].
    pub fn body_source(&self, tab: TabId, request_id: &str) -> Result<BodySource, BridgeError> {
        match self.reg.borrow().devtools.get(&tab) {
            Some(b) => b.network.body_source(request_id),
            None => NetworkLog::default().body_source(request_id),
        }
    }

    /// Drops the buffers of a session that ended.
    pub(super) fn forget_devtools(&self, tab: TabId) {
        self.reg.borrow_mut().devtools.remove(&tab);
    }
}
