//! The composed DOM of a [`CapturedSnapshot`]: every document (main frame and
//! same-origin iframes) flattened into one arena in flat-tree order (shadow content
//! under its host), iframe content documents attached to their `<iframe>`, layout and computed
//! styles joined to nodes, and subtree text sizes counted once for scoring.

use super::snapshot::{CapturedSnapshot, style};

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `#document` (main frame or iframe).
    Document,
    /// An element; its lower-cased tag is [`DomNode::tag`].
    Element,
    /// A text node.
    Text,
    /// Comments, doctypes, pseudo elements.
    Other,
}

/// The kind of shadow tree a node lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shadow {
    /// An open shadow root (web components).
    Open,
    /// A closed shadow root: rendered content all the same.
    Closed,
    /// The browser's own controls (media controls, input internals): not content.
    UserAgent,
}

/// Layout facts of a rendered node (it has a layout object).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// `[x, y, width, height]`, document CSS px.
    pub bounds: [f64; 4],
    /// `display` is `inline…` (or `contents`).
    pub inline: bool,
    /// `display` is an atomic inline (`inline-block`, `inline-flex`…): a box of
    /// its own inside the line (accessible names set its text apart).
    pub atomic: bool,
    /// `visibility` is `hidden` or `collapse`.
    pub invisible: bool,
    /// `position` is `fixed` or `sticky`.
    pub pinned: bool,
    /// `position` is `fixed` (modal overlays, their backdrops, fixed bars).
    pub fixed: bool,
    /// `opacity` is 0.
    pub transparent: bool,
    /// `overflow` clips in both directions.
    pub clips: bool,
    /// `float` is `left` or `right` (drop caps, pull quotes, figures).
    pub floated: bool,
    /// `display` is a flex or grid container (its children are blockified).
    pub flex_or_grid: bool,
    /// `cursor` is `pointer` (inherited by the element's descendants).
    pub pointer: bool,
    /// `text-transform` (inherited): a text node's name text is shown so.
    pub case: Case,
}

/// CSS `text-transform` as drawn; `None` also for a capture without the style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Case {
    /// `none` (or any value not below).
    #[default]
    None,
    /// `uppercase`.
    Upper,
    /// `lowercase`.
    Lower,
    /// `capitalize`: the first letter of each word.
    Capitalize,
}

impl Case {
    /// `text` as `text-transform` draws it; `after_letter`: the text continues a
    /// word (the text before it ended in a letter or digit), so `capitalize`
    /// leaves its first letter (Chromium names `sh<span>op</span>` "shop").
    pub fn apply(self, text: &str, after_letter: bool) -> String {
        match self {
            Case::None => text.to_owned(),
            Case::Upper => text.to_uppercase(),
            Case::Lower => text.to_lowercase(),
            Case::Capitalize => {
                let mut out = String::with_capacity(text.len());
                let mut in_word = after_letter;
                for c in text.chars() {
                    if !in_word && c.is_alphanumeric() {
                        out.extend(c.to_uppercase());
                    } else {
                        out.push(c);
                    }
                    in_word = c.is_alphanumeric() || (in_word && matches!(c, '\'' | '’'));
                }
                out
            }
        }
    }
}

impl Layout {
    /// No area (width or height under 1 CSS px).
    pub fn is_empty(&self) -> bool {
        self.bounds[2] < 1.0 || self.bounds[3] < 1.0
    }

    /// At most 1 CSS px wide or high (screen-reader-only boxes).
    pub fn is_tiny(&self) -> bool {
        self.bounds[2] <= 1.0 || self.bounds[3] <= 1.0
    }

    /// Entirely left of or above the document (the `text-indent: -9999px` trick).
    pub fn is_offscreen(&self) -> bool {
        self.bounds[0] + self.bounds[2] <= 0.0 || self.bounds[1] + self.bounds[3] <= 0.0
    }
}

