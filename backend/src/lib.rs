//! browser-bridge backend: the WebSocket server the extension dials into, the
//! request pool, the HTTP API, the MCP server and the CLI (DESIGN.md "Backend").

pub mod bridge;
pub mod mcp;

pub use bridge::Bridge;
