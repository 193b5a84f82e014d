//! The `DOM` domain: nodes by `nodeId` / `backendNodeId`, boxes, focus, files.

use serde::{Deserialize, Serialize};

use crate::runtime::{RemoteObject, RemoteObjectId};
use crate::{Command, Empty, id};

id!(
    /// `DOM.NodeId`: a node of the frontend's document tree (0 = none); valid only
    /// while the document that `DOM.getDocument` returned lives.
    NodeId(i64)
);
id!(
    /// `DOM.BackendNodeId`: a node id that does not need the frontend's tree;
    /// stable for the node's lifetime.
    BackendNodeId(i64)
);

/// A node's ids, as `DOM.Node` carries them (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIds {
    /// Frontend id, 0 when the node is not in the frontend's tree.
    #[serde(default)]
    pub node_id: NodeId,
    /// Stable id.
    #[serde(default)]
    pub backend_node_id: BackendNodeId,
}

/// `DOM.getDocument`: the document node, `depth` levels of children (0: none).
#[derive(Debug, Clone, Serialize)]
pub struct GetDocument {
    /// How deep to return children; 0 returns the root only.
    pub depth: i64,
}

/// `DOM.getDocument` → `{root}`.
#[derive(Debug, Clone, Deserialize)]
pub struct GetDocumentResponse {
    /// The document node.
    pub root: NodeIds,
}

impl Command for GetDocument {
    const METHOD: &'static str = "DOM.getDocument";
    type Response = GetDocumentResponse;
}

/// `DOM.querySelector`: the first match of `selector` under `node_id`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelector {
    /// Where to search (the document from [`GetDocument`]).
    pub node_id: NodeId,
    /// CSS selector; CDP fails the command when it does not parse.
    pub selector: String,
}

/// `DOM.querySelector` → `{nodeId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelectorResponse {
    /// The match, `NodeId(0)` when nothing matches.
    pub node_id: NodeId,
}

impl Command for QuerySelector {
    const METHOD: &'static str = "DOM.querySelector";
    type Response = QuerySelectorResponse;
}

/// `DOM.describeNode` of a node given by one of its ids.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode {
    /// The node by frontend id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// The node by its JS handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}

/// `DOM.describeNode` → `{node}`.
#[derive(Debug, Clone, Deserialize)]
pub struct DescribeNodeResponse {
    /// The node.
    pub node: NodeIds,
}

impl Command for DescribeNode {
    const METHOD: &'static str = "DOM.describeNode";
    type Response = DescribeNodeResponse;
}

/// `DOM.resolveNode`: a JS handle for a node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    /// The node; CDP fails the command when it no longer exists.
    pub backend_node_id: BackendNodeId,
}

/// `DOM.resolveNode` → `{object}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ResolveNodeResponse {
    /// The node's JS wrapper.
    pub object: RemoteObject,
}

impl Command for ResolveNode {
    const METHOD: &'static str = "DOM.resolveNode";
    type Response = ResolveNodeResponse;
}

/// `DOM.scrollIntoViewIfNeeded`: scrolls the node into view; fails for a node
/// that is not rendered.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollIntoViewIfNeeded {
    /// The node.
    pub backend_node_id: BackendNodeId,
}

impl Command for ScrollIntoViewIfNeeded {
    const METHOD: &'static str = "DOM.scrollIntoViewIfNeeded";
    type Response = Empty;
}

/// `DOM.getBoxModel`: the node's boxes; fails for a node without a box.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBoxModel {
    /// The node.
    pub backend_node_id: BackendNodeId,
}

/// `DOM.getBoxModel` → `{model}`.
#[derive(Debug, Clone, Deserialize)]
pub struct GetBoxModelResponse {
    /// The box model.
    pub model: BoxModel,
}

impl Command for GetBoxModel {
    const METHOD: &'static str = "DOM.getBoxModel";
    type Response = GetBoxModelResponse;
}

/// `DOM.BoxModel` (the field we read): quads are 8 numbers, the corners'
/// `x, y` clockwise from top left, CSS px relative to the main frame's viewport.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BoxModel {
    /// Content box quad.
    pub content: Vec<f64>,
    /// Border box quad (what an outline goes round).
    #[serde(default)]
    pub border: Vec<f64>,
}

impl BoxModel {
    /// Centre of the content quad (CSS px); `(0, 0)` for a malformed quad.
    pub fn centre(&self) -> (f64, f64) {
        let q = &self.content;
        if q.len() < 8 {
            return (0.0, 0.0);
        }
        (
            (q[0] + q[2] + q[4] + q[6]) / 4.0,
            (q[1] + q[3] + q[5] + q[7]) / 4.0,
        )
    }

