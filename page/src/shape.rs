//! The whole pure half of `extract` (PROTOCOL.md §6, §8): from what CDP returned to
//! the [`ExtractResult`], with uids from the tab's [`UidCache`].

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::clickable::with_clickables;
use super::content::{analyse, visible_only};
use super::dom::{Dom, Kind};
use super::elements::{Candidate, cap, interactive_elements, is_under};
use super::fallback::snapshot_elements;
use super::markdown::{content_blocks, join_blocks, render, split_parts};
use super::query::{element_holds, needle, query_blocks};
use super::scope::{find_node, scope_root};
use super::snapshot::{AxTree, CapturedSnapshot};
use super::uids::{UidCache, stale_error};
use super::url;
use super::view::page_view;
use crate::obstacle::{ObstacleInput, detect_obstacle, is_captcha_frame_url};
use browser_bridge_protocol::BridgeError;
use browser_bridge_protocol::action::Extract;
use browser_bridge_protocol::extract::{
    Element, ExtractResult, MARKDOWN_MAX_BYTES, TEXT_MAX_BYTES, Truncated,
};
use browser_bridge_protocol::ids::TabId;
use browser_bridge_protocol::text::truncate_bytes;

/// Everything `extract` gathers through CDP, in three kinds of call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInputs {
    /// `DOMSnapshot.captureSnapshot` with
    /// [`COMPUTED_STYLES`](super::snapshot::COMPUTED_STYLES).
    pub snapshot: CapturedSnapshot,
    /// `Accessibility.getFullAXTree` of each document's frame (any order), only in
    /// corpus captures and tests: the extension sends none, and elements then come
    /// from the snapshot alone (`fallback`), which gives the same.
    pub ax_trees: Vec<AxTree>,
    /// `document.body.innerText`.
    pub text: String,
    /// HTTP status of the main document (`PerformanceNavigationTiming.responseStatus`),
    /// when the extension gathered it; 0 or absent = unknown (§8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The `<dialog>` open modally (`dialog:modal`; the last when several), as its
    /// index among the main document's `document.querySelectorAll('dialog')`:
    /// the rest of the document is inert and lists no element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modal_dialog: Option<usize>,
}

impl PageInputs {
    /// Sets [`PageInputs::status`] and [`PageInputs::modal_dialog`] from the
    /// value of `gather::DOCUMENT_STATE` (`[status, modal dialog index]`, 0 and
    /// -1 for none); anything else leaves both unknown.
    pub fn set_document_state(&mut self, value: Option<&serde_json::Value>) {
        let state = value.and_then(|v| v.as_array());
        let at = |i: usize| state.and_then(|s| s.get(i)).and_then(|v| v.as_u64());
        self.status = at(0)
            .and_then(|s| u16::try_from(s).ok())
            .filter(|&s| s != 0);
        self.modal_dialog = at(1).and_then(|m| usize::try_from(m).ok());
    }
}

/// Shapes `inputs` into the `extract` result of `tab`, numbering new elements
/// through `uids` (known nodes keep their uid): [`shape_extract_with`] without
/// options.
pub fn shape_extract(tab: TabId, inputs: &PageInputs, uids: &mut UidCache) -> ExtractResult {
    match shape_extract_with(tab, inputs, uids, &Extract::default()) {
        Ok(result) => result,
        Err(_) => unreachable!("only the options of an extract can fail"),
    }
}

