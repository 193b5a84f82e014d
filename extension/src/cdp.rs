//! CDP over `chrome.debugger.sendCommand`, every command with its own timeout, plus
//! one-shot event waiters.
//!
//! Typed CDP: small hand-written serde structs for the ~25 methods we use (see the
//! `types` section below) rather than chromiumoxide_cdp, whose full compile is too
//! heavy for small build machines and CI; params are `serde_json::json!` objects.
//!
//! The API:
//! - [`send`]`(tab, method, params) -> Result<Value, CdpError>` (10 s timeout),
//! - [`send_with_timeout`]`(tab, method, params, ms)`,
//! - [`send_raw`]`(tab, method, params, ms) -> Result<JsValue, CdpError>` for big results
//!   (`Accessibility.getFullAXTree`): no serde conversion, stringify it yourself,
//! - [`wait_event`]`(tab, method)` → a future of the next event's params.
//!
//! A renderer crash leaves every pending sendCommand hanging (no reject, no onDetach):
//! the timeout here bounds each call, and `sessions` answers the tab's in-flight
//! requests at once on `Inspector.targetCrashed`.

use std::cell::RefCell;

use browser_bridge_protocol::{BridgeError, ErrorCode, TabId};
use futures::channel::oneshot;
use futures::future::{Either, select};
use gloo_timers::future::TimeoutFuture;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::chrome;

/// Default per-command timeout (ms).
pub const COMMAND_TIMEOUT_MS: u32 = 10_000;

/// A failed CDP command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdpError {
    /// The CDP method (`DOM.getBoxModel`).
    pub method: String,
    /// CDP's error message (`Could not compute box model.`), or the timeout.
    pub message: String,
    /// The command did not answer within its timeout.
    pub timed_out: bool,
}

impl std::fmt::Display for CdpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.method, self.message)
    }
}

impl From<CdpError> for BridgeError {
    /// Timeouts become `timeout`, anything else `internal_error` naming the method.
    fn from(e: CdpError) -> Self {
        if e.timed_out {
            BridgeError::new(ErrorCode::Timeout, e.to_string())
        } else {
            BridgeError::internal(format!("CDP {e}"))
        }
    }
}

/// Sends one CDP command with the default [`COMMAND_TIMEOUT_MS`].
///
/// # Errors
/// [`CdpError`]: CDP's error, a detached target, or the timeout.
pub async fn send(tab: TabId, method: &str, params: Value) -> Result<Value, CdpError> {
    send_with_timeout(tab, method, params, COMMAND_TIMEOUT_MS).await
}

/// [`send`] with an explicit timeout (ms).
///
/// # Errors
/// As [`send`].
pub async fn send_with_timeout(
    tab: TabId,
    method: &str,
    params: Value,
    timeout_ms: u32,
) -> Result<Value, CdpError> {
    let raw = send_raw(tab, method, params, timeout_ms).await?;
    chrome::from_js(&raw).map_err(|e| CdpError {
        method: method.to_owned(),
        message: e.message,
        timed_out: false,
    })
}

/// [`send`] decoded into `T`.
///
/// # Errors
/// As [`send`], plus a shape mismatch.
pub async fn call<T: DeserializeOwned>(
    tab: TabId,
    method: &str,
    params: Value,
) -> Result<T, CdpError> {
    let value = send(tab, method, params).await?;
    serde_json::from_value(value).map_err(|e| CdpError {
        method: method.to_owned(),
        message: format!("unexpected result: {e}"),
        timed_out: false,
    })
}

/// Sends a command and returns the raw JS result (no serde conversion).
///
/// # Errors
/// As [`send`].
pub async fn send_raw(
    tab: TabId,
    method: &str,
    params: Value,
    timeout_ms: u32,
) -> Result<JsValue, CdpError> {
    let params = chrome::to_js(&params);
    let command = Box::pin(chrome::send_command(tab.0, method, &params));
    match select(command, TimeoutFuture::new(timeout_ms)).await {
        Either::Left((Ok(value), _)) => Ok(value),
        Either::Left((Err(e), _)) => Err(CdpError {
            method: method.to_owned(),
            message: cdp_message(&e.message),
            timed_out: false,
        }),
        Either::Right(_) => Err(CdpError {
            method: method.to_owned(),
            message: format!("no answer within {timeout_ms} ms"),
            timed_out: true,
        }),
    }
}

/// chrome.debugger reports CDP errors as a JSON string `{"code":…,"message":…}`.
fn cdp_message(raw: &str) -> String {
    serde_json::from_str::<Value>(raw)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| raw.to_owned())
}

type Filter = Box<dyn Fn(&Value) -> bool>;

struct Waiter {
    tab: TabId,
    method: &'static str,
    filter: Option<Filter>,
    tx: oneshot::Sender<Value>,
}

thread_local! {
    static WAITERS: RefCell<Vec<Waiter>> = const { RefCell::new(Vec::new()) };
}

/// Registers a one-shot waiter for the next `method` event on `tab`, right now
/// (register before sending the command that triggers it). The future yields the
/// event's params, or never resolves (race it with a timeout).
pub fn wait_event(tab: TabId, method: &'static str) -> oneshot::Receiver<Value> {
    let (tx, rx) = oneshot::channel();
    WAITERS.with(|w| {
        w.borrow_mut().push(Waiter {
            tab,
            method,
            filter: None,
            tx,
        })
    });
    rx
}

