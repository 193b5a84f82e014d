//! Element resolution and in-page helpers shared by the input actions (and extract).
//!
//! - selectors: `DOM.querySelector` on the document; when that finds nothing, a
//!   walk into open shadow roots (in page JS, returning the element's handle);
//! - uids: the tab's [`UidCache`](browser_bridge_page::uids::UidCache) →
//!   `backendNodeId`, checked alive with `DOM.resolveNode` (gone → `element_stale`).
//!
//! A resolved [`Node`] carries its `backendNodeId` (for `DOM.*`) and a JS handle
//! (`objectId`, for `Runtime.callFunctionOn`).

use browser_bridge_page::uids::stale_error;
use browser_bridge_protocol::{BridgeError, ElementTarget, ErrorCode, TabId};
use serde_json::{Value, json};

use crate::cdp::{self, EvalResult, GetDocument, QuerySelector, ResolveNode};
use crate::sessions;

/// Longest user-supplied selector or text echoed in a message (chars).
pub const ECHO_MAX_CHARS: usize = 200;

/// `text` capped to [`ECHO_MAX_CHARS`] chars, with `…` when cut: what an error
/// message echoes of a selector, typed text or page text (a 50 kB selector must not
/// come back in full).
pub fn cap(text: &str) -> String {
    match text.char_indices().nth(ECHO_MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// [`cap`], quoted as `{:?}` would.
pub fn quote(text: &str) -> String {
    format!("{:?}", cap(text))
}

/// `word` with its indefinite article: `an input`, `an alert`, `a confirm`.
pub fn with_article(word: &str) -> String {
    let vowel = word
        .trim_start_matches('<')
        .starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("{} {word}", if vowel { "an" } else { "a" })
}

/// A resolved element.
#[derive(Debug, Clone)]
pub struct Node {
    /// CDP `backendNodeId`.
    pub backend_node_id: i64,
    /// `Runtime.RemoteObjectId` of the element.
    pub object_id: String,
    /// How the caller named it (for messages): the selector or the uid.
    pub label: String,
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

/// Resolves a target to a live element.
///
/// # Errors
/// `element_not_found` (no match, uid never issued), `element_stale` (uid of a
/// replaced document or removed node), `invalid_request` (selector syntax).
pub async fn resolve(tab: TabId, target: ElementTarget<'_>) -> Result<Node, BridgeError> {
    match target {
        ElementTarget::Selector(selector) => resolve_selector(tab, selector).await?.ok_or_else(|| {
            BridgeError::new(
                ErrorCode::ElementNotFound,
                format!("no element matches {} (also searched open shadow roots): extract and pick another target", quote(selector)),
            )
        }),
        ElementTarget::Uid(uid) => {
            let backend = sessions::with_session(tab, |s| s.uids.resolve(uid))
                .ok_or_else(|| sessions::no_tab(tab))??;
            match resolve_backend(tab, backend).await {
                // DOM.resolveNode still succeeds for a node the page removed while
                // something (our handle, page JS) keeps it alive: ask the node.
                Ok(object_id) => {
                    if call_on(tab, &object_id, "function () { return this.isConnected; }", &[]).await?
                        == false
                    {
                        // Not forgotten: the page may insert the same node again.
                        return Err(BridgeError::new(
                            ErrorCode::ElementStale,
                            format!("{uid} was removed from the page: extract again"),
                        ));
                    }
                    Ok(Node { backend_node_id: backend, object_id, label: uid.to_string() })
                }
                Err(_) => {
                    sessions::with_session(tab, |s| s.uids.forget(backend));
                    Err(stale_error(uid))
                }
            }
        }
    }
}

/// `DOM.querySelector`, then the shadow-root walk; `None` when nothing matches.
///
/// # Errors
/// `invalid_request` for a selector the browser cannot parse; CDP failures.
pub async fn resolve_selector(tab: TabId, selector: &str) -> Result<Option<Node>, BridgeError> {
    let doc: GetDocument = cdp::call(tab, "DOM.getDocument", json!({ "depth": 0 })).await?;
    let found = cdp::call::<QuerySelector>(
        tab,
        "DOM.querySelector",
        json!({ "nodeId": doc.root.node_id, "selector": selector }),
    )
    .await;
    let node_id = match found {
        Ok(q) => q.node_id,
        Err(e)
            if e.message.contains("not valid")
                || e.message.contains("DOM Error")
                || e.message.contains("SyntaxError") =>
        {
            return Err(BridgeError::invalid_request(format!(
                "selector {} is not valid CSS",
                quote(selector)
            )));
        }
        Err(e) => return Err(e.into()),
    };
    if node_id != 0 {
        let described =
            cdp::call::<cdp::DescribeNode>(tab, "DOM.describeNode", json!({ "nodeId": node_id }))
                .await?;
        let backend = described.node.backend_node_id;
        let object_id = resolve_backend(tab, backend).await?;
        return Ok(Some(Node {
            backend_node_id: backend,
            object_id,
            label: cap(selector),
        }));
    }
    // Not in the light DOM: look into open shadow roots.
    let r: EvalResult = cdp::call(
        tab,
        "Runtime.evaluate",
        json!({ "expression": format!("({DEEP_QUERY})({})", Value::String(selector.to_owned())) }),
    )
    .await?;
    if r.exception_details.is_some() {
        return Err(BridgeError::invalid_request(format!(
            "selector {} is not valid CSS",
            quote(selector)
        )));
    }
    let Some(object_id) = r
        .result
        .object_id
        .filter(|_| r.result.subtype.as_deref() == Some("node"))
    else {
        return Ok(None);
    };
    let described =
        cdp::call::<cdp::DescribeNode>(tab, "DOM.describeNode", json!({ "objectId": object_id }))
            .await?;
    Ok(Some(Node {
        backend_node_id: described.node.backend_node_id,
        object_id,
        label: cap(selector),
    }))
}

/// `DOM.resolveNode{backendNodeId}` → the element's `objectId`.
///
/// # Errors
/// CDP's error when the node no longer exists.
pub async fn resolve_backend(tab: TabId, backend_node_id: i64) -> Result<String, BridgeError> {
    let r: ResolveNode = cdp::call(
        tab,
        "DOM.resolveNode",
        json!({ "backendNodeId": backend_node_id }),
    )
    .await?;
    r.object
        .object_id
        .ok_or_else(|| BridgeError::internal("DOM.resolveNode gave no objectId"))
}

/// Calls `function_declaration` with `this` = the node and `args` (JSON values),
/// returning its JSON result (by value).
///
/// # Errors
/// `invalid_action` when the function throws; CDP failures.
pub async fn call_on(
    tab: TabId,
    object_id: &str,
    function_declaration: &str,
    args: &[Value],
) -> Result<Value, BridgeError> {
    let arguments: Vec<Value> = args.iter().map(|a| json!({ "value": a })).collect();
    let r: EvalResult = cdp::call(
        tab,
        "Runtime.callFunctionOn",
        json!({
            "objectId": object_id,
            "functionDeclaration": function_declaration,
            "arguments": arguments,
            "returnByValue": true,
            "awaitPromise": true,
            "userGesture": true,
        }),
    )
    .await?;
    if let Some(ex) = r.exception_details {
        return Err(BridgeError::invalid_action(ex.message()));
    }
    Ok(r.result.value.unwrap_or(Value::Null))
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
pub async fn describe(tab: TabId, object_id: &str) -> String {
    call_on(tab, object_id, DESCRIBE, &[])
        .await
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "an element".into())
}
