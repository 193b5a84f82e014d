//! Where a click's press landed (§5): a recorder put on the element's window
//! once the mouse is over it ([`record`], which also reads the scroll offset for
//! the hit test there), read after the release ([`landed`]). In the top frame
//! that last read also waits out the side-effects barrier of [`super::effects`]
//! (two task turns of the page), so the click ends with one call into the page,
//! not two.

use browser_bridge_cdp::runtime::CallFunctionOn;
use browser_bridge_protocol::BridgeError;
use serde_json::Value;

use crate::actions::dom::{self, Node};
use crate::actions::effects::{BARRIER_MS, Ended};
use crate::cdp;

/// Records, until [`LANDED`], which element each `mousedown`/`mouseup` of the
/// click reaches (window, capture phase), and whether a `click` that the page
/// left to its default reached a link that downloads (`<a download>` or
/// `<area download>` with an `href`, the one clicked or one the page's handler
/// clicked: window, bubble phase, after the page's own handlers). A press on
/// the element's own `<label>` is its own (the label forwards it); a press that
/// removed the element (a suggestion list that closes on mousedown) ends its
/// click where the element was, so its release may land elsewhere. `stop` ends
/// the recording once and keeps its answer, for a [`LANDED`] after
/// [`LANDED_SETTLED`] timed out. Answers the top window's scroll offset
/// `{x, y}` (CSS px; `null` from a cross-origin frame).
const RECORD: &str = r#"function () {
  const el = this, key = Symbol.for('browser-bridge.click');
  const scroll = () => { try { return { x: top.scrollX, y: top.scrollY }; } catch (e) { return null; } };
  if (el[key] && !el[key].result) return scroll();
  const rec = { elsewhere: null };
  const own = (path) => path.includes(el) || [...(el.labels || [])].some((l) => path.includes(l));
  rec.listen = (e) => {
    if (rec.elsewhere === null && !own(e.composedPath())
        && (e.type === 'mousedown' || el.isConnected)) {
      const t = e.composedPath()[0];
      let d = t && t.tagName ? t.tagName.toLowerCase() : 'the page';
      if (t && t.id) d += '#' + t.id;
      const text = ((t && (t.innerText || t.textContent)) || '').trim().replace(/\s+/g, ' ');
      if (text) d += ' "' + text.slice(0, 40) + '"';
      rec.elsewhere = d;
    }
  };
  rec.download = false;
  rec.clicked = (e) => {
    if (!e.defaultPrevented && e.composedPath().some((n) => (n.localName === 'a' || n.localName === 'area')
        && n.hasAttribute('download') && n.href)) rec.download = true;
  };
  rec.stop = () => {
    if (rec.result) return rec.result;
    removeEventListener('mousedown', rec.listen, true);
    removeEventListener('mouseup', rec.listen, true);
    removeEventListener('click', rec.clicked);
    return (rec.result = { elsewhere: rec.elsewhere, download: rec.download });
  };
  addEventListener('mousedown', rec.listen, true);
  addEventListener('mouseup', rec.listen, true);
  addEventListener('click', rec.clicked);
  el[key] = rec;
  return scroll();
}"#;

/// Ends [`RECORD`]: `{elsewhere, download}`, the element a press landed on
/// instead of this one (or null) and whether a download link was followed;
/// `null` when nothing records.
const LANDED: &str = r#"function () {
  const key = Symbol.for('browser-bridge.click'), rec = this[key];
  if (!rec) return null;
  delete this[key];
  return rec.stop();
}"#;

/// [`LANDED`], then in the top frame the barrier: `{landed, settled, url}`,
/// `settled` when two task turns have passed (handlers deferred by a task, a
/// form's submission, have run) and `url` the page's then. The stopped record
/// stays on the element (the next [`RECORD`] replaces it), so that [`LANDED`]
/// still reads it when this answer timed out.
const LANDED_SETTLED: &str = r#"function () {
  const key = Symbol.for('browser-bridge.click'), rec = this[key];
  const landed = rec ? rec.stop() : null;
  if (window !== window.top) { delete this[key]; return { landed, settled: false }; }
  return new Promise((done) => setTimeout(() => setTimeout(() => {
    done({ landed, settled: true, url: location.href });
  }, 0), 0));
}"#;

/// Starts recording where the press lands on `node` (`RECORD`); the top
/// window's scroll offset (CSS px), `None` when unknown.
///
/// # Errors
/// As [`dom::call_on`]: the recorder is not there (the click goes unrecorded).
pub async fn record(node: &Node) -> Result<Option<(f64, f64)>, BridgeError> {
    let answer = dom::call_on(&node.target, &node.object_id, RECORD, Vec::new()).await?;
    Ok(answer["x"].as_f64().zip(answer["y"].as_f64()))
}

/// Stops a recording whose click was not pressed (best effort).
pub async fn drop_record(node: &Node) {
    let _ = dom::call_on(&node.target, &node.object_id, LANDED, Vec::new()).await;
}

/// Ends the recording after the release: `LANDED`'s answer (`Null` when the
/// document that got the press is gone) and, for an element of the tab's own
/// session, the barrier waited out with it ([`Ended::Settled`]; within
/// [`BARRIER_MS`], else `LANDED` alone and [`Ended::Input`], as after a
/// navigation, leaving the barrier to [`super::effects::Watch`]).
pub async fn landed(node: &Node) -> (Value, Ended) {
    if node.frames.is_empty() {
        let call = CallFunctionOn {
            object_id: node.object_id.clone(),
            function_declaration: LANDED_SETTLED.to_owned(),
            arguments: Vec::new(),
            return_by_value: Some(true),
            await_promise: Some(true),
            user_gesture: Some(true),
        };
        match cdp::send_with_timeout(&node.target, &call, BARRIER_MS).await {
            Ok(r) if r.exception_details.is_none() => {
                let v = r.result.value.unwrap_or_default();
                let ended = match (&v["settled"], &v["url"]) {
                    (Value::Bool(true), Value::String(url)) => Ended::Settled(Some(url.clone())),
                    _ => Ended::Input,
                };
                return (v["landed"].clone(), ended);
            }
            // The document is gone (a navigation): as LANDED's failure.
            Err(e) if !e.is_timeout() => return (Value::Null, Ended::Input),
            _ => {}
        }
    }
    let landed = dom::call_on(&node.target, &node.object_id, LANDED, Vec::new())
        .await
        .unwrap_or_default();
    (landed, Ended::Input)
}
