//! What a person sees of the page beyond its text (PROTOCOL.md §8): covering
//! fixed overlays and their text, scroll lock on `<html>`/`<body>`, headings. Read
//! from the DOMSnapshot's layout boxes and computed styles, for
//! [`detect_obstacle`](crate::obstacle::detect_obstacle).

use super::content::is_boilerplate;
use super::dom::{Dom, Kind, Shadow};
use crate::obstacle::PageView;

/// At most this many chars of overlay text are kept (a modal's message is short;
/// the cap keeps a full-screen menu from costing much).
pub const OVERLAY_TEXT_CHARS: usize = 1_000;

/// At most this many headings are kept.
pub const HEADINGS_MAX: usize = 8;

/// A fixed layer is a panel whose text counts when it covers at least this share
/// of the viewport (a modal dialog of 400×300 px on 1280×800 covers 0.12; a
/// 60 px header bar 0.075).
pub const PANEL_COVER_MIN: f64 = 0.1;

/// A fixed layer under this height (CSS px) is a bar (header, cookie strip), not a
/// panel, whatever its width.
pub const PANEL_MIN_HEIGHT: f64 = 150.0;

/// Tags whose subtree a person never sees. Unlike the content walk, form controls
/// and dialogs stay: a modal's password field is what makes it a login form.
const UNSEEN_TAGS: &[&str] = &[
    "head", "script", "style", "noscript", "template", "title", "meta", "link", "base",
];

/// The subtree of `id` is not seen: not an element or text, the browser's own
/// controls, an unseen tag, `aria-hidden`, transparent or clipped to nothing.
fn unseen(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    match node.kind {
        Kind::Element => {}
        Kind::Other => return true,
        Kind::Document | Kind::Text => return false,
    }
    node.shadow == Some(Shadow::UserAgent)
        || (UNSEEN_TAGS.contains(&node.tag.as_str()) && node.content_doc.is_none())
        || dom
            .attr(id, "aria-hidden")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || node
            .layout
            .is_some_and(|l| l.transparent || (l.clips && l.is_tiny()))
}

/// Reads the [`PageView`] of the main document. The viewport is the document
/// node's layout box (the layout view: the visible area, at the snapshot's scroll
/// offset).
pub fn page_view(dom: &Dom<'_>) -> PageView {
    let mut view = PageView::default();
    let root = dom.root();
    let Some(viewport) = dom.nodes[root].layout.map(|l| l.bounds) else {
        return view;
    };
    let area = viewport[2] * viewport[3];
    if area < 1.0 {
        return view;
    }
    // Walk the main document, skipping hidden subtrees; fixed layers are read
    // whole (their own subtree), once.
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        let node = &dom.nodes[id];
        if node.doc != 0 || unseen(dom, id) {
            continue;
        }
        if node.kind == Kind::Element {
            let layout = node.layout;
            if matches!(node.tag.as_str(), "html" | "body") && layout.is_some_and(|l| l.clips) {
                view.scroll_locked = true;
            }
            if let Some(l) = layout.filter(|l| l.fixed && !l.invisible && !l.is_empty()) {
                // A modal `<dialog>` (`showModal`: fixed, in the top layer) makes the
                // rest of the page inert under its `::backdrop`, whatever its size.
                let modal_dialog = node.tag == "dialog" && dom.attr(id, "open").is_some();
                let cover = if modal_dialog {
                    1.0
                } else {
                    overlap(l.bounds, viewport) / area
                };
                view.overlay_cover = view.overlay_cover.max(cover);
                if modal_dialog || (cover >= PANEL_COVER_MIN && l.bounds[3] >= PANEL_MIN_HEIGHT) {
                    read_panel(dom, id, &mut view);
                }
                continue;
            }
            if matches!(node.tag.as_str(), "h1" | "h2") && view.headings.len() < HEADINGS_MAX {
                let text = text_of(dom, id, usize::MAX);
                if !text.is_empty() {
                    view.headings.push(text);
                }
                continue;
            }
            if is_password_input(dom, id) {
                count_password_input(dom, id, &mut view);
                if in_site_chrome(dom, id) {
                    view.chrome_password_inputs += 1;
                }
            }
            if is_input_of_type(dom, id, "file") {
                view.file_inputs += 1;
            }
        }
        stack.extend(dom.render_children(id).into_iter().rev());
    }
    view
}

