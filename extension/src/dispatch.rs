//! Requests in, exactly one response out (PROTOCOL.md §3, §5).
//!
//! The envelope was validated on arrival by `Message::decode`. Here: Stop all,
//! `tabId` resolution (§5, [`crate::core::tabs`]), the per-tab lock (requests on
//! different tabs run concurrently, on one tab one at a time), the session
//! attach, the open-dialog rule, and the race of the action against its deadline
//! (`request.timeoutMs`) and against the end of its session. A `batch` takes the
//! lock and attaches once, then runs its actions one by one as if each were a
//! request of its own. Whatever happens, one `response` goes to the outbox.

use browser_bridge_protocol::action::Batch;
use browser_bridge_protocol::result::{
    BatchEntry, BatchResult, DialogInfo, DialogType, PageResult,
};
use browser_bridge_protocol::{
    Action, ActionResult, BridgeError, ErrorCode, PointerTarget, Request, Response, TabId,
};
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen_futures::spawn_local;

use crate::actions;
use crate::app::App;
use crate::core::messages::{quote, with_article};
use crate::core::tabs::{Resolved, resolve_tab};
use crate::sessions::end::crashed_error;
use crate::timing;

/// Runs one request in its own task and sends its one response.
pub fn spawn_request(app: &App, request: Request) {
    let app = app.clone();
    timing::mark("decoded");
    spawn_local(async move {
        timing::mark("task");
        let Request {
            id,
            action,
            timeout_ms,
            client,
        } = request;
        let name = action.name();
        let deadline = TimeoutFuture::new(timeout_ms.min(u32::MAX as u64) as u32);
        let outcome = match select(Box::pin(run(&app, action, client.as_deref())), deadline).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(_) => Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("{name}: no result within {timeout_ms} ms"),
            )),
        };
        timing::mark("done");
        // Action counts and uids changed: keep them for a restarted worker. uids
        // past their stored reservation are stored before the answer names them.
        if app.sessions.reserve_uids() {
            app.sessions.persist_now().await;
        } else {
            app.sessions.persist_after_action();
        }
        app.outbox.response(match outcome {
            Ok(result) => Response::ok(id, result),
            Err(error) => Response::err(id, error),
        });
        timing::finish("sent");
    });
}

/// Runs one action to its result, for the backend's `client` (§3: its new tabs
/// open in its own agent window, and the popup lists the tabs it acted on under
/// its name).
///
/// # Errors
/// Any [`BridgeError`] of §4 that the extension produces.
pub async fn run(
    app: &App,
    action: Action,
    client: Option<&str>,
) -> Result<ActionResult, BridgeError> {
    // A restarted worker first takes back its sessions (lifecycle.rs).
    app.gate.passed().await;
    let sessions = &app.sessions;
    if sessions.global_stopped() {
        return Err(stop_all_error());
    }
    match action {
        Action::ListTabs(_) => return actions::tabs::list_tabs(app).await,
        Action::OpenTab(p) => {
            let opened = actions::tabs::open_tab(app, p, client).await;
            if let Ok(ActionResult::OpenTab(tab)) = &opened {
                sessions.mark_client(tab.tab_id, client);
            }
            return opened;
        }
        Action::CloseTab(p) => return actions::tabs::close_tab(app, p).await,
        _ => {}
    }
    let tab = tab_for(app, &action, client).await?;
    timing::mark("resolved");
    let lock = sessions.lock(tab);
    // handle_dialog must not queue behind an action a dialog is blocking; the
    // downloads' reads do not touch the page and may wait for minutes; a
    // hand-off waits on the person for minutes and holds nothing of the tab.
    let _guard = match action {
        Action::HandleDialog(_)
        | Action::WaitForDownload(_)
        | Action::ListDownloads(_)
        | Action::Handoff(_) => None,
        _ => Some(lock.lock().await),
    };
    timing::mark("locked");
    sessions.ensure(tab).await?;
    sessions.mark_client(tab, client);
    timing::mark("attached");
    match action {
        Action::Batch(p) => batch(app, tab, p).await,
        action => run_on_tab(app, tab, action).await,
    }
}

