//! Accessible names from the DOM snapshot, the way Chromium computes them for its
//! accessibility tree (W3C accname 1.2 with HTML-AAM's native steps), so that
//! [`fallback`](crate::fallback) lists the names `Accessibility.getFullAXTree` would.
//!
//! Steps, first one giving text wins: `aria-labelledby` (the referenced nodes'
//! `aria-label` or content, hidden ones included), `aria-label`, the native step
//! (`<label>`s of a form control, an input button's `value` or default, a file
//! input's button label, `alt`),
//! the content for roles named from content, `title`, then `placeholder`.
//! Content concatenates text as laid out: inline runs join as they are, a block
//! box or a name taken from an attribute (`alt`, `aria-label`) stands apart by a
//! space; hidden nodes (`aria-hidden`, not rendered, `visibility: hidden`) add
//! nothing, an embedded control adds its value; text is taken as drawn
//! (`text-transform`).

use std::collections::HashMap;

use super::dom::{Case, Dom, Kind};

/// Roles whose name comes from their content (accname "name from: contents").
const FROM_CONTENT: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
];

/// Roles that never give their content to an ancestor's name in Chromium
/// (containers of many objects: `SupportsNameFromContents` is false for them even
/// in recursion); they add only a name from an attribute.
const NO_CONTENT: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "complementary",
    "contentinfo",
    "dialog",
    "document",
    "feed",
    "figure",
    "form",
    "grid",
    "group",
    "img",
    "list",
    "listbox",
    "log",
    "main",
    "marquee",
    "math",
    "menu",
    "menubar",
    "meter",
    "navigation",
    "note",
    "progressbar",
    "radiogroup",
    "scrollbar",
    "search",
    "searchbox",
    "slider",
    "spinbutton",
    "status",
    "table",
    "tablist",
    "tabpanel",
    "textbox",
    "timer",
    "toolbar",
    "tree",
    "treegrid",
];

/// The implicit HTML-AAM role of the container elements in [`NO_CONTENT`].
fn container_role(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "figure" => "figure",
        "ul" | "ol" | "menu" => "list",
        "table" => "table",
        "fieldset" | "details" => "group",
        "dialog" => "dialog",
        "nav" => "navigation",
        "main" => "main",
        "aside" => "complementary",
        "article" => "article",
        "blockquote" => "blockquote",
        "meter" => "meter",
        "progress" => "progressbar",
        _ => return None,
    })
}