/// One node of the composed tree.
#[derive(Debug, Clone)]
pub struct DomNode<'a> {
    /// What it is.
    pub kind: Kind,
    /// Lower-cased tag name for elements, `""` otherwise.
    pub tag: String,
    /// Text of text nodes.
    pub text: &'a str,
    /// CDP `backendNodeId`.
    pub backend_node_id: i64,
    /// Index of the document (in `documents`) it belongs to.
    pub doc: usize,
    /// Light-DOM children, in order.
    pub children: Vec<usize>,
    /// The kind of shadow tree the node is in, if any.
    pub shadow: Option<Shadow>,
    /// Content document of an `<iframe>` in the snapshot (same-origin frames).
    pub content_doc: Option<usize>,
    /// Layout, when rendered.
    pub layout: Option<Layout>,
    /// Attribute name/value string indexes.
    attrs: &'a [i64],
    /// The composed parent (host for a shadow root, iframe for a document).
    pub parent: Option<usize>,
    /// Rendered, visible text bytes in the composed subtree.
    pub text_len: usize,
    /// The part of [`DomNode::text_len`] inside links.
    pub link_len: usize,
    /// Position in composed document order; `usize::MAX` for nodes shaping never
    /// reaches (below the depth cap).
    pub order: usize,
    /// Responds to mouse clicks (CDP `isClickable`: a click listener, a link…).
    pub clickable: bool,
}

/// The arena.
#[derive(Debug)]
pub struct Dom<'a> {
    snap: &'a CapturedSnapshot,
    /// All nodes; the main document is [`Dom::root`].
    pub nodes: Vec<DomNode<'a>>,
    /// Arena index of the first node of each document.
    pub doc_start: Vec<usize>,
}

