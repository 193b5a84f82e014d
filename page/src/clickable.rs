//! What a person clicks that has no interactive role (PROTOCOL.md §6 `clickable`):
//! a `<span>`, `<div>`, `<li>`, `<td>` or `<img>` with a pointer cursor, a click
//! listener or a `tabindex`, listed as an element of its own so that its uid works
//! with `click`.
//!
//! Signals, all read from the DOMSnapshot (no page script):
//! - `cursor: pointer` ([`COMPUTED_STYLES`](super::snapshot::COMPUTED_STYLES)),
//!   counted only on the outermost element (the style is inherited, so a pointer
//!   row's children are pointer too);
//! - a `click`/`mousedown`/`mouseup` listener or an `onclick` attribute (CDP's
//!   `isClickable`, which Chromium computes while it walks the DOM anyway); a
//!   listening list or table stands for its `<li>` items or `<tr>` rows (one
//!   delegated listener);
//! - `tabindex` ≥ 0.
//!
//! Not listed: anything inside an element already listed or inside a link,
//! button, label or editor; the document, `<body>`, `<main>` and every ancestor
//! of the main-content root (a framework's delegating root); a container of
//! [`CONTAINER_ELEMENTS`] or more elements, or of more than [`CLICKABLE_TEXT_MAX`]
//! bytes of text; a wrapper whose only content is elements (its one button or link
//! is the element); hidden ones.

use std::collections::HashSet;

use super::dom::{Dom, Kind, Shadow};
use super::elements::{Candidate, NAME_MAX_CHARS, clean, is_editing_host, is_visible};
use super::hint::hint;

/// A clickable holding this many elements (listed or clickable) is a container —
/// a toolbar, a list with a delegating listener — not one control.
pub const CONTAINER_ELEMENTS: usize = 4;

/// A clickable with more visible text than this (bytes) is a region, not a control.
pub const CLICKABLE_TEXT_MAX: usize = 500;

/// Most nodes walked under one clickable to weigh it; past it, it is a container.
const WEIGH_NODES_MAX: usize = 2_000;

/// Tags that are never a clickable of their own: controls and links (the
/// accessibility tree lists them), labels (they stand for their control), the
/// document's frame, plugins and media (their own controls), and what is never
/// drawn.
const NEVER: &[&str] = &[
    "html", "body", "head", "main", "a", "area", "button", "input", "select", "textarea", "option",
    "optgroup", "label", "summary", "iframe", "frame", "script", "style", "noscript", "template",
    "video", "audio", "object", "embed",
];

/// Tags inside which nothing is a clickable of its own: a click there is the
/// control's click.
const CONTROLS: &[&str] = &["a", "button", "label", "summary", "select", "textarea"];

/// Adds the clickables of `dom` to `items` (the elements listed by role) and
/// returns all of them in document order; nameless elements get a
/// [`hint`](Candidate::hint). `main` is the main-content root.
pub fn with_clickables(dom: &Dom<'_>, mut items: Vec<Candidate>, main: usize) -> Vec<Candidate> {
    let listed: HashSet<usize> = items.iter().map(|c| c.node).collect();
    let (signalled, delegated) = signalled(dom, &listed, main);
    let signalled_set: HashSet<usize> = signalled.iter().copied().collect();
    let either = |n: usize| listed.contains(&n) || signalled_set.contains(&n);
    for &id in &signalled {
        let Some(weight) = weigh(dom, id, &either) else {
            continue;
        };
        // An item known only through its list's listener is one when it is plain
        // (a suggestion); a row with controls of its own may not be clicked whole.
        if weight.elements > 0 && delegated.contains(&id) {
            continue;
        }
        let labelled = ["aria-label", "title"]
            .iter()
            .any(|a| dom.attr(id, a).is_some_and(|v| !v.trim().is_empty()));
        if weight.elements >= CONTAINER_ELEMENTS
            || (weight.elements >= 1 && weight.own_text == 0 && !labelled)
            || !is_visible(dom, id)
        {
            continue;
        }
        items.push(Candidate {
            backend_node_id: dom.nodes[id].backend_node_id,
            role: role_of(dom, id),
            name: name_of(dom, id, &either),
            value: None,
            value_length: None,
            visible: true,
            disabled: false,
            checked: None,
            href: None,
            node: id,
            options: None,
            multiline: false,
            readonly: false,
            clickable: true,
            hint: None,
        });
    }
    items.sort_unstable_by_key(|c| (dom.nodes[c.node].order, c.node));
    for c in &mut items {
        if c.name.is_none() {
            c.hint = hint(dom, c.node);
        }
    }
    items
}

