//! Interactive elements (PROTOCOL.md §6): the non-ignored accessibility nodes with an
//! interactive role, in composed document order (shadow roots and same-origin frames
//! included), with name, value, visibility and states, capped at [`ELEMENTS_MAX`].

use std::collections::HashMap;

use super::dom::{Dom, Kind, Shadow};
use super::snapshot::AxNode;
use browser_bridge_protocol::extract::{Checked, ELEMENTS_MAX, OPTIONS_MAX};

/// Roles an agent can act on.
pub const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
];

/// `<input>` types whose value is a date, a time or a colour: Chromium draws them
/// with its own widgets (AX roles `Date`, `DateTime`, `InputTime`, `ColorWell`) and
/// an element is listed with the input type as its role (PROTOCOL.md §6), so the
/// agent knows the value's format (`type` takes it in that format).
pub const NATIVE_INPUT_TYPES: &[&str] =
    &["date", "time", "datetime-local", "month", "week", "color"];

/// Longest accessible name kept (chars); longer names end with `…`.
pub const NAME_MAX_CHARS: usize = 100;
pub use browser_bridge_protocol::extract::VALUE_MAX_CHARS;

/// One interactive element before it gets a uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The DOM node, for the uid cache.
    pub backend_node_id: i64,
    /// Accessibility role.
    pub role: String,
    /// Accessible name, whitespace-collapsed and capped.
    pub name: Option<String>,
    /// Current value, exact ([`exact`]) and capped at [`VALUE_MAX_CHARS`].
    pub value: Option<String>,
    /// The whole value's length in chars, when [`Candidate::value`] was cut.
    pub value_length: Option<usize>,
    /// Rendered with an area inside the document and not `visibility:hidden`.
    pub visible: bool,
    /// Disabled.
    pub disabled: bool,
    /// Checked state.
    pub checked: Option<Checked>,
    /// A link's `href` attribute, to fold a card's image link into its title link.
    pub href: Option<String>,
    /// The node's index in the [`Dom`] arena.
    pub node: usize,
    /// A `<select>`'s option labels ([`select_options`]).
    pub options: Option<Vec<String>>,
    /// A text field that takes several lines.
    pub multiline: bool,
    /// A field whose value cannot be edited.
    pub readonly: bool,
    /// Listed because a person clicks it (pointer cursor, click listener,
    /// `tabindex`), not for an interactive role ([`crate::clickable`]).
    pub clickable: bool,
    /// For a nameless element, a short description from its markup
    /// ([`crate::hint`]).
    pub hint: Option<String>,
}

/// The elements of a page and whether the cap dropped some.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Elements {
    /// At most [`ELEMENTS_MAX`], in document order.
    pub items: Vec<Candidate>,
    /// More than [`ELEMENTS_MAX`] were found.
    pub truncated: bool,
}

