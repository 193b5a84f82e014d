//! A compact, serde-deserialisable view of what `extract` gathers through CDP:
//! `DOMSnapshot.captureSnapshot` (with [`COMPUTED_STYLES`]) and
//! `Accessibility.getFullAXTree` (one call per same-origin frame). Only the fields the
//! shaping uses are declared; everything else in the CDP answer is ignored, so the
//! types deserialise the raw CDP JSON (or a `JsValue` through serde-wasm-bindgen).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `computedStyles` to pass to `DOMSnapshot.captureSnapshot`, in this order:
/// [`LayoutTree::styles`] holds one string index per entry, in the same order.
/// New entries go at the end: captures made before them hold fewer.
pub const COMPUTED_STYLES: [&str; 9] = [
    "display",
    "visibility",
    "position",
    "opacity",
    "overflow-x",
    "overflow-y",
    "float",
    "cursor",
    "text-transform",
];

/// Index of each computed style in a layout node's `styles` entry.
pub mod style {
    /// `display`.
    pub const DISPLAY: usize = 0;
    /// `visibility`.
    pub const VISIBILITY: usize = 1;
    /// `position`.
    pub const POSITION: usize = 2;
    /// `opacity`.
    pub const OPACITY: usize = 3;
    /// `overflow-x`.
    pub const OVERFLOW_X: usize = 4;
    /// `overflow-y`.
    pub const OVERFLOW_Y: usize = 5;
    /// `float`.
    pub const FLOAT: usize = 6;
    /// `cursor` (inherited: a pointer element's children are `pointer` too).
    pub const CURSOR: usize = 7;
    /// `text-transform` (Chromium's accessible names are the text as shown).
    pub const TEXT_TRANSFORM: usize = 8;
}

/// `DOMSnapshot.captureSnapshot` result: one document per frame (main frame first,
/// then same-origin iframes, whose `<iframe>` nodes point at them through
/// `contentDocumentIndex`), and the shared string table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapturedSnapshot {
    /// Documents, main frame first.
    pub documents: Vec<DocumentSnapshot>,
    /// String table; every `*Index` field indexes it (`-1` = absent).
    pub strings: Vec<String>,
}

impl CapturedSnapshot {
    /// Nodes in every document.
    pub fn node_count(&self) -> usize {
        self.documents.iter().map(|d| d.nodes.node_type.len()).sum()
    }

    /// The string at `index`, `None` for `-1` or out of range.
    pub fn string(&self, index: i64) -> Option<&str> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(String::as_str)
    }
}

/// One frame's document (CDP `DOMSnapshot.DocumentSnapshot`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSnapshot {
    /// String index of the document URL.
    #[serde(rename = "documentURL", default = "absent")]
    pub document_url: i64,
    /// String index of `document.title`.
    #[serde(default = "absent")]
    pub title: i64,
    /// String index of the base URL that relative links resolve against.
    #[serde(rename = "baseURL", default = "absent")]
    pub base_url: i64,
    /// String index of the CDP frame id (for `Accessibility.getFullAXTree`).
    #[serde(default = "absent")]
    pub frame_id: i64,
    /// The DOM in flat-tree order: shadow content under its host, slotted nodes under
    /// their slot.
    pub nodes: NodeTree,
    /// Nodes that have a layout object (rendered), with bounds and styles.
    pub layout: LayoutTree,
    /// Horizontal scroll offset, CSS px.
    #[serde(default)]
    pub scroll_offset_x: f64,
    /// Vertical scroll offset, CSS px.
    #[serde(default)]
    pub scroll_offset_y: f64,
    /// Document content width, CSS px.
    #[serde(default)]
    pub content_width: f64,
    /// Document content height, CSS px.
    #[serde(default)]
    pub content_height: f64,
}

fn absent() -> i64 {
    -1
}

