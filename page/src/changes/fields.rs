//! The fields' values in a diff's text (PROTOCOL.md §6 "Changes"): the markdown
//! shows a text field's value fenced where the field is, and its element line
//! shows it too, so the changes say it once, on the element.

use std::collections::HashSet;

use browser_bridge_protocol::ExtractResult;
use browser_bridge_protocol::extract::Element;

use super::{blocks, new_blocks};

/// The new text of `new` against `old`, without the fenced values (PROTOCOL.md
/// §6) that an element line of `changed` or `added` shows whole, nor the text
/// beside such a field that only its block had split off: the model reads the
/// value on the element. A value cut on its element keeps its block, the only
/// place it is whole.
pub(super) fn field_free_text(
    old: &ExtractResult,
    new: &ExtractResult,
    changed: &[Element],
    added: &[Element],
) -> Vec<String> {
    let uids: HashSet<&str> = changed.iter().map(|e| e.uid.0.as_str()).collect();
    // The baseline's copies of the changed fields: their old values' blocks go
    // too, so a cleared field rejoins the same line as before it was filled.
    let was = whole_values(
        old.elements
            .iter()
            .filter(|e| uids.contains(e.uid.0.as_str())),
    );
    let old_markdown = without_values(&old.markdown, &was, &new.markdown);
    let now = whole_values(changed.iter().chain(added));
    new_blocks(
        &old_markdown,
        &without_values(&new.markdown, &now, &old_markdown),
    )
}

/// The whole values (as trimmed non-blank lines) of `elements`: those without
/// `valueLength`, which their element line shows in full.
fn whole_values<'e>(elements: impl Iterator<Item = &'e Element>) -> Vec<Vec<&'e str>> {
    elements
        .filter(|e| e.value_length.is_none())
        .filter_map(|e| e.value.as_deref())
        .map(|v| blocks(v).collect::<Vec<_>>())
        .filter(|lines| !lines.is_empty())
        .collect()
}

/// `markdown` without the fenced blocks that show one of `values` (PROTOCOL.md
/// §6: a textarea's value is in the markdown where the field is). A field inside
/// a line splits it around its block, so the text on either side is rejoined
/// when `other` (the other extract's markdown) has the rejoined line or a line
/// that starts with it: a value typed into or cleared from such a field is then
/// no new text around it either.
fn without_values(markdown: &str, values: &[Vec<&str>], other: &str) -> String {
    if values.is_empty() {
        return markdown.to_owned();
    }
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        let close = line
            .strip_suffix("text")
            .filter(|fence| fence.len() >= 3 && fence.bytes().all(|b| b == b'`'))
            .and_then(|fence| (i + 1..lines.len()).find(|&j| lines[j].trim() == fence));
        let Some(close) = close else {
            out.push(lines[i].to_owned());
            i += 1;
            continue;
        };
        let inside: Vec<&str> = lines[i + 1..close]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        if !values.contains(&inside) {
            out.push(lines[i].to_owned());
            i += 1;
            continue;
        }
        i = close + 1;
        let before = out.iter().rposition(|l| !l.trim().is_empty());
        let after = (i..lines.len()).find(|&k| !lines[k].trim().is_empty());
        if let (Some(p), Some(k)) = (before, after) {
            let joined = format!("{} {}", out[p].trim(), lines[k].trim());
            if blocks(other).any(|b| {
                b.strip_prefix(joined.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            }) {
                out.truncate(p);
                out.push(joined);
                i = k + 1;
            }
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::diff;
    use super::super::tests::{element, extract, form};

    #[test]
    fn a_field_value_its_element_line_carries_whole_is_no_new_text() {
        let mut old = form();
        let mut notes = element("e6", "textbox", "Notes");
        notes.multiline = Some(true);
        old.elements.push(notes);
        let mut new = old.clone();
        new.elements[4].value = Some("Leave it at\nthe door".into());
        new.markdown = format!(
            "{}\n\n```text\nLeave it at\nthe door\n```\n\nSaved as draft.",
            old.markdown
        );
        let changes = diff(&old, &new);
        assert_eq!(changes.changed.len(), 1);
        assert_eq!(changes.text, ["Saved as draft."]);

        // Cut on its element line, the value's block is the only whole copy.
        new.elements[4].value = Some("Leave it…".into());
        new.elements[4].value_length = Some(21);
        let changes = diff(&old, &new);
        assert_eq!(
            changes.text,
            [
                "```text",
                "Leave it at",
                "the door",
                "```",
                "Saved as draft."
            ]
        );

        // Page text that reads like the value is no field's block: it stays.
        new.elements[4].value = Some("Leave it at\nthe door".into());
        new.elements[4].value_length = None;
        new.markdown = format!("{}\n\nLeave it at\n\nthe door", old.markdown);
        let changes = diff(&old, &new);
        assert_eq!(changes.text, ["Leave it at", "the door"]);
    }

    #[test]
    fn a_field_inside_a_line_is_typed_into_changed_and_cleared_without_new_text() {
        let fields = |message: &str, echo: &str| {
            let mut a = element("e2", "textbox", "Message");
            a.value = Some(message.into());
            let mut b = element("e3", "textbox", "Echo");
            b.value = Some(echo.into());
            let fence = |v: &str| {
                if v.is_empty() {
                    " ".to_owned()
                } else {
                    format!("\n\n```text\n{v}\n```\n\n")
                }
            };
            extract(
                "https://shop.test/notes",
                &format!(
                    "# Notes\n\nMessage{}Address{}Echo",
                    fence(message),
                    fence(echo)
                )
                .replace("\n\n\n", "\n\n"),
                vec![a, b],
            )
        };
        let empty = fields("", "");
        for (old, new) in [
            (&empty, &fields("Hi", "")),
            (&empty, &fields("Hi", "Ho")),
            (&fields("Hi", ""), &fields("Hey", "")),
            (&fields("Hi", "Ho"), &empty),
        ] {
            let changes = diff(old, new);
            assert!(!changes.changed.is_empty());
            assert!(
                changes.text.is_empty(),
                "{:?} → {:?}: {:?}",
                old.markdown,
                new.markdown,
                changes.text
            );
        }
        // Page text beside the field that is really new stays new.
        let mut more = fields("Hi", "");
        more.markdown.push_str("\n\nSaved.");
        assert_eq!(diff(&empty, &more).text, ["Saved."]);
    }
}
