//! What changed between two extracts of one tab (PROTOCOL.md §6 "Changes"): the
//! `changes` of an observed action and of `extract {since: "last"}`.
//!
//! Elements are matched by uid, which names one node of one document for the life
//! of a session (§6): a uid only in the new extract is `added`, one only in the old
//! is `removed`, one in both whose value, checked, disabled or name differ is
//! `changed`. An extract whose element list was cut at
//! [`ELEMENTS_MAX`](browser_bridge_protocol::extract::ELEMENTS_MAX)
//! (`truncated.elements`) does not list every element on the page, so a uid it
//! lacks is not known to be gone: a diff against it reports no `removed`. Visible text is compared by Markdown line (the markdown stage writes
//! a paragraph, heading, list item or table row on a line of its own): a line of
//! the new markdown that the old one lacks is a new `text` block. Two extracts that share no uid
//! are two documents ([`same_document`]): their diff would be the whole page, so
//! the caller answers `navigated` instead.
//!
//! [`cap`] keeps a diff under [`CHANGES_MAX_BYTES`] by leaving out the least
//! useful entries first and counting them in [`Changes::omitted`].

use std::collections::{HashMap, HashSet};

use browser_bridge_protocol::extract::{CHANGES_MAX_BYTES, Changes, Element};
use browser_bridge_protocol::text::floor_char_boundary;
use browser_bridge_protocol::{ExtractResult, Uid};

mod fields;

use fields::field_free_text;

/// Longest text block kept in [`Changes::text`] (bytes, cut on a char boundary,
/// ending with `…`).
pub const TEXT_BLOCK_MAX_BYTES: usize = 1_000;

/// True when `new` reads the same document as `old`: their URLs agree up to the
/// fragment, or they share a uid. A main-frame navigation gives every element of
/// the new document a new uid (§6), so two extracts of different documents share
/// none; a `history.pushState` route change keeps the document and the uids of
/// what it did not re-render. A page that replaced all its controls in place
/// shares no uid but keeps its URL: a diff (every uid in it stays right, since
/// uids are never reused), not a navigation.
pub fn same_document(old: &ExtractResult, new: &ExtractResult) -> bool {
    if without_fragment(&old.url) == without_fragment(&new.url) {
        return true;
    }
    let old_uids: HashSet<&str> = old.elements.iter().map(|e| e.uid.0.as_str()).collect();
    new.elements
        .iter()
        .any(|e| old_uids.contains(e.uid.0.as_str()))
}

fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(base, _)| base)
}

/// The changes from `old` to `new`, two extracts of one document, uncapped
/// ([`cap`] bounds them). `url` and `title` are set only when they differ.
pub fn diff(old: &ExtractResult, new: &ExtractResult) -> Changes {
    let before: HashMap<&str, &Element> =
        old.elements.iter().map(|e| (e.uid.0.as_str(), e)).collect();
    let now: HashSet<&str> = new.elements.iter().map(|e| e.uid.0.as_str()).collect();
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for element in &new.elements {
        match before.get(element.uid.0.as_str()) {
            None => added.push(element.clone()),
            Some(was) if state_differs(was, element) => changed.push(element.clone()),
            Some(_) => {}
        }
    }
    // A cut list leaves out elements that are still on the page: a uid missing
    // from it is not proof that its element is gone.
    let cut = new.truncated.is_some_and(|t| t.elements);
    let removed: Vec<Uid> = if cut {
        Vec::new()
    } else {
        old.elements
            .iter()
            .filter(|e| !now.contains(e.uid.0.as_str()))
            .map(|e| e.uid.clone())
            .collect()
    };
    Changes {
        navigated: false,
        url: (old.url != new.url).then(|| new.url.clone()),
        title: (old.title != new.title).then(|| new.title.clone()),
        removed,
        text: field_free_text(old, new, &changed, &added),
        added,
        changed,
        omitted: None,
    }
}

/// What a person sees change on a control: its value, checked state, disabled
/// state or accessible name.
fn state_differs(old: &Element, new: &Element) -> bool {
    old.value != new.value
        || old.value_length != new.value_length
        || old.checked != new.checked
        || old.disabled != new.disabled
        || old.name != new.name
}

