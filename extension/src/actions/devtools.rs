//! `console_messages`, `network_requests` and `network_response_body`
//! (PROTOCOL.md §10.1): reads of the session's buffers (`sessions::devtools`),
//! and `Network.getResponseBody` for a request still in them.

use std::rc::Rc;

use browser_bridge_cdp::network::GetResponseBody;
use browser_bridge_protocol::devtools::{
    ConsoleMessages, ConsoleMessagesResult, NetworkRequests, NetworkRequestsResult,
    NetworkResponseBody, NetworkResponseBodyResult,
};
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};

use crate::app::App;
use crate::cdp::{self, Target};
use crate::core::devtools::capped_body;

/// `console_messages`: the newest messages of the level asked, oldest first.
pub fn console_messages(app: &App, tab: TabId, p: &ConsoleMessages) -> ActionResult {
    ActionResult::ConsoleMessages(ConsoleMessagesResult {
        tab_id: tab,
        messages: app.sessions.console_messages(tab, p),
    })
}

/// `network_requests`: the newest matching requests, in the order sent.
pub fn network_requests(app: &App, tab: TabId, p: &NetworkRequests) -> ActionResult {
    ActionResult::NetworkRequests(NetworkRequestsResult {
        tab_id: tab,
        requests: app.sessions.network_requests(tab, p),
    })
}

/// `network_response_body`: `Network.getResponseBody` in the session (the tab's
/// or an out-of-process iframe's) that saw the request, cut to 1 MiB.
///
/// # Errors
/// `invalid_action` when the request is not in the buffer (evicted or never
/// seen), failed, is still loading, or Chrome no longer has its body;
/// `timeout` when Chrome does not answer.
pub async fn network_response_body(
    app: &App,
    tab: TabId,
    p: NetworkResponseBody,
) -> Result<ActionResult, BridgeError> {
    let source = app.sessions.body_source(tab, &p.request_id)?;
    let target = Target {
        tab,
        child: source.session.map(Rc::from),
    };
    let command = GetResponseBody {
        request_id: p.request_id.clone(),
    };
    let body = match cdp::send(target, &command).await {
        Ok(body) => body,
        Err(e) if e.is_timeout() => return Err(e.into()),
        Err(e) => {
            return Err(BridgeError::invalid_action(format!(
                "the body of request {} is gone ({}): Chrome keeps bodies for a limited time \
                 and size, and not for a frame that went away",
                p.request_id,
                e.detail()
            )));
        }
    };
    let base64_encoded = body.base64_encoded;
    let (body, truncated) = capped_body(body.body, base64_encoded);
    Ok(ActionResult::NetworkResponseBody(
        NetworkResponseBodyResult {
            tab_id: tab,
            request_id: p.request_id,
            body,
            base64_encoded,
            truncated: truncated.then_some(true),
        },
    ))
}