impl<'a> Dom<'a> {
    /// Builds the composed tree. An empty snapshot gives a single empty document.
    pub fn new(snap: &'a CapturedSnapshot) -> Dom<'a> {
        let mut nodes = Vec::new();
        let mut doc_start = Vec::new();
        for (d, doc) in snap.documents.iter().enumerate() {
            let start = nodes.len();
            doc_start.push(start);
            let n = &doc.nodes;
            let count = n.node_type.len();
            for i in 0..count {
                let node_type = n.node_type[i];
                let name = n
                    .node_name
                    .get(i)
                    .and_then(|&s| snap.string(s))
                    .unwrap_or("");
                let kind = match node_type {
                    9 => Kind::Document,
                    1 => Kind::Element,
                    3 => Kind::Text,
                    _ => Kind::Other,
                };
                let tag = if kind == Kind::Element {
                    name.to_ascii_lowercase()
                } else {
                    String::new()
                };
                let text = if kind == Kind::Text {
                    n.node_value
                        .get(i)
                        .and_then(|&s| snap.string(s))
                        .unwrap_or("")
                } else {
                    ""
                };
                nodes.push(DomNode {
                    kind,
                    tag,
                    text,
                    backend_node_id: n.backend_node_id.get(i).copied().unwrap_or(0),
                    doc: d,
                    children: Vec::new(),
                    shadow: None,
                    content_doc: None,
                    layout: None,
                    attrs: n.attributes.get(i).map(Vec::as_slice).unwrap_or(&[]),
                    parent: None,
                    text_len: 0,
                    link_len: 0,
                    order: usize::MAX,
                    clickable: false,
                });
            }
            // The snapshot walks the flat tree: shadow content sits under its host and
            // slotted nodes under their slot; nodes inside a shadow tree are marked.
            for (k, &i) in n.shadow_root_type.index.iter().enumerate() {
                let shadow = match n
                    .shadow_root_type
                    .value
                    .get(k)
                    .and_then(|&s| snap.string(s))
                {
                    Some("open") => Shadow::Open,
                    Some("closed") => Shadow::Closed,
                    _ => Shadow::UserAgent,
                };
                if let Some(node) = usize::try_from(i)
                    .ok()
                    .and_then(|i| nodes.get_mut(start + i))
                {
                    node.shadow = Some(shadow);
                }
            }
            for &i in &n.is_clickable.index {
                if let Some(node) = usize::try_from(i)
                    .ok()
                    .and_then(|i| nodes.get_mut(start + i))
                {
                    node.clickable = true;
                }
            }
            for &i in &n.pseudo_type.index {
                if let Some(node) = usize::try_from(i)
                    .ok()
                    .and_then(|i| nodes.get_mut(start + i))
                {
                    node.kind = Kind::Other;
                }
            }
            for (li, &ni) in doc.layout.node_index.iter().enumerate() {
                let Some(node) = usize::try_from(ni)
                    .ok()
                    .and_then(|i| nodes.get_mut(start + i))
                else {
                    continue;
                };
                if node.layout.is_some() {
                    continue;
                }
                let styles = doc.layout.styles.get(li).map(Vec::as_slice).unwrap_or(&[]);
                let s = |k: usize| styles.get(k).and_then(|&i| snap.string(i)).unwrap_or("");
                let b = doc.layout.bounds.get(li).map(Vec::as_slice).unwrap_or(&[]);
                let bound = |k: usize| b.get(k).copied().unwrap_or(0.0);
                let clip = |v: &str| matches!(v, "hidden" | "clip");
                node.layout = Some(Layout {
                    bounds: [bound(0), bound(1), bound(2), bound(3)],
                    inline: s(style::DISPLAY).starts_with("inline")
                        || s(style::DISPLAY) == "contents",
                    atomic: s(style::DISPLAY).starts_with("inline-"),
                    invisible: matches!(s(style::VISIBILITY), "hidden" | "collapse"),
                    pinned: matches!(s(style::POSITION), "fixed" | "sticky"),
                    fixed: s(style::POSITION) == "fixed",
                    transparent: s(style::OPACITY) == "0",
                    clips: clip(s(style::OVERFLOW_X)) && clip(s(style::OVERFLOW_Y)),
                    floated: matches!(s(style::FLOAT), "left" | "right"),
                    flex_or_grid: s(style::DISPLAY).contains("flex")
                        || s(style::DISPLAY).contains("grid"),
                    pointer: s(style::CURSOR) == "pointer",
                    case: match s(style::TEXT_TRANSFORM) {
                        "uppercase" => Case::Upper,
                        "lowercase" => Case::Lower,
                        "capitalize" => Case::Capitalize,
                        _ => Case::None,
                    },
                });
            }
            for i in 0..count {
                let Ok(p) = usize::try_from(n.parent_index.get(i).copied().unwrap_or(-1)) else {
                    continue;
                };
                let (child, parent) = (start + i, start + p);
                nodes[child].parent = Some(parent);
                nodes[parent].children.push(child);
            }
        }
        for &start in &doc_start {
            unhide_anti_flicker(&mut nodes, start);
        }
        // Attach iframe documents once every document has its start.
        for (d, doc) in snap.documents.iter().enumerate() {
            let cdi = &doc.nodes.content_document_index;
            for (k, &i) in cdi.index.iter().enumerate() {
                let (Ok(i), Some(Ok(target))) = (
                    usize::try_from(i),
                    cdi.value.get(k).map(|&v| usize::try_from(v)),
                ) else {
                    continue;
                };
                if let Some(&child_start) = doc_start.get(target)
                    && target != d
                {
                    nodes[doc_start[d] + i].content_doc = Some(child_start);
                    nodes[child_start].parent = Some(doc_start[d] + i);
                }
            }
        }
        if nodes.is_empty() {
            nodes.push(DomNode {
                kind: Kind::Document,
                tag: String::new(),
                text: "",
                backend_node_id: 0,
                doc: 0,
                children: Vec::new(),
                shadow: None,
                content_doc: None,
                layout: None,
                attrs: &[],
                parent: None,
                text_len: 0,
                link_len: 0,
                order: 0,
                clickable: false,
            });
            doc_start.push(0);
        }
        cap_depth(&mut nodes);
        let mut dom = Dom {
            snap,
            nodes,
            doc_start,
        };
        let mut order = 0;
        dom.number(0, &mut order, false);
        dom
    }

    /// The main document node.
    pub fn root(&self) -> usize {
        0
    }

    /// The children shaping walks: an iframe's content document, else the children
    /// of the flat tree (shadow content and slotted nodes included).
    pub fn render_children(&self, id: usize) -> Vec<usize> {
        let node = &self.nodes[id];
        match node.content_doc {
            Some(doc) => vec![doc],
            None => node.children.clone(),
        }
    }

    /// Attribute `name` of element `id`.
    pub fn attr(&self, id: usize, name: &str) -> Option<&'a str> {
        let attrs = self.nodes[id].attrs;
        attrs.chunks_exact(2).find_map(|pair| {
            let n = self.snap.string(pair[0])?;
            n.eq_ignore_ascii_case(name)
                .then(|| self.snap.string(pair[1]).unwrap_or(""))
        })
    }

