//! `scroll` (PROTOCOL.md §5): the document, else the largest visible container
//! that can move that way (an app shell), or a target container; the offsets are
//! read once the page has reacted (two rendering frames, then observer passes
//! until the page's `IntersectionObserver` callbacks add no element; at most
//! 2 s, 250 ms in a hidden page).

use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::{Scroll, ScrollDirection};
use browser_bridge_protocol::result::ScrollResult;
use browser_bridge_protocol::{ActionResult, BridgeError, TabId};
use serde_json::{Value, json};

use crate::actions::dom;
use crate::app::App;
use crate::cdp;

/// Scrolls `this` (an element, or the document's scrolling element; with
/// `this` null: the document, else the largest visible container that can move
/// that way), waits until the page has reacted, and reports `{scrolled, x, y,
/// dx, dy}` as they stand then. Reacted: two rendering frames (scroll
/// handlers), then `IntersectionObserver` passes of its own until one adds no
/// element (at most 5: a page that adds elements every frame costs ~4 frames
/// more, never a hang; text changes such as a ticking clock do not count), all
/// within 2 s (which a loaded machine may need; 250 ms in a hidden page, which
/// draws none). A document's observer callbacks of one update are delivered
/// in one task (W3C Intersection Observer, "notify intersection observers"),
/// so the task after its own callback comes after the page's. The pass after
/// a list grew lets the list's observer see its sentinel leave: without it the
/// next scroll brought the sentinel back before the observer had seen it go,
/// no callback came, and an infinite list stalled at an agent's pace (3 runs
/// in 8 on a loaded machine).
const SCROLL: &str = r#"async function (direction, amount) {
  'use strict';
  const root = document.scrollingElement || document.documentElement;
  const isPage = (el) => el === root || el === document.documentElement || el === document.body;
  const describe = (el) => {
    if (isPage(el)) return 'document';
    let d = el.tagName.toLowerCase();
    if (el.id) d += '#' + el.id;
    if (typeof el.className === 'string' && el.className.trim()) d += '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.');
    const label = el.getAttribute('aria-label');
    if (label) d += ' "' + label.trim().slice(0, 40) + '"';
    return d;
  };
  const offsets = (el) => isPage(el) ? [window.scrollX, window.scrollY] : [el.scrollLeft, el.scrollTop];
  const move = (el) => {
    const page = isPage(el);
    const w = page ? window.innerWidth : el.clientWidth;
    const h = page ? window.innerHeight : el.clientHeight;
    const dx = direction === 'left' ? -(amount ?? w) : direction === 'right' ? (amount ?? w) : 0;
    const dy = direction === 'up' ? -(amount ?? h) : direction === 'down' ? (amount ?? h) : 0;
    const [x0, y0] = offsets(el);
    if (page) window.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    else el.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    const [x, y] = offsets(el);
    return { el, x0, y0, moved: x !== x0 || y !== y0 };
  };
  const frames = async (el) => {
    const target = isPage(el) ? document.documentElement : el;
    const pass = () => new Promise((done) => {
      const seen = new IntersectionObserver(() => { seen.disconnect(); setTimeout(done, 0); });
      seen.observe(target);
    });
    let grew = false;
    const content = new MutationObserver((records) => {
      if (records.some((r) => [...r.addedNodes].some((n) => n.nodeType === 1))) grew = true;
    });
    content.observe(document, { childList: true, subtree: true });
    const settled = (async () => {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      await pass();
      for (let i = 0; grew && i < 4; i++) { grew = false; await pass(); }
    })();
    const cap = new Promise((r) => setTimeout(r, document.visibilityState === 'hidden' ? 250 : 2000));
    await Promise.race([settled, cap]);
    content.disconnect();
  };
  const report = async (m) => {
    await frames(m.el);
    const [x, y] = offsets(m.el);
    return { scrolled: describe(m.el), x, y, dx: x - m.x0, dy: y - m.y0 };
  };
  if (this) return report(move(this));
  const page = move(root);
  if (page.moved) return report(page);
  // The document did not move: an app shell scrolls a container instead.
  const vertical = direction === 'up' || direction === 'down';
  const forward = direction === 'down' || direction === 'right';
  const canMove = (el) => {
    const s = getComputedStyle(el);
    const overflow = vertical ? s.overflowY : s.overflowX;
    if (!/(auto|scroll|overlay)/.test(overflow)) return false;
    const [pos, client, size] = vertical
      ? [el.scrollTop, el.clientHeight, el.scrollHeight]
      : [el.scrollLeft, el.clientWidth, el.scrollWidth];
    return forward ? pos + client < size - 1 : pos > 0;
  };
  const visibleArea = (el) => {
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0);
    const h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    return w > 0 && h > 0 ? w * h : 0;
  };
  let best = null, bestArea = 0;
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.scrollHeight <= el.clientHeight && el.scrollWidth <= el.clientWidth) continue;
    if (!canMove(el)) continue;
    const area = visibleArea(el);
    if (area > bestArea) { best = el; bestArea = area; }
  }
  return report(best ? move(best) : page);
}"#;

/// `scroll` the page or a container.
///
/// # Errors
/// `element_not_found` / `element_stale` for a container target.
pub async fn scroll(app: &App, tab: TabId, p: Scroll) -> Result<ActionResult, BridgeError> {
    let direction = match p.direction {
        ScrollDirection::Up => "up",
        ScrollDirection::Down => "down",
        ScrollDirection::Left => "left",
        ScrollDirection::Right => "right",
    };
    let args = [json!(direction), p.amount.map_or(Value::Null, |a| json!(a))];
    let moved = match p.target()? {
        Some(target) => {
            let node = dom::resolve(app, tab, target).await?;
            dom::call_with(&node.target, &node.object_id, SCROLL, &args).await?
        }
        None => {
            let expression = format!("({SCROLL}).call(null, {}, {})", args[0], args[1]);
            let evaluate = Evaluate {
                await_promise: Some(true),
                ..Evaluate::by_value(expression)
            };
            let r = cdp::send(tab, &evaluate).await?;
            r.result.value.unwrap_or_default()
        }
    };
    Ok(ActionResult::Scroll(ScrollResult {
        tab_id: tab,
        scroll_x: moved["x"].as_f64().unwrap_or_default(),
        scroll_y: moved["y"].as_f64().unwrap_or_default(),
        scrolled: moved["scrolled"].as_str().map(str::to_owned),
        delta_x: moved["dx"].as_f64(),
        delta_y: moved["dy"].as_f64(),
        changes: None,
    }))
}
