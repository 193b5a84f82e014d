//! `handoff` for a model (PROTOCOL.md §5 "Hand-off"): the outcome and what to do
//! next, in one line: go on after `done` (the page changed under the person),
//! stop and report after `cancelled` or `timeout`.

use browser_bridge_protocol::handoff::{HandoffOutcome, HandoffResult};

/// `handoff tab 7: done (the person pressed Done) after 41 s: extract, then go on`.
pub(super) fn render_handoff(result: &HandoffResult) -> String {
    let secs = result.elapsed_ms.div_ceil(1000);
    let (how, next) = match result.outcome {
        HandoffOutcome::Done if result.cleared == Some(true) => (
            "done (the obstacle cleared)",
            "extract, then go on with the task",
        ),
        HandoffOutcome::Done => (
            "done (the person pressed Done)",
            "extract, then go on with the task",
        ),
        HandoffOutcome::Cancelled => (
            "cancelled (the person gave up)",
            "stop and report; do not retry",
        ),
        HandoffOutcome::Timeout => ("timeout (nobody answered)", "stop and report"),
    };
    format!(
        "handoff tab {}: {how} after {secs} s: {next}",
        result.tab_id
    )
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::TabId;

    use super::*;

    fn result(outcome: HandoffOutcome, cleared: Option<bool>) -> HandoffResult {
        HandoffResult {
            tab_id: TabId(7),
            outcome,
            cleared,
            elapsed_ms: 40_001,
        }
    }

    #[test]
    fn each_outcome_says_what_to_do_next() {
        assert_eq!(
            render_handoff(&result(HandoffOutcome::Done, None)),
            "handoff tab 7: done (the person pressed Done) after 41 s: extract, then go on with the task"
        );
        assert!(
            render_handoff(&result(HandoffOutcome::Done, Some(true)))
                .contains("done (the obstacle cleared)")
        );
        assert!(
            render_handoff(&result(HandoffOutcome::Cancelled, None))
                .ends_with("stop and report; do not retry")
        );
        assert!(render_handoff(&result(HandoffOutcome::Timeout, None)).contains("timeout"));
    }
}