    /// An `<input>`'s `type` as the browser reads it: trimmed and lowercased,
    /// `text` when absent (an empty or unknown value is returned as it is).
    pub fn input_type(&self, id: usize) -> String {
        self.attr(id, "type")
            .unwrap_or("text")
            .trim()
            .to_ascii_lowercase()
    }

    /// Base URL of document `doc` (for resolving links).
    pub fn base_url(&self, doc: usize) -> &'a str {
        self.snap
            .documents
            .get(doc)
            .and_then(|d| {
                self.snap
                    .string(d.base_url)
                    .or_else(|| self.snap.string(d.document_url))
            })
            .unwrap_or("")
    }

    /// The current value of an `<input>` (CDP `inputValue`) or a `<textarea>`
    /// (`textValue`).
    pub fn input_value(&self, id: usize) -> Option<&'a str> {
        let node = &self.nodes[id];
        let doc = self.snap.documents.get(node.doc)?;
        let index = i64::try_from(id - self.doc_start[node.doc]).ok()?;
        let rare = if node.tag == "textarea" {
            &doc.nodes.text_value
        } else {
            &doc.nodes.input_value
        };
        let k = rare.index.iter().position(|&i| i == index)?;
        self.snap.string(*rare.value.get(k)?)
    }

    /// A checked checkbox or radio (CDP `inputChecked`).
    pub fn input_checked(&self, id: usize) -> bool {
        let node = &self.nodes[id];
        let Some(doc) = self.snap.documents.get(node.doc) else {
            return false;
        };
        i64::try_from(id - self.doc_start[node.doc])
            .is_ok_and(|index| doc.nodes.input_checked.index.contains(&index))
    }

    /// A selected `<option>` (CDP `optionSelected`).
    pub fn option_selected(&self, id: usize) -> bool {
        let node = &self.nodes[id];
        let Some(doc) = self.snap.documents.get(node.doc) else {
            return false;
        };
        i64::try_from(id - self.doc_start[node.doc])
            .is_ok_and(|index| doc.nodes.option_selected.index.contains(&index))
    }

    /// Laid out as a block only because its parent is a flex or grid container
    /// (a phrasing element such as a card's `<span>` price or `<a>` title).
    pub fn blockified(&self, id: usize) -> bool {
        let node = &self.nodes[id];
        matches!(
            node.tag.as_str(),
            "a" | "span"
                | "b"
                | "strong"
                | "em"
                | "i"
                | "small"
                | "time"
                | "label"
                | "img"
                | "abbr"
                | "code"
                | "mark"
                | "sup"
                | "sub"
                | "u"
                | "s"
                | "data"
                | "font"
        ) && node
            .parent
            .and_then(|p| self.nodes[p].layout)
            .is_some_and(|l| l.flex_or_grid)
    }

    /// URL of document `doc`.
    pub fn document_url(&self, doc: usize) -> &'a str {
        self.snap
            .documents
            .get(doc)
            .and_then(|d| self.snap.string(d.document_url))
            .unwrap_or("")
    }

    /// Numbers nodes in composed order and counts subtree text (post-order).
    fn number(&mut self, id: usize, order: &mut usize, in_link: bool) {
        self.nodes[id].order = *order;
        *order += 1;
        if self.nodes[id].kind == Kind::Text {
            let node = &self.nodes[id];
            let visible = node
                .layout
                .is_some_and(|l| !l.invisible && !l.is_offscreen());
            let len = if visible { node.text.trim().len() } else { 0 };
            self.nodes[id].text_len = len;
            self.nodes[id].link_len = if in_link { len } else { 0 };
            return;
        }
        let in_link = in_link || self.nodes[id].tag == "a";
        let (mut text, mut link) = (0, 0);
        for k in self.render_children(id) {
            self.number(k, order, in_link);
            text += self.nodes[k].text_len;
            link += self.nodes[k].link_len;
        }
        self.nodes[id].text_len = text;
        self.nodes[id].link_len = link;
    }
}

