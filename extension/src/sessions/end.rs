//! Ending sessions: with a reason (§10), answering their in-flight requests, on
//! a closed tab, on a debugger detach, on a renderer crash.

use browser_bridge_protocol::event::SessionEnded;
use browser_bridge_protocol::{BridgeError, ErrorCode, Event, SessionEndReason, TabId};
use wasm_bindgen_futures::spawn_local;

use super::Sessions;
use super::attach::no_tab;
use crate::chrome;

/// `internal_error` for requests on a tab whose renderer crashed.
pub fn crashed_error(tab: TabId) -> BridgeError {
    BridgeError::internal(format!(
        "the renderer of tab {tab} crashed: reload or navigate it"
    ))
}

impl Sessions {
    /// Ends `tab`'s session with `reason`: answers its in-flight requests,
    /// detaches the debugger when `detach`, sends `session_ended`. Returns false
    /// (and does nothing) without a session.
    pub fn end(&self, tab: TabId, reason: SessionEndReason, detach: bool) -> bool {
        self.end_answering(tab, reason, None, detach)
    }

    /// Ends `tab`'s session with `domain_blocked`, answering its in-flight
    /// requests with `blocked` (the policy's own words: the blocked domain, or
    /// why the blocklist setting itself refuses everything), as [`Self::end`].
    pub fn end_blocked(&self, tab: TabId, blocked: &BridgeError, detach: bool) -> bool {
        let error = BridgeError::new(
            ErrorCode::DomainBlocked,
            format!("tab {tab}: {} (session ended)", blocked.message),
        );
        self.end_answering(tab, SessionEndReason::DomainBlocked, Some(error), detach)
    }

    fn end_answering(
        &self,
        tab: TabId,
        reason: SessionEndReason,
        error: Option<BridgeError>,
        detach: bool,
    ) -> bool {
        let Some(session) = self.remove(tab) else {
            return false;
        };
        let error = error.unwrap_or_else(|| match reason {
            SessionEndReason::TabClosed => {
                BridgeError::new(ErrorCode::SessionNotFound, format!("tab {tab} was closed"))
            }
            SessionEndReason::DomainBlocked => BridgeError::new(
                ErrorCode::DomainBlocked,
                format!("tab {tab} reached a domain on the user's blocklist: session ended"),
            ),
            other => BridgeError::new(
                ErrorCode::Cancelled,
                format!(
                    "the session on tab {tab} ended ({}): do not retry, tell the user",
                    other.as_str()
                ),
            ),
        });
        self.fail_inflight(tab, &error);
        if detach {
            spawn_local(async move {
                let _ = chrome::detach(tab.0).await;
            });
        }
        self.outbox.event(Event::SessionEnded(SessionEnded {
            tab_id: tab,
            reason,
            action_count: session.action_count,
            ended_at: chrome::now_ms(),
        }));
        true
    }

    /// Ends every session with `reason`; returns how many ended.
    pub fn end_all(&self, reason: SessionEndReason) -> u64 {
        self.tabs()
            .into_iter()
            .filter(|(tab, _)| self.end(*tab, reason, true))
            .count() as u64
    }

    /// `chrome.tabs.onRemoved`.
    pub fn on_tab_removed(&self, tab: TabId) {
        self.end(tab, self.closed_reason(tab), false);
        self.fail_inflight(tab, &no_tab(tab));
        self.reg.borrow_mut().locks.remove(&tab);
    }

    /// `chrome.debugger.onDetach`: `target_closed` is a closed tab, anything else
    /// (the user cancelled the debugging bar, DevTools took over) is `detached`.
    pub fn on_detach(&self, tab: TabId, reason: &str) {
        let why = if reason == "target_closed" {
            self.closed_reason(tab)
        } else {
            SessionEndReason::Detached
        };
        self.end(tab, why, false);
    }

    /// Why a closed tab's session ended: `stopped` when `close_tab` closed it.
    fn closed_reason(&self, tab: TabId) -> SessionEndReason {
        if self.with(tab, |s| s.closing) == Some(true) {
            SessionEndReason::Stopped
        } else {
            SessionEndReason::TabClosed
        }
    }

    /// `Inspector.targetCrashed`: CDP hangs until the tab loads again, so the
    /// tab's in-flight requests are answered at once.
    pub(super) fn on_crash(&self, tab: TabId) {
        self.with(tab, |s| s.crashed = true);
        self.fail_inflight(tab, &crashed_error(tab));
    }
}
