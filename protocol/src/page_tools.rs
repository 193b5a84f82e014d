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
    /// Human-readable title (page-provided; WebMCP's `title`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description (page-provided, untrusted).
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the input (page-provided).
    #[serde(default)]
    pub input_schema: Value,
}

/// How a page announced a group of tools (PROTOCOL.md §9).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PageToolSource {
    /// Answered the `devtoolstooldiscovery` event on `window`.
    #[default]
    Devtoolstooldiscovery,
    /// Registered through WebMCP's `document.modelContext` (or the older
    /// `navigator.modelContext`): the one group named `webmcp`.
    Webmcp,
}

/// Name of the group holding a page's WebMCP tools; as `call_page_tool`'s
/// `group` it picks the WebMCP source (PROTOCOL.md §9).
pub const WEBMCP_GROUP: &str = "webmcp";

/// A group of tools: one `devtoolstooldiscovery` listener's answer, or the
/// page's WebMCP registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageToolGroup {
    /// Group name (page-provided; `webmcp` for the WebMCP group).
    pub name: String,
    /// Where the group comes from; absent in v5 answers before WebMCP, read as
    /// `devtoolstooldiscovery`.
    #[serde(default)]
    pub source: PageToolSource,
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
    /// Tool groups: the discovery listeners' in listener order, then the
    /// WebMCP group when the page registered any tool.
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
