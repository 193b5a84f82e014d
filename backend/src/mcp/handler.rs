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
use crate::hub::clients::{CLIENT_HEADER, check_client_name};
use crate::tool::{
    Call, DESCRIPTION, JsonObject, TOOL_NAME, decode, default_observe, input_schema, render,
};

/// Short server-level instructions shown by clients that display them.
const INSTRUCTIONS: &str = "One tool, `browser`: one browser action per call. Start with \
`navigate` (it opens a tab of your own when you have none) or `open_tab`, then `extract`, \
read the markdown, and act on element uids. Actions without `tabId` go to your current tab \
(the one you last opened or named); other clients' tabs are never picked for you.";

/// Most bytes of the `browser` tool's description and input schema as `tools/list`
/// serves them (JSON): what a model reads on every request.
pub const TOOL_LISTED_MAX_BYTES: usize = 4096;

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
    observe: bool,
}

impl<B: Bridge> BrowserServer<B> {
    /// A server whose tool calls go to `bridge`.
    pub fn new(bridge: B) -> Self {
        BrowserServer {
            bridge,
            tool: Arc::new(browser_tool()),
            observe: true,
        }
    }

    /// Whether actions that take `observe` observe when the call leaves it out
    /// (default true; `browser-bridge mcp --no-observe` turns it off).
    pub fn with_observe(mut self, observe: bool) -> Self {
        self.observe = observe;
        self
    }

    /// Runs one `browser` call: strips `includeText`, decodes the action, gives it
    /// the server's `observe` default, sends it
    /// through the bridge and renders the answer. Never fails at the MCP level:
    /// every failure is a tool error whose text starts with the error code.
    pub async fn call(&self, arguments: Option<JsonObject>) -> CallToolResult {
        Self::call_with(&self.bridge, self.observe, arguments).await
    }

    async fn call_with(bridge: &B, observe: bool, arguments: Option<JsonObject>) -> CallToolResult {
        let Call {
            mut action,
            include_text,
            browser,
        } = match decode(arguments) {
            Ok(decoded) => decoded,
            Err(error) => return render::render_error(&error),
        };
        default_observe(&mut action, observe);
        let name = action.name();
        match bridge.for_browser(browser.as_deref()).act(action).await {
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

    /// Over `/mcp`, the call acts for the request's client (PROTOCOL.md §5
    /// "Clients"): its `Browser-Bridge-Client` header, else its
    /// `Mcp-Session-Id`; else, and over stdio, the bridge's own client.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
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
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let named = parts.and_then(|parts| {
            [CLIENT_HEADER, SESSION_HEADER]
                .into_iter()
                .find_map(|header| parts.headers.get(header))
        });
        let Some(value) = named else {
            return Ok(self.call(request.arguments).await.into());
        };
        let client = value.to_str().unwrap_or("\u{0}");
        if let Err(error) = check_client_name(client) {
            return Ok(render::render_error(&error).into());
        }
        let bridge = self.bridge.for_client(client);
        Ok(Self::call_with(&bridge, self.observe, request.arguments)
            .await
            .into())
    }
}

/// The streamable HTTP session header (MCP 2025-06-18 "Session Management").
pub const SESSION_HEADER: &str = "mcp-session-id";

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

    /// What a model reads of the tool on every request — its description and input
    /// schema as `tools/list` serves them (JSON) — stays within 4 KiB.
    #[test]
    fn the_description_and_schema_fit_in_4_kib() {
        let tool = browser_tool();
        let description = serde_json::to_string(&tool.description).unwrap();
        let schema = serde_json::to_string(&tool.input_schema).unwrap();
        let listed = serde_json::to_string(&tool).unwrap();
        assert!(listed.contains(&description) && listed.contains(&schema));
        let size = description.len() + schema.len();
        assert!(
            size <= TOOL_LISTED_MAX_BYTES,
            "{size} bytes: {description} {schema}"
        );
    }
}
