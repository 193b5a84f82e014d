//! `list_page_tools` for a model (PROTOCOL.md §9): under the page-provided note,
//! one line per group with its source, then one compact JSON line per tool.
//! Names and descriptions are JSON strings, so page text cannot start a line.

use std::fmt::Write as _;

use browser_bridge_protocol::page_tools::{ListPageToolsResult, PageToolSource};

use super::{PAGE_PROVIDED_NOTE, compact_json};

/// `group "shop" devtoolstooldiscovery "Shop tools"` (the description only when
/// not empty), then `  {"name":"search",…}` per tool; `no page tools` when none.
pub(super) fn render_list_page_tools(result: &ListPageToolsResult) -> String {
    let mut out = format!("{PAGE_PROVIDED_NOTE}\npage tools of tab {}:", result.tab_id);
    if result.groups.is_empty() {
        out.push_str(" none");
    }
    for group in &result.groups {
        let source = match group.source {
            PageToolSource::Devtoolstooldiscovery => "devtoolstooldiscovery",
            PageToolSource::Webmcp => "webmcp",
        };
        let _ = write!(out, "\ngroup {} {source}", compact_json(&group.name));
        if !group.description.is_empty() {
            let _ = write!(out, " {}", compact_json(&group.description));
        }
        for tool in &group.tools {
            let _ = write!(out, "\n  {}", compact_json(tool));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;
    use browser_bridge_protocol::page_tools::{PageTool, PageToolGroup};
    use serde_json::json;

    use super::*;

    fn tool(name: &str, title: Option<&str>) -> PageTool {
        PageTool {
            name: name.into(),
            title: title.map(Into::into),
            description: "Does it\nagain".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn each_group_says_its_source_and_each_tool_is_one_line() {
        let result = ListPageToolsResult {
            tab_id: TabId(7),
            page_provided: true,
            groups: vec![
                PageToolGroup {
                    name: "shop".into(),
                    source: PageToolSource::Devtoolstooldiscovery,
                    description: "Shop tools".into(),
                    tools: vec![tool("search", None)],
                },
                PageToolGroup {
                    name: "webmcp".into(),
                    source: PageToolSource::Webmcp,
                    description: String::new(),
                    tools: vec![tool("add-to-cart", Some("Add to cart"))],
                },
            ],
        };
        let text = render_list_page_tools(&result);
        assert_eq!(
            text,
            format!(
                "{PAGE_PROVIDED_NOTE}\npage tools of tab 7:\n\
                 group \"shop\" devtoolstooldiscovery \"Shop tools\"\n  \
                 {{\"name\":\"search\",\"description\":\"Does it\\nagain\",\"inputSchema\":{{\"type\":\"object\"}}}}\n\
                 group \"webmcp\" webmcp\n  \
                 {{\"name\":\"add-to-cart\",\"title\":\"Add to cart\",\"description\":\"Does it\\nagain\",\"inputSchema\":{{\"type\":\"object\"}}}}"
            )
        );
    }

    #[test]
    fn no_groups_reads_none() {
        let result = ListPageToolsResult {
            tab_id: TabId(3),
            page_provided: true,
            groups: vec![],
        };
        assert!(render_list_page_tools(&result).ends_with("page tools of tab 3: none"));
    }
}
