//! The rmcp `ServerHandler` with one tool, `browser` ([`crate::tool`]).
//!
//! The tool's schema is written by hand rather than derived, so the handler
//! implements `list_tools`/`call_tool` itself instead of `#[tool_router]`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::bridge::Bridge;
use crate::tool::{DESCRIPTION, JsonObject, TOOL_NAME, decode, input_schema, render};

/// Short server-level instructions shown by clients that display them.
const INSTRUCTIONS: &str = "One tool, `browser`: one browser action per call. Start with \
`extract` (or `navigate`), read the markdown, then act on element uids.";

/// The `browser` tool definition.
pub fn browser_tool() -> Tool {
    Tool::new(TOOL_NAME, DESCRIPTION, Arc::new(input_schema())).with_annotations(
        ToolAnnotations::with_title("Browser")
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(true),
    )
}

/// The MCP server: one `browser` tool over any [`Bridge`] (the in-process hub or a
/// client of a running `serve`). Cheap to clone; one per MCP session.
#[derive(Clone)]
pub struct BrowserServer<B> {
    bridge: B,
    tool: Arc<Tool>,
}

impl<B: Bridge> BrowserServer<B> {
    /// A server whose tool calls go to `bridge`.
    pub fn new(bridge: B) -> Self {
        BrowserServer {
            bridge,
            tool: Arc::new(browser_tool()),
        }
    }

    /// Runs one `browser` call: strips `includeText`, decodes the action, sends it
    /// through the bridge and renders the answer. Never fails at the MCP level:
    /// every failure is a tool error whose text starts with the error code.
    pub async fn call(&self, arguments: Option<JsonObject>) -> CallToolResult {
        let (action, include_text) = match decode(arguments) {
            Ok(decoded) => decoded,
            Err(error) => return render::render_error(&error),
        };
        let name = action.name();
        match self.bridge.act(action).await {
            Ok(result) => render::render_result(&result, include_text),
            Err(error) => {
                tracing::debug!(action = name, code = %error.code, "browser call failed");
                render::render_error(&error)
            }
        }
    }
}

impl<B: Bridge> ServerHandler for BrowserServer<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("browser-bridge", env!("CARGO_PKG_VERSION"))
                    .with_title("browser-bridge"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            // Unroutable call: a JSON-RPC error, as rmcp documents for unknown tools.
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; this server has one tool, `{TOOL_NAME}`",
                    request.name
                ),
                None,
            ));
        }
        Ok(self.call(request.arguments).await.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model sees the description and the schema; "§6" means nothing to it.
    #[test]
    fn the_tool_names_no_protocol_sections() {
        let tool = serde_json::to_string(&browser_tool()).unwrap();
        assert!(!tool.contains('§'), "{tool}");
        assert!(tool.contains("`return` the value"), "{tool}");
    }
}