/// Element ids and `<label for>`s per document, for `aria-labelledby` and labels.
pub struct Names<'d, 'a> {
    dom: &'d Dom<'a>,
    by_id: HashMap<(usize, &'a str), usize>,
    labels_for: HashMap<(usize, &'a str), Vec<usize>>,
}

/// One piece of a name from content, and whether it stands apart from its
/// neighbours (a block box or an attribute's text).
struct Piece {
    text: String,
    apart: bool,
}

impl<'d, 'a> Names<'d, 'a> {
    /// Indexes `dom`'s ids and labels.
    pub fn new(dom: &'d Dom<'a>) -> Names<'d, 'a> {
        let mut by_id = HashMap::new();
        let mut labels_for: HashMap<(usize, &'a str), Vec<usize>> = HashMap::new();
        for (i, n) in dom.nodes.iter().enumerate() {
            if n.kind != Kind::Element {
                continue;
            }
            if let Some(v) = dom.attr(i, "id") {
                by_id.entry((n.doc, v)).or_insert(i);
            }
            if n.tag == "label"
                && let Some(f) = dom.attr(i, "for")
            {
                labels_for.entry((n.doc, f)).or_default().push(i);
            }
        }
        Names {
            dom,
            by_id,
            labels_for,
        }
    }

    /// The accessible name of element `id` whose role is `role`, not yet
    /// whitespace-collapsed nor capped (`elements::clean` does both); `None` when
    /// every step gives nothing.
    pub fn name(&self, id: usize, role: &str) -> Option<String> {
        let dom = self.dom;
        if let Some(t) = self.labelledby(id) {
            return Some(t);
        }
        if let Some(t) = attr_text(dom, id, "aria-label") {
            return Some(t);
        }
        if let Some(t) = self.native(id) {
            return non_empty(t);
        }
        if FROM_CONTENT.contains(&role)
            && let Some(t) = non_empty(self.content(id, id, false))
        {
            return Some(t);
        }
        attr_text(dom, id, "title")
            .or_else(|| attr_text(dom, id, "placeholder"))
            .or_else(|| attr_text(dom, id, "aria-placeholder"))
    }

    /// The text of `id`'s rendered subtree, joined as a name from content is.
    pub fn text(&self, id: usize) -> String {
        self.content(id, id, false)
    }

    /// The text of the nodes `aria-labelledby` names, joined by spaces.
    fn labelledby(&self, id: usize) -> Option<String> {
        let doc = self.dom.nodes[id].doc;
        let refs = self.dom.attr(id, "aria-labelledby")?;
        let text: Vec<String> = refs
            .split_whitespace()
            .filter_map(|r| self.by_id.get(&(doc, r)))
            .filter_map(|&n| {
                attr_text(self.dom, n, "aria-label").or_else(|| {
                    let hidden = is_hidden(self.dom, n);
                    non_empty(self.content(n, id, hidden))
                })
            })
            .collect();
        non_empty(text.join(" "))
    }

    /// HTML-AAM's native step: labels of a labelable element (`Some("")` when it
    /// has labels with no text: Chromium then stops there), the value or default
    /// label of an input button, an image input's `alt`.
    fn native(&self, id: usize) -> Option<String> {
        let dom = self.dom;
        let tag = dom.nodes[id].tag.as_str();
        if matches!(tag, "input" | "select" | "textarea" | "button") {
            let doc = dom.nodes[id].doc;
            let own = dom.attr(id, "id");
            // `for` points at the first element with the id (`getElementById`).
            let mut labels: Vec<usize> = own
                .filter(|&i| self.by_id.get(&(doc, i)) == Some(&id))
                .and_then(|i| self.labels_for.get(&(doc, i)))
                .cloned()
                .unwrap_or_default();
            let enclosing = std::iter::successors(dom.nodes[id].parent, |&p| dom.nodes[p].parent)
                .find(|&p| dom.nodes[p].tag == "label")
                .filter(|&l| dom.attr(l, "for").is_none_or(|f| Some(f) == own));
            if let Some(l) = enclosing
                && !labels.contains(&l)
            {
                labels.push(l);
            }
            if !labels.is_empty() {
                let text: Vec<String> = labels
                    .into_iter()
                    .filter_map(|l| {
                        attr_text(dom, l, "aria-label")
                            .or_else(|| non_empty(self.content(l, id, false)))
                    })
                    .collect();
                return Some(text.join(" "));
            }
        }
        if tag != "input" {
            return None;
        }
        let kind = dom.input_type(id);
        match kind.as_str() {
            // The button's own label: `title` and `placeholder` never name it.
            "file" => Some(file_button(dom, id).to_owned()),
            "submit" | "reset" | "button" => {
                dom.attr(id, "value")
                    .map(str::to_owned)
                    .or(match kind.as_str() {
                        "submit" => Some("Submit".to_owned()),
                        "reset" => Some("Reset".to_owned()),
                        _ => None,
                    })
            }
            "image" => attr_text(dom, id, "alt")
                .or_else(|| attr_text(dom, id, "value"))
                .or_else(|| Some("Submit".to_owned())),
            _ => None,
        }
    }

    /// The text of `id`'s subtree as laid out (accname step 2F), for naming `root`;
    /// hidden nodes count when `hidden` (a hidden node named by
    /// `aria-labelledby`).
    fn content(&self, id: usize, root: usize, hidden: bool) -> String {
        let mut pieces = Vec::new();
        for c in self.dom.render_children(id) {
            self.piece(c, root, hidden, &mut pieces);
        }
        join(&pieces)
    }

    /// Appends what node `id` adds to a name from content.
    fn piece(&self, id: usize, root: usize, hidden: bool, out: &mut Vec<Piece>) {
        let dom = self.dom;
        let node = &dom.nodes[id];
        match node.kind {
            Kind::Text => {
                if hidden || node.layout.is_some_and(|l| !l.invisible) {
                    // Chromium names the text as drawn, `text-transform` applied.
                    let case = node.layout.map_or(Case::None, |l| l.case);
                    // The text before, back to a box that stands apart.
                    let after_letter = out
                        .iter()
                        .rev()
                        .take_while(|p| !p.apart)
                        .find_map(|p| p.text.chars().last())
                        .is_some_and(char::is_alphanumeric);
                    out.push(Piece {
                        text: case.apply(node.text, after_letter),
                        apart: false,
                    });
                }
                return;
            }
            Kind::Element => {}
            Kind::Document | Kind::Other => return,
        }
        if id == root
            || matches!(
                node.tag.as_str(),
                "script" | "style" | "template" | "noscript" | "head" | "title"
            )
            || (!hidden && is_hidden(dom, id))
        {
            return;
        }
        let apart = node.tag == "br" || node.layout.is_some_and(|l| !l.inline || l.atomic);
        // An image's `alt`, even empty, is its whole name: no `title` then.
        if matches!(node.tag.as_str(), "img" | "area")
            && dom
                .attr(id, "aria-label")
                .is_none_or(|l| l.trim().is_empty())
            && let Some(alt) = dom.attr(id, "alt")
        {
            if let Some(text) = non_empty(alt.to_owned()) {
                out.push(Piece { text, apart: true });
            }
            return;
        }
        let from_attr = attr_text(dom, id, "aria-label")
            .or_else(|| self.embedded_value(id))
            .or_else(|| match node.tag.as_str() {
                "img" | "area" => attr_text(dom, id, "title"),
                "svg" => node
                    .children
                    .iter()
                    .find(|&&c| dom.nodes[c].tag == "title")
                    .and_then(|&t| non_empty(self.content(t, root, true))),
                _ => None,
            });
        if let Some(text) = from_attr {
            out.push(Piece { text, apart: true });
            return;
        }
        let role = match dom
            .attr(id, "role")
            .and_then(|r| r.split_whitespace().next())
        {
            Some(r) => Some(r.to_ascii_lowercase()),
            None => container_role(&node.tag).map(str::to_owned),
        };
        if matches!(
            node.tag.as_str(),
            "img" | "area" | "svg" | "input" | "select" | "textarea" | "audio" | "video" | "iframe"
        ) || role.is_some_and(|r| NO_CONTENT.contains(&r.as_str()))
        {
            if let Some(title) = attr_text(dom, id, "title") {
                out.push(Piece {
                    text: title,
                    apart: true,
                });
            }
            return;
        }
        let start = out.len();
        out.push(Piece {
            text: String::new(),
            apart,
        });
        for c in dom.render_children(id) {
            self.piece(c, root, hidden, out);
        }
        if out[start + 1..].iter().all(|p| p.text.trim().is_empty())
            && let Some(title) = attr_text(dom, id, "title")
        {
            out.truncate(start);
            out.push(Piece { text: title, apart });
            return;
        }
        out.push(Piece {
            text: String::new(),
            apart,
        });
    }

    /// What a form control inside a name from content adds: a text field's value,
    /// a select's selected option.
    fn embedded_value(&self, id: usize) -> Option<String> {
        let dom = self.dom;
        match dom.nodes[id].tag.as_str() {
            "input" => {
                let kind = dom.input_type(id);
                match kind.as_str() {
                    "file" => Some(format!("{}: {}", file_button(dom, id), file_value(dom, id))),
                    "checkbox" | "radio" | "hidden" | "image" | "submit" | "reset" | "button" => {
                        None
                    }
                    _ => dom.input_value(id).map(str::to_owned).and_then(non_empty),
                }
            }
            "textarea" => dom.input_value(id).map(str::to_owned).and_then(non_empty),
            "select" => crate::elements::select_options(dom, id).and_then(|s| s.value),
            _ => None,
        }
    }
}

/// The label Chromium draws on a file input's button (en-US, as its AX tree
/// names it): "Choose Files" when it takes `multiple` files.
pub fn file_button(dom: &Dom<'_>, id: usize) -> &'static str {
    if dom.attr(id, "multiple").is_some() {
        "Choose Files"
    } else {
        "Choose File"
    }
}

/// A file input's value as Chromium's AX tree gives it: "No file chosen", else
/// the chosen file's name (the snapshot's `C:\fakepath\…` without its folder).
/// The snapshot holds the first file only, so several files read as the first
/// one where Chromium says "N files".
pub fn file_value(dom: &Dom<'_>, id: usize) -> String {
    match dom.input_value(id).filter(|v| !v.is_empty()) {
        Some(path) => path.rsplit(['\\', '/']).next().unwrap_or(path).to_owned(),
        None => "No file chosen".to_owned(),
    }
}

/// Pieces joined as laid out: a piece that stands apart gets spaces around it.
fn join(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        if p.apart && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(&p.text);
        if p.apart && !p.text.is_empty() {
            out.push(' ');
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Attribute `name` of `id` when it holds more than whitespace.
fn attr_text(dom: &Dom<'_>, id: usize, name: &str) -> Option<String> {
    dom.attr(id, name).map(str::to_owned).and_then(non_empty)
}

fn non_empty(s: String) -> Option<String> {
    (!s.trim().is_empty()).then_some(s)
}

/// Excluded from names: `aria-hidden="true"`, `visibility: hidden`, or not
/// rendered at all (`display: none`: no layout object in its whole subtree, which
/// tells it from `display: contents`).
fn is_hidden(dom: &Dom<'_>, id: usize) -> bool {
    dom.attr(id, "aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || match dom.nodes[id].layout {
            Some(l) => l.invisible,
            None => !rendered_below(dom, id),
        }
}

/// Some node under `id` has a layout object.
fn rendered_below(dom: &Dom<'_>, id: usize) -> bool {
    let mut stack = dom.render_children(id);
    while let Some(n) = stack.pop() {
        if dom.nodes[n].layout.is_some() {
            return true;
        }
        stack.extend(dom.render_children(n));
    }
    false
}

#[cfg(test)]
mod tests;
