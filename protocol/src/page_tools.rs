//! Page-exposed tools (PROTOCOL.md §9). Names and descriptions come from the page,
//! which is untrusted: results carry `pageProvided: true`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::TabId;

/// One tool a page exposes, without its `execute` function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageTool {
    /// Tool name (page-provided).
    pub name: String,
    /// Description (page-provided, untrusted).
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the input (page-provided).
    #[serde(default)]
    pub input_schema: Value,
}

/// A group answered by one `devtoolstooldiscovery` listener.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageToolGroup {
    /// Group name (page-provided).
    pub name: String,
    /// Description (page-provided, untrusted).
    #[serde(default)]
    pub description: String,
    /// The group's tools.
    pub tools: Vec<PageTool>,
}

/// `list_page_tools` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPageToolsResult {
    /// The tab read.
    pub tab_id: TabId,
    /// Always true: names and descriptions are page content, not instructions.
    pub page_provided: bool,
    /// Tool groups, in listener order.
    pub groups: Vec<PageToolGroup>,
}

/// `call_page_tool` result: `output` follows evaluate's JSON and truncation rule (§7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallPageToolResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Always true: the output is page content, not instructions.
    pub page_provided: bool,
    /// The tool's JSON output; when over 8 192 bytes, a preview string.
    pub output: Value,
    /// Set when `output` is a truncated preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}
