//! `extract` with `scope` (PROTOCOL.md §6 "Options"): the subtree a uid stands
//! for. A uid names an interactive element, so the scope is the nearest
//! container around it — a form, dialog, list, table, fieldset or landmark (by
//! tag or role) — or the element itself when it is one (a listbox, a menu) or
//! when nothing encloses it.

use super::dom::{Dom, Kind};

/// Tags that make a scope.
pub const SCOPE_TAGS: &[&str] = &[
    "form", "dialog", "fieldset", "details", "ul", "ol", "dl", "menu", "table", "section",
    "article", "main", "nav", "aside", "header", "footer",
];

/// ARIA roles that make a scope.
pub const SCOPE_ROLES: &[&str] = &[
    "dialog",
    "alertdialog",
    "form",
    "search",
    "group",
    "radiogroup",
    "list",
    "listbox",
    "menu",
    "menubar",
    "tablist",
    "tabpanel",
    "tree",
    "treegrid",
    "grid",
    "table",
    "toolbar",
    "feed",
    "region",
    "navigation",
    "main",
    "complementary",
    "banner",
    "contentinfo",
];

/// The arena index of the node whose `backendNodeId` is `id` (out-of-process
/// iframes' ids carry their frame's slot, as the uid cache holds them).
pub fn find_node(dom: &Dom<'_>, id: i64) -> Option<usize> {
    dom.nodes.iter().position(|n| n.backend_node_id == id)
}

/// The scope of the element at `node`: itself or its nearest ancestor (across
/// shadow roots and frames) that is a container of [`SCOPE_TAGS`] or
/// [`SCOPE_ROLES`]; `node` itself when none is.
pub fn scope_root(dom: &Dom<'_>, node: usize) -> usize {
    std::iter::successors(Some(node), |&n| dom.nodes[n].parent)
        .find(|&n| is_container(dom, n))
        .unwrap_or(node)
}

/// A form, dialog, list, table, fieldset or landmark, by tag or first role.
pub fn is_container(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    if node.kind != Kind::Element {
        return false;
    }
    // An explicit role overrides the tag (`role=presentation` on a layout table).
    if let Some(role) = dom
        .attr(id, "role")
        .and_then(|r| r.split_whitespace().next())
    {
        return SCOPE_ROLES.contains(&role.to_ascii_lowercase().as_str());
    }
    SCOPE_TAGS.contains(&node.tag.as_str())
}