/// Picks interactive elements from every frame's AX nodes, ordered by `dom`'s
/// flat-tree document order. Nodes the snapshot does not know and nodes inside
/// user-agent shadow trees (media controls, input internals) are left out. Not
/// capped yet: [`cap`] does that once clickables are added.
pub fn interactive_elements<'n>(
    dom: &Dom<'_>,
    ax: impl IntoIterator<Item = &'n AxNode>,
) -> Vec<Candidate> {
    let by_backend: HashMap<i64, usize> = dom
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == Kind::Element)
        .map(|(i, n)| (n.backend_node_id, i))
        .collect();
    let labels = LabelIndex::new(dom);
    let mut found: Vec<(usize, Candidate)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for node in ax {
        if node.ignored {
            continue;
        }
        let Some(role) = node.role.as_ref().and_then(|r| r.text()) else {
            continue;
        };
        let Some(backend) = node.backend_dom_node_id else {
            continue;
        };
        let Some(&id) = by_backend.get(&backend) else {
            continue;
        };
        let prop = |name: &str| {
            node.properties
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.value.text())
        };
        // A contenteditable editing host is a generic node that Chromium marks editable.
        let editor = prop("editable").is_some() && is_editing_host(dom, id);
        let role = match native_input_type(dom, id) {
            Some(input_type) if is_native_input_role(&role) => input_type.to_owned(),
            _ if editor && !INTERACTIVE_ROLES.contains(&role.as_str()) => "textbox".to_owned(),
            _ => normalise_role(role),
        };
        // A `<time>` element's role is `time` too: only inputs have a native one.
        let native =
            NATIVE_INPUT_TYPES.contains(&role.as_str()) && native_input_type(dom, id).is_some();
        if !INTERACTIVE_ROLES.contains(&role.as_str()) && !native {
            continue;
        }
        // Below the depth cap: not part of the page the agent reads.
        if dom.nodes[id].order == usize::MAX {
            continue;
        }
        if in_hidden_shadow(dom, id) || !seen.insert(backend) || is_select_option(dom, id) {
            continue;
        }
        let checked = match prop("checked").as_deref() {
            Some("true") => Some(Checked::True),
            Some("false") => Some(Checked::False),
            Some("mixed") => Some(Checked::Mixed),
            _ if matches!(
                role.as_str(),
                "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
            ) =>
            {
                Some(Checked::False)
            }
            _ => None,
        };
        let select = select_options(dom, id);
        let value = node.value.as_ref().and_then(|v| v.text());
        let value = if is_password(dom, id) {
            value
                .filter(|v| !v.is_empty())
                .map(|_| PASSWORD_MASK.to_owned())
        } else {
            value
        };
        let candidate = Candidate {
            backend_node_id: backend,
            name: node
                .name
                .as_ref()
                .and_then(|v| v.text())
                .and_then(|s| clean(&s, NAME_MAX_CHARS)),
            value: match &select {
                Some(s) if s.value.is_some() => s.value.clone(),
                _ => value.as_deref().and_then(|s| exact(s, VALUE_MAX_CHARS)),
            },
            value_length: match &select {
                Some(_) => None,
                None => value.as_deref().and_then(cut_length),
            },
            visible: is_visible(dom, id) || labels.shows(dom, id),
            disabled: prop("disabled").as_deref() == Some("true"),
            checked,
            href: (role == "link").then(|| dom.attr(id, "href").unwrap_or("").to_owned()),
            node: id,
            role,
            options: select.map(|s| s.options),
            multiline: prop("multiline").as_deref() == Some("true") || editor,
            readonly: prop("readonly").as_deref() == Some("true"),
            clickable: false,
            hint: None,
        };
        found.push((dom.nodes[id].order, candidate));
    }
    found.sort_unstable_by_key(|(order, c)| (*order, c.node));
    found.into_iter().map(|(_, c)| c).collect()
}

/// Folds twin links, then applies the [`ELEMENTS_MAX`] cap to elements given in
/// document order. Over the cap, what stays is chosen by rank — visible before
/// invisible; then form controls and buttons, links and clickables inside the
/// main-content root `main`, other links and clickables (site menus) — and
/// returned in document order.
pub fn cap(dom: &Dom<'_>, mut items: Vec<Candidate>, main: usize) -> Elements {
    // Consecutive links to one target under one name (a card's image and title) are
    // one element for the agent.
    items.dedup_by(|later, earlier| {
        later.role == "link"
            && earlier.role == "link"
            && later.href == earlier.href
            && later.name == earlier.name
    });
    let truncated = items.len() > ELEMENTS_MAX;
    if truncated {
        let rank = |c: &Candidate| {
            let kind = if c.role != "link" && !c.clickable {
                0
            } else if is_under(dom, c.node, main) {
                1
            } else {
                2
            };
            (!c.visible, kind)
        };
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_unstable_by_key(|&i| (rank(&items[i]), i));
        let mut keep = vec![false; items.len()];
        for &i in order.iter().take(ELEMENTS_MAX) {
            keep[i] = true;
        }
        let mut k = keep.into_iter();
        items.retain(|_| k.next().unwrap_or(false));
    }
    Elements { items, truncated }
}

/// `id` is `root` or inside it.
pub fn is_under(dom: &Dom<'_>, id: usize, root: usize) -> bool {
    std::iter::successors(Some(id), |&n| dom.nodes[n].parent).any(|n| n == root)
}

