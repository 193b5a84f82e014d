//! The MCP server: the one `browser` tool ([`crate::tool`]) for any MCP client,
//! built on the official `rmcp` crate.
//!
//! - [`handler`]: the rmcp `ServerHandler` ([`BrowserServer`]), generic over any
//!   [`Bridge`](crate::Bridge).
//! - [`stdio`]: MCP over stdin/stdout (stdout is the protocol channel: logs go to
//!   stderr).
//! - [`http`]: MCP over streamable HTTP, mounted at `/mcp` by `serve` behind the
//!   bearer token and the Origin/Host guard.

pub mod handler;
pub mod http;
pub mod stdio;

pub use handler::{BrowserServer, browser_tool};
