//! Which `chrome.debugger.onEvent` events the sessions handle, decoded into their
//! typed payloads (the event waiters of `crate::cdp` get every event too).

use browser_bridge_cdp::Event as _;
use browser_bridge_cdp::fetch::RequestPaused;
use browser_bridge_cdp::inspector::{TargetCrashed, TargetReloadedAfterCrash};
use browser_bridge_cdp::page::{
    DownloadWillBegin, FrameNavigated, JavascriptDialogClosed, JavascriptDialogOpening, WindowOpen,
};
use browser_bridge_cdp::target::{AttachedToTarget, DetachedFromTarget};
use browser_bridge_protocol::TabId;
use serde_json::Value;

use super::Sessions;

/// The events of the tab itself that [`Sessions::on_debugger_event`] handles.
pub fn always_routed(method: &str) -> bool {
    [
        RequestPaused::METHOD,
        AttachedToTarget::METHOD,
        DetachedFromTarget::METHOD,
        JavascriptDialogOpening::METHOD,
        JavascriptDialogClosed::METHOD,
        FrameNavigated::METHOD,
        TargetCrashed::METHOD,
        TargetReloadedAfterCrash::METHOD,
        DownloadWillBegin::METHOD,
    ]
    .contains(&method)
}

/// The events of child targets (`onEvent` with a `sessionId`) that
/// [`Sessions::on_child_event`] handles.
pub fn child_routed(method: &str) -> bool {
    [
        RequestPaused::METHOD,
        AttachedToTarget::METHOD,
        DetachedFromTarget::METHOD,
        FrameNavigated::METHOD,
        DownloadWillBegin::METHOD,
    ]
    .contains(&method)
}

/// Events of a child target that are side effects of the tab's own actions too:
/// a frame's `window.open` (`Page.windowOpen`) opens a tab for the tab, a
/// frame's download is the tab's (`Page.downloadWillBegin`).
pub fn child_to_tab(method: &str) -> bool {
    method == WindowOpen::METHOD || method == DownloadWillBegin::METHOD
}

/// `params` as `E`; `None` (the event is ignored) when they do not fit.
fn decode<E: browser_bridge_cdp::Event>(params: &Value) -> Option<E> {
    E::deserialize(params).ok()
}

impl Sessions {
    /// One debugger event of `tab` itself.
    pub fn on_debugger_event(&self, tab: TabId, method: &str, params: &Value) {
        match method {
            JavascriptDialogOpening::METHOD => {
                if let Some(opening) = decode::<JavascriptDialogOpening>(params) {
                    self.on_dialog_opening(tab, &opening);
                }
            }
            JavascriptDialogClosed::METHOD => self.on_dialog_closed(tab),
            RequestPaused::METHOD => {
                if let Some(paused) = decode(params) {
                    self.on_request_paused(tab, None, paused);
                }
            }
            AttachedToTarget::METHOD => {
                if let Some(attached) = decode(params) {
                    self.on_attached(tab, None, attached);
                }
            }
            DetachedFromTarget::METHOD => {
                if let Some(detached) = decode::<DetachedFromTarget>(params) {
                    self.on_frame_detached(tab, &detached.session_id.0);
                }
            }
            FrameNavigated::METHOD => {
                if let Some(navigated) = decode::<FrameNavigated>(params)
                    && navigated.is_main_frame()
                {
                    self.on_main_frame_navigated(tab, navigated);
                }
            }
            TargetCrashed::METHOD => self.on_crash(tab),
            TargetReloadedAfterCrash::METHOD => {
                self.with(tab, |s| s.crashed = false);
            }
            DownloadWillBegin::METHOD => {
                if let Some(began) = decode(params) {
                    self.on_download_will_begin(tab, began);
                }
            }
            _ => {}
        }
    }

    /// One event of a child target (`child`: its flat session) of `tab`.
    pub fn on_child_event(&self, tab: TabId, child: &str, method: &str, params: &Value) {
        match method {
            RequestPaused::METHOD => {
                if let Some(paused) = decode(params) {
                    self.on_request_paused(tab, Some(child.to_owned()), paused);
                }
            }
            AttachedToTarget::METHOD => {
                if let Some(attached) = decode(params) {
                    self.on_attached(tab, Some(child), attached);
                }
            }
            DetachedFromTarget::METHOD => {
                if let Some(detached) = decode::<DetachedFromTarget>(params) {
                    self.on_frame_detached(tab, &detached.session_id.0);
                }
            }
            FrameNavigated::METHOD => {
                if let Some(navigated) = decode::<FrameNavigated>(params) {
                    self.on_child_frame_navigated(tab, child, &navigated.frame);
                }
            }
            DownloadWillBegin::METHOD => {
                if let Some(began) = decode(params) {
                    self.on_download_will_begin(tab, began);
                }
            }
            _ => {}
        }
    }

    /// A main-frame navigation committed: a new document (uids dropped), a new
    /// URL, and the blocklist checked again.
    fn on_main_frame_navigated(&self, tab: TabId, navigated: FrameNavigated) {
        let url = navigated.frame.url;
        let loader = navigated.frame.loader_id;
        self.with(tab, |s| {
            s.adopt_main_document(&loader);
            s.url = url.clone();
            s.main_frame = Some(navigated.frame.id.0);
        });
        self.persist();
        if let Err(blocked) = self.check_blocklist(&url, Some(tab)) {
            self.end_blocked(tab, &blocked, true);
        }
    }
}