/// Shapes `inputs` into the `extract` result of `tab` with the options of
/// `extract` (§6 "Options"): `scope` ([`scope`](crate::scope)), then `query`
/// ([`query`](crate::query)), then `part` ([`split_parts`]). The obstacle is
/// always detected on the whole page. Every element listed keeps the uid it has,
/// and the elements of the whole page are numbered first, so a scoped or queried
/// extract hands out the uids a whole one would.
///
/// # Errors
/// For `scope`, `element_not_found` (never issued) or `element_stale` (issued
/// before the document changed, or its node is gone); `invalid_action` for a
/// `part` past the last, naming how many parts there are.
pub fn shape_extract_with(
    tab: TabId,
    inputs: &PageInputs,
    uids: &mut UidCache,
    options: &Extract,
) -> Result<ExtractResult, BridgeError> {
    let dom = Dom::new(&inputs.snapshot);
    let scope = match &options.scope {
        Some(uid) => {
            let id = uids.resolve(uid)?;
            let node = find_node(&dom, id).ok_or_else(|| stale_error(uid))?;
            Some(scope_root(&dom, node))
        }
        None => None,
    };
    let needle = options.query.as_deref().map(needle);
    let (url, title) = url_and_title(&inputs.snapshot);
    let content = analyse(&dom);
    let blocks = content_blocks(&dom, &content);
    let markdown = join_blocks(&blocks, MARKDOWN_MAX_BYTES);
    // The extension (wasm) sends no tree and lists what the snapshot gives;
    // natively a capture's trees still list Chromium's, for the comparisons.
    let tree =
        cfg!(not(target_arch = "wasm32")) && inputs.ax_trees.iter().any(|t| !t.nodes.is_empty());
    let listed = if tree {
        interactive_elements(&dom, inputs.ax_trees.iter().flat_map(|t| t.nodes.iter()))
    } else {
        snapshot_elements(&dom, inputs.modal_dialog)
    };
    let listed = with_clickables(&dom, listed, content.root);
    let shaping = scope.is_some() || needle.is_some();
    let chosen = shaping.then(|| {
        listed
            .iter()
            .filter(|c| scope.is_none_or(|root| is_under(&dom, c.node, root)))
            .filter(|c| needle.as_deref().is_none_or(|n| element_holds(c, n)))
            .cloned()
            .collect::<Vec<_>>()
    });
    let found = cap(&dom, listed, content.root);
    let page_elements = elements_of(&dom, found.items, uids);
    let (text, text_cut) = truncate_bytes(&inputs.text, TEXT_MAX_BYTES);
    let obstacle = detect_obstacle(&ObstacleInput {
        url: &url,
        title: &title,
        markdown: &markdown.text,
        elements: &page_elements,
        captcha_frame: has_captcha_frame(&dom),
        status: inputs.status.filter(|&s| s != 0),
        view: &page_view(&dom),
    });
    let (elements, elements_cut) = match chosen {
        Some(chosen) => {
            let found = cap(&dom, chosen, scope.unwrap_or(content.root));
            (elements_of(&dom, found.items, uids), found.truncated)
        }
        None => (page_elements, found.truncated),
    };
    let shaped_blocks;
    let (blocks, markdown) = if shaping {
        let mut shaped = match scope {
            Some(root) => render(&dom, &visible_only(&dom, root), root),
            None => blocks,
        };
        if let Some(needle) = &needle {
            shaped = query_blocks(&shaped, needle);
        }
        let markdown = join_blocks(&shaped, MARKDOWN_MAX_BYTES);
        shaped_blocks = shaped;
        (&shaped_blocks, markdown)
    } else {
        shaped_blocks = blocks;
        (&shaped_blocks, markdown)
    };
    let (whole, ranges) = split_parts(blocks, MARKDOWN_MAX_BYTES);
    let count = u32::try_from(ranges.len()).unwrap_or(u32::MAX);
    let (markdown, markdown_cut, part, parts) = match options.part {
        Some(n) => {
            let range = usize::try_from(n)
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| ranges.get(i))
                .ok_or_else(|| {
                    BridgeError::invalid_action(format!(
                        "extract: part {n} is out of range: the markdown has {count} part{}; \
                         ask for part 1 to {count}",
                        if count == 1 { "" } else { "s" }
                    ))
                })?;
            (whole[range.clone()].to_owned(), false, Some(n), Some(count))
        }
        None => (
            markdown.text,
            markdown.truncated,
            None,
            (count > 1).then_some(count),
        ),
    };
    Ok(ExtractResult {
        tab_id: tab,
        url,
        title,
        text: text.to_owned(),
        markdown,
        elements,
        obstacle,
        truncated: Truncated {
            text: text_cut,
            markdown: markdown_cut,
            elements: elements_cut,
        }
        .into_option(),
        part,
        parts,
        changes: None,
    })
}

/// The wire elements of `items` (in document order), numbered through `uids`.
fn elements_of(dom: &Dom<'_>, items: Vec<Candidate>, uids: &mut UidCache) -> Vec<Element> {
    let ids: Vec<i64> = items.iter().map(|c| c.backend_node_id).collect();
    let origins = frame_origins(dom, &ids);
    let assigned = uids.assign(&ids);
    items
        .into_iter()
        .zip(assigned)
        .zip(origins)
        .map(|((c, uid), frame_origin)| Element {
            uid,
            role: c.role,
            name: c.name,
            value: c.value,
            visible: Some(c.visible),
            disabled: c.disabled.then_some(true),
            checked: c.checked,
            multiline: c.multiline.then_some(true),
            readonly: c.readonly.then_some(true),
            options: c.options,
            frame_origin,
            value_length: c.value_length.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            clickable: c.clickable.then_some(true),
            hint: c.hint,
        })
        .collect()
}

/// For each node of `ids`, the origin of its iframe document (`None` in the main
/// document), see [`url::origin`].
fn frame_origins(dom: &Dom<'_>, ids: &[i64]) -> Vec<Option<String>> {
    let docs: HashMap<i64, usize> = dom
        .nodes
        .iter()
        .filter(|n| n.doc != 0)
        .map(|n| (n.backend_node_id, n.doc))
        .collect();
    ids.iter()
        .map(|id| {
            docs.get(id)
                .and_then(|&doc| url::origin(dom.document_url(doc)))
        })
        .collect()
}

/// The main document's URL and title.
pub fn url_and_title(snapshot: &CapturedSnapshot) -> (String, String) {
    let Some(doc) = snapshot.documents.first() else {
        return (String::new(), String::new());
    };
    let get = |i| snapshot.string(i).unwrap_or("").to_owned();
    (get(doc.document_url), get(doc.title).trim().to_owned())
}

/// A known challenge iframe a person can see: an `<iframe>` with a layout box that
/// is not hidden, whose `src` (or same-origin content document) is a captcha host
/// (cross-origin frames are not in the snapshot, but their element is). Invisible
/// challenges (`size=invisible`, reCAPTCHA v3's badge) do not count: they ask the
/// person nothing.
pub fn has_captcha_frame(dom: &Dom<'_>) -> bool {
    dom.nodes.iter().enumerate().any(|(id, n)| {
        if n.kind != Kind::Element || n.tag != "iframe" {
            return false;
        }
        let shown = n
            .layout
            .is_some_and(|l| !l.invisible && !l.transparent && !l.is_tiny());
        let src = dom
            .attr(id, "src")
            .map(|src| url::resolve(dom.base_url(n.doc), src))
            .or_else(|| {
                n.content_doc
                    .map(|d| dom.document_url(dom.nodes[d].doc).to_owned())
            })
            .unwrap_or_default();
        shown && is_captcha_frame_url(&src) && !src.to_lowercase().contains("size=invisible")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_inputs_give_an_empty_extract() {
        let result = shape_extract(TabId(4), &PageInputs::default(), &mut UidCache::new());
        assert_eq!(result.tab_id, TabId(4));
        assert_eq!((result.url.as_str(), result.markdown.as_str()), ("", ""));
        assert!(result.elements.is_empty());
        assert_eq!(result.obstacle, None);
        assert_eq!(result.truncated, None);
    }
}