/// Runs one action on `tab`, whose lock the caller holds and whose session is
/// attached: the open-dialog and crash rules, the action count, and the race
/// against the end of the session.
async fn run_on_tab(app: &App, tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    // The frames of the tab the last press or key input was in are drawn again.
    actions::tabs::woken(tab).await;
    let sessions = &app.sessions;
    let dismissed = match action {
        Action::Navigate(_) => dismiss_alert(app, tab).await,
        _ => None,
    };
    // The buffers of §10.1 and the downloads of §10.2 are read without the
    // page: under a dialog, after a crash.
    let reads_buffers = matches!(
        action,
        Action::ConsoleMessages(_)
            | Action::NetworkRequests(_)
            | Action::WaitForDownload(_)
            | Action::ListDownloads(_)
    );
    // The person answers a dialog during a hand-off.
    if !matches!(action, Action::HandleDialog(_) | Action::Handoff(_))
        && !reads_buffers
        && let Some(Some(dialog)) = sessions.with(tab, |s| s.dialog.clone())
    {
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has {} dialog open ({}): answer it with handle_dialog first",
            with_article(dialog.dialog_type.as_str()),
            quote(&dialog.message)
        )));
    }
    if sessions.with(tab, |s| s.crashed) == Some(true)
        && !reads_buffers
        && !matches!(action, Action::Navigate(_) | Action::Reload(_))
    {
        return Err(crashed_error(tab));
    }
    sessions.with(tab, |s| s.action_count += 1);
    // The actions that may press the mouse (`fill_form` and `select_option`
    // click custom controls).
    // An element click runs the rule beside its own work (it waits for it
    // before pressing); the others before they start.
    let beside =
        matches!(&action, Action::Click(p) if matches!(p.target(), Ok(PointerTarget::Element(_))));
    let keys = matches!(
        action,
        Action::Type(_) | Action::PressKey(_) | Action::FillForm(_)
    );
    let behind = match action {
        Action::Click(_) | Action::Drag(_) | Action::SelectOption(_) | Action::FillForm(_)
            if !beside =>
        {
            actions::tabs::keep_behind(app, tab).await
        }
        _ => None,
    };
    let cancelled = sessions.register_inflight(tab);
    timing::mark("checked");
    let work = async {
        match select(Box::pin(actions::run(app, tab, action)), cancelled).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right((Ok(error), _)) => Err(error),
            Either::Right((Err(_), _)) => {
                Err(BridgeError::internal("in-flight registration dropped"))
            }
        }
    };
    let (behind, outcome) = if beside {
        actions::tabs::keep_behind_beside(app, tab, work).await
    } else {
        (behind, work.await)
    };
    // `keep_behind` found the tab behind a minimized agent window: put_back
    // wakes it.
    let waking = behind.is_some();
    actions::tabs::put_back(behind).await;
    if keys && !waking {
        actions::tabs::after_keys(app, tab);
    }
    match outcome {
        Ok(ActionResult::Navigate(page)) if dismissed.is_some() => {
            Ok(ActionResult::Navigate(PageResult {
                dismissed_dialog: dismissed,
                ..page
            }))
        }
        other => other,
    }
}

/// `batch` (PROTOCOL.md §5): its actions in order on `tab`, under the one lock the
/// request took (the parts do not take it again), each within its own deadline;
/// one entry per action run. A failure stops the rest when `stopOnError`; the
/// end of the session, Stop all and a blocked domain stop them always.
async fn batch(app: &App, tab: TabId, p: Batch) -> Result<ActionResult, BridgeError> {
    let stop_on_error = p.stop_on_error();
    let mut results = Vec::with_capacity(p.actions.len());
    for (index, action) in p.actions.into_iter().enumerate() {
        let outcome = if app.sessions.global_stopped() {
            Err(stop_all_error())
        } else {
            let name = action.name();
            let deadline_ms = action.deadline_ms();
            let deadline = TimeoutFuture::new(deadline_ms.min(u32::MAX as u64) as u32);
            match select(Box::pin(run_on_tab(app, tab, action)), deadline).await {
                Either::Left((outcome, _)) => outcome,
                Either::Right(_) => Err(BridgeError::new(
                    ErrorCode::Timeout,
                    format!("{name}: no result within {deadline_ms} ms"),
                )),
            }
        };
        let stop = match &outcome {
            Ok(_) => false,
            Err(e) => stop_on_error || ends_batch(&e.code),
        };
        let (result, error) = match outcome {
            Ok(result) => (Some(result), None),
            Err(error) => (None, Some(error)),
        };
        results.push(BatchEntry {
            index: index as u32,
            result,
            error,
        });
        if stop {
            break;
        }
    }
    Ok(ActionResult::Batch(BatchResult {
        tab_id: tab,
        results,
    }))
}

/// Errors after which no later action of a batch can run: the session ended or
/// the user stopped it.
fn ends_batch(code: &ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Cancelled | ErrorCode::SessionNotFound | ErrorCode::DomainBlocked
    )
}

fn stop_all_error() -> BridgeError {
    BridgeError::new(
        ErrorCode::Cancelled,
        "the user pressed Stop all: do not retry; the user must press Resume in the extension popup",
    )
}

/// Before a `navigate`: accepts the tab's open `alert`, if that is its dialog (an
/// alert asks nothing, so leaving the page answers it; §5 "Loads and dialogs").
/// A confirm, prompt or beforeunload stays open and refuses the navigation.
async fn dismiss_alert(app: &App, tab: TabId) -> Option<DialogInfo> {
    let dialog = app.sessions.with(tab, |s| s.dialog.clone()).flatten()?;
    if dialog.dialog_type != DialogType::Alert {
        return None;
    }
    app.sessions.accept_dialog(tab).await;
    Some(dialog)
}

/// The tab the action runs on ([`resolve_tab`]); `navigate` (or a batch that
/// starts with one) with no session checks its URL, then opens a tab in
/// `client`'s agent window.
async fn tab_for(app: &App, action: &Action, client: Option<&str>) -> Result<TabId, BridgeError> {
    // A batch that starts with a navigate opens its tab as that navigate would.
    let first = action.parts().first().unwrap_or(action);
    let opens_tab = matches!(first, Action::Navigate(_));
    match resolve_tab(
        action.tab_id(),
        &app.sessions.tabs(),
        action.name(),
        opens_tab,
    )? {
        Resolved::Tab(tab) => Ok(tab),
        Resolved::NewAgentTab => {
            if let Action::Navigate(p) = first {
                app.sessions.check_target_url(&p.url, None)?;
            }
            actions::tabs::new_agent_tab(app, client).await
        }
    }
}
