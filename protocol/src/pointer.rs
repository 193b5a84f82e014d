//! The results of the pointer actions of PROTOCOL.md §5 "Pointer targets":
//! `hover`, `drag`, and the hit test a click or hover at x, y answers with.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::extract::Changes;
use crate::ids::{TabId, Uid};

/// The element a point hit (§5 "Pointer targets"): the innermost element at the
/// point (CDP `DOM.getNodeForLocation`), as the accessibility tree names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// Its role as Chrome's accessibility tree names it (`button`, `link`,
    /// `Canvas`, `generic` …).
    pub role: String,
    /// Its accessible name; empty when it has none.
    pub name: String,
    /// Its uid, when an extract of the current document listed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<Uid>,
}

/// `hover` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoverResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Given `x`, `y`: the element under the mouse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit: Option<Hit>,
}

/// `drag` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DragResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// True when the source started an HTML5 drag-and-drop (`dragstart`) and it
    /// was dropped at `to` with `dragenter`/`dragover`/`drop`; false when only
    /// mouse (and pointer) events moved it.
    pub drag_and_drop: bool,
    /// The element under the mouse where it was released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit: Option<Hit>,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}
