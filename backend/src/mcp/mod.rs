//! The MCP server (docs/DESIGN.md "Backend"): one `browser` tool for any MCP client,
//! built on the official `rmcp` crate.
//!
//! - [`tool`]: the rmcp `ServerHandler` ([`BrowserServer`]), generic over any
//!   [`Bridge`](crate::Bridge): its tool schema, description and call decoding.
//! - [`render`]: tool results rendered for a model (markdown + element lines).
//! - [`stdio`]: `browser-bridge mcp`, MCP over stdin/stdout (stdout is the protocol
//!   channel: logs go to stderr).
//! - [`http`]: MCP over streamable HTTP, mounted at `/mcp` by `serve` behind the
//!   bearer token and the Origin/Host guard.

pub mod http;
pub mod render;
pub mod stdio;
pub mod tool;

pub use tool::{BrowserServer, TOOL_NAME, browser_tool, input_schema};