/// Chromium's internal roles for interactive controls, as the ARIA role an agent
/// knows (`<summary>` is a `DisclosureTriangle`, a pressed button `ToggleButton`).
fn normalise_role(role: String) -> String {
    match role.as_str() {
        "DisclosureTriangle" | "ToggleButton" => "button".to_owned(),
        "PopUpButton" => "combobox".to_owned(),
        _ => role,
    }
}

/// An element whose `contenteditable` attribute makes it editable (`""`, `true`,
/// `plaintext-only`): the host of a rich-text or plain-text editor.
pub fn is_editing_host(dom: &Dom<'_>, id: usize) -> bool {
    dom.attr(id, "contenteditable").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "true" | "plaintext-only"
        )
    })
}

/// Chromium's internal roles for the date, time and colour inputs.
fn is_native_input_role(role: &str) -> bool {
    matches!(role, "Date" | "DateTime" | "InputTime" | "ColorWell")
}

/// The type of an `<input>` that is one of [`NATIVE_INPUT_TYPES`] (lowercase).
pub fn native_input_type(dom: &Dom<'_>, id: usize) -> Option<&'static str> {
    if dom.nodes[id].tag != "input" {
        return None;
    }
    let t = dom.attr(id, "type")?.trim().to_ascii_lowercase();
    NATIVE_INPUT_TYPES.iter().copied().find(|n| *n == t)
}

/// `s` as it is (a field's value: runs of spaces and line breaks are part of it),
/// at most `max` chars (ending in `…` when cut); `None` when empty.
pub fn exact(s: &str, max: usize) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    if s.chars().count() <= max {
        return Some(s.to_owned());
    }
    let mut cut: String = s.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Some(cut)
}

/// What a model sees of a filled password field: a fixed mask, since its length
/// would give away part of the secret.
pub const PASSWORD_MASK: &str = "••••••••";

/// `id` is an `<input type=password>`.
pub fn is_password(dom: &Dom<'_>, id: usize) -> bool {
    dom.nodes[id].tag == "input"
        && dom
            .attr(id, "type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("password"))
}

/// The length of `s` in chars when [`exact`] cuts it at [`VALUE_MAX_CHARS`].
pub fn cut_length(s: &str) -> Option<usize> {
    let n = s.chars().count();
    (n > VALUE_MAX_CHARS).then_some(n)
}

/// Whitespace-collapsed `s`, at most `max` chars (ending in `…` when cut); `None`
/// when empty.
pub fn clean(s: &str, max: usize) -> Option<String> {
    // Icon-font glyphs (Unicode private use area) carry no meaning as text.
    let s: String = s
        .chars()
        .filter(|c| !('\u{e000}'..='\u{f8ff}').contains(c))
        .collect();
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        return None;
    }
    if joined.chars().count() <= max {
        return Some(joined);
    }
    let mut cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Some(cut)
}

/// Rendered with an area, not `visibility:hidden`, and inside the document's
/// scrollable area (so it is in the viewport or can be scrolled into it).
pub fn is_visible(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    let Some(l) = node.layout else { return false };
    if l.invisible || l.transparent || l.is_empty() || l.is_offscreen() {
        return false;
    }
    let mut p = node.parent;
    while let Some(a) = p {
        if dom.nodes[a]
            .layout
            .is_some_and(|l| l.transparent || (l.clips && l.is_tiny()))
        {
            return false;
        }
        p = dom.nodes[a].parent;
    }
    true
}

/// `<label for>` elements per document and id, to tell whether a form control
/// drawn by its label is visible.
pub struct LabelIndex(HashMap<(usize, String), Vec<usize>>);

impl LabelIndex {
    /// Indexes every `<label for>` of `dom`.
    pub fn new(dom: &Dom<'_>) -> LabelIndex {
        let mut by_for: HashMap<(usize, String), Vec<usize>> = HashMap::new();
        for (i, n) in dom.nodes.iter().enumerate() {
            if n.kind == Kind::Element
                && n.tag == "label"
                && let Some(f) = dom.attr(i, "for")
            {
                by_for.entry((n.doc, f.to_owned())).or_default().push(i);
            }
        }
        LabelIndex(by_for)
    }