/// Deepest composed-tree level kept. Shaping walks the tree recursively; a script
/// can nest nodes without limit (the HTML parser stops at 512), and a stack overflow
/// in the extension's wasm would abort it. Deeper content is kept by dropping
/// wrappers instead (see [`KEPT_HEIGHT`]).
pub const MAX_DEPTH: usize = 512;

/// Subtrees at most this tall are kept whole below the wrappers that are dropped
/// to stay within [`MAX_DEPTH`]: a paragraph, a link, a form, a button keep their
/// structure; only the wrapper chain above them goes.
pub const KEPT_HEIGHT: usize = 64;

/// Keeps the composed tree (frames included) within [`MAX_DEPTH`] levels without
/// losing content, iteratively: a node at depth `MAX_DEPTH - KEPT_HEIGHT` whose
/// subtree is taller than [`KEPT_HEIGHT`] gets, as its children, the outermost
/// descendants whose subtrees are shorter (text and controls included), in
/// document order; the taller wrappers between are left out of the walk (their
/// `parent` links stay, so hidden and excluded ancestors still count).
fn cap_depth(nodes: &mut [DomNode<'_>]) {
    if nodes.is_empty() {
        return;
    }
    let kids = |n: &DomNode<'_>| {
        n.children
            .iter()
            .copied()
            .chain(n.content_doc)
            .collect::<Vec<_>>()
    };
    // Pre-order, then heights bottom-up.
    let mut pre = Vec::with_capacity(nodes.len());
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![0usize];
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id], true) {
            continue;
        }
        pre.push(id);
        stack.extend(kids(&nodes[id]));
    }
    let mut height = vec![0usize; nodes.len()];
    for &id in pre.iter().rev() {
        height[id] = kids(&nodes[id])
            .iter()
            .map(|&k| height[k] + 1)
            .max()
            .unwrap_or(0);
    }
    let cut = MAX_DEPTH - KEPT_HEIGHT;
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        if std::mem::replace(&mut seen[id], true) || depth > cut {
            continue;
        }
        if depth < cut || height[id] < KEPT_HEIGHT {
            if depth < cut {
                stack.extend(kids(&nodes[id]).into_iter().map(|c| (c, depth + 1)));
            }
            continue;
        }
        // The outermost short subtrees below `id`, in document order.
        let mut kept = Vec::new();
        let mut todo: Vec<usize> = kids(&nodes[id]).into_iter().rev().collect();
        while let Some(k) = todo.pop() {
            if height[k] < KEPT_HEIGHT {
                kept.push(k);
            } else {
                todo.extend(kids(&nodes[k]).into_iter().rev());
            }
        }
        nodes[id].children = kept;
        nodes[id].content_doc = None;
    }
}

/// Anti-flicker snippets hide the whole page (`body {visibility:hidden}`,
/// `html {opacity:0}`) until a script reveals it; when that script fails the content
/// is still the page's content. A hidden or transparent `<html>`/`<body>` is taken as
/// such a snippet: the document's nodes are treated as visible.
fn unhide_anti_flicker(nodes: &mut [DomNode<'_>], doc: usize) {
    let html = nodes[doc]
        .children
        .iter()
        .copied()
        .find(|&c| nodes[c].tag == "html");
    let Some(html) = html else { return };
    let body = nodes[html]
        .children
        .iter()
        .copied()
        .find(|&c| nodes[c].tag == "body");
    let hidden = |n: &DomNode<'_>| n.layout.is_some_and(|l| l.invisible || l.transparent);
    if !hidden(&nodes[html]) && !body.is_some_and(|b| hidden(&nodes[b])) {
        return;
    }
    let mut stack = vec![html];
    while let Some(id) = stack.pop() {
        if let Some(l) = nodes[id].layout.as_mut() {
            l.invisible = false;
            if id == html || Some(id) == body {
                l.transparent = false;
            }
        }
        stack.extend(nodes[id].children.iter().copied());
    }
}