/// Elements with a click signal that may be clickables, in document order, and
/// those among them known only through their list's listener.
fn signalled(dom: &Dom<'_>, listed: &HashSet<usize>, main: usize) -> (Vec<usize>, HashSet<usize>) {
    let mut above_main = HashSet::new();
    let mut at = dom.nodes[main].parent;
    while let Some(a) = at {
        above_main.insert(a);
        at = dom.nodes[a].parent;
    }
    let mut out = Vec::new();
    let mut delegated = HashSet::new();
    // (node, inside a control or hidden, the nearest laid-out ancestor is pointer)
    let mut stack = vec![(dom.root(), false, false)];
    while let Some((id, blocked, parent_pointer)) = stack.pop() {
        let node = &dom.nodes[id];
        if node.kind == Kind::Text || node.kind == Kind::Other {
            continue;
        }
        let element = node.kind == Kind::Element;
        let hidden = element && (unseen(dom, id) || dom.attr(id, "inert").is_some());
        let pointer = node.layout.map_or(parent_pointer, |l| l.pointer);
        let eligible = element
            && !blocked
            && !hidden
            && node.order != usize::MAX
            && node.layout.is_some()
            && node.shadow != Some(Shadow::UserAgent)
            && !listed.contains(&id)
            && !above_main.contains(&id)
            && !NEVER.contains(&node.tag.as_str());
        if !eligible {
            delegated.remove(&id);
        } else if pointer && !parent_pointer || listens(dom, id) || focusable(dom, id) {
            out.push(id);
            if listens(dom, id) {
                delegated.extend(delegated_items(dom, id, listed));
            }
        }
        let blocked = blocked
            || hidden
            || listed.contains(&id)
            || (element
                && (CONTROLS.contains(&node.tag.as_str())
                    || node.tag == "svg"
                    || is_editing_host(dom, id)));
        for child in dom.render_children(id).into_iter().rev() {
            stack.push((child, blocked, pointer));
        }
    }
    // Items signalled on their own are not only delegated.
    for id in &out {
        delegated.remove(id);
    }
    out.extend(delegated.iter().copied());
    out.sort_unstable_by_key(|&id| (dom.nodes[id].order, id));
    (out, delegated)
}

/// A click listener or an `onclick` attribute on element `id` (CDP `isClickable`).
fn listens(dom: &Dom<'_>, id: usize) -> bool {
    dom.nodes[id].clickable || dom.attr(id, "onclick").is_some()
}

/// The items of a list or table whose one listener handles their clicks (a
/// suggestion list that reads `event.target.closest('li')`): two or more `<li>`
/// children of a listening list, or `<tr>` rows of a listening table, none of them
/// listed. Each is a clickable candidate of its own.
fn delegated_items(dom: &Dom<'_>, id: usize, listed: &HashSet<usize>) -> Vec<usize> {
    let element_children = |n: usize| {
        dom.nodes[n]
            .children
            .iter()
            .copied()
            .filter(|&c| dom.nodes[c].kind == Kind::Element && dom.nodes[c].layout.is_some())
            .collect::<Vec<_>>()
    };
    let (items, tag) = match dom.nodes[id].tag.as_str() {
        "ul" | "ol" | "menu" => (element_children(id), "li"),
        "table" | "tbody" => {
            let mut rows = Vec::new();
            for c in element_children(id) {
                if dom.nodes[c].tag == "tbody" {
                    rows.extend(element_children(c));
                } else {
                    rows.push(c);
                }
            }
            (rows, "tr")
        }
        _ => return Vec::new(),
    };
    if items.len() < 2
        || items
            .iter()
            .any(|&c| dom.nodes[c].tag != tag || listed.contains(&c))
    {
        return Vec::new();
    }
    items
}