/// [`wait_event`] for the next `method` event whose params satisfy `filter`.
pub fn wait_event_where(
    tab: TabId,
    method: &'static str,
    filter: impl Fn(&Value) -> bool + 'static,
) -> oneshot::Receiver<Value> {
    let (tx, rx) = oneshot::channel();
    let filter: Filter = Box::new(filter);
    WAITERS.with(|w| {
        w.borrow_mut().push(Waiter {
            tab,
            method,
            filter: Some(filter),
            tx,
        })
    });
    rx
}

/// Whether some waiter wants `method` events (so the caller converts params only then).
pub fn wanted(method: &str) -> bool {
    WAITERS.with(|w| w.borrow().iter().any(|x| x.method == method))
}

/// Hands one debugger event to its waiters (called by the event router).
pub fn deliver(tab: TabId, method: &str, params: &Value) {
    WAITERS.with(|w| {
        let mut waiters = w.borrow_mut();
        let mut i = 0;
        while i < waiters.len() {
            if waiters[i].tx.is_canceled() {
                waiters.swap_remove(i);
            } else if waiters[i].tab == tab
                && waiters[i].method == method
                && waiters[i].filter.as_ref().is_none_or(|f| f(params))
            {
                let waiter = waiters.swap_remove(i);
                let _ = waiter.tx.send(params.clone());
            } else {
                i += 1;
            }
        }
    });
}

/// Waits at most `ms` for a waiter; `None` on timeout or when it was dropped.
pub async fn within(rx: oneshot::Receiver<Value>, ms: u32) -> Option<Value> {
    match select(rx, TimeoutFuture::new(ms)).await {
        Either::Left((Ok(v), _)) => Some(v),
        _ => None,
    }
}

// ---- types: the CDP results we decode -------------------------------------------

/// `DOM.getDocument` → `{root: {nodeId, backendNodeId}}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDocument {
    /// The document node.
    pub root: NodeIds,
}

/// A node's ids.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIds {
    /// Frontend `nodeId` (0 = none).
    #[serde(default)]
    pub node_id: i64,
    /// Stable `backendNodeId`.
    #[serde(default)]
    pub backend_node_id: i64,
}

/// `DOM.querySelector` → `{nodeId}` (0 when nothing matches).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelector {
    /// Matching node, 0 when none.
    pub node_id: i64,
}

/// `DOM.describeNode` → `{node}`.
#[derive(Debug, Deserialize)]
pub struct DescribeNode {
    /// The node.
    pub node: NodeIds,
}

/// `DOM.getBoxModel` → `{model: {content: Quad}}`.
#[derive(Debug, Deserialize)]
pub struct GetBoxModel {
    /// The box model.
    pub model: BoxModel,
}

/// The quads of a box (8 numbers each, CSS px relative to the main viewport).
#[derive(Debug, Deserialize)]
pub struct BoxModel {
    /// Content box quad.
    pub content: Vec<f64>,
}

impl BoxModel {
    /// Centre of the content quad (CSS px).
    pub fn centre(&self) -> (f64, f64) {
        let q = &self.content;
        if q.len() < 8 {
            return (0.0, 0.0);
        }
        (
            (q[0] + q[2] + q[4] + q[6]) / 4.0,
            (q[1] + q[3] + q[5] + q[7]) / 4.0,
        )
    }
}

/// `DOM.resolveNode` → `{object: RemoteObject}`.
#[derive(Debug, Deserialize)]
pub struct ResolveNode {
    /// The JS wrapper.
    pub object: RemoteObject,
}

/// `Runtime.RemoteObject`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// JS type (`object`, `string`, …).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// `null`, `array`, `node`, `map`, …
    #[serde(default)]
    pub subtype: Option<String>,
    /// The value for primitives / `returnByValue`.
    #[serde(default)]
    pub value: Option<Value>,
    /// `NaN`, `Infinity`, `-0`, `123n`.
    #[serde(default)]
    pub unserializable_value: Option<String>,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// Handle for objects.
    #[serde(default)]
    pub object_id: Option<String>,
}

/// `Runtime.evaluate` / `Runtime.callFunctionOn` result.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalResult {
    /// The value.
    #[serde(default)]
    pub result: RemoteObject,
    /// Set when the code threw.
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

/// `Runtime.ExceptionDetails`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Short text (`Uncaught`).
    #[serde(default)]
    pub text: String,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The most useful message: the thrown error's description (`Error: boom\n at …`),
    /// first line only, else its value, else CDP's text.
    pub fn message(&self) -> String {
        let from_exception = self.exception.as_ref().and_then(|e| {
            e.description
                .clone()
                .or_else(|| e.value.as_ref().map(|v| v.to_string()))
        });
        let text = from_exception.unwrap_or_else(|| self.text.clone());
        text.lines().next().unwrap_or_default().to_owned()
    }
}

/// `DOM.getNodeForLocation` → `{backendNodeId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeForLocation {
    /// The hit node.
    pub backend_node_id: i64,
}

/// `Page.navigate` → `{frameId, loaderId?, errorText?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigate {
    /// Absent for same-document navigations.
    #[serde(default)]
    pub loader_id: Option<String>,
    /// `net::ERR_…` when the navigation failed.
    #[serde(default)]
    pub error_text: Option<String>,
}

/// `Page.getNavigationHistory`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationHistory {
    /// Index of the current entry.
    pub current_index: i64,
    /// Entries.
    pub entries: Vec<HistoryEntry>,
}

/// One history entry.
#[derive(Debug, Deserialize)]
pub struct HistoryEntry {
    /// Entry id for `Page.navigateToHistoryEntry`.
    pub id: i64,
    /// Its URL.
    #[serde(default)]
    pub url: String,
}