    /// A form control (`<input>`, `<select>`, `<textarea>`) whose own box is hidden,
    /// transparent or clipped away but one of whose `<label>`s — the enclosing one
    /// or a `for` one — is visible: a person sees and clicks the label (a checkbox
    /// drawn by a span over a visually hidden input), so the control is visible.
    pub fn shows(&self, dom: &Dom<'_>, id: usize) -> bool {
        let node = &dom.nodes[id];
        if !matches!(node.tag.as_str(), "input" | "select" | "textarea") {
            return false;
        }
        let own_id = dom.attr(id, "id");
        let enclosing = std::iter::successors(node.parent, |&p| dom.nodes[p].parent)
            .find(|&p| dom.nodes[p].tag == "label")
            .filter(|&l| dom.attr(l, "for").is_none_or(|f| Some(f) == own_id));
        let by_for = own_id
            .and_then(|i| self.0.get(&(node.doc, i.to_owned())))
            .map(Vec::as_slice)
            .unwrap_or_default();
        enclosing
            .into_iter()
            .chain(by_for.iter().copied())
            .any(|l| is_visible(dom, l))
    }
}

fn in_hidden_shadow(dom: &Dom<'_>, id: usize) -> bool {
    dom.nodes[id].shadow == Some(Shadow::UserAgent)
}

/// Longest option label kept (chars).
pub const OPTION_MAX_CHARS: usize = 40;

/// What a `<select>` offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectOptions {
    /// Option labels in order (`label` attribute, else text), at most
    /// [`OPTIONS_MAX`], each at most [`OPTION_MAX_CHARS`].
    pub options: Vec<String>,
    /// The selected options' labels, joined with `, ` (several in a
    /// `<select multiple>`); `None` when none is selected.
    pub value: Option<String>,
}

/// The options of `id` when it is a `<select>` (in its `<optgroup>`s too).
/// Snapshots without `optionSelected` give a drop-down the option HTML selects
/// (the last marked `selected`, else the first).
pub fn select_options(dom: &Dom<'_>, id: usize) -> Option<SelectOptions> {
    if dom.nodes[id].tag != "select" {
        return None;
    }
    let mut options = Vec::new();
    let mut selected = Vec::new();
    let mut marked = Vec::new();
    let mut first = None;
    let mut stack: Vec<usize> = dom.nodes[id].children.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        match dom.nodes[n].tag.as_str() {
            "option" => {
                let label = dom
                    .attr(n, "label")
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        dom.nodes[n]
                            .children
                            .iter()
                            .map(|&c| dom.nodes[c].text)
                            .collect::<String>()
                    });
                let label = clean(&label, OPTION_MAX_CHARS).unwrap_or_default();
                if dom.option_selected(n) {
                    selected.push(label.clone());
                }
                if dom.attr(n, "selected").is_some() {
                    marked.push(label.clone());
                }
                first.get_or_insert_with(|| label.clone());
                if options.len() < OPTIONS_MAX {
                    options.push(label);
                }
            }
            // `<optgroup>`s, and the slot of the select's user-agent shadow tree.
            _ => stack.extend(dom.nodes[n].children.iter().rev().copied()),
        }
    }
    // A snapshot without `optionSelected` (older Chromium): a drop-down shows the
    // last option marked `selected`, else its first (HTML "selectedness").
    let single = dom.attr(id, "multiple").is_none()
        && dom
            .attr(id, "size")
            .and_then(|s| s.trim().parse::<u32>().ok())
            .is_none_or(|s| s <= 1);
    if selected.is_empty() && single {
        selected.extend(marked.pop().or(first));
    }
    let value = (!selected.is_empty()).then(|| selected.join(", "));
    Some(SelectOptions {
        options,
        value: value.and_then(|v| clean(&v, VALUE_MAX_CHARS)),
    })
}

/// An `<option>` of a `<select>`: chosen through `select_option` on the select, not
/// an element of its own (a language picker would otherwise fill the list).
pub fn is_select_option(dom: &Dom<'_>, id: usize) -> bool {
    let node = &dom.nodes[id];
    node.tag == "option"
        && std::iter::successors(node.parent, |&p| dom.nodes[p].parent)
            .take(2)
            .any(|p| dom.nodes[p].tag == "select")
}
