//! What the model is shown after a tool call, and what the loop learns from it.
//! The text comes from the MCP renderer ([`browser_bridge_backend::tool::render`]): an extract is
//! markdown plus one line per element, an error is `code: message`, so the model
//! sees exactly what an MCP client's model would see.

use browser_bridge_protocol::extract::Confidence;
use browser_bridge_protocol::result::PageResult;
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode};
use serde_json::Value;

use browser_bridge_backend::tool::render;

/// Longest target or outcome text in a progress line (chars).
const SUMMARY_MAX_CHARS: usize = 70;

/// Why a tool result ends the run at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terminal {
    /// An extract reported an obstacle with confidence high.
    Obstacle {
        /// Its type, e.g. `auth_wall`.
        kind: String,
        /// Its message.
        message: String,
    },
    /// `domain_blocked`, `cancelled`, `not_connected`, `unauthorized` or
    /// `protocol_mismatch`: the user's decision or a broken link the model cannot fix.
    Error(BridgeError),
}

/// One tool call's observation.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The text fed back to the model.
    pub content: String,
    /// A few words for the progress line (`ok`, `12 elements`, `element_not_found`).
    pub outcome: String,
    /// `code: message` when the call failed.
    pub failure: Option<String>,
    /// The run must stop.
    pub terminal: Option<Terminal>,
    /// The content is a page snapshot (elided later when stale).
    pub snapshot: bool,
}

/// Codes after which the loop stops: the user's decision (`domain_blocked`,
/// `cancelled`, PROTOCOL.md §4) or no usable browser link.
pub const TERMINAL_CODES: [ErrorCode; 5] = [
    ErrorCode::DomainBlocked,
    ErrorCode::Cancelled,
    ErrorCode::NotConnected,
    ErrorCode::Unauthorized,
    ErrorCode::ProtocolMismatch,
];

/// The observation of a successful result; `include_text` is the call's
/// `includeText` option.
pub fn of_result(result: &ActionResult, include_text: bool) -> Observation {
    // Screenshots: the model reads the one-line summary; the image is not sent.
    let content = render::render_text(result, include_text);
    let (outcome, terminal, snapshot) = match result {
        ActionResult::Extract(extract) => {
            let mut outcome = format!("{} elements", extract.elements.len());
            let mut terminal = None;
            if let Some(obstacle) = &extract.obstacle {
                let kind = obstacle.obstacle_type.as_str();
                let level = obstacle.confidence.as_str();
                outcome.push_str(&format!(", obstacle {kind} ({level})"));
                // Only `high` ends the run; `medium` and `low` reach the model with
                // their advice in the rendered extract (PROTOCOL.md §8).
                if obstacle.confidence == Confidence::High {
                    terminal = Some(Terminal::Obstacle {
                        kind: kind.to_owned(),
                        message: obstacle.message.clone(),
                    });
                }
            }
            (outcome, terminal, true)
        }
        ActionResult::Navigate(page)
        | ActionResult::GoBack(page)
        | ActionResult::GoForward(page)
        | ActionResult::Reload(page) => (cut(&page_outcome(page)), None, false),
        _ => ("ok".to_owned(), None, false),
    };
    Observation {
        content,
        outcome,
        failure: None,
        terminal,
        snapshot,
    }
}

/// `url title`, then what held the load: `, alert dialog open`, `, load pending`.
fn page_outcome(page: &PageResult) -> String {
    let mut outcome = format!("{} {}", page.url, page.title);
    if let Some(dialog) = &page.dialog {
        outcome.push_str(&format!(", {} dialog open", dialog.dialog_type.as_str()));
    } else if page.load_pending {
        outcome.push_str(", load pending");
    }
    outcome
}

/// The observation of another MCP server's tool call: its text, `ok` or the
/// failure's code as the outcome; never a snapshot, never terminal.
pub fn of_mcp(outcome: crate::mcp::McpOutcome) -> Observation {
    let summary = match &outcome.failure {
        Some(failure) => failure.split(':').next().unwrap_or("failed").to_owned(),
        None => format!("{} bytes", outcome.content.len()),
    };
    Observation {
        content: outcome.content,
        outcome: summary,
        failure: outcome.failure,
        terminal: None,
        snapshot: false,
    }
}

/// The observation of a failed call.
pub fn of_error(error: &BridgeError) -> Observation {
    let text = render::error_text(error);
    Observation {
        content: text.clone(),
        outcome: error.code.to_string(),
        failure: Some(text),
        terminal: TERMINAL_CODES
            .contains(&error.code)
            .then(|| Terminal::Error(error.clone())),
        snapshot: false,
    }
}

