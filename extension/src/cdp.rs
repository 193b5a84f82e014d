//! CDP over `chrome.debugger.sendCommand`: typed commands
//! ([`browser_bridge_cdp::Command`]) each with its own timeout, and one-shot
//! waiters for typed events ([`browser_bridge_cdp::Event`]).
//!
//! - [`send`]`(tab, &command) -> Result<C::Response, CdpError>` (10 s timeout),
//!   [`send_with_timeout`], and [`send_to`] for a child target of the tab (an
//!   out-of-process iframe attached with `flatten`);
//! - [`Events::wait`]`::<E>(tab)` / [`Events::wait_where`] → the next event's
//!   params, decoded.
//!
//! Results are decoded straight from the browser's `JSON.stringify` of the answer
//! into the command's response type (no `serde_json::Value` in between: the
//! accessibility tree of a long page is megabytes). A renderer crash leaves every
//! pending sendCommand hanging (no reject, no onDetach): the timeout here bounds
//! each call, and `sessions` answers the tab's in-flight requests at once on
//! `Inspector.targetCrashed`.

use std::cell::RefCell;
use std::rc::Rc;

use browser_bridge_cdp::{Command, Event};
use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};
use futures::channel::oneshot;
use futures::future::{Either, LocalBoxFuture, select};
use gloo_timers::future::TimeoutFuture;
use serde::Deserialize;
use serde_json::Value;

use crate::chrome;

/// Default per-command timeout (ms).
pub const COMMAND_TIMEOUT_MS: u32 = 10_000;

/// A failed CDP command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{method}: {kind}")]
pub struct CdpError {
    /// The CDP method (`DOM.getBoxModel`).
    pub method: &'static str,
    /// What went wrong.
    pub kind: CdpErrorKind,
}

/// Why a CDP command failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CdpErrorKind {
    /// CDP answered an error (`Could not compute box model.`), or
    /// `chrome.debugger` refused the command (a detached tab).
    #[error("{0}")]
    Protocol(String),
    /// No answer within the timeout (ms).
    #[error("no answer within {0} ms")]
    Timeout(u32),
    /// The answer does not fit the response type.
    #[error("unexpected result: {0}")]
    Shape(String),
    /// The debugger left the tab itself (not a child frame's session) before the
    /// answer: the tab closed or left the web ([`crate::core::messages::is_detached`]).
    #[error("{0}")]
    Detached(String),
}

impl CdpError {
    /// The command did not answer in time.
    pub fn is_timeout(&self) -> bool {
        matches!(self.kind, CdpErrorKind::Timeout(_))
    }

    /// What went wrong, without the method (CDP's own message for
    /// [`CdpErrorKind::Protocol`]).
    pub fn detail(&self) -> String {
        self.kind.to_string()
    }
}

impl From<CdpError> for BridgeError {
    /// Timeouts become `timeout`; a tab the debugger left, `session_not_found`
    /// (the session is over, not the extension broken); anything else
    /// `internal_error` naming the method.
    fn from(e: CdpError) -> Self {
        if e.is_timeout() {
            BridgeError::new(ErrorCode::Timeout, e.to_string())
        } else if let CdpErrorKind::Detached(detail) = &e.kind {
            BridgeError::new(
                ErrorCode::SessionNotFound,
                format!(
                    "the tab's session ended during {} ({detail}): the tab closed or left the web; call list_tabs, or open_tab",
                    e.method
                ),
            )
        } else {
            BridgeError::internal(format!("CDP {e}"))
        }
    }
}

/// Where a command goes: the tab's own session, or one of its child sessions
/// (`child`: the flat `sessionId` of an out-of-process iframe's target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The tab.
    pub tab: TabId,
    /// The child session, `None` for the tab's own.
    pub child: Option<Rc<str>>,
}

impl From<TabId> for Target {
    fn from(tab: TabId) -> Target {
        Target { tab, child: None }
    }
}

impl From<&Target> for Target {
    fn from(target: &Target) -> Target {
        target.clone()
    }
}

/// Sends one command to a tab or one of its child sessions ([`Target`]) with
/// the default [`COMMAND_TIMEOUT_MS`].
///
/// # Errors
/// [`CdpError`]: CDP's error, a detached target, the timeout, or a result that
/// does not decode.
pub async fn send<C: Command>(
    target: impl Into<Target>,
    command: &C,
) -> Result<C::Response, CdpError> {
    send_with_timeout(target, command, COMMAND_TIMEOUT_MS).await
}

/// [`send`] with an explicit timeout (ms).
///
/// # Errors
/// As [`send`].
pub async fn send_with_timeout<C: Command>(
    target: impl Into<Target>,
    command: &C,
    timeout_ms: u32,
) -> Result<C::Response, CdpError> {
    let target = target.into();
    send_to(target.tab, target.child.as_deref(), command, timeout_ms).await
}

