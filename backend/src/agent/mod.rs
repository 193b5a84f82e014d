//! The built-in agent: `browser-bridge run "<task>"` completes a task in the
//! browser with any chat model that calls tools (issue 8).
//!
//! - [`llm`]: OpenAI-compatible and Anthropic clients over reqwest.
//! - [`conversation`]: the provider-neutral conversation, prompts, snapshot elision.
//! - [`guard`]: pure guardrails (repeat refusal, loop detection, reflection budget,
//!   failed checks, the `STATUS:` line).
//! - [`observe`]: tool results rendered for the model (the MCP renderer).
//! - [`runner`]: the ReAct loop over any [`Bridge`](crate::Bridge).
//! - [`report`]: events and the final report; [`output`]: stderr lines, spinner, NDJSON.
//! - [`cli`]: `run` and how the browser is reached; [`verify`]: the demo-site task set.

pub mod cli;
pub mod conversation;
pub mod guard;
pub mod llm;
pub mod observe;
pub mod output;
pub mod report;
pub mod runner;
pub mod verify;

pub use report::{AgentEvent, FinalReport, Progress, StopReason};
pub use runner::{RunOptions, run_task};
