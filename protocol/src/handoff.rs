//! Hand-off to the person (PROTOCOL.md §5 "Hand-off"): `handoff` shows a tab to
//! the person with the agent's reason and waits until they press Done or Give
//! up, the obstacle that prompted it clears, or `timeoutMs` passes. The three
//! ends are outcomes of a successful result, not errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ids::TabId;

/// Largest `handoff.timeoutMs` (ms): ten minutes.
pub const HANDOFF_MAX_TIMEOUT_MS: u64 = 600_000;
/// Largest `handoff.reason`, in characters (Unicode scalar values).
pub const HANDOFF_REASON_MAX_CHARS: usize = 500;
/// Added to `timeoutMs` for the backend's deadline (ms), so that the extension's
/// own `timeout` outcome arrives before the backend gives up on the request.
pub const HANDOFF_SLACK_MS: u64 = 5_000;

/// `handoff` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Handoff {
    /// The tab to show the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// What the person should do, shown to them as plain text (at most 500
    /// characters).
    #[schemars(length(min = 1, max = HANDOFF_REASON_MAX_CHARS), regex(pattern = crate::text::NOT_BLANK_PATTERN))]
    pub reason: String,
    /// How long to wait for the person (ms, 1..600000).
    #[schemars(range(min = 1, max = HANDOFF_MAX_TIMEOUT_MS))]
    pub timeout_ms: u64,
}

/// How a hand-off ended.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum HandoffOutcome {
    /// The person pressed Done, or the obstacle cleared: go on.
    Done,
    /// The person pressed Give up: stop and report.
    Cancelled,
    /// `timeoutMs` passed without an answer: stop and report.
    Timeout,
}

impl HandoffOutcome {
    /// The wire name (`"done"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `handoff` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandoffResult {
    /// The tab shown.
    pub tab_id: TabId,
    /// done, cancelled or timeout.
    pub outcome: HandoffOutcome,
    /// `done` without the person pressing Done: the page no longer shows the
    /// obstacle it showed when the hand-off began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared: Option<bool>,
    /// From the hand-off's start to its end (ms).
    pub elapsed_ms: u64,
}