/// Node arrays of one document (CDP `DOMSnapshot.NodeTreeSnapshot`), all indexed by
/// node index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeTree {
    /// Parent node index, `-1` for the document.
    #[serde(default)]
    pub parent_index: Vec<i64>,
    /// DOM `nodeType` (1 element, 3 text, 9 document).
    #[serde(default)]
    pub node_type: Vec<i64>,
    /// For nodes inside a shadow tree, its kind (`open`, `closed`, `user-agent`).
    #[serde(default)]
    pub shadow_root_type: RareString,
    /// String index of `nodeName` (upper-case for HTML elements).
    #[serde(default)]
    pub node_name: Vec<i64>,
    /// String index of `nodeValue` (text of text nodes).
    #[serde(default)]
    pub node_value: Vec<i64>,
    /// CDP `backendNodeId`.
    #[serde(default)]
    pub backend_node_id: Vec<i64>,
    /// Attributes as flat `[name, value, name, value…]` string indexes.
    #[serde(default)]
    pub attributes: Vec<Vec<i64>>,
    /// Current value of inputs.
    #[serde(default)]
    pub input_value: RareString,
    /// Current value of textareas.
    #[serde(default)]
    pub text_value: RareString,
    /// Checked radios and checkboxes.
    #[serde(default)]
    pub input_checked: RareBoolean,
    /// Selected `<option>`s.
    #[serde(default)]
    pub option_selected: RareBoolean,
    /// Index into `documents` of an iframe's content document.
    #[serde(default)]
    pub content_document_index: RareInteger,
    /// Pseudo element kind (`before`, `after`, `marker`…) for pseudo-element nodes.
    #[serde(default)]
    pub pseudo_type: RareString,
    /// Nodes that respond to mouse clicks: a `click`, `mousedown` or `mouseup`
    /// listener (an `onclick` attribute included), a link, an editable node.
    #[serde(default)]
    pub is_clickable: RareBoolean,
}

/// Layout objects of one document (CDP `DOMSnapshot.LayoutTreeSnapshot`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutTree {
    /// Node index of each layout object.
    #[serde(default)]
    pub node_index: Vec<i64>,
    /// String indexes of [`COMPUTED_STYLES`], per layout object.
    #[serde(default)]
    pub styles: Vec<Vec<i64>>,
    /// `[x, y, width, height]` in document CSS px, per layout object.
    #[serde(default)]
    pub bounds: Vec<Vec<f64>>,
}

/// Sparse string data: `value[k]` belongs to node `index[k]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RareString {
    /// Node indexes.
    #[serde(default)]
    pub index: Vec<i64>,
    /// String indexes.
    #[serde(default)]
    pub value: Vec<i64>,
}

/// Sparse boolean data: the listed nodes are `true`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RareBoolean {
    /// Node indexes.
    #[serde(default)]
    pub index: Vec<i64>,
}

/// Sparse integer data: `value[k]` belongs to node `index[k]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RareInteger {
    /// Node indexes.
    #[serde(default)]
    pub index: Vec<i64>,
    /// Values.
    #[serde(default)]
    pub value: Vec<i64>,
}

/// `Accessibility.getFullAXTree` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AxTree {
    /// Every node of the frame's tree.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

/// One accessibility node (CDP `Accessibility.AXNode`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// Ignored nodes are not exposed to assistive technology (hidden, presentational).
    #[serde(default)]
    pub ignored: bool,
    /// Role (`button`, `link`, `textbox`, …).
    #[serde(default)]
    pub role: Option<AxValue>,
    /// Accessible name.
    #[serde(default)]
    pub name: Option<AxValue>,
    /// Current value.
    #[serde(default)]
    pub value: Option<AxValue>,
    /// States: `disabled`, `checked`, `focusable`, …
    #[serde(default)]
    pub properties: Vec<AxProperty>,
    /// The DOM node behind this AX node.
    #[serde(rename = "backendDOMNodeId", default)]
    pub backend_dom_node_id: Option<i64>,
}

/// A typed AX value; `value` is a string, number, boolean or token.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AxValue {
    /// The value's type (`role`, `computedString`, `boolean`, `tristate`, …).
    #[serde(rename = "type", default)]
    pub value_type: String,
    /// The value itself.
    #[serde(default)]
    pub value: Option<Value>,
}

impl AxValue {
    /// The value as text: strings as they are, numbers and booleans printed.
    pub fn text(&self) -> Option<String> {
        match self.value.as_ref()? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// A named AX state or relation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AxProperty {
    /// Property name (`disabled`, `checked`, `hidden`, …).
    pub name: String,
    /// Its value.
    pub value: AxValue,
}