/// What a call acts on, for the progress line: uid, selector, URL, key, text…
pub fn target(arguments: &Value) -> String {
    let field = |name: &str| arguments.get(name).and_then(Value::as_str);
    let text = field("uid")
        .or_else(|| field("selector"))
        .or_else(|| field("url"))
        .or_else(|| field("key"))
        .or_else(|| field("expression"))
        .or_else(|| field("name"))
        .or_else(|| field("direction"))
        .unwrap_or_default();
    let mut target = text.to_owned();
    if let Some(typed) = field("text") {
        target.push_str(&format!(" {typed:?}"));
    }
    cut(target.trim())
}

/// `text` on one line, cut to [`SUMMARY_MAX_CHARS`].
fn cut(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(SUMMARY_MAX_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;
    use browser_bridge_protocol::extract::{ExtractResult, Obstacle, ObstacleType};
    use browser_bridge_protocol::result::{DialogInfo, DialogType, PageResult};
    use serde_json::json;

    use super::*;

    fn page(obstacle: Option<Obstacle>) -> ActionResult {
        ActionResult::Extract(ExtractResult {
            tab_id: TabId(3),
            url: "http://127.0.0.1:8080/portal/".into(),
            title: "Sign in".into(),
            text: String::new(),
            markdown: "# Sign in".into(),
            elements: Vec::new(),
            obstacle,
            truncated: None,
            part: None,
            parts: None,
            changes: None,
        })
    }

    #[test]
    fn a_high_obstacle_is_terminal_a_medium_or_low_one_is_not() {
        let high = of_result(
            &page(Some(Obstacle {
                obstacle_type: ObstacleType::AuthWall,
                confidence: Confidence::High,
                message: "password field".into(),
            })),
            false,
        );
        assert_eq!(
            high.terminal,
            Some(Terminal::Obstacle {
                kind: "auth_wall".into(),
                message: "password field".into()
            })
        );
        assert!(high.snapshot);
        assert!(
            high.content
                .starts_with("tab 3 · http://127.0.0.1:8080/portal/ · Sign in\n")
        );
        assert!(high.content.contains("obstacle: auth_wall (high)"));
        let low = of_result(
            &page(Some(Obstacle {
                obstacle_type: ObstacleType::AuthWall,
                confidence: Confidence::Low,
                message: "maybe".into(),
            })),
            false,
        );
        assert_eq!(low.terminal, None);
        assert_eq!(low.outcome, "0 elements, obstacle auth_wall (low)");
        let medium = of_result(
            &page(Some(Obstacle {
                obstacle_type: ObstacleType::AccessDenied,
                confidence: Confidence::Medium,
                message: "a short denial message".into(),
            })),
            false,
        );
        assert_eq!(medium.terminal, None);
        assert_eq!(
            medium.outcome,
            "0 elements, obstacle access_denied (medium)"
        );
        assert!(medium.content.contains(
            "obstacle: access_denied (medium) a short denial message; likely a wall: use what the \
             page already shows if it answers the task, never log in or solve a challenge \
             yourself, else stop and report it\n"
        ));
    }

    #[test]
    fn errors_and_navigations() {
        let blocked = of_error(&BridgeError::new(
            ErrorCode::DomainBlocked,
            "bank.test is blocked",
        ));
        assert_eq!(
            blocked.failure.as_deref(),
            Some("domain_blocked: bank.test is blocked")
        );
        assert!(matches!(blocked.terminal, Some(Terminal::Error(_))));
        let stale = of_error(&BridgeError::new(ErrorCode::ElementStale, "extract again"));
        assert_eq!(stale.terminal, None);
        assert_eq!(stale.outcome, "element_stale");
        let navigated = of_result(
            &ActionResult::Navigate(PageResult::new(TabId(1), "http://x/claim/", "File a claim")),
            false,
        );
        assert_eq!(navigated.outcome, "http://x/claim/ File a claim");
        let held = of_result(
            &ActionResult::Navigate(PageResult {
                load_pending: true,
                dialog: Some(DialogInfo {
                    dialog_type: DialogType::Alert,
                    message: "Welcome".into(),
                }),
                ..PageResult::new(TabId(1), "http://x/", "X")
            }),
            false,
        );
        assert_eq!(held.outcome, "http://x/ X, alert dialog open");
        assert!(!navigated.snapshot);
    }

    #[test]
    fn targets() {
        assert_eq!(target(&json!({"action": "click", "uid": "e7"})), "e7");
        assert_eq!(
            target(&json!({"action": "type", "uid": "e2", "text": "P-1234"})),
            "e2 \"P-1234\""
        );
        assert_eq!(target(&json!({"action": "extract"})), "");
        assert_eq!(target(&json!({"url": "x".repeat(100)})).chars().count(), 71);
    }
}
