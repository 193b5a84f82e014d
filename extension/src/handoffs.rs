//! The pending hand-offs (PROTOCOL.md §5 "Hand-off") and what shows them to the
//! person: the notification with Done and Give up, the action badge, the
//! popup's list. The action itself is `actions::handoff`; the decisions are
//! [`crate::core::handoff`].
//!
//! Answers come from the popup (`{cmd: "handoffDone" | "handoffGiveUp", tabId}`)
//! and from the notification's buttons (`chrome.notifications.onButtonClicked`,
//! forwarded by the JS loader); each pending hand-off is answered once.

use std::cell::RefCell;
use std::rc::Rc;

use browser_bridge_protocol::TabId;
use futures::channel::oneshot;
use wasm_bindgen_futures::spawn_local;

use crate::chrome;
use crate::core::handoff::{
    Answer, BADGE_COLOR, NOTIFICATION_PREFIX, Pending, PendingView, badge_text, notification_id,
    notification_options, tab_of_notification,
};

/// The notification's icon, in `static/`.
const ICON: &str = "icon-128.png";

/// The worker's pending hand-offs (part of [`crate::app::App`]).
#[derive(Clone, Default)]
pub struct Handoffs {
    pending: Rc<RefCell<Pending<oneshot::Sender<Answer>>>>,
}

/// Ends a hand-off when dropped, however its request ends (the session's end,
/// the request's deadline): the notification goes and the badge follows what
/// is still pending. An outcome ends it with [`Shown::close`] instead.
pub struct Shown {
    handoffs: Handoffs,
    tab: TabId,
    open: bool,
}

impl Shown {
    /// Ends the hand-off and waits until its notification is gone and the
    /// badge updated, so that the agent hears the outcome only once the
    /// person's view no longer asks.
    pub async fn close(mut self) {
        self.open = false;
        let (id, left) = self.end();
        let _ = chrome::notifications_clear(&id).await;
        set_badge(left).await;
    }

    /// Takes the hand-off out of the pending ones: its notification id and how
    /// many are left.
    fn end(&self) -> (String, usize) {
        self.handoffs.pending.borrow_mut().end(self.tab);
        let left = self.handoffs.pending.borrow().len();
        (notification_id(self.tab), left)
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let (id, left) = self.end();
        spawn_local(async move {
            let _ = chrome::notifications_clear(&id).await;
            set_badge(left).await;
        });
    }
}

impl Handoffs {
    /// Registers the hand-off of `view.tab_id`; the receiver yields the
    /// person's answer. `None` when that tab already has one pending.
    pub fn begin(&self, view: PendingView) -> Option<(Shown, oneshot::Receiver<Answer>)> {
        let (tx, rx) = oneshot::channel();
        let tab = view.tab_id;
        self.pending.borrow_mut().begin(view, tx).ok()?;
        let shown = Shown {
            handoffs: self.clone(),
            tab,
            open: true,
        };
        Some((shown, rx))
    }

    /// Shows the pending hand-off of `tab` to the person: the notification (the
    /// reason as its text, `host` as its context line) and the badge. A
    /// notification Chrome refuses is logged: the popup and badge still show it.
    pub async fn announce(&self, tab: TabId, reason: &str, host: &str) {
        let options = notification_options(reason, host, &chrome::runtime_url(ICON));
        if let Err(e) = chrome::notifications_create(&notification_id(tab), &options).await {
            chrome::log(&format!("hand-off notification of tab {tab}: {e}"));
        }
        // Read before awaiting: no borrow may live across an await.
        let pending = self.pending.borrow().len();
        set_badge(pending).await;
    }

    /// Answers `tab`'s pending hand-off; false when it has none (already
    /// answered, or never begun).
    pub fn answer(&self, tab: TabId, answer: Answer) -> bool {
        let slot = self.pending.borrow_mut().take_slot(tab);
        slot.is_some_and(|tx| tx.send(answer).is_ok())
    }

    /// The pending hand-offs, for the popup.
    pub fn views(&self) -> Vec<PendingView> {
        self.pending.borrow().views()
    }

    /// At a worker's start: the hand-offs of a previous worker were answered
    /// `not_connected` by the backend when its socket dropped, so their
    /// notifications go and the badge shows only this worker's.
    pub async fn clear_leftovers(&self) {
        if let Ok(ids) = chrome::notifications_ids().await {
            for id in ids {
                let ours =
                    tab_of_notification(&id).is_some_and(|tab| self.pending.borrow().has(tab));
                if id.starts_with(NOTIFICATION_PREFIX) && !ours {
                    let _ = chrome::notifications_clear(&id).await;
                }
            }
        }
        let pending = self.pending.borrow().len();
        set_badge(pending).await;
    }
}

/// The badge for `pending` hand-offs; failures are logged.
async fn set_badge(pending: usize) {
    if let Err(e) = chrome::action_set_badge(badge_text(pending), BADGE_COLOR).await {
        chrome::log(&format!("action badge: {e}"));
    }
}
