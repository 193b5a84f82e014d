//! What counts as content: hidden and boilerplate subtrees, and the choice of the
//! main-content root that Markdown is rendered from.
//!
//! Main content is the deepest container that still holds most of the page's prose
//! (visible text outside links and outside boilerplate). That keeps the article and
//! drops site chrome around it without a Readability-style guess that could lose
//! article text: descending into a child needs [`PROSE_SHARE`] of the prose, may
//! leave behind at most [`LEFT_BEHIND`] of it (or [`MIN_LEFT_BEHIND`] bytes), and
//! must keep [`TEXT_SHARE`] of the text. Under the root, link farms (menus, "more
//! stories", ad grids: mostly link text over several links, a minority of the root)
//! are pruned. Measured on the 45-page corpus: mean recall 0.996, min 0.909.

use super::dom::{Dom, Kind, Shadow};

/// Share of the page's prose the chosen root must contain.
pub const PROSE_SHARE: f64 = 0.7;

/// Share of all kept text (links included) a child must hold to become the root.
pub const TEXT_SHARE: f64 = 0.5;

/// Share of the kept prose that descending may leave behind in siblings.
pub const LEFT_BEHIND: f64 = 0.15;
/// Prose bytes descending may always leave behind (a tagline, a dateline).
pub const MIN_LEFT_BEHIND: f64 = 300.0;

/// Elements whose subtree never reaches Markdown.
const SKIP_TAGS: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "canvas", "video", "audio", "object",
    "embed", "button", "select", "input", "textarea", "option", "datalist", "dialog", "map",
    "iframe", "frame", "link", "meta", "title", "base",
];

/// Landmark tags that are site chrome, not content.
const BOILERPLATE_TAGS: &[&str] = &["nav", "footer", "aside"];

/// `id`/`class` fragments of cookie and consent banners (generic names and the
/// common consent kits).
const CONSENT_NAMES: &[&str] = &[
    "cookie-banner",
    "cookie-consent",
    "cookie-notice",
    "cookie-bar",
    "cookiebar",
    "cookie-law",
    "cookie-popup",
    "consent-banner",
    "gdpr",
    "onetrust",
    "cookiebot",
    "didomi",
    "qc-cmp",
    "truste",
];

/// ARIA roles that are site chrome or overlays.
const BOILERPLATE_ROLES: &[&str] = &[
    "navigation",
    "contentinfo",
    "complementary",
    "dialog",
    "alertdialog",
    "menu",
    "menubar",
    "search",
    "banner",
    "tooltip",
];

/// Per-node verdicts and text counts after exclusion.
#[derive(Debug)]
pub struct Content {
    /// The subtree is left out of Markdown.
    pub excluded: Vec<bool>,
    /// Kept visible text bytes in the subtree.
    pub text: Vec<usize>,
    /// The part of [`Content::text`] inside links.
    pub link: Vec<usize>,
    /// The root Markdown is rendered from.
    pub root: usize,
}

impl Content {
    /// Prose bytes (text outside links) kept under `id`.
    pub fn prose(&self, id: usize) -> usize {
        self.text[id].saturating_sub(self.link[id])
    }
}

/// True when the element itself hides its subtree: skipped tags, `aria-hidden`,
/// `opacity: 0`, or a clipped box under 1 px (screen-reader-only text).
pub fn hides_subtree(dom: &Dom<'_>, id: usize) -> bool {
    hides(dom, id, false)
}

/// [`hides_subtree`]; with `shown_dialogs`, a `<dialog>` with a layout box (open)
/// is read like any element rather than skipped as chrome (a scope, §6).
fn hides(dom: &Dom<'_>, id: usize, shown_dialogs: bool) -> bool {
    let node = &dom.nodes[id];
    match node.kind {
        Kind::Element => {}
        Kind::Other => return true,
        Kind::Document | Kind::Text => return false,
    }
    if node.shadow == Some(Shadow::UserAgent) {
        return true;
    }
    let shown_dialog = shown_dialogs && node.tag == "dialog" && node.layout.is_some();
    if SKIP_TAGS.contains(&node.tag.as_str()) && node.content_doc.is_none() && !shown_dialog {
        return true;
    }
    if dom
        .attr(id, "aria-hidden")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    {
        return true;
    }
    node.layout
        .is_some_and(|l| l.transparent || (l.clips && l.is_tiny()))
}

