//! Per-action backend deadlines (PROTOCOL.md §5, "Backend deadlines").

use crate::action::Action;

/// Deadline for navigation actions (ms).
pub const NAVIGATION_DEADLINE_MS: u64 = 30_000;
/// Deadline for `extract` and `screenshot` (ms).
pub const CAPTURE_DEADLINE_MS: u64 = 20_000;
/// Deadline for `evaluate` (ms).
pub const EVALUATE_DEADLINE_MS: u64 = 15_000;
/// Added to `wait_for.timeoutMs` and `wait_for_download.timeoutMs` (ms).
pub const WAIT_FOR_SLACK_MS: u64 = 5_000;
/// Deadline for everything else (ms).
pub const DEFAULT_DEADLINE_MS: u64 = 15_000;
/// Largest deadline of a `batch` or `fill_form`, whose deadline is the sum of its
/// parts' (ms).
pub const COMPOSITE_DEADLINE_MAX_MS: u64 = 120_000;

impl Action {
    /// The `request.timeoutMs` the backend applies to this action (ms).
    pub fn deadline_ms(&self) -> u64 {
        match self {
            Action::Navigate(_)
            | Action::OpenTab(_)
            | Action::GoBack(_)
            | Action::GoForward(_)
            | Action::Reload(_) => NAVIGATION_DEADLINE_MS,
            Action::Extract(_) | Action::Screenshot(_) => CAPTURE_DEADLINE_MS,
            Action::Evaluate(_) => EVALUATE_DEADLINE_MS,
            Action::WaitFor(p) => p.timeout_ms() + WAIT_FOR_SLACK_MS,
            Action::WaitForDownload(p) => p.timeout_ms() + WAIT_FOR_SLACK_MS,
            Action::Handoff(p) => p.timeout_ms + crate::handoff::HANDOFF_SLACK_MS,
            // Each field (and the submit click) as one `type`, `select_option` or `click`.
            Action::FillForm(p) => composite(
                (p.fields.len() as u64 + u64::from(p.submit.is_some())) * DEFAULT_DEADLINE_MS,
            ),
            Action::Batch(p) => composite(p.actions.iter().map(Action::deadline_ms).sum()),
            _ => DEFAULT_DEADLINE_MS,
        }
    }
}

/// A composite action's deadline: the sum of its parts', at most
/// [`COMPOSITE_DEADLINE_MAX_MS`].
fn composite(sum_ms: u64) -> u64 {
    sum_ms.min(COMPOSITE_DEADLINE_MAX_MS)
}
