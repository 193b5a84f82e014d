//! MCP tests (issue 6): the `browser` tool over stdio (`browser-bridge mcp`, in-process
//! WebSocket and forwarding to a running `serve`) and over streamable HTTP (`/mcp` on
//! `serve`), each against a fake extension on a real socket; plus the renderer
//! through an in-memory rmcp client. One test binary links faster than several.

mod contract;
mod fake_extension;
mod forward;
mod http;
mod in_process;
mod stdio;
mod support;