/// The Markdown lines (trimmed, blank ones skipped) of `new` that `old` does not
/// have, in order, each at most [`TEXT_BLOCK_MAX_BYTES`]; a line repeated in
/// `new` counts as new only for the copies past those `old` had.
fn new_blocks(old: &str, new: &str) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for block in blocks(old) {
        *seen.entry(block).or_default() += 1;
    }
    let mut out = Vec::new();
    for block in blocks(new) {
        match seen.get_mut(block) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(cut_block(block)),
        }
    }
    out
}

fn blocks(markdown: &str) -> impl Iterator<Item = &str> {
    markdown.lines().map(str::trim).filter(|b| !b.is_empty())
}

fn cut_block(block: &str) -> String {
    if block.len() <= TEXT_BLOCK_MAX_BYTES {
        return block.to_owned();
    }
    let end = floor_char_boundary(block, TEXT_BLOCK_MAX_BYTES - '…'.len_utf8());
    format!("{}…", &block[..end])
}

/// Serialised size of `changes` (bytes of compact JSON).
pub fn size(changes: &Changes) -> usize {
    serde_json::to_string(changes).map_or(0, |s| s.len())
}

fn json_len<T: serde::Serialize>(items: &[T]) -> usize {
    serde_json::to_string(items).map_or(0, |s| s.len())
}

/// `changes` cut to at most `max` bytes of JSON ([`CHANGES_MAX_BYTES`] on the
/// wire). Entries are left out from the end of a part, least useful part first:
/// added elements that are not visible, then removed uids, then text blocks and
/// the other added elements (from whichever of the two is larger at the time, so
/// both keep their first entries), then changed elements (the direct effect of an
/// action, kept longest). [`Changes::omitted`] counts what was left out.
pub fn cap(mut changes: Changes, max: usize) -> Changes {
    if size(&changes) <= max {
        return changes;
    }
    let mut omitted = changes.omitted.unwrap_or_default();
    // Hidden added elements go first: move them to the end of `added` so that
    // dropping from the end takes them before the visible ones.
    let (visible, hidden): (Vec<Element>, Vec<Element>) = std::mem::take(&mut changes.added)
        .into_iter()
        .partition(|e| e.visible != Some(false));
    let hidden_count = hidden.len();
    changes.added = visible;
    changes.added.extend(hidden);
    let mut hidden_left = hidden_count;
    loop {
        changes.omitted = Some(omitted);
        if size(&changes) <= max {
            break;
        }
        if hidden_left > 0 {
            changes.added.pop();
            hidden_left -= 1;
            omitted.added += 1;
        } else if changes.removed.pop().is_some() {
            omitted.removed += 1;
        } else if !changes.text.is_empty() || !changes.added.is_empty() {
            if json_len(&changes.text) >= json_len(&changes.added) {
                changes.text.pop();
                omitted.text += 1;
            } else {
                changes.added.pop();
                omitted.added += 1;
            }
        } else if changes.changed.pop().is_some() {
            omitted.changed += 1;
        } else {
            break;
        }
    }
    changes
}