/// Tags whose subtree a person never sees.
const UNSEEN_TAGS: &[&str] = &[
    "head", "script", "style", "noscript", "template", "title", "meta", "link", "base",
];

/// Element `id` hides itself and its subtree: an unseen tag, the browser's own
/// controls, `aria-hidden`, `visibility:hidden`, transparent or clipped to nothing.
fn unseen(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    UNSEEN_TAGS.contains(&node.tag.as_str())
        || node.shadow == Some(Shadow::UserAgent)
        || dom
            .attr(id, "aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || node
            .layout
            .is_some_and(|l| l.invisible || l.transparent || (l.clips && l.is_tiny()))
}

/// `tabindex` ≥ 0: the page put the element in the tab order.
fn focusable(dom: &Dom<'_>, id: usize) -> bool {
    dom.attr(id, "tabindex")
        .and_then(|t| t.trim().parse::<i32>().ok())
        .is_some_and(|t| t >= 0)
}

/// What a clickable holds: elements (listed or clickable, not looked into) and
/// visible text outside them.
struct Weight {
    elements: usize,
    own_text: usize,
}

/// Weighs the subtree of `id`; `None` when it is too big to be one control.
fn weigh(dom: &Dom<'_>, id: usize, is_element: &impl Fn(usize) -> bool) -> Option<Weight> {
    if dom.nodes[id].text_len > CLICKABLE_TEXT_MAX {
        return None;
    }
    let mut weight = Weight {
        elements: 0,
        own_text: 0,
    };
    let mut stack = dom.render_children(id);
    let mut walked = 0;
    while let Some(n) = stack.pop() {
        walked += 1;
        if walked > WEIGH_NODES_MAX || weight.elements >= CONTAINER_ELEMENTS {
            return None;
        }
        let node = &dom.nodes[n];
        match node.kind {
            Kind::Text => weight.own_text += node.text_len,
            Kind::Element if is_element(n) => weight.elements += 1,
            Kind::Element if unseen(dom, n) || node.tag == "svg" => {}
            Kind::Element if node.tag == "img" => {
                weight.own_text += dom.attr(n, "alt").map_or(0, |a| a.trim().len());
            }
            Kind::Element | Kind::Document => stack.extend(dom.render_children(n)),
            Kind::Other => {}
        }
    }
    Some(weight)
}

/// The role that fits a clickable best: its `role` attribute, else the one its
/// tag implies (HTML-AAM), else `generic`.
fn role_of(dom: &Dom<'_>, id: usize) -> String {
    if let Some(role) = dom
        .attr(id, "role")
        .and_then(|r| r.split_whitespace().next())
        .map(str::to_ascii_lowercase)
        .filter(|r| !matches!(r.as_str(), "presentation" | "none"))
    {
        return role;
    }
    match dom.nodes[id].tag.as_str() {
        "li" => "listitem",
        "tr" => "row",
        "td" => "cell",
        "th" => "columnheader",
        "img" | "svg" => "image",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "p" => "paragraph",
        "article" => "article",
        "section" => "region",
        _ => "generic",
    }
    .to_owned()
}

/// The name a person would give a clickable: `aria-label`, an image's `alt`, its
/// own text (outside the elements inside it) when that has a letter or digit,
/// `title`, an SVG `<title>`, its text (symbols such as `×` or `☆`); `None` for
/// an icon without any.
fn name_of(dom: &Dom<'_>, id: usize, is_element: &impl Fn(usize) -> bool) -> Option<String> {
    let attr = |a: &str| dom.attr(id, a).and_then(|v| clean(v, NAME_MAX_CHARS));
    if let Some(name) = attr("aria-label") {
        return Some(name);
    }
    if dom.nodes[id].tag == "img"
        && let Some(alt) = attr("alt")
    {
        return Some(alt);
    }
    let text = clean(&own_text(dom, id, is_element), NAME_MAX_CHARS);
    if let Some(text) = text
        .as_ref()
        .filter(|t| t.chars().any(char::is_alphanumeric))
    {
        return Some(text.clone());
    }
    attr("title").or_else(|| svg_title(dom, id)).or(text)
}

/// Visible text of `id`'s subtree outside the elements inside it, text nodes
/// joined by spaces, images by their `alt`; at most a few hundred bytes are read.
fn own_text(dom: &Dom<'_>, id: usize, is_element: &impl Fn(usize) -> bool) -> String {
    let mut out = String::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if out.len() > NAME_MAX_CHARS * 4 {
            break;
        }
        let node = &dom.nodes[n];
        match node.kind {
            Kind::Text => {
                if node.layout.is_some_and(|l| !l.invisible) {
                    out.push(' ');
                    out.push_str(node.text);
                }
            }
            Kind::Element if n != id && (unseen(dom, n) || node.tag == "svg" || is_element(n)) => {}
            Kind::Element if node.tag == "img" => {
                out.push(' ');
                out.push_str(dom.attr(n, "alt").unwrap_or(""));
            }
            Kind::Element | Kind::Document => {
                stack.extend(dom.render_children(n).into_iter().rev());
            }
            Kind::Other => {}
        }
    }
    out
}

