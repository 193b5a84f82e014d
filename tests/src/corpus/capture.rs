//! Gathers, straight over CDP, the same inputs the extension's `extract` gathers, and
//! stores them as one JSON file per page so that shaping can be iterated natively.

use anyhow::Result;
use browser_bridge_cdp::gather;
use browser_bridge_cdp::page::FrameId;
use browser_bridge_page::PageInputs;
use browser_bridge_page::snapshot::{AxTree, COMPUTED_STYLES, CapturedSnapshot};
use serde::{Deserialize, Serialize};

use super::cdp::Tab;

/// Everything `extract` reads from one page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capture {
    /// `DOMSnapshot.captureSnapshot` with [`COMPUTED_STYLES`].
    pub snapshot: CapturedSnapshot,
    /// `Accessibility.getFullAXTree`, one per document of the snapshot (same order).
    pub ax_trees: Vec<AxTree>,
    /// `document.body.innerText`.
    pub text: String,
    /// The main document's HTTP status, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The modal `<dialog>`'s index ([`PageInputs::modal_dialog`]), when one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modal_dialog: Option<usize>,
    /// Milliseconds the CDP calls took.
    pub ms: f64,
}

/// Captures the page currently loaded in `tab` with the extension's own gather
/// calls ([`gather`]); every document's tree is asked by its `frameId`, and a tree
/// that fails is empty.
pub async fn capture(tab: &mut Tab) -> Result<Capture> {
    let start = std::time::Instant::now();
    let snapshot: CapturedSnapshot = tab.send(&gather::snapshot(&COMPUTED_STYLES)).await?;
    let mut ax_trees = Vec::new();
    for doc in &snapshot.documents {
        let frame = snapshot.string(doc.frame_id).unwrap_or_default().to_owned();
        let tree: Result<AxTree> = tab.send(&gather::ax_tree(Some(FrameId(frame)))).await;
        ax_trees.push(tree.unwrap_or_default());
    }
    let text = tab.send(&gather::inner_text()).await?.result.value;
    let state = tab.send(&gather::document_state()).await?.result.value;
    let mut read = PageInputs::default();
    read.set_document_state(state.as_ref());
    Ok(Capture {
        status: read.status,
        modal_dialog: read.modal_dialog,
        snapshot,
        ax_trees,
        text: text
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned(),
        ms: start.elapsed().as_secs_f64() * 1000.0,
    })
}

/// A smaller copy for committed fixtures: text-run AX nodes and AX properties other
/// than those shaping reads (`disabled`, `checked`, `editable`, `multiline`,
/// `readonly`) dropped.
pub fn trimmed(mut c: Capture) -> Capture {
    for tree in &mut c.ax_trees {
        tree.nodes.retain(|n| {
            let role = n.role.as_ref().and_then(|r| r.text()).unwrap_or_default();
            !matches!(
                role.as_str(),
                "InlineTextBox" | "StaticText" | "LineBreak" | "ListMarker"
            )
        });
        for n in &mut tree.nodes {
            n.properties.retain(|p| {
                matches!(
                    p.name.as_str(),
                    "disabled" | "checked" | "editable" | "multiline" | "readonly"
                )
            });
        }
    }
    c.ms = 0.0;
    c
}