/// [`diff`] then [`cap`] at [`CHANGES_MAX_BYTES`]; [`Changes::navigated`] with the
/// new URL and title instead when the two are not the [`same_document`].
pub fn changes_between(old: &ExtractResult, new: &ExtractResult) -> Changes {
    if !same_document(old, new) {
        return Changes::navigated(&new.url, Some(new.title.clone()));
    }
    cap(diff(old, new), CHANGES_MAX_BYTES)
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;
    use browser_bridge_protocol::extract::{Checked, Truncated};

    use super::*;

    pub(super) fn element(uid: &str, role: &str, name: &str) -> Element {
        Element {
            name: Some(name.into()),
            visible: Some(true),
            ..Element::new(Uid(uid.into()), role)
        }
    }

    pub(super) fn extract(url: &str, markdown: &str, elements: Vec<Element>) -> ExtractResult {
        ExtractResult {
            tab_id: TabId(7),
            url: url.into(),
            title: "Sign up".into(),
            text: String::new(),
            markdown: markdown.into(),
            elements,
            obstacle: None,
            truncated: None,
            part: None,
            parts: None,
            changes: None,
        }
    }

    pub(super) fn form() -> ExtractResult {
        let mut email = element("e3", "textbox", "Email");
        email.value = Some(String::new());
        let mut terms = element("e4", "checkbox", "I accept the terms");
        terms.checked = Some(Checked::False);
        extract(
            "https://shop.test/signup",
            "# Sign up\n\nCreate your account.\n\n- Email\n- Terms",
            vec![
                element("e1", "link", "Home"),
                email,
                terms,
                element("e5", "button", "Create account"),
            ],
        )
    }

    #[test]
    fn an_error_message_and_its_retry_link_are_new() {
        let old = form();
        let mut new = form();
        new.markdown =
            "# Sign up\n\nCreate your account.\n\nEnter a valid email address.\n\n- Email\n- Terms"
                .into();
        new.elements.push(element("e9", "link", "Try again"));
        new.elements.retain(|e| e.uid.0 != "e1");
        let changes = changes_between(&old, &new);
        assert!(!changes.navigated);
        assert_eq!(changes.text, ["Enter a valid email address."]);
        assert_eq!(changes.added.len(), 1);
        assert_eq!(changes.added[0].uid.0, "e9");
        assert_eq!(changes.removed, [Uid("e1".into())]);
        assert!(changes.changed.is_empty());
        assert_eq!(changes.url, None);
        assert_eq!(changes.title, None);
        assert_eq!(changes.omitted, None);
    }

    #[test]
    fn value_checked_disabled_and_name_are_changes_visibility_is_not() {
        let old = form();
        let mut new = form();
        new.elements[1].value = Some("ada@example.test".into());
        new.elements[2].checked = Some(Checked::True);
        new.elements[3].disabled = Some(true);
        new.elements[0].visible = Some(false);
        let changes = diff(&old, &new);
        let uids: Vec<&str> = changes.changed.iter().map(|e| e.uid.0.as_str()).collect();
        assert_eq!(uids, ["e3", "e4", "e5"]);
        assert_eq!(
            changes.changed[0].value.as_deref(),
            Some("ada@example.test")
        );
        assert!(changes.added.is_empty() && changes.removed.is_empty());
        assert!(changes.text.is_empty());

        let mut renamed = form();
        renamed.elements[3].name = Some("Creating…".into());
        assert_eq!(diff(&old, &renamed).changed[0].uid.0, "e5");
        assert!(diff(&old, &old).is_empty());
    }

    #[test]
    fn a_route_change_keeps_the_document_and_reports_url_and_title() {
        let old = form();
        let mut new = form();
        new.url = "https://shop.test/signup/step-2".into();
        new.title = "Step 2".into();
        new.markdown = "# Sign up\n\nStep 2: your address.".into();
        new.elements.truncate(1);
        new.elements.push(element("e12", "textbox", "Street"));
        assert!(same_document(&old, &new));
        let changes = changes_between(&old, &new);
        assert!(!changes.navigated);
        assert_eq!(
            changes.url.as_deref(),
            Some("https://shop.test/signup/step-2")
        );
        assert_eq!(changes.title.as_deref(), Some("Step 2"));
        assert_eq!(changes.text, ["Step 2: your address."]);
        assert_eq!(changes.removed.len(), 3);
        assert_eq!(changes.added[0].uid.0, "e12");
    }

    #[test]
    fn no_shared_uid_is_another_document() {
        let old = form();
        let new = extract(
            "https://shop.test/welcome",
            "# Welcome",
            vec![element("e20", "link", "Home")],
        );
        assert!(!same_document(&old, &new));
        let changes = changes_between(&old, &new);
        assert!(changes.navigated);
        assert_eq!(changes.url.as_deref(), Some("https://shop.test/welcome"));
        assert!(changes.added.is_empty() && changes.text.is_empty());

        // Same URL, every control replaced in place: still a diff.
        let mut replaced = form();
        replaced.elements = vec![element("e30", "button", "Write another message")];
        assert!(same_document(&old, &replaced));
        assert_eq!(changes_between(&old, &replaced).removed.len(), 4);

        // Without elements, the URL decides (a fragment is the same document).
        let blank = extract("https://shop.test/a#top", "", vec![]);
        assert!(same_document(
            &blank,
            &extract("https://shop.test/a", "x", vec![])
        ));
        assert!(!same_document(
            &blank,
            &extract("https://shop.test/b", "x", vec![])
        ));
    }

    #[test]
    fn a_cut_element_list_removes_nothing() {
        let old = form();
        let mut new = form();
        // The list was cut: e1 and e3 fell past the cap, they are not gone.
        new.elements.retain(|e| e.uid.0 != "e1" && e.uid.0 != "e3");
        new.elements.push(element("e9", "button", "Add item"));
        new.truncated = Some(Truncated {
            elements: true,
            ..Truncated::default()
        });
        let changes = diff(&old, &new);
        assert!(changes.removed.is_empty(), "{changes:?}");
        assert_eq!(changes.added[0].uid.0, "e9");
        // A cut baseline against a whole list: what the whole list lacks is gone.
        let mut whole = form();
        whole.elements.retain(|e| e.uid.0 != "e1");
        assert_eq!(diff(&new, &whole).removed, [Uid("e9".into())]);
        assert_eq!(diff(&old, &whole).removed, [Uid("e1".into())]);
    }

    #[test]
    fn repeated_blocks_count_past_the_old_copies_and_long_blocks_are_cut() {
        let old = extract("https://a.test/", "Saved.\n\nIntro", vec![]);
        let long = "x".repeat(3_000);
        let new = extract(
            "https://a.test/",
            &format!("Saved.\n\nIntro\n\nSaved.\n\n{long}"),
            vec![],
        );
        let text = diff(&old, &new).text;
        assert_eq!(text[0], "Saved.");
        assert!(text[1].len() <= TEXT_BLOCK_MAX_BYTES && text[1].ends_with('…'));
    }

    #[test]
    fn the_cap_drops_hidden_then_removed_then_text_then_added_and_counts_them() {
        let old = extract(
            "https://a.test/",
            "Intro",
            (0..60)
                .map(|i| element(&format!("e{i}"), "link", "Old"))
                .collect(),
        );
        let mut elements: Vec<Element> = vec![element("e0", "link", "Old")];
        for i in 100..160 {
            let mut e = element(&format!("e{i}"), "button", &format!("Add item {i}"));
            e.visible = Some(i % 2 == 0);
            elements.push(e);
        }
        elements[0].name = Some("Renamed".into());
        let markdown = (0..80)
            .map(|i| format!("New paragraph number {i} of the results."))
            .collect::<Vec<_>>()
            .join("\n\n");
        let new = extract("https://a.test/", &markdown, elements);
        let full = diff(&old, &new);
        assert!(size(&full) > CHANGES_MAX_BYTES);
        let capped = changes_between(&old, &new);
        assert!(size(&capped) <= CHANGES_MAX_BYTES, "{}", size(&capped));
        let omitted = capped.omitted.expect("says what it left out");
        // The changed element is kept, every hidden one and every removed uid went first.
        assert_eq!(capped.changed.len(), 1);
        assert!(capped.added.iter().all(|e| e.visible == Some(true)));
        assert_eq!(omitted.removed, 59);
        assert!(capped.removed.is_empty());
        assert!(omitted.text > 0 && !capped.text.is_empty());
        assert!(omitted.added > 30 && !capped.added.is_empty());
        assert_eq!(
            capped.added.len() + omitted.added as usize,
            full.added.len()
        );
        assert_eq!(capped.text.len() + omitted.text as usize, full.text.len());
        // Whatever text survived is the first blocks, in order.
        assert!(capped.text.iter().zip(&full.text).all(|(a, b)| a == b));
    }
}
