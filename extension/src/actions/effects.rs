//! Side effects an input action triggers (§5), reported, never waited on: a dialog,
//! tabs the page opens (sessions at once, reported as `openedTabs`), a file chooser
//! (intercepted at attach), a main-frame navigation, a download (§10.2; a
//! navigation that turns into one ends the wait for its load).
//!
//! No fixed settle window: once the input's CDP calls have returned (the renderer
//! handled the events), a barrier — two task turns of the page, awaited through
//! `Runtime.evaluate`, or for an element click in the call that reads where the
//! press landed ([`super::landing`]) — answers after the events of whatever the input started at
//! once or one task later (`Page.javascriptDialogOpening`, `Page.windowOpen`,
//! `Page.frameRequestedNavigation`, a form's submission). Only what has started is
//! then waited for: the load of a navigation, the tab of a `Page.windowOpen`.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use browser_bridge_cdp::page::{
    DownloadWillBegin, FileChooserOpened, FrameId, FrameRequestedNavigation, FrameStartedLoading,
    GetFrameTree, JavascriptDialogOpening, LoadEventFired, NavigatedWithinDocument, WindowOpen,
};
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::result::{FileChooser, OpenedTab, SideEffects};
use browser_bridge_protocol::{BridgeError, TabId};
use futures::channel::oneshot::Receiver;
use futures::future::{Either, LocalBoxFuture, select};
use gloo_timers::future::TimeoutFuture;

use crate::actions::{downloads, navigation};
use crate::app::App;
use crate::cdp;
use crate::chrome;
use crate::sessions::attach::tab_url;
use crate::sessions::dialogs::dialog_info;

/// The barrier after an input: two task turns of the page. Handlers deferred by
/// a task (`setTimeout(…, 0)`, a form's submission) have run when it resolves to
/// the page's URL then (the answer's `url` when nothing else happened: no second
/// round trip).
const BARRIER: &str =
    "new Promise((done) => setTimeout(() => setTimeout(() => done(location.href), 0), 0))";
/// Longest wait for the barrier (ms): a page whose main thread stays busy after
/// the input is not waited for longer.
pub const BARRIER_MS: u32 = 500;
/// Interval of the look for the tab of a `Page.windowOpen` (ms).
const OPENED_POLL_MS: u32 = 10;
/// Longest wait for the load of a navigation an input started (ms).
pub const NAVIGATION_LOAD_MS: u32 = 10_000;

/// How an input ended, for [`Watch::run_ended`].
#[derive(Debug)]
pub enum Ended {
    /// Its calls returned: the barrier is still to be waited for.
    Input,
    /// It waited out the barrier (`BARRIER`'s two task turns of the main
    /// frame) in its last call: the page's URL then.
    Settled(Option<String>),
}

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
    app: App,
    tab: TabId,
    dialog: Receiver<JavascriptDialogOpening>,
    chooser: Receiver<FileChooserOpened>,
    requested: Receiver<FrameRequestedNavigation>,
    started: Receiver<FrameStartedLoading>,
    /// A same-document navigation (pushState, hash change): not a new document.
    same_document: Receiver<NavigatedWithinDocument>,
    loaded: Receiver<LoadEventFired>,
    /// `Page.windowOpen`: a tab is on its way.
    window_open: Receiver<WindowOpen>,
    /// `Page.downloadWillBegin`: a download began (a navigation that turned
    /// into one never loads).
    download: Receiver<DownloadWillBegin>,
    /// The tabs that existed before the input (`chrome.tabs.query` sent at
    /// [`Watch::start`]).
    known: Pin<Box<dyn Future<Output = Result<Vec<chrome::Tab>, chrome::ChromeError>>>>,
    /// Set by the input when it followed a download link: the download begins
    /// once Chrome has the response, after the input ended.
    download_link: Rc<Cell<bool>>,
}