/// True for landmarks and roles that are site chrome (nav, footer, aside, banner…).
pub fn is_boilerplate(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    if node.kind != Kind::Element {
        return false;
    }
    if BOILERPLATE_TAGS.contains(&node.tag.as_str()) {
        return true;
    }
    // Consent banners that are not fixed overlays, by the names their kits use.
    let named = |attr: &str| {
        dom.attr(id, attr).is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            CONSENT_NAMES.iter().any(|n| v.contains(n))
        })
    };
    if named("id") || named("class") {
        return true;
    }
    dom.attr(id, "role").is_some_and(|r| {
        r.split_whitespace()
            .next()
            .is_some_and(|r| BOILERPLATE_ROLES.contains(&r.to_ascii_lowercase().as_str()))
    })
}

/// Decides exclusions and the main-content root.
pub fn analyse(dom: &Dom<'_>) -> Content {
    let n = dom.nodes.len();
    let mut c = Content {
        excluded: vec![false; n],
        text: vec![0; n],
        link: vec![0; n],
        root: dom.root(),
    };
    // First pass: hidden subtrees only, to know each node's share of the page text.
    count(dom, dom.root(), &mut c, false, &|dom, id, _| {
        hides_subtree(dom, id)
    });
    let total = c.prose(dom.root()).max(1);
    let raw_prose: Vec<usize> = (0..n).map(|i| c.prose(i)).collect();
    // Overlays (fixed/sticky) and chrome landmarks go, unless they hold most of the
    // page's prose (apps that render everything in one fixed container). Prose, not
    // text: a 300-link menu is still a menu.
    let chrome = |dom: &Dom<'_>, id: usize, _: &Content| {
        let big = raw_prose[id] * 2 > total;
        hides_subtree(dom, id)
            || (!big && (is_boilerplate(dom, id) || dom.nodes[id].layout.is_some_and(|l| l.pinned)))
    };
    c.excluded.iter_mut().for_each(|e| *e = false);
    count(dom, dom.root(), &mut c, false, &chrome);
    c.root = choose_root(dom, &c);
    prune_link_farms(dom, &mut c);
    c
}

/// The content of the subtree at `root` with only hidden subtrees excluded (no
/// chrome, overlay or link-farm rule): what an `extract` with `scope` renders.
/// A `root` inside a hidden subtree has nothing to render: it is marked excluded.
pub fn visible_only(dom: &Dom<'_>, root: usize) -> Content {
    let n = dom.nodes.len();
    let mut c = Content {
        excluded: vec![false; n],
        text: vec![0; n],
        link: vec![0; n],
        root,
    };
    count(dom, dom.root(), &mut c, false, &|dom, id, _| {
        hides(dom, id, true)
    });
    let hidden_above = std::iter::successors(dom.nodes[root].parent, |&p| dom.nodes[p].parent)
        .any(|p| c.excluded[p]);
    if hidden_above {
        c.excluded[root] = true;
    }
    c
}

/// The open modal dialog the rest of the page is inert behind, if any: a
/// `<dialog>` opened with `showModal()` (open, with a `fixed` box: the top layer),
/// or a visible `role=dialog`/`alertdialog` with `aria-modal="true"`. With several,
/// the last in document order. Whole-page Markdown leads with its content.
pub fn modal_dialog(dom: &Dom<'_>) -> Option<usize> {
    (0..dom.nodes.len()).rev().find(|&id| {
        let node = &dom.nodes[id];
        if node.kind != Kind::Element || node.doc != 0 {
            return false;
        }
        let modal = if node.tag == "dialog" {
            dom.attr(id, "open").is_some() && node.layout.is_some_and(|l| l.fixed)
        } else {
            dom.attr(id, "aria-modal")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
                && dom.attr(id, "role").is_some_and(|r| {
                    r.split_whitespace().next().is_some_and(|r| {
                        r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog")
                    })
                })
        };
        if !modal || node.layout.is_none_or(|l| l.invisible || l.is_empty()) {
            return false;
        }
        let shown = visible_only(dom, id);
        !shown.excluded[id] && shown.text[id] > 0
    })
}

/// Link share of a block's text above which it is a link farm (menus, tag clouds,
/// "more stories", ad grids), not content.
pub const LINK_FARM_DENSITY: f64 = 0.7;
/// Fewest links a link farm has (a paragraph that is one link is content).
pub const LINK_FARM_LINKS: usize = 5;

/// Largest share of the root's text a link farm may hold.
pub const LINK_FARM_MAX_SHARE: f64 = 0.4;

/// Mean link text (bytes) from which a link list reads as a list of titles.
pub const LINK_LIST_TITLE_BYTES: usize = 40;

