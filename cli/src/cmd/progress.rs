//! The CLI's view of a run: one human line per tool call on stderr (action,
//! target, outcome, ms, tokens), a spinner while the model thinks (only when
//! stderr is a terminal), and with `--json` one NDJSON event per line on stdout.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use tokio::task::JoinHandle;

use browser_bridge_agent::report::{AgentEvent, Progress};

use crate::output::print_stdout;

/// Spinner frames.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Prints a run for people (stderr) and, with `json`, for programs (stdout).
#[derive(Debug)]
pub(crate) struct CliProgress {
    json: bool,
    spinner_allowed: bool,
    spinner: Option<JoinHandle<()>>,
}

impl CliProgress {
    /// `json`: write NDJSON events to stdout.
    pub(crate) fn new(json: bool) -> Self {
        CliProgress {
            json,
            spinner_allowed: std::io::stderr().is_terminal(),
            spinner: None,
        }
    }
}

impl Drop for CliProgress {
    fn drop(&mut self) {
        self.waiting_for_model(false);
    }
}

impl Progress for CliProgress {
    fn event(&mut self, event: &AgentEvent) {
        if self.json {
            match serde_json::to_string(event) {
                Ok(line) => print_stdout(&line),
                Err(e) => tracing::error!("cannot encode an event: {e}"),
            }
        }
        if let Some(line) = human_line(event) {
            eprintln!("{line}");
        }
    }

    fn waiting_for_model(&mut self, waiting: bool) {
        if let Some(spinner) = self.spinner.take() {
            spinner.abort();
            eprint!("\r\x1b[2K");
        }
        if waiting && self.spinner_allowed {
            self.spinner = Some(tokio::spawn(async {
                let started = std::time::Instant::now();
                for frame in FRAMES.iter().cycle() {
                    {
                        let mut err = std::io::stderr().lock();
                        let _ = write!(
                            err,
                            "\r{frame} waiting for the model… {:.1} s",
                            started.elapsed().as_secs_f64()
                        );
                        let _ = err.flush();
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }));
        }
    }
}

/// The stderr line of an event, if it has one:
/// `  3 click e7 → ok · 84 ms · 1534+42 tok`.
pub(crate) fn human_line(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::StepStarted { .. } => None,
        AgentEvent::ToolCall {
            step,
            action,
            target,
            usage,
            ..
        } => {
            let tokens = if usage.prompt_tokens + usage.completion_tokens > 0 {
                format!(" ({}+{} tok)", usage.prompt_tokens, usage.completion_tokens)
            } else {
                String::new()
            };
            let target = if target.is_empty() {
                String::new()
            } else {
                format!(" {target}")
            };
            Some(format!("{step:>3} {action}{target}{tokens}"))
        }
        AgentEvent::ToolResult {
            outcome, error, ms, ..
        } => Some(match error {
            Some(error) => format!("    ✗ {error} · {ms} ms"),
            None => format!("    → {outcome} · {ms} ms"),
        }),
        AgentEvent::Reflection {
            failure, remaining, ..
        } => Some(format!(
            "    ↺ reflection requested ({remaining} left) after: {failure}"
        )),
        AgentEvent::ServerWithdrawn { server, reason, .. } => Some(format!(
            "    ! MCP server {server:?} withdrawn with its tools: {reason}"
        )),
        AgentEvent::Final(report) => Some(format!("{} ({})", report.summary_line(), report.detail)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser_bridge_agent::llm::Usage;

    #[test]
    fn lines() {
        let call = AgentEvent::ToolCall {
            step: 3,
            call_id: "c".into(),
            action: "click".into(),
            target: "e7".into(),
            arguments: serde_json::json!({}),
            usage: Usage {
                prompt_tokens: 1534,
                cached_prompt_tokens: 0,
                completion_tokens: 42,
            },
        };
        assert_eq!(human_line(&call).unwrap(), "  3 click e7 (1534+42 tok)");
        let result = AgentEvent::ToolResult {
            step: 3,
            call_id: "c".into(),
            action: "click".into(),
            ok: true,
            refused: false,
            outcome: "ok".into(),
            error: None,
            ms: 84,
        };
        assert_eq!(human_line(&result).unwrap(), "    → ok · 84 ms");
    }
}
