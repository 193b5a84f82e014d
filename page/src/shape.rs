//! The whole pure half of `extract` (PROTOCOL.md §6, §8): from what CDP returned to
//! the [`ExtractResult`], with uids from the tab's [`UidCache`].

use serde::{Deserialize, Serialize};

use super::content::analyse;
use super::dom::{Dom, Kind};
use super::elements::interactive_elements;
use super::fallback::snapshot_elements;
use super::markdown::content_markdown;
use super::snapshot::{AxTree, CapturedSnapshot};
use super::uids::UidCache;
use super::url;
use super::view::page_view;
use crate::obstacle::{ObstacleInput, detect_obstacle, is_captcha_frame_url};
use browser_bridge_protocol::extract::{Element, ExtractResult, TEXT_MAX_BYTES, Truncated};
use browser_bridge_protocol::ids::TabId;
use browser_bridge_protocol::text::truncate_bytes;

/// Everything `extract` gathers through CDP, in three kinds of call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInputs {
    /// `DOMSnapshot.captureSnapshot` with
    /// [`COMPUTED_STYLES`](super::snapshot::COMPUTED_STYLES).
    pub snapshot: CapturedSnapshot,
    /// `Accessibility.getFullAXTree` of each document's frame (any order); empty when
    /// the tree could not be had, and elements then come from the snapshot alone.
    pub ax_trees: Vec<AxTree>,
    /// `document.body.innerText`.
    pub text: String,
    /// HTTP status of the main document (`PerformanceNavigationTiming.responseStatus`),
    /// when the extension gathered it; 0 or absent = unknown (§8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// Shapes `inputs` into the `extract` result of `tab`, numbering new elements
/// through `uids` (known nodes keep their uid).
pub fn shape_extract(tab: TabId, inputs: &PageInputs, uids: &mut UidCache) -> ExtractResult {
    let dom = Dom::new(&inputs.snapshot);
    let (url, title) = url_and_title(&inputs.snapshot);
    let content = analyse(&dom);
    let markdown = content_markdown(&dom, &content);
    // Without an accessibility tree (it timed out on a huge page), the snapshot alone.
    let found = if inputs.ax_trees.iter().all(|t| t.nodes.is_empty()) {
        snapshot_elements(&dom, content.root)
    } else {
        interactive_elements(
            &dom,
            inputs.ax_trees.iter().flat_map(|t| t.nodes.iter()),
            content.root,
        )
    };
    let ids: Vec<i64> = found.items.iter().map(|c| c.backend_node_id).collect();
    let assigned = uids.assign(&ids);
    let elements: Vec<Element> = found
        .items
        .into_iter()
        .zip(assigned)
        .map(|(c, uid)| Element {
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
        })
        .collect();
    let (text, text_cut) = truncate_bytes(&inputs.text, TEXT_MAX_BYTES);
    let obstacle = detect_obstacle(&ObstacleInput {
        url: &url,
        title: &title,
        markdown: &markdown.text,
        elements: &elements,
        captcha_frame: has_captcha_frame(&dom),
        status: inputs.status.filter(|&s| s != 0),
        view: &page_view(&dom),
    });
    ExtractResult {
        tab_id: tab,
        url,
        title,
        text: text.to_owned(),
        markdown: markdown.text,
        elements,
        obstacle,
        truncated: Truncated {
            text: text_cut,
            markdown: markdown.truncated,
            elements: found.truncated,
        }
        .into_option(),
    }
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
