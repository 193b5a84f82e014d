//! `handoff` (PROTOCOL.md §5 "Hand-off"): shows the tab to the person — its
//! window restored and focused, the tab active — with the agent's reason in a
//! notification, the badge and the popup, then waits for the first of: Done
//! or Give up (popup or notification), the obstacle that prompted it clearing
//! (re-extracted on each load or same-document navigation of the tab), or
//! `timeoutMs`. The end of the session answers as for any request (raced by
//! the dispatcher).

use browser_bridge_cdp::page::{LoadEventFired, NavigatedWithinDocument};
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::handoff::{Handoff, HandoffOutcome, HandoffResult};
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use serde_json::json;

use crate::app::App;
use crate::chrome;
use crate::core::handoff::{Answer, PendingView, host_of, stands};

/// Runs one hand-off on `tab` to its outcome.
///
/// # Errors
/// `invalid_action` when `tab` already has a hand-off pending.
pub async fn handoff(app: &App, tab: TabId, p: Handoff) -> Result<ActionResult, BridgeError> {
    let started = chrome::now_ms();
    let view = PendingView {
        tab_id: tab,
        reason: p.reason.clone(),
        started_at: started,
        deadline_at: started + p.timeout_ms,
    };
    let Some((shown, answered)) = app.handoffs.begin(view) else {
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} already has a hand-off pending: wait for its outcome"
        )));
    };
    let url = show(tab).await;
    app.handoffs.announce(tab, &p.reason, host_of(&url)).await;
    // Only an obstacle standing now can clear; a hand-off for a payment waits
    // for the person alone.
    let prompted = app.sessions.with(tab, |s| s.dialog.is_none()) == Some(true)
        && obstacle_stands(app, tab).await == Some(true);
    let elapsed = chrome::now_ms().saturating_sub(started);
    let left = p
        .timeout_ms
        .saturating_sub(elapsed)
        .min(u64::from(u32::MAX)) as u32;
    let person = select(answered, TimeoutFuture::new(left));
    let (outcome, cleared) = if prompted {
        match select(person, Box::pin(cleared(app, tab))).await {
            Either::Left((ended, _)) => (ended_by(ended), false),
            Either::Right(_) => (HandoffOutcome::Done, true),
        }
    } else {
        (ended_by(person.await), false)
    };
    shown.close().await;
    Ok(ActionResult::Handoff(HandoffResult {
        tab_id: tab,
        outcome,
        cleared: cleared.then_some(true),
        elapsed_ms: chrome::now_ms().saturating_sub(started),
    }))
}

/// The outcome of the race between the person's answer and the timer.
fn ended_by<T, U>(
    ended: Either<(Result<Answer, futures::channel::oneshot::Canceled>, T), U>,
) -> HandoffOutcome {
    match ended {
        Either::Left((Ok(answer), _)) => answer.outcome(),
        // The slot went without an answer (the worker is going away): nobody came.
        Either::Left((Err(_), _)) | Either::Right(_) => HandoffOutcome::Timeout,
    }
}

/// Brings `tab` before the person: its window restored (the agent window is
/// minimized) and focused, the tab active. Answers the tab's URL (`""` when it
/// cannot be read). Failures are logged: the notification still names it.
async fn show(tab: TabId) -> String {
    let info = match chrome::tabs_get(tab.0).await {
        Ok(info) => info,
        Err(e) => {
            chrome::log(&format!("hand-off: tab {tab}: {e}"));
            return String::new();
        }
    };
    let window = json!({ "state": "normal", "focused": true });
    if let Err(e) = chrome::windows_update(info.window_id, &window).await {
        chrome::log(&format!("hand-off: window {}: {e}", info.window_id));
    }
    if let Err(e) = chrome::tabs_update(tab.0, &json!({ "active": true })).await {
        chrome::log(&format!("hand-off: tab {tab}: {e}"));
    }
    info.url
}

/// Whether an extract of `tab` now shows an obstacle that stands; `None` when
/// the extract failed.
async fn obstacle_stands(app: &App, tab: TabId) -> Option<bool> {
    match crate::extract::extract(app, tab, Extract::default()).await {
        Ok(ActionResult::Extract(r)) => Some(stands(r.obstacle.as_ref())),
        _ => None,
    }
}

/// Resolves once, after a load or a same-document navigation of `tab`, an
/// extract shows no obstacle that stands.
async fn cleared(app: &App, tab: TabId) {
    loop {
        let load = app.events.wait::<LoadEventFired>(tab);
        let same_document = app.events.wait::<NavigatedWithinDocument>(tab);
        if let Either::Left((Err(_), _)) | Either::Right((Err(_), _)) =
            select(load, same_document).await
        {
            // A waiter dropped (never while the tab lives): look again later.
            TimeoutFuture::new(500).await;
            continue;
        }
        if obstacle_stands(app, tab).await == Some(false) {
            return;
        }
    }
}
