//! Interactive elements from the DOM snapshot alone: what `extract` lists.
//! `Accessibility.getFullAXTree` grows with the page (6 MB and 1–2 s on 2 000
//! controls, 10 MB on a long Wikipedia article) and was most of `extract`'s time,
//! so the elements it would list are computed here instead, and checked against
//! it on the corpus and the recorded fixtures ([`elements`](super::elements) is
//! that tree's path).
//!
//! Roles follow HTML-AAM for the common controls and explicit `role` attributes;
//! names are computed as Chromium does ([`accname`](crate::accname)); the rest of
//! the document behind a modal `<dialog>`, `inert` and `aria-hidden` subtrees list
//! nothing.

use super::accname::{Names, file_value};
use super::dom::{Dom, Kind, Shadow};
use super::elements::{
    Candidate, INTERACTIVE_ROLES, LabelIndex, NAME_MAX_CHARS, NATIVE_INPUT_TYPES, PASSWORD_MASK,
    VALUE_MAX_CHARS, clean, cut_length, exact, is_editing_host, is_password, is_under, is_visible,
    select_options,
};
use browser_bridge_protocol::extract::Checked;

/// Interactive elements of `dom` in document order, like
/// [`interactive_elements`](super::elements::interactive_elements) (not capped yet).
/// `modal_dialog`: [`PageInputs::modal_dialog`](crate::PageInputs::modal_dialog);
/// while a `<dialog>` is open modally the rest of the document is inert, and
/// Chromium's tree holds only the dialog's subtree.
pub fn snapshot_elements(dom: &Dom<'_>, modal_dialog: Option<usize>) -> Vec<Candidate> {
    let modal = modal_dialog.and_then(|k| dialog(dom, k));
    let names = Names::new(dom);
    let labels = LabelIndex::new(dom);
    let mut items = Vec::new();
    let mut order: Vec<usize> = (0..dom.nodes.len()).collect();
    // Unstable with the index as a tie-break: the stable sort's order, and one
    // sort implementation fewer in the wasm.
    order.sort_unstable_by_key(|&i| (dom.nodes[i].order, i));
    for id in order {
        let node = &dom.nodes[id];
        if node.kind != Kind::Element
            || node.layout.is_none()
            || node.order == usize::MAX
            || hidden(dom, id)
            || modal.is_some_and(|m| !is_under(dom, id, m))
        {
            continue;
        }
        let Some(role) = role_of(dom, id) else {
            continue;
        };
        let checked = match role {
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio" => {
                Some(match dom.attr(id, "aria-checked").map(str::trim) {
                    Some("true") => Checked::True,
                    Some("mixed") => Checked::Mixed,
                    Some(_) => Checked::False,
                    None if dom.input_checked(id) => Checked::True,
                    None => Checked::False,
                })
            }
            _ => None,
        };
        let select = select_options(dom, id);
        let whole = match role {
            _ if select.is_some() => None,
            "textbox" | "searchbox" | "combobox" | "spinbutton" | "slider" | "date" | "time"
            | "datetime-local" | "month" | "week" | "color" => dom.input_value(id),
            _ => None,
        };
        // A textarea the snapshot gives no `textValue` for holds its default
        // value, its text; an editor's or a `role=textbox`'s value is its text.
        let text;
        let whole = match whole {
            None if node.tag == "textarea" => {
                text = node
                    .children
                    .iter()
                    .filter(|&&c| dom.nodes[c].kind == Kind::Text)
                    .map(|&c| dom.nodes[c].text)
                    .collect::<String>();
                Some(text.as_str()).filter(|t| !t.is_empty())
            }
            None if role == "textbox" && node.tag != "input" => {
                text = names.text(id);
                Some(text.as_str()).filter(|t| !t.is_empty())
            }
            w => w,
        };
        let whole = if is_password(dom, id) {
            whole.filter(|v| !v.is_empty()).map(|_| PASSWORD_MASK)
        } else {
            whole
        };
        let file =
            (node.tag == "input" && dom.input_type(id) == "file").then(|| file_value(dom, id));
        let value = match (&select, &file) {
            (Some(s), _) => s.value.clone(),
            (None, Some(f)) => exact(f, VALUE_MAX_CHARS),
            (None, None) => whole.and_then(|v| exact(v, VALUE_MAX_CHARS)),
        };
        items.push(Candidate {
            backend_node_id: node.backend_node_id,
            role: role.to_owned(),
            name: names.name(id, role).and_then(|n| clean(&n, NAME_MAX_CHARS)),
            value,
            visible: is_visible(dom, id) || labels.shows(dom, id),
            disabled: dom.attr(id, "disabled").is_some()
                || dom
                    .attr(id, "aria-disabled")
                    .is_some_and(|v| v.trim() == "true"),
            checked,
            href: (role == "link").then(|| dom.attr(id, "href").unwrap_or("").to_owned()),
            node: id,
            options: select.map(|s| s.options),
            multiline: role == "textbox"
                && (node.tag == "textarea"
                    || is_editing_host(dom, id)
                    || dom
                        .attr(id, "aria-multiline")
                        .is_some_and(|v| v.trim() == "true")),
            // Chromium: `readonly` applies to text fields only, not to date,
            // time or colour inputs.
            readonly: ((node.tag == "textarea"
                || (node.tag == "input" && !NATIVE_INPUT_TYPES.contains(&role)))
                && dom.attr(id, "readonly").is_some())
                || dom
                    .attr(id, "aria-readonly")
                    .is_some_and(|v| v.trim() == "true"),
            value_length: whole.and_then(cut_length),
            clickable: false,
            hint: None,
        });
    }
    items
}