impl Watch {
    /// Arms the watchers on `tab` (and forgets tabs opened before).
    pub async fn start(app: &App, tab: TabId) -> Watch {
        app.sessions.take_opened(tab);
        // The tabs before the input are asked for now and read only if a
        // `Page.windowOpen` needs them: no chrome.* round trip on the way. The
        // main frame's id is known since attach (`Page.getFrameTree` else).
        let known = Box::pin(chrome::tabs_query_now(&serde_json::json!({})));
        let main = match app.sessions.with(tab, |s| s.main_frame.clone()).flatten() {
            Some(id) => FrameId(id),
            None => cdp::send(tab, &GetFrameTree {})
                .await
                .map(|t| t.frame_tree.frame.id)
                .unwrap_or_default(),
        };
        let events = &app.events;
        let (m1, m2, m3) = (main.clone(), main.clone(), main);
        Watch {
            app: app.clone(),
            tab,
            dialog: events.wait(tab),
            chooser: events.wait(tab),
            requested: events.wait_where(tab, move |e: &FrameRequestedNavigation| e.frame_id == m1),
            started: events.wait_where(tab, move |e: &FrameStartedLoading| e.frame_id == m2),
            same_document: events
                .wait_where(tab, move |e: &NavigatedWithinDocument| e.frame_id == m3),
            loaded: events.wait(tab),
            window_open: events.wait(tab),
            download: events.wait(tab),
            known,
            download_link: Rc::default(),
        }
    }

    /// The flag an input sets when it followed a download link (`<a download>`):
    /// [`Watch::run`] then waits for its download as for a navigation's load.
    pub fn download_link(&self) -> Rc<Cell<bool>> {
        Rc::clone(&self.download_link)
    }

    /// Runs the input, then collects what it caused.
    ///
    /// # Errors
    /// The input's CDP failure.
    pub async fn run<F>(self, input: F) -> Result<Report, BridgeError>
    where
        F: Future<Output = Result<(), cdp::CdpError>>,
    {
        self.run_ended(Box::pin(async { input.await.map(|()| Ended::Input) }))
            .await
    }