/// Adds a fixed panel's text, headings and password inputs to `view`.
fn read_panel(dom: &Dom<'_>, panel: usize, view: &mut PageView) {
    let room = OVERLAY_TEXT_CHARS.saturating_sub(view.overlay_text.chars().count());
    let text = text_of(dom, panel, room);
    if !text.is_empty() {
        if !view.overlay_text.is_empty() {
            view.overlay_text.push('\n');
        }
        view.overlay_text.push_str(&text);
    }
    let mut stack = vec![panel];
    while let Some(id) = stack.pop() {
        let node = &dom.nodes[id];
        if unseen(dom, id) || node.layout.is_some_and(|l| l.invisible) {
            continue;
        }
        if is_password_input(dom, id) {
            view.overlay_password = true;
            count_password_input(dom, id, view);
        }
        if matches!(node.tag.as_str(), "h1" | "h2") && view.headings.len() < HEADINGS_MAX {
            let text = text_of(dom, id, usize::MAX);
            if !text.is_empty() {
                view.headings.push(text);
            }
        }
        stack.extend(dom.render_children(id));
    }
}

/// `id` sits in the site's frame: a `nav`, `aside` or `footer` (or their roles,
/// [`is_boilerplate`]), or a `header` outside `main` and `article` — a sign-in box
/// beside the content, not the page.
fn in_site_chrome(dom: &Dom<'_>, id: usize) -> bool {
    let mut header = false;
    let mut at = dom.nodes[id].parent;
    while let Some(p) = at {
        if is_boilerplate(dom, p) {
            return true;
        }
        match dom.nodes[p].tag.as_str() {
            "header" => header = true,
            "main" | "article" => return false,
            _ => {}
        }
        at = dom.nodes[p].parent;
    }
    header
}

/// `id` is an `<input type=password>` with a box (visibility is the caller's walk).
fn is_password_input(dom: &Dom<'_>, id: usize) -> bool {
    is_input_of_type(dom, id, "password")
}

/// `id` is an `<input type=…>` of `kind` with a box.
fn is_input_of_type(dom: &Dom<'_>, id: usize, kind: &str) -> bool {
    let node = &dom.nodes[id];
    node.tag == "input"
        && node.layout.is_some_and(|l| !l.is_empty() && !l.invisible)
        && dom
            .attr(id, "type")
            .is_some_and(|t| t.eq_ignore_ascii_case(kind))
}

/// Counts a visible password input, and whether it sets a new password.
fn count_password_input(dom: &Dom<'_>, id: usize, view: &mut PageView) {
    view.password_inputs += 1;
    if dom
        .attr(id, "autocomplete")
        .is_some_and(|a| a.to_ascii_lowercase().contains("new-password"))
    {
        view.new_password_inputs += 1;
    }
}

/// Visible text of `id`'s subtree, whitespace collapsed, lower-cased, at most
/// `max` chars.
fn text_of(dom: &Dom<'_>, id: usize, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if count >= max {
            break;
        }
        let node = &dom.nodes[n];
        if unseen(dom, n) {
            continue;
        }
        if node.kind == Kind::Text {
            if node.layout.is_some_and(|l| !l.invisible) {
                for word in node.text.split_whitespace() {
                    if count >= max {
                        break;
                    }
                    if !out.is_empty() {
                        out.push(' ');
                        count += 1;
                    }
                    out.extend(word.chars().flat_map(char::to_lowercase));
                    count += word.chars().count();
                }
            }
            continue;
        }
        stack.extend(dom.render_children(n).into_iter().rev());
    }
    out
}

/// Area (CSS px²) where two `[x, y, w, h]` boxes overlap.
fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    let w = (a[0] + a[2]).min(b[0] + b[2]) - a[0].max(b[0]);
    let h = (a[1] + a[3]).min(b[1] + b[3]) - a[1].max(b[1]);
    w.max(0.0) * h.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_of_boxes() {
        assert_eq!(
            overlap([0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 10.0, 10.0]),
            25.0
        );
        assert_eq!(overlap([0.0, 0.0, 10.0, 10.0], [20.0, 0.0, 5.0, 5.0]), 0.0);
        assert_eq!(
            overlap([0.0, 0.0, 1280.0, 800.0], [0.0, 0.0, 1280.0, 800.0]),
            1_024_000.0
        );
    }
}