    /// Width and height of the content quad's bounding box (CSS px); `(0, 0)` for
    /// a malformed quad.
    pub fn size(&self) -> (f64, f64) {
        let q = &self.content;
        if q.len() < 8 {
            return (0.0, 0.0);
        }
        let span = |values: &mut dyn Iterator<Item = f64>| {
            let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            hi - lo
        };
        (
            span(&mut q.iter().step_by(2).copied()),
            span(&mut q.iter().skip(1).step_by(2).copied()),
        )
    }
}

/// `DOM.getNodeForLocation`: the node at a point, document coordinates.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    /// X (CSS px from the document's left edge).
    pub x: i64,
    /// Y (CSS px from the document's top edge).
    pub y: i64,
    /// Whether to descend into user-agent shadow trees (`<input>` internals).
    #[serde(rename = "includeUserAgentShadowDOM")]
    pub include_user_agent_shadow_dom: bool,
    /// Whether to skip `pointer-events: none` elements, as a click does.
    pub ignore_pointer_events_none: bool,
}

/// `DOM.getNodeForLocation` → `{backendNodeId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocationResponse {
    /// The hit node.
    pub backend_node_id: BackendNodeId,
}

impl Command for GetNodeForLocation {
    const METHOD: &'static str = "DOM.getNodeForLocation";
    type Response = GetNodeForLocationResponse;
}

/// `DOM.getFrameOwner`: the `<iframe>` (or `<frame>`) element that holds a frame,
/// asked of the session whose document holds that element.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwner {
    /// The frame (for an out-of-process iframe, its target's `targetId`).
    pub frame_id: crate::page::FrameId,
}

/// `DOM.getFrameOwner` → `{backendNodeId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwnerResponse {
    /// The frame's owner element.
    pub backend_node_id: BackendNodeId,
}

impl Command for GetFrameOwner {
    const METHOD: &'static str = "DOM.getFrameOwner";
    type Response = GetFrameOwnerResponse;
}

/// `DOM.focus`: focuses the node; fails when it cannot take focus.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Focus {
    /// The node.
    pub backend_node_id: BackendNodeId,
}

impl Command for Focus {
    const METHOD: &'static str = "DOM.focus";
    type Response = Empty;
}

/// `DOM.setFileInputFiles`: sets an `<input type=file>`'s files by path (paths on
/// the browser's machine; an empty list empties the input).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles {
    /// Absolute paths.
    pub files: Vec<String>,
    /// The file input.
    pub backend_node_id: BackendNodeId,
}

impl Command for SetFileInputFiles {
    const METHOD: &'static str = "DOM.setFileInputFiles";
    type Response = Empty;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_use_cdp_names() {
        let v = serde_json::to_value(GetNodeForLocation {
            x: 10,
            y: 20,
            include_user_agent_shadow_dom: false,
            ignore_pointer_events_none: true,
        })
        .unwrap();
        assert_eq!(
            v,
            json!({"x": 10, "y": 20, "includeUserAgentShadowDOM": false, "ignorePointerEventsNone": true})
        );
        let v = serde_json::to_value(DescribeNode {
            object_id: Some(RemoteObjectId("o-1".into())),
            ..DescribeNode::default()
        })
        .unwrap();
        assert_eq!(v, json!({"objectId": "o-1"}));
        assert_eq!(
            serde_json::to_value(Focus {
                backend_node_id: BackendNodeId(7)
            })
            .unwrap(),
            json!({"backendNodeId": 7})
        );
    }

    #[test]
    fn node_ids_default_when_absent() {
        let r: DescribeNodeResponse =
            serde_json::from_value(json!({"node": {"backendNodeId": 5, "nodeName": "A"}})).unwrap();
        assert_eq!(r.node.backend_node_id, BackendNodeId(5));
        assert_eq!(r.node.node_id, NodeId(0));
    }

    #[test]
    fn box_model_centre_and_size() {
        let model = BoxModel {
            content: vec![10.0, 20.0, 110.0, 20.0, 110.0, 70.0, 10.0, 70.0],
            border: Vec::new(),
        };
        assert_eq!(model.centre(), (60.0, 45.0));
        assert_eq!(model.size(), (100.0, 50.0));
        let flat = BoxModel {
            content: vec![5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0],
            border: Vec::new(),
        };
        assert_eq!(flat.size(), (0.0, 0.0));
        let short = BoxModel {
            content: vec![1.0, 2.0],
            border: Vec::new(),
        };
        assert_eq!(short.centre(), (0.0, 0.0));
        assert_eq!(short.size(), (0.0, 0.0));
    }
}
