//! MCP tests: the `browser` tool over stdio (`browser-bridge mcp`, in-process
//! WebSocket and forwarding to a running `serve`) and over streamable HTTP (`/mcp` on
//! `serve`), each against a fake extension on a real socket; plus the renderer
//! through an in-memory rmcp client.

mod contract;
mod forward;
mod http;
mod in_process;
mod scripted_extension;
mod stdio;
mod support;