/// Marks link farms under the root as excluded: block containers whose visible text
/// is almost all link text, spread over several links. Prose (text outside links)
/// is what the root was chosen by, so this never drops article paragraphs.
fn prune_link_farms(dom: &Dom<'_>, c: &mut Content) {
    let mut links = vec![0usize; dom.nodes.len()];
    count_links(dom, c.root, c, &mut links);
    let mut stack = dom.render_children(c.root);
    while let Some(id) = stack.pop() {
        if c.excluded[id] {
            continue;
        }
        let node = &dom.nodes[id];
        let farm = node.kind == Kind::Element
            && matches!(
                node.tag.as_str(),
                "div" | "section" | "ul" | "ol" | "table" | "tbody" | "header"
            )
            && links[id] >= LINK_FARM_LINKS
            && c.text[id] > 0
            && c.link[id] as f64 >= c.text[id] as f64 * LINK_FARM_DENSITY
            // The main list of a listing page (products, search results) is most
            // of the root's text: content, however many links it has.
            && (c.text[id] as f64) < c.text[c.root] as f64 * LINK_FARM_MAX_SHARE
            // A list of long link titles (a changelog of bugs, a reading list) is
            // content; menus and tag lists have short labels.
            && !(matches!(node.tag.as_str(), "ul" | "ol")
                && c.link[id] >= links[id] * LINK_LIST_TITLE_BYTES);
        if farm {
            c.excluded[id] = true;
        } else {
            stack.extend(dom.render_children(id));
        }
    }
}

/// Counts kept links (`<a>` with visible text) under each node.
fn count_links(dom: &Dom<'_>, id: usize, c: &Content, links: &mut [usize]) -> usize {
    if c.excluded[id] {
        return 0;
    }
    let own = usize::from(dom.nodes[id].tag == "a" && c.text[id] > 0);
    let mut n = own;
    for k in dom.render_children(id) {
        n += count_links(dom, k, c, links);
    }
    links[id] = n;
    n
}

/// Post-order count of kept text; marks the subtrees `excluded` says (hidden,
/// chrome) as excluded.
fn count(
    dom: &Dom<'_>,
    id: usize,
    c: &mut Content,
    in_link: bool,
    excluded: &dyn Fn(&Dom<'_>, usize, &Content) -> bool,
) {
    if excluded(dom, id, c) {
        c.excluded[id] = true;
        c.text[id] = 0;
        c.link[id] = 0;
        return;
    }
    let node = &dom.nodes[id];
    if node.kind == Kind::Text {
        let visible = node
            .layout
            .is_some_and(|l| !l.invisible && !l.is_offscreen());
        let len = if visible { node.text.trim().len() } else { 0 };
        c.text[id] = len;
        c.link[id] = if in_link { len } else { 0 };
        return;
    }
    let in_link = in_link || node.tag == "a";
    let (mut text, mut link) = (0, 0);
    for k in dom.render_children(id) {
        count(dom, k, c, in_link, excluded);
        text += c.text[k];
        link += c.link[k];
    }
    c.text[id] = text;
    c.link[id] = link;
}

/// Descends from the document while one child holds [`PROSE_SHARE`] of the prose.
fn choose_root(dom: &Dom<'_>, c: &Content) -> usize {
    let mut id = dom.root();
    let total = c.prose(id);
    if total == 0 {
        return id;
    }
    let need = (total as f64 * PROSE_SHARE).ceil() as usize;
    loop {
        let here = c.prose(id);
        // Descend only while the prose left behind is small next to what is kept:
        // an article split over sibling blocks stays whole.
        let next = dom
            .render_children(id)
            .into_iter()
            .filter(|&k| !c.excluded[k] && is_container(dom, k))
            .find(|&k| {
                let kept = c.prose(k);
                kept >= need
                    && (here - kept) as f64 <= (kept as f64 * LEFT_BEHIND).max(MIN_LEFT_BEHIND)
                    // Nor while it leaves most of the text behind: a short intro next
                    // to a long list of links keeps the list.
                    && c.text[k] as f64 >= c.text[id] as f64 * TEXT_SHARE
            });
        match next {
            Some(k) => id = k,
            None => return id,
        }
    }
}

/// Elements a root may be: block containers, not a single paragraph, heading, list
/// item, cell or inline run (choosing one of those would drop the text around it).
fn is_container(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    match node.kind {
        Kind::Document => true,
        Kind::Element => {
            !matches!(
                node.tag.as_str(),
                "p" | "h1"
                    | "h2"
                    | "h3"
                    | "h4"
                    | "h5"
                    | "h6"
                    | "li"
                    | "pre"
                    | "blockquote"
                    | "td"
                    | "th"
                    | "tr"
                    | "a"
                    | "span"
                    | "table"
                    | "tbody"
                    | "ul"
                    | "ol"
                    | "dl"
                    | "figure"
                    | "code"
            ) && !node.layout.is_some_and(|l| l.inline)
        }
        _ => false,
    }
}
