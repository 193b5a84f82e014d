//! Side effects an input action triggers (§5), reported, never waited on: a dialog,
//! tabs the page opens (sessions at once, reported as `openedTabs`), a file chooser
//! (intercepted at attach), a main-frame navigation.

use std::cell::RefCell;
use std::future::Future;

use browser_bridge_protocol::result::{DialogInfo, FileChooser, OpenedTab, SideEffects};
use browser_bridge_protocol::{BridgeError, TabId};
use futures::channel::oneshot;
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use serde_json::{Value, json};
use wasm_bindgen_futures::spawn_local;

use crate::actions::navigation;
use crate::{cdp, chrome, sessions};

thread_local! {
    static OPENED: RefCell<Vec<(TabId, OpenedTab)>> = const { RefCell::new(Vec::new()) };
}

/// `chrome.tabs.onCreated`: a tab opened by a session tab (`openerTabId`) becomes a
/// session at once and is remembered for its opener's next report.
pub fn on_tab_created(tab: &chrome::Tab) {
    let (Some(id), Some(opener)) = (tab.id, tab.opener_tab_id) else {
        return;
    };
    let opener = TabId(opener);
    if !sessions::has_session(opener) {
        return;
    }
    let url = tab
        .pending_url
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| tab.url.clone());
    OPENED.with(|o| {
        o.borrow_mut().push((
            opener,
            OpenedTab {
                tab_id: TabId(id),
                url,
            },
        ))
    });
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

/// How long after the input events we look for their side effects (ms): long
/// enough for a `window.open`'s `tabs.onCreated` or a link's navigation request.
pub const SETTLE_MS: u32 = 100;
/// Longest wait for the load of a navigation an input started (ms).
pub const NAVIGATION_LOAD_MS: u32 = 10_000;

/// What an input action caused.
#[derive(Debug)]
pub struct Report {
    /// URL afterwards.
    pub url: String,
    /// A main-frame navigation started (and its load was awaited).
    pub navigated: bool,
    /// Dialog, opened tabs, file chooser.
    pub effects: SideEffects,
}

/// Watchers armed before an input action (§5: side effects are reported, never
/// waited on — a dialog ends the action at once, since CDP input blocks under it).
pub struct Watch {
    tab: TabId,
    dialog: oneshot::Receiver<Value>,
    chooser: oneshot::Receiver<Value>,
    requested: oneshot::Receiver<Value>,
    started: oneshot::Receiver<Value>,
    /// A same-document navigation (pushState, hash change): not a new document.
    same_document: oneshot::Receiver<Value>,
    loaded: oneshot::Receiver<Value>,
}

impl Watch {
    /// Arms the watchers on `tab` (and forgets tabs opened before).
    pub async fn start(tab: TabId) -> Watch {
        take_opened(tab);
        let main = cdp::send(tab, "Page.getFrameTree", json!({}))
            .await
            .ok()
            .and_then(|t| t["frameTree"]["frame"]["id"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let (m1, m2, m3) = (main.clone(), main.clone(), main);
        Watch {
            tab,
            dialog: cdp::wait_event(tab, "Page.javascriptDialogOpening"),
            chooser: cdp::wait_event(tab, "Page.fileChooserOpened"),
            requested: cdp::wait_event_where(tab, "Page.frameRequestedNavigation", move |p| {
                p["frameId"] == m1.as_str()
            }),
            started: cdp::wait_event_where(tab, "Page.frameStartedLoading", move |p| {
                p["frameId"] == m2.as_str()
            }),
            same_document: cdp::wait_event_where(tab, "Page.navigatedWithinDocument", move |p| {
                p["frameId"] == m3.as_str()
            }),
            loaded: cdp::wait_event(tab, "Page.loadEventFired"),
        }
    }

    /// Runs the input, then collects what it caused.
    ///
    /// # Errors
    /// The input's CDP failure.
    pub async fn run<F>(self, input: F) -> Result<Report, BridgeError>
    where
        F: Future<Output = Result<(), cdp::CdpError>>,
    {
        let Watch {
            tab,
            dialog,
            mut chooser,
            mut requested,
            mut started,
            mut same_document,
            loaded,
        } = self;
        let mut effects = SideEffects::default();
        let dialog = match select(Box::pin(input), dialog).await {
            Either::Left((result, dialog)) => {
                result?;
                match select(dialog, TimeoutFuture::new(SETTLE_MS)).await {
                    Either::Left((Ok(d), _)) => Some(d),
                    _ => None,
                }
            }
            Either::Right((d, _)) => d.ok(),
        };
        if let Some(d) = dialog {
            effects.dialog = serde_json::from_value::<DialogInfo>(
                json!({ "type": d["type"], "message": d["message"] }),
            )
            .ok();
            effects.opened_tabs = non_empty(take_opened(tab));
            let url = sessions::with_session(tab, |s| s.url.clone()).unwrap_or_default();
            return Ok(Report {
                url,
                navigated: false,
                effects,
            });
        }
        // pushState also starts "loading" in CDP's eyes; it keeps the document, so
        // neither wait for a load that never comes nor drop the uids (§6).
        let navigated = (matches!(requested.try_recv(), Ok(Some(_)))
            || matches!(started.try_recv(), Ok(Some(_))))
            && !matches!(same_document.try_recv(), Ok(Some(_)));
        if navigated && cdp::within(loaded, NAVIGATION_LOAD_MS).await.is_some() {
            sessions::with_session(tab, |s| s.uids.invalidate());
        }
        if let Ok(Some(c)) = chooser.try_recv() {
            effects.file_chooser = Some(FileChooser {
                multiple: c["mode"] == "selectMultiple",
            });
        }
        effects.opened_tabs = non_empty(take_opened(tab));
        let url = match navigation::page_info(tab).await {
            Ok(page) => page.url,
            Err(_) => sessions::with_session(tab, |s| s.url.clone()).unwrap_or_default(),
        };
        Ok(Report {
            url,
            navigated,
            effects,
        })
    }
}

fn non_empty(tabs: Vec<OpenedTab>) -> Option<Vec<OpenedTab>> {
    (!tabs.is_empty()).then_some(tabs)
}
