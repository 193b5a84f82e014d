//! The built-in agent (`browser-bridge run "<task>"`): completes a task in the
//! browser with any chat model that calls tools, over any
//! [`Bridge`](browser_bridge_backend::Bridge) — the in-process hub or a running
//! `serve`. The command line around it lives in the `browser-bridge` binary.
//!
//! - [`llm`]: OpenAI-compatible and Anthropic clients over reqwest (HTTPS: this
//!   crate is the only one that links a TLS stack), and the model configuration
//!   from flags and environment ([`llm::ModelConfig`]).
//! - [`conversation`]: the provider-neutral conversation, prompts, snapshot elision.
//! - [`guard`]: pure guardrails (repeat refusal, loop detection, reflection budget,
//!   failed checks, the `STATUS:` line).
//! - [`mcp`]: other MCP servers' tools offered beside `browser` (the agent as
//!   an MCP host, rmcp's client).
//! - [`observe`]: tool results rendered for the model (the `browser` tool's
//!   renderer, [`browser_bridge_backend::tool::render`]).
//! - [`runner`]: the ReAct loop; [`handoff`]: `run --handoff`, the tab handed
//!   to the person at an obstacle `high`.
//! - [`report`]: the events a run emits and its final report.
//! - [`memory`]: task memory, lessons from earlier runs.

pub mod conversation;
pub mod guard;
pub mod handoff;
pub mod llm;
pub mod mcp;
pub mod memory;
pub mod observe;
pub mod report;
pub mod runner;

pub use report::{AgentEvent, FinalReport, Progress, StopReason};
pub use runner::{RunOptions, run_task};
