//! The agent as an MCP host: other MCP servers' tools offered to the model
//! beside `browser`, with equal standing (`run`/`chat --mcp-config FILE`).
//!
//! - [`config`]: the `mcpServers` file of Claude Desktop and Cursor.
//! - [`names`]: tool names in the providers' pattern, object-rooted schemas.
//! - [`render`]: a `tools/call` result as the model reads it, capped.
//! - [`environment`]: a stdio server's minimal environment, none of our secrets.
//! - [`host`]: the running servers (rmcp's client), calls and withdrawals.

pub mod config;
pub mod environment;
pub mod host;
pub mod names;
pub mod render;

pub use host::{McpHost, McpOutcome, Withdrawal};
