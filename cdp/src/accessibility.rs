//! The `Accessibility` domain.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Command;
use crate::dom::BackendNodeId;
use crate::page::FrameId;

/// `Accessibility.getFullAXTree` of one frame. The response shape is the
/// caller's `R` (`browser_bridge_page::snapshot::AxTree`: `{nodes}`), decoded
/// straight from CDP's answer, which runs to megabytes on long pages.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree<R> {
    /// The frame; `None` for the main frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    #[serde(skip)]
    response: PhantomData<fn() -> R>,
}

impl<R> GetFullAxTree<R> {
    /// The tree of `frame_id` (`None`: the main frame).
    pub fn new(frame_id: Option<FrameId>) -> Self {
        GetFullAxTree {
            frame_id,
            response: PhantomData,
        }
    }
}

impl<R: DeserializeOwned> Command for GetFullAxTree<R> {
    const METHOD: &'static str = "Accessibility.getFullAXTree";
    type Response = R;
}

/// `Accessibility.getPartialAXTree` of one node: the node first, then (with
/// `fetch_relatives`) its ancestors, siblings and children.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPartialAxTree {
    /// The node.
    pub backend_node_id: BackendNodeId,
    /// Also its ancestors, siblings and children.
    pub fetch_relatives: bool,
}

/// `Accessibility.getPartialAXTree` → `{nodes}`.
#[derive(Debug, Clone, Deserialize)]
pub struct GetPartialAxTreeResponse {
    /// The nodes, the asked one first.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

impl Command for GetPartialAxTree {
    const METHOD: &'static str = "Accessibility.getPartialAXTree";
    type Response = GetPartialAxTreeResponse;
}

/// `Accessibility.AXNode` (the fields read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// Its id in the AX tree.
    pub node_id: String,
    /// Left out of the tree a screen reader reads (presentational wrappers).
    #[serde(default)]
    pub ignored: bool,
    /// `{value: "button"}`.
    #[serde(default)]
    pub role: Option<AxValue>,
    /// `{value: "Save"}`: the accessible name.
    #[serde(default)]
    pub name: Option<AxValue>,
    /// Its parent's `nodeId`.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// The DOM node it stands for.
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<BackendNodeId>,
}

/// `Accessibility.AXValue` (the value read).
#[derive(Debug, Clone, Deserialize)]
pub struct AxValue {
    /// A string for roles and names.
    #[serde(default)]
    pub value: Value,
}

impl AxValue {
    /// The value as text; empty when it is not a string.
    pub fn text(&self) -> &str {
        self.value.as_str().unwrap_or_default()
    }
}