/// Sends one command to `tab`, or with `child` to one of its child targets (a
/// flat session from `Target.attachedToTarget`), with a timeout (ms).
///
/// # Errors
/// As [`send`].
pub async fn send_to<C: Command>(
    tab: TabId,
    child: Option<&str>,
    command: &C,
    timeout_ms: u32,
) -> Result<C::Response, CdpError> {
    let raw = send_js(tab, child, C::METHOD, chrome::to_js(command), timeout_ms).await?;
    chrome::from_js(&raw).map_err(|e| CdpError {
        method: C::METHOD,
        kind: CdpErrorKind::Shape(e.message),
    })
}

/// The untyped half of [`send_to`], shared by every command type: boxed, so
/// that its state machine is one copy in the wasm rather than one per command.
fn send_js<'a>(
    tab: TabId,
    child: Option<&'a str>,
    method: &'static str,
    params: wasm_bindgen::JsValue,
    timeout_ms: u32,
) -> LocalBoxFuture<'a, Result<wasm_bindgen::JsValue, CdpError>> {
    Box::pin(async move {
        crate::timing::mark(method);
        let command = Box::pin(chrome::send_command(tab.0, child, method, &params));
        let answered = select(command, TimeoutFuture::new(timeout_ms)).await;
        crate::timing::mark("cdp_recv");
        let kind = match answered {
            Either::Left((Ok(value), _)) => return Ok(value),
            Either::Left((Err(e), _)) => {
                let message = cdp_message(&e.message);
                if child.is_none() && crate::core::messages::is_detached(&message) {
                    CdpErrorKind::Detached(message)
                } else {
                    CdpErrorKind::Protocol(message)
                }
            }
            Either::Right(_) => CdpErrorKind::Timeout(timeout_ms),
        };
        Err(CdpError { method, kind })
    })
}

/// chrome.debugger reports CDP errors as a JSON string `{"code":…,"message":…}`.
fn cdp_message(raw: &str) -> String {
    #[derive(Deserialize)]
    struct Body {
        message: String,
    }
    serde_json::from_str::<Body>(raw)
        .map(|b| b.message)
        .unwrap_or_else(|_| raw.to_owned())
}

/// Whether a waiter took an event.
enum Offer {
    Taken,
    Declined,
    Gone,
}

/// Offers an event to a waiter (`None`: only asks whether it still waits).
type OfferFn = Box<dyn FnMut(Option<&Value>) -> Offer>;

struct Waiter {
    tab: TabId,
    method: &'static str,
    offer: OfferFn,
}

/// The one-shot event waiters of every tab (part of [`crate::app::App`]).
#[derive(Clone, Default)]
pub struct Events {
    waiters: Rc<RefCell<Vec<Waiter>>>,
}

impl Events {
    /// Registers a one-shot waiter for the next `E` on `tab`, right now (register
    /// before sending the command that triggers it). The receiver yields the
    /// event, or never (race it with a timeout: [`within`]).
    pub fn wait<E: Event + 'static>(&self, tab: TabId) -> oneshot::Receiver<E> {
        self.wait_where(tab, |_: &E| true)
    }

    /// [`Events::wait`] for the next `E` that satisfies `filter`.
    pub fn wait_where<E: Event + 'static>(
        &self,
        tab: TabId,
        filter: impl Fn(&E) -> bool + 'static,
    ) -> oneshot::Receiver<E> {
        let (tx, rx) = oneshot::channel();
        let mut tx = Some(tx);
        let offer = move |params: Option<&Value>| {
            if tx.as_ref().is_none_or(oneshot::Sender::is_canceled) {
                return Offer::Gone;
            }
            let Some(params) = params else {
                return Offer::Declined;
            };
            match E::deserialize(params) {
                Ok(event) if filter(&event) => match tx.take() {
                    Some(tx) => {
                        let _ = tx.send(event);
                        Offer::Taken
                    }
                    None => Offer::Gone,
                },
                _ => Offer::Declined,
            }
        };
        self.waiters.borrow_mut().push(Waiter {
            tab,
            method: E::METHOD,
            offer: Box::new(offer),
        });
        rx
    }

    /// Whether some waiter wants `method` events (so the caller converts params
    /// only then).
    pub fn wanted(&self, method: &str) -> bool {
        self.waiters.borrow().iter().any(|w| w.method == method)
    }

    /// Hands one debugger event of `tab` to its waiters; drops the waiters whose
    /// receiver is gone.
    pub fn deliver(&self, tab: TabId, method: &str, params: &Value) {
        self.waiters.borrow_mut().retain_mut(|w| {
            let mine = w.tab == tab && w.method == method;
            matches!((w.offer)(mine.then_some(params)), Offer::Declined)
        });
    }
}

/// Waits at most `ms` for a waiter; `None` on timeout or when it was dropped.
pub async fn within<E>(rx: oneshot::Receiver<E>, ms: u32) -> Option<E> {
    match select(rx, TimeoutFuture::new(ms)).await {
        Either::Left((Ok(v), _)) => Some(v),
        _ => None,
    }
}
