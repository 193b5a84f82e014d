//! Element resolution and in-page helpers shared by the input actions.
//!
//! - selectors: `document.querySelector`, then a walk into open shadow roots,
//!   in one page JS call returning the element's handle;
//! - uids: the tab's [`UidCache`](browser_bridge_page::uids::UidCache) →
//!   `backendNodeId`, checked alive with `DOM.resolveNode` (gone → `element_stale`).
//!
//! A resolved [`Node`] carries its `backendNodeId` (for `DOM.*`) and a JS handle
//! (`objectId`, for `Runtime.callFunctionOn`), both valid in its frame's session
//! ([`Node::target`]: the tab's own, or an out-of-process iframe's, see
//! [`super::frames`]).

use browser_bridge_cdp::dom::{BackendNodeId, DescribeNode, ResolveNode};
use browser_bridge_cdp::runtime::{CallArgument, CallFunctionOn, Evaluate, RemoteObjectId};
use browser_bridge_page::frames::FrameNodeId;
use browser_bridge_page::uids::stale_error;
use browser_bridge_protocol::{BridgeError, ElementTarget, ErrorCode, PointerTarget, TabId};
use futures::future::join;
use serde_json::Value;

use super::frames::{self, FrameHop};
use crate::app::App;
use crate::cdp::{self, Target};
use crate::core::messages::{cap, quote};
use crate::sessions::attach::no_tab;

/// A resolved element.
#[derive(Debug, Clone)]
pub struct Node {
    /// CDP `backendNodeId`.
    pub backend_node_id: BackendNodeId,
    /// `Runtime.RemoteObjectId` of the element.
    pub object_id: RemoteObjectId,
    /// How the caller named it (for messages): the selector or the uid.
    pub label: String,
    /// Where its `DOM.*` and `Runtime.*` commands go: the tab, or the session of
    /// the out-of-process iframe it is in.
    pub target: Target,
    /// The out-of-process `<iframe>`s it is inside, outermost first (empty in
    /// the main frame and its same-origin iframes).
    pub frames: Vec<FrameHop>,
}

/// Finds all open shadow roots' first match for a selector (page JS).
const DEEP_QUERY: &str = r#"(selector) => {
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        const hit = el.shadowRoot.querySelector(selector) || walk(el.shadowRoot);
        if (hit) return hit;
      }
    }
    return null;
  };
  return document.querySelector(selector) || walk(document);
}"#;

/// `invalid_request` for a selector the browser cannot parse.
fn invalid_selector(selector: &str) -> BridgeError {
    BridgeError::invalid_request(format!("selector {} is not valid CSS", quote(selector)))
}

