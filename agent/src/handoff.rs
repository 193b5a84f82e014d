//! `run --handoff` (PROTOCOL.md §5 "Hand-off"): on an obstacle with confidence
//! `high` the run hands the tab to the person instead of giving up, and goes on
//! when they press Done (or the obstacle clears); Give up and the timeout stop it
//! as the obstacle does without the flag.

use std::time::Duration;

use browser_bridge_protocol::TabId;
use browser_bridge_protocol::action::Action;
use browser_bridge_protocol::handoff::{HANDOFF_MAX_TIMEOUT_MS, HANDOFF_REASON_MAX_CHARS, Handoff};
use browser_bridge_protocol::handoff::{HandoffOutcome, HandoffResult};

/// Most hand-offs of one run: a wall that stands after the person's Done three
/// times will not go by asking again.
pub const MAX_HANDOFFS: u32 = 3;
/// `--handoff` without a duration: the protocol's longest wait.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(HANDOFF_MAX_TIMEOUT_MS);

/// What the person is asked, naming the obstacle: `The page shows a login wall
/// (…): sign in, then press Done.` At most the protocol's 500 characters.
pub fn reason(kind: &str, message: &str) -> String {
    let (what, ask) = match kind {
        "auth_wall" => ("a login wall", "sign in"),
        "captcha" => ("a captcha", "solve it"),
        "access_denied" => ("an access denial", "get access if you can"),
        _ => ("an obstacle", "clear it"),
    };
    let tail = format!("): {ask}, then press Done.");
    let head = format!("The page shows {what} (");
    let room = HANDOFF_REASON_MAX_CHARS - head.chars().count() - tail.chars().count();
    let message: String = if message.chars().count() > room {
        let mut cut: String = message.chars().take(room - 1).collect();
        cut.push('…');
        cut
    } else {
        message.to_owned()
    };
    format!("{head}{message}{tail}")
}

/// The `handoff` of `tab` for the obstacle `kind` (`message`), waiting `wait`
/// (at most ten minutes, at least 1 ms).
pub fn action(tab: TabId, kind: &str, message: &str, wait: Duration) -> Action {
    let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
    Action::Handoff(Handoff {
        tab_id: Some(tab),
        reason: reason(kind, message),
        timeout_ms: ms.clamp(1, HANDOFF_MAX_TIMEOUT_MS),
    })
}

/// The run's answer when a hand-off did not end `done`.
pub fn stopped_answer(kind: &str, message: &str, result: Option<&HandoffResult>) -> String {
    let why = match result.map(|r| r.outcome) {
        Some(HandoffOutcome::Cancelled) => "the person gave up the hand-off",
        Some(HandoffOutcome::Timeout) => "nobody answered the hand-off in time",
        Some(HandoffOutcome::Done) | None => "the hand-off failed",
    };
    format!("Stopped: the page shows {kind} ({message}); {why}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_names_the_obstacle_and_what_to_do_within_500_chars() {
        assert_eq!(
            reason("auth_wall", "a login form is the page"),
            "The page shows a login wall (a login form is the page): sign in, then press Done."
        );
        assert!(reason("captcha", "x").contains("a captcha (x): solve it"));
        let long = reason("access_denied", &"é".repeat(900));
        assert_eq!(long.chars().count(), HANDOFF_REASON_MAX_CHARS);
        assert!(long.ends_with("…): get access if you can, then press Done."));
        let Action::Handoff(h) = action(TabId(3), "captcha", "x", Duration::from_secs(3600)) else {
            panic!("a handoff");
        };
        assert_eq!((h.tab_id, h.timeout_ms), (Some(TabId(3)), 600_000));
        Action::Handoff(h).validate().expect("a valid handoff");
    }
}