/// The HTML-AAM role of an interactive element, `None` for everything else.
fn role_of(dom: &Dom<'_>, id: usize) -> Option<&'static str> {
    if let Some(explicit) = dom
        .attr(id, "role")
        .and_then(|r| r.split_whitespace().next())
    {
        let explicit = explicit.to_ascii_lowercase();
        return INTERACTIVE_ROLES.iter().copied().find(|r| *r == explicit);
    }
    let input_type = || dom.input_type(id);
    match dom.nodes[id].tag.as_str() {
        "a" | "area" if dom.attr(id, "href").is_some() => Some("link"),
        // Chromium makes an anchor with a click listener a link, `href` or not.
        "a" if dom.nodes[id].clickable => Some("link"),
        "button" => Some("button"),
        "summary" => Some("button"),
        "textarea" => Some("textbox"),
        "select" => {
            let size = dom
                .attr(id, "size")
                .and_then(|s| s.trim().parse::<u32>().ok())
                .unwrap_or(0);
            Some(if dom.attr(id, "multiple").is_some() || size > 1 {
                "listbox"
            } else {
                "combobox"
            })
        }
        "input" => match input_type().as_str() {
            "hidden" => None,
            "button" | "submit" | "reset" | "image" => Some("button"),
            "checkbox" => Some("checkbox"),
            "radio" => Some("radio"),
            "range" => Some("slider"),
            "number" => Some("spinbutton"),
            "search" if dom.attr(id, "list").is_none() => Some("searchbox"),
            "file" => Some("button"),
            t => NATIVE_INPUT_TYPES
                .iter()
                .copied()
                .find(|n| *n == t)
                .or(Some(if dom.attr(id, "list").is_some() {
                    "combobox"
                } else {
                    "textbox"
                })),
        },
        _ if is_editing_host(dom, id) => Some("textbox"),
        _ => None,
    }
}

/// The `k`-th `<dialog>` of the main document in document order, as
/// `document.querySelectorAll('dialog')` counts them (not in shadow trees).
fn dialog(dom: &Dom<'_>, k: usize) -> Option<usize> {
    (0..dom.nodes.len())
        .filter(|&i| {
            let n = &dom.nodes[i];
            n.doc == 0 && n.kind == Kind::Element && n.tag == "dialog" && n.shadow.is_none()
        })
        .nth(k)
}

/// Hidden from assistive technology: `aria-hidden`, `inert`, user-agent shadow
/// content, `visibility: hidden`.
fn hidden(dom: &Dom<'_>, id: usize) -> bool {
    if dom.nodes[id].layout.is_some_and(|l| l.invisible) {
        return true;
    }
    let mut at = Some(id);
    while let Some(a) = at {
        let node = &dom.nodes[a];
        if node.shadow == Some(Shadow::UserAgent)
            || (node.kind == Kind::Element
                && (dom
                    .attr(a, "aria-hidden")
                    .is_some_and(|v| v.trim() == "true")
                    || dom.attr(a, "inert").is_some()))
        {
            return true;
        }
        at = node.parent;
    }
    false
}
