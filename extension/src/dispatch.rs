//! Requests in, exactly one response out (PROTOCOL.md §3, §5).
//!
//! The envelope was validated on arrival by `Message::decode` (connection.rs). Here:
//! Stop all, `tabId` resolution (§5), the per-tab lock (requests on different tabs
//! run concurrently, on one tab one at a time), the session attach, the open-dialog
//! rule, and the race of the action against its deadline (`request.timeoutMs`) and
//! against the end of its session. Whatever happens, one `response` goes out.

use browser_bridge_protocol::{
    Action, ActionResult, BridgeError, ErrorCode, Request, Response, TabId,
};
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen_futures::spawn_local;

use crate::{actions, connection, sessions};

/// Runs one request in its own task and sends its one response.
pub fn spawn_request(request: Request) {
    spawn_local(async move {
        let Request {
            id,
            action,
            timeout_ms,
        } = request;
        let name = action.name();
        let deadline = TimeoutFuture::new(timeout_ms.min(u32::MAX as u64) as u32);
        let outcome = match select(Box::pin(run(action)), deadline).await {
            Either::Left((outcome, _)) => outcome,
            Either::Right(_) => Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("{name}: no result within {timeout_ms} ms"),
            )),
        };
        // Action counts and uids changed: keep them for a restarted worker.
        crate::lifecycle::persist();
        connection::send_response(match outcome {
            Ok(result) => Response::ok(id, result),
            Err(error) => Response::err(id, error),
        });
    });
}

/// Runs one action to its result.
///
/// # Errors
/// Any [`BridgeError`] of §4 that the extension produces.
pub async fn run(action: Action) -> Result<ActionResult, BridgeError> {
    // A restarted worker first takes back its sessions (lifecycle.rs).
    crate::lifecycle::restored().await;
    if sessions::global_stopped() {
        return Err(BridgeError::new(
            ErrorCode::Cancelled,
            "the user pressed Stop all: do not retry; the user must press Resume in the extension popup",
        ));
    }
    match action {
        Action::ListTabs(_) => return actions::tabs::list_tabs().await,
        Action::OpenTab(p) => return actions::tabs::open_tab(p).await,
        Action::CloseTab(p) => return actions::tabs::close_tab(p.tab_id).await,
        _ => {}
    }
    let tab = resolve_tab(&action).await?;
    let lock = sessions::tab_lock(tab);
    // handle_dialog must not queue behind an action a dialog is blocking.
    let _guard = match action {
        Action::HandleDialog(_) => None,
        _ => Some(lock.lock().await),
    };
    sessions::ensure_session(tab).await?;
    if !matches!(action, Action::HandleDialog(_))
        && let Some(Some(dialog)) = sessions::with_session(tab, |s| s.dialog.clone())
    {
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has {} dialog open ({}): answer it with handle_dialog first",
            actions::dom::with_article(dialog.dialog_type.as_str()),
            actions::dom::quote(&dialog.message)
        )));
    }
    if sessions::with_session(tab, |s| s.crashed) == Some(true) {
        match &action {
            Action::Navigate(_) | Action::Reload(_) => {}
            _ => return Err(sessions::crashed_error(tab)),
        }
    }
    sessions::with_session(tab, |s| s.action_count += 1);
    let cancelled = sessions::register_inflight(tab);
    match select(Box::pin(actions::run(tab, action)), cancelled).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right((Ok(error), _)) => Err(error),
        Either::Right((Err(_), _)) => Err(BridgeError::internal("in-flight registration dropped")),
    }
}

/// §5: explicit `tabId`; else the single agent-window session; else the single
/// session; `navigate` with no session at all opens a tab in the agent window;
/// otherwise `session_not_found` listing the candidates.
async fn resolve_tab(action: &Action) -> Result<TabId, BridgeError> {
    if let Some(tab) = action.tab_id() {
        return Ok(tab);
    }
    let sessions = sessions::session_tabs();
    let agent: Vec<TabId> = sessions
        .iter()
        .filter(|(_, a)| *a)
        .map(|(t, _)| *t)
        .collect();
    if agent.len() == 1 {
        return Ok(agent[0]);
    }
    if sessions.len() == 1 {
        return Ok(sessions[0].0);
    }
    if sessions.is_empty() {
        if let Action::Navigate(p) = action {
            sessions::check_target_url(&p.url, None)?;
            return actions::tabs::new_agent_tab().await;
        }
        return Err(BridgeError::new(
            ErrorCode::SessionNotFound,
            format!(
                "{}: no session yet: navigate or open_tab first, or pass a tabId from list_tabs",
                action.name()
            ),
        ));
    }
    let list: Vec<String> = sessions.iter().map(|(t, _)| t.to_string()).collect();
    Err(BridgeError::new(
        ErrorCode::SessionNotFound,
        format!(
            "{}: several sessions, pass a tabId: candidates {}",
            action.name(),
            list.join(", ")
        ),
    ))
}