/// The element of a pointer target; a point is `super::pointer`'s, which
/// [`super::run`] sends there.
///
/// # Errors
/// `internal_error` for a point.
pub fn element(target: PointerTarget<'_>) -> Result<ElementTarget<'_>, BridgeError> {
    match target {
        PointerTarget::Element(target) => Ok(target),
        PointerTarget::Point { .. } => {
            Err(BridgeError::internal("a point routed to an element action"))
        }
    }
}

/// Resolves a target to a live element.
///
/// # Errors
/// `element_not_found` (no match, uid never issued), `element_stale` (uid of a
/// replaced document or removed node), `invalid_request` (selector syntax).
pub async fn resolve(
    app: &App,
    tab: TabId,
    target: ElementTarget<'_>,
) -> Result<Node, BridgeError> {
    let uid = match target {
        ElementTarget::Selector(selector) => {
            return resolve_selector(tab, selector)
                .await?
                .ok_or_else(|| not_found(selector));
        }
        ElementTarget::Uid(uid) => uid,
    };
    let id = app
        .sessions
        .with(tab, |s| s.uids.resolve(uid))
        .ok_or_else(|| no_tab(tab))??;
    let FrameNodeId {
        slot,
        backend_node_id,
    } = FrameNodeId::decode(id);
    let (target, hops) = if slot == 0 {
        (Target::from(tab), Vec::new())
    } else {
        // The frame's session went away (it navigated to another site, or was
        // removed): its nodes are gone with it.
        let Some(route) = frames::route(app, tab, slot).await? else {
            app.sessions.with(tab, |s| s.uids.forget(id));
            return Err(stale_error(uid));
        };
        route
    };
    let backend = BackendNodeId(backend_node_id);
    let Ok(object_id) = resolve_backend(&target, backend.clone()).await else {
        app.sessions.with(tab, |s| s.uids.forget(id));
        return Err(stale_error(uid));
    };
    // DOM.resolveNode still succeeds for a node the page removed while something
    // (our handle, page JS) keeps it alive: ask the node.
    let connected = call_on(
        &target,
        &object_id,
        "function () { return this.isConnected; }",
        Vec::new(),
    )
    .await?;
    if connected == false {
        // Not forgotten: the page may insert the same node again.
        return Err(BridgeError::new(
            ErrorCode::ElementStale,
            format!("{uid} was removed from the page: extract again"),
        ));
    }
    Ok(Node {
        backend_node_id: backend,
        object_id,
        label: uid.to_string(),
        target,
        frames: hops,
    })
}

/// `element_not_found` for a selector nothing matches.
fn not_found(selector: &str) -> BridgeError {
    BridgeError::new(
        ErrorCode::ElementNotFound,
        format!(
            "no element matches {} (also searched open shadow roots): extract and pick another target",
            quote(selector)
        ),
    )
}

/// [`resolve`], then `look` called on the element ([`call_on`]; its JSON
/// answer). For a selector the call goes out beside `DOM.describeNode`, which it
/// does not need: one round trip less before the element's first check.
///
/// # Errors
/// As [`resolve`]; `look`'s as [`call_on`].
pub async fn resolve_looking(
    app: &App,
    tab: TabId,
    target: ElementTarget<'_>,
    look: &str,
) -> Result<(Node, Value), BridgeError> {
    let ElementTarget::Selector(selector) = target else {
        let node = resolve(app, tab, target).await?;
        let first = call_on(&node.target, &node.object_id, look, Vec::new()).await?;
        return Ok((node, first));
    };
    let object_id = query(tab, selector)
        .await?
        .ok_or_else(|| not_found(selector))?;
    let (backend, first) = join(
        backend_of(tab, &object_id),
        call_on(tab, &object_id, look, Vec::new()),
    )
    .await;
    let node = Node {
        backend_node_id: backend?,
        object_id,
        label: cap(selector),
        target: tab.into(),
        frames: Vec::new(),
    };
    Ok((node, first?))
}

/// `document.querySelector`, then the shadow-root walk (`DEEP_QUERY`), in one
/// `Runtime.evaluate` that answers the element's handle, then `DOM.describeNode`
/// for its `backendNodeId`: two round trips, and no `DOM.getDocument` (which
/// costs 4–14 ms a call on a static page, measured) nor node ids to keep
/// current; `None` when nothing matches.
///
/// # Errors
/// `invalid_request` for a selector the browser cannot parse (the query throws
/// a `SyntaxError`); CDP failures.
pub async fn resolve_selector(tab: TabId, selector: &str) -> Result<Option<Node>, BridgeError> {
    let Some(object_id) = query(tab, selector).await? else {
        return Ok(None);
    };
    Ok(Some(Node {
        backend_node_id: backend_of(tab, &object_id).await?,
        object_id,
        label: cap(selector),
        target: tab.into(),
        frames: Vec::new(),
    }))
}

/// The handle of the element `selector` matches ([`resolve_selector`]'s first
/// round trip), `None` when nothing matches.
async fn query(tab: TabId, selector: &str) -> Result<Option<RemoteObjectId>, BridgeError> {
    let expression = format!("({DEEP_QUERY})({})", Value::String(selector.to_owned()));
    let r = cdp::send(tab, &Evaluate::new(expression)).await?;
    if r.exception_details.is_some() {
        return Err(invalid_selector(selector));
    }
    Ok(r.result
        .object_id
        .filter(|_| r.result.subtype.as_deref() == Some("node")))
}

/// `DOM.describeNode{objectId}` → the element's `backendNodeId`.
async fn backend_of(tab: TabId, object_id: &RemoteObjectId) -> Result<BackendNodeId, BridgeError> {
    let describe = DescribeNode {
        object_id: Some(object_id.clone()),
        ..DescribeNode::default()
    };
    Ok(cdp::send(tab, &describe).await?.node.backend_node_id)
}

/// `DOM.resolveNode{backendNodeId}` → the element's `objectId`.
///
/// # Errors
/// CDP's error when the node no longer exists.
pub async fn resolve_backend(
    target: impl Into<Target>,
    backend_node_id: BackendNodeId,
) -> Result<RemoteObjectId, BridgeError> {
    cdp::send(target, &ResolveNode { backend_node_id })
        .await?
        .object
        .object_id
        .ok_or_else(|| BridgeError::internal("DOM.resolveNode gave no objectId"))
}

/// Calls `function_declaration` with `this` = the node and `args`, returning its
/// JSON result (by value; promises awaited).
///
/// # Errors
/// `invalid_action` when the function throws; CDP failures.
pub async fn call_on(
    target: impl Into<Target>,
    object_id: &RemoteObjectId,
    function_declaration: &str,
    arguments: Vec<CallArgument>,
) -> Result<Value, BridgeError> {
    let call = CallFunctionOn {
        object_id: object_id.clone(),
        function_declaration: function_declaration.to_owned(),
        arguments,
        return_by_value: Some(true),
        await_promise: Some(true),
        user_gesture: Some(true),
    };
    let r = cdp::send(target, &call).await?;
    if let Some(ex) = r.exception_details {
        return Err(BridgeError::invalid_action(ex.message()));
    }
    Ok(r.result.value.unwrap_or(Value::Null))
}

/// [`call_on`] with JSON arguments.
///
/// # Errors
/// As [`call_on`].
pub async fn call_with(
    target: impl Into<Target>,
    object_id: &RemoteObjectId,
    function_declaration: &str,
    args: &[Value],
) -> Result<Value, BridgeError> {
    let arguments = args.iter().cloned().map(CallArgument::Value).collect();
    call_on(target, object_id, function_declaration, arguments).await
}

/// A short description of an element for messages: `button#save.primary "Save"`.
pub const DESCRIBE: &str = r#"function () {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return String(this.nodeName || 'node').toLowerCase();
  let d = el.tagName.toLowerCase();
  if (el.id) d += '#' + el.id;
  if (typeof el.className === 'string' && el.className.trim()) d += '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.');
  const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ');
  if (text) d += ' "' + text.slice(0, 40) + '"';
  return d;
}"#;

/// Describes a node for messages.
pub async fn describe(target: impl Into<Target>, object_id: &RemoteObjectId) -> String {
    call_on(target, object_id, DESCRIBE, Vec::new())
        .await
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "an element".into())
}