/// The text of the first `<title>` of an `<svg>` in `id`'s subtree.
fn svg_title(dom: &Dom<'_>, id: usize) -> Option<String> {
    let mut stack = vec![(id, false)];
    while let Some((n, in_svg)) = stack.pop() {
        let node = &dom.nodes[n];
        if node.kind != Kind::Element {
            continue;
        }
        if in_svg && node.tag == "title" {
            let text: String = node.children.iter().map(|&c| dom.nodes[c].text).collect();
            if let Some(t) = clean(&text, NAME_MAX_CHARS) {
                return Some(t);
            }
        }
        let in_svg = in_svg || node.tag == "svg";
        stack.extend(node.children.iter().rev().map(|&c| (c, in_svg)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::cap;
    use crate::snapshot::CapturedSnapshot;
    use browser_bridge_protocol::extract::ELEMENTS_MAX;

    fn candidate(n: i64, role: &str, clickable: bool, visible: bool) -> Candidate {
        Candidate {
            backend_node_id: n,
            role: role.to_owned(),
            name: Some(format!("{role} {n}")),
            value: None,
            value_length: None,
            visible,
            disabled: false,
            checked: None,
            href: None,
            node: 0,
            options: None,
            multiline: false,
            readonly: false,
            clickable,
            hint: None,
        }
    }

    #[test]
    fn over_the_cap_controls_come_first_then_clickables_and_links_then_hidden_ones() {
        let snapshot = CapturedSnapshot::default();
        let dom = Dom::new(&snapshot);
        let mut items = Vec::new();
        for n in 0..20 {
            items.push(candidate(n, "button", false, false));
        }
        for n in 20..120 {
            items.push(candidate(n, "generic", true, true));
        }
        for n in 120..270 {
            items.push(candidate(n, "button", false, true));
        }
        let kept = cap(&dom, items, dom.root());
        assert!(kept.truncated);
        assert_eq!(kept.items.len(), ELEMENTS_MAX);
        // Every visible button, then the first clickables; no hidden one.
        assert!(kept.items.iter().all(|c| c.visible));
        let clickables: Vec<i64> = kept
            .items
            .iter()
            .filter(|c| c.clickable)
            .map(|c| c.backend_node_id)
            .collect();
        assert_eq!(clickables, (20..70).collect::<Vec<_>>());
        // Still in document order.
        assert!(
            kept.items
                .windows(2)
                .all(|w| w[0].backend_node_id < w[1].backend_node_id)
        );
    }
}
