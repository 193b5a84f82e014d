//! The document half of the blocklist (§10): session tabs pause every document
//! request (main frame and iframes, redirect hops included) before it leaves
//! (`Fetch.enable`), and each paused request is answered exactly once —
//! continued when its host is allowed, failed (`BlockedByClient`) when blocked.
//! Out-of-process iframes navigate through their own targets, which the tab's
//! `Fetch` does not see: each such child target gets the same `Fetch` and
//! auto-attach before it runs (and `Page`, for [`super::frames`]).

use browser_bridge_cdp::Command;
use browser_bridge_cdp::fetch::{self, ContinueRequest, FailRequest, RequestPaused};
use browser_bridge_cdp::page;
use browser_bridge_cdp::runtime::RunIfWaitingForDebugger;
use browser_bridge_cdp::target::{AttachedToTarget, SetAutoAttach};
use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use crate::{cdp, chrome};

/// Sends one command to the tab (`child` `None`) or to one of its child
/// targets; a failure is logged.
async fn send_logged<C: Command>(tab: TabId, child: Option<&str>, command: &C) {
    if let Err(e) = cdp::send_to(tab, child, command, cdp::COMMAND_TIMEOUT_MS).await {
        chrome::log(&format!("tab {tab}: {e}"));
    }
}

impl Sessions {
    /// `Fetch.requestPaused` of the tab or of one of its child targets (`child`).
    /// Runs for tabs without a session too (a debugger adopted after a worker
    /// restart may still have `Fetch` enabled). Until the stored blocklist is
    /// read, the decision waits for it.
    pub(super) fn on_request_paused(
        &self,
        tab: TabId,
        child: Option<String>,
        paused: RequestPaused,
    ) {
        if self.blocklist_is_loaded() {
            return self.decide_paused_request(tab, child, paused);
        }
        let sessions = self.clone();
        spawn_local(async move {
            sessions.blocklist_loaded().await;
            sessions.decide_paused_request(tab, child, paused);
        });
    }

    /// Continues or fails one paused request. A blocked main-frame request ends
    /// the session (`domain_blocked`), and is failed before the debugger detaches
    /// (detaching first would let Chrome continue it); a blocked iframe request
    /// makes the tab's in-flight requests answer `domain_blocked` and leaves the
    /// session running.
    fn decide_paused_request(&self, tab: TabId, child: Option<String>, paused: RequestPaused) {
        let RequestPaused {
            request_id,
            request,
            frame_id,
        } = paused;
        let url = request.url;
        let Some(domain) = self.blocking_domain(&url) else {
            spawn_local(async move {
                send_logged(tab, child.as_deref(), &ContinueRequest { request_id }).await;
            });
            return;
        };
        // A child target's requests are iframe requests. Unknown main frame: take
        // the request as the main frame's (ends the session).
        let main_frame = child.is_none()
            && self
                .with(tab, |s| {
                    s.main_frame.as_deref().is_none_or(|m| m == frame_id.0)
                })
                .unwrap_or(true);
        let error = self.domain_blocked(Some(tab), &url, &domain);
        if main_frame {
            self.end_blocked(tab, &error, false);
        } else {
            self.fail_inflight(
                tab,
                &BridgeError::new(
                    ErrorCode::DomainBlocked,
                    format!(
                        "a frame of tab {tab} tried to load {url}: {}",
                        error.message
                    ),
                ),
            );
        }
        let sessions = self.clone();
        spawn_local(async move {
            let fail = FailRequest {
                request_id,
                error_reason: "BlockedByClient",
            };
            send_logged(tab, child.as_deref(), &fail).await;
            // Only now: detaching first would let Chrome continue the paused request.
            if main_frame && !sessions.has(tab) {
                let _ = chrome::detach(tab.0).await;
            }
        });
    }

    /// `Target.attachedToTarget` (from the tab, or from the child session
    /// `parent`): an iframe target is recorded ([`super::frames`]) and gets the
    /// same `Fetch` interception and auto-attach as the tab; every new target,
    /// whatever its type, is then let run, so that none stays paused.
    pub(super) fn on_attached(&self, tab: TabId, parent: Option<&str>, attached: AttachedToTarget) {
        let iframe = attached.target_info.kind == "iframe";
        if iframe {
            self.on_frame_attached(tab, parent, &attached);
        }
        let child = attached.session_id.0;
        if iframe {
            Sessions::enable_devtools(tab, Some(child.clone()));
        }
        let waiting = attached.waiting_for_debugger;
        spawn_local(async move {
            if iframe {
                send_logged(tab, Some(&child), &fetch::Enable::documents()).await;
                send_logged(tab, Some(&child), &SetAutoAttach::paused_children()).await;
                // Its `Page.frameNavigated` tells a new document (new uids).
                send_logged(tab, Some(&child), &page::Enable {}).await;
            }
            if waiting {
                send_logged(tab, Some(&child), &RunIfWaitingForDebugger {}).await;
            }
        });
    }
}