    /// [`Watch::run`] for an input that may wait out the barrier itself, in
    /// its last call into the page ([`Ended::Settled`]): one round trip less.
    /// Boxed: one copy of this in the wasm, not one per input.
    ///
    /// # Errors
    /// The input's CDP failure.
    pub async fn run_ended(
        self,
        input: LocalBoxFuture<'_, Result<Ended, cdp::CdpError>>,
    ) -> Result<Report, BridgeError> {
        let Watch {
            app,
            tab,
            dialog,
            mut chooser,
            mut requested,
            mut started,
            mut same_document,
            loaded,
            mut window_open,
            mut download,
            known,
            download_link,
        } = self;
        let sessions = &app.sessions;
        let mut effects = SideEffects::default();
        // The URL the barrier saw, when it answered.
        let mut settled_url = None;
        let dialog = match select(input, dialog).await {
            Either::Left((result, mut dialog)) => {
                if let Ended::Settled(url) = result? {
                    settled_url = url;
                    dialog.try_recv().ok().flatten()
                } else {
                    let barrier = Evaluate {
                        await_promise: Some(true),
                        ..Evaluate::by_value(BARRIER)
                    };
                    // A dialog blocks the barrier's evaluation: it ends the wait. A
                    // navigation destroys its context: then its answer is an error.
                    let barrier = Box::pin(cdp::send_with_timeout(tab, &barrier, BARRIER_MS));
                    match select(dialog, barrier).await {
                        Either::Left((Ok(d), _)) => Some(d),
                        Either::Left((Err(_), _)) => None,
                        Either::Right((answer, mut dialog)) => {
                            settled_url = answer
                                .ok()
                                .filter(|r| r.exception_details.is_none())
                                .and_then(|r| r.result.value)
                                .and_then(|v| v.as_str().map(str::to_owned));
                            dialog.try_recv().ok().flatten()
                        }
                    }
                }
            }
            Either::Right((d, _)) => d.ok(),
        };
        if let Some(d) = dialog {
            effects.dialog = Some(dialog_info(&d));
            effects.opened_tabs = non_empty(with_urls(sessions.take_opened(tab)).await);
            let url = sessions.with(tab, |s| s.url.clone()).unwrap_or_default();
            return Ok(Report {
                url,
                navigated: false,
                effects,
            });
        }
        // pushState also starts "loading" in CDP's eyes; it keeps the document, so
        // neither wait for a load that never comes nor drop the uids (§6).
        let mut navigated = (matches!(requested.try_recv(), Ok(Some(_)))
            || matches!(started.try_recv(), Ok(Some(_))))
            && !matches!(same_document.try_recv(), Ok(Some(_)));
        // A navigation answered as an attachment becomes a download and never
        // loads: its download ends the wait.
        let mut began = None;
        if navigated {
            let waits = select(
                select(loaded, &mut download),
                TimeoutFuture::new(NAVIGATION_LOAD_MS),
            );
            match waits.await {
                Either::Left((Either::Left((Ok(_), _)), _)) => {
                    sessions.with(tab, |s| s.uids.invalidate());
                }
                Either::Left((Either::Right((Ok(event), _)), _)) => began = Some(event),
                _ => {}
            }
        }
        let mut began = began.or_else(|| download.try_recv().ok().flatten());
        if began.is_none() && !navigated && download_link.get() {
            began = cdp::within(download, NAVIGATION_LOAD_MS).await;
        }
        if let Some(event) = began {
            navigated = false;
            effects.download = Some(Box::new(downloads::began(&app, tab, &event).await?));
        }
        if let Ok(Some(c)) = chooser.try_recv() {
            effects.file_chooser = Some(FileChooser {
                multiple: c.mode == "selectMultiple",
            });
        }
        let mut opened = sessions.take_opened(tab);
        // The page opened a window (`Page.windowOpen`): its tab may be created after
        // the input ends, and Chrome may name the window's active tab as its opener.
        if let (true, Ok(Some(open))) = (opened.is_empty(), window_open.try_recv()) {
            let known: Vec<i64> = known
                .await
                .unwrap_or_default()
                .into_iter()
                .filter_map(|t| t.id)
                .collect();
            let deadline = js_sys::Date::now() + OPENED_URL_MS;
            while opened.is_empty() && js_sys::Date::now() < deadline {
                let fresh: Vec<chrome::Tab> = chrome::tabs_query(&serde_json::json!({}))
                    .await
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|t| t.id.is_some_and(|id| !known.contains(&id)))
                    .collect();
                let mine = fresh
                    .iter()
                    .find(|t| t.opener_tab_id == Some(tab.0))
                    .or_else(|| fresh.iter().find(|t| tab_url(t) == open.url));
                if let Some(t) = mine {
                    sessions.record_opened(tab, t);
                    opened = sessions.take_opened(tab);
                    break;
                }
                TimeoutFuture::new(OPENED_POLL_MS).await;
                opened = sessions.take_opened(tab);
            }
        }
        effects.opened_tabs = non_empty(with_urls(opened).await);
        // Nothing happened after the barrier: the URL it saw is the page's.
        let quiet = !navigated && effects.download.is_none() && effects.opened_tabs.is_none();
        let url = match settled_url.filter(|_| quiet) {
            Some(url) => url,
            None => match navigation::page_info(tab).await {
                Ok(page) => page.url,
                Err(_) => sessions.with(tab, |s| s.url.clone()).unwrap_or_default(),
            },
        };
        Ok(Report {
            url,
            navigated,
            effects,
        })
    }
}

/// Longest wait for opened tabs' URLs (ms): `chrome.tabs.onCreated` reports a
/// `target=_blank` tab before it has a URL; `chrome.tabs.get` has it (as `pendingUrl`)
/// a moment later.
const OPENED_URL_MS: f64 = 1500.0;

/// Fills in each opened tab's URL that was not known when the tab was created
/// and waits for its document to load, so that the next action on it finds that
/// document rather than the initial `about:blank` (`chrome.tabs.get`, polled every
/// [`OPENED_POLL_MS`] for at most [`OPENED_URL_MS`] in all); a tab closed
/// meanwhile keeps `""`.
async fn with_urls(mut tabs: Vec<OpenedTab>) -> Vec<OpenedTab> {
    let deadline = js_sys::Date::now() + OPENED_URL_MS;
    for opened in &mut tabs {
        loop {
            let Ok(t) = chrome::tabs_get(opened.tab_id.0).await else {
                break;
            };
            if opened.url.is_empty() {
                opened.url = tab_url(&t);
            }
            let loaded = t.status.as_deref() == Some("complete")
                && t.pending_url.as_deref().is_none_or(str::is_empty);
            if (loaded && !opened.url.is_empty()) || js_sys::Date::now() > deadline {
                break;
            }
            TimeoutFuture::new(OPENED_POLL_MS).await;
        }
    }
    tabs
}

fn non_empty(tabs: Vec<OpenedTab>) -> Option<Vec<OpenedTab>> {
    (!tabs.is_empty()).then_some(tabs)
}
