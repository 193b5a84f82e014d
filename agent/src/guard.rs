//! The pure guardrails of the loop: identical-call refusal, loop detection, the
//! reflection budget, failed checks, and the final `STATUS:` line. No I/O: the
//! runner feeds them what happened and obeys their verdicts.

use std::collections::BTreeMap;

use serde_json::Value;

/// Most reflections injected per task.
pub const MAX_REFLECTIONS: u32 = 3;

/// Longest action pattern (in calls) the loop detector looks for.
pub const MAX_LOOP_PERIOD: usize = 4;

/// A pattern repeated this many times in a row is a loop…
pub const MIN_LOOP_REPEATS: usize = 3;

/// …and the repeated tail must be at least this many calls long, so that a short
/// legitimate run (three `scroll`s down a long page) is not stopped.
pub const MIN_LOOP_CALLS: usize = 6;

/// Actions that only read: repeating one with nothing in between reads the same
/// page again.
pub const READ_ONLY_ACTIONS: [&str; 4] = ["extract", "list_tabs", "screenshot", "list_page_tools"];

/// The action that checks a page state; its failure is a failed check.
pub const CHECK_ACTION: &str = "wait_for";

/// A canonical text of a call's arguments (object keys sorted at every level), so
/// that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call.
pub fn fingerprint(arguments: &Value) -> String {
    fn canonical(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, canonical(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    canonical(arguments).to_string()
}

/// Why a call is refused without being executed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Identical to the previous call, which failed.
    RepeatOfFailure,
    /// Identical to the previous call, which only read the page.
    RepeatOfRead,
}

impl Refusal {
    /// The observation given to the model instead of a result.
    pub fn message(&self) -> &'static str {
        match self {
            Refusal::RepeatOfFailure => {
                "refused: this call is identical to the previous one, which failed; it was not \
                 executed. Change the target, the action or the approach."
            }
            Refusal::RepeatOfRead => {
                "refused: this call is identical to the previous one, which only read the page; \
                 nothing changed since, so it was not executed. Act on what you read."
            }
        }
    }
}

/// Refuses a call identical to the previous one when that one failed or only read.
#[derive(Debug, Default, Clone)]
pub struct RepeatGuard {
    last: Option<(String, bool, bool)>,
}

impl RepeatGuard {
    /// The refusal for a call with `fingerprint` and `action` name, if any.
    pub fn check(&self, fingerprint: &str) -> Option<Refusal> {
        let (last, failed, read_only) = self.last.as_ref()?;
        if last != fingerprint {
            None
        } else if *failed {
            Some(Refusal::RepeatOfFailure)
        } else if *read_only {
            Some(Refusal::RepeatOfRead)
        } else {
            None
        }
    }

    /// Forgets the last call: the page changed under it (the person acted in
    /// a hand-off), so the same read is new again.
    pub fn clear(&mut self) {
        self.last = None;
    }

    /// Records an executed call and whether it failed.
    pub fn record(&mut self, fingerprint: String, action: &str, failed: bool) {
        let read_only = READ_ONLY_ACTIONS.contains(&action);
        self.last = Some((fingerprint, failed, read_only));
    }
}

/// A loop found at the end of the call history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    /// Calls in the repeated pattern.
    pub period: usize,
    /// Times it was repeated in a row.
    pub repeats: usize,
}

/// Watches the sequence of calls (executed or refused) for a repeated pattern.
#[derive(Debug, Default, Clone)]
pub struct LoopDetector {
    history: Vec<String>,
}

impl LoopDetector {
    /// Adds a call and returns the loop it closes, if any: a pattern of 1 to
    /// [`MAX_LOOP_PERIOD`] calls repeated at least [`MIN_LOOP_REPEATS`] times in a
    /// row, spanning at least [`MIN_LOOP_CALLS`] calls.
    pub fn push(&mut self, fingerprint: String) -> Option<Loop> {
        self.history.push(fingerprint);
        let h = &self.history;
        (1..=MAX_LOOP_PERIOD).find_map(|period| {
            let needed = MIN_LOOP_REPEATS.max(MIN_LOOP_CALLS.div_ceil(period));
            if h.len() < period * needed {
                return None;
            }
            let pattern = &h[h.len() - period..];
            let repeats = h
                .rchunks_exact(period)
                .take_while(|chunk| *chunk == pattern)
                .count();
            (repeats >= needed).then_some(Loop { period, repeats })
        })
    }
}

/// At most [`MAX_REFLECTIONS`] reflections per task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReflectionBudget {
    used: u32,
    max: u32,
}

impl Default for ReflectionBudget {
    fn default() -> Self {
        ReflectionBudget {
            used: 0,
            max: MAX_REFLECTIONS,
        }
    }
}

impl ReflectionBudget {
    /// Takes one reflection; returns how many remain after it, or `None` when
    /// the budget is spent.
    pub fn take(&mut self) -> Option<u32> {
        (self.used < self.max).then(|| {
            self.used += 1;
            self.max - self.used
        })
    }

    /// Reflections used so far.
    pub fn used(&self) -> u32 {
        self.used
    }
}

/// Failed checks (`wait_for` calls) not yet resolved by a passing check of the
/// same target.
#[derive(Debug, Default, Clone)]
pub struct CheckLedger {
    failed: BTreeMap<String, String>,
}

impl CheckLedger {
    /// Records a check on `target` (its arguments without `timeoutMs`) and whether
    /// it passed; `failure` describes a failed one.
    pub fn record(&mut self, target: String, passed: bool, failure: &str) {
        if passed {
            self.failed.remove(&target);
        } else {
            self.failed.insert(target, failure.to_owned());
        }
    }

    /// The first unresolved failed check, if any.
    pub fn first_failed(&self) -> Option<&str> {
        self.failed.values().next().map(String::as_str)
    }
}

/// The target of a check: its arguments without the timeout, so that retrying
/// with a longer wait resolves the same check.
pub fn check_target(arguments: &Value) -> String {
    let mut arguments = arguments.clone();
    if let Some(map) = arguments.as_object_mut() {
        map.remove("timeoutMs");
    }
    fingerprint(&arguments)
}

/// The model's verdict from its final `STATUS:` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `STATUS: DONE`.
    Done,
    /// `STATUS: FAILED`.
    Failed,
}

/// Splits a final reply into the answer and its status: the last non-empty line
/// must be `STATUS: DONE` or `STATUS: FAILED` (any case; markdown emphasis or
/// backticks around it are tolerated). Returns the answer without that line.
pub fn parse_status(text: &str) -> (String, Option<Status>) {
    let trimmed = text.trim_end();
    let (body, last) = match trimmed.rfind('\n') {
        Some(at) => (&trimmed[..at], &trimmed[at + 1..]),
        None => ("", trimmed),
    };
    let line = last
        .trim()
        .trim_matches(|c| c == '*' || c == '`' || c == '_')
        .trim();
    let status = line
        .get(..7)
        .filter(|head| head.eq_ignore_ascii_case("STATUS:"))
        .map(|_| line[7..].trim().trim_end_matches('.').to_ascii_uppercase())
        .and_then(|word| match word.as_str() {
            "DONE" => Some(Status::Done),
            "FAILED" => Some(Status::Failed),
            _ => None,
        });
    match status {
        Some(status) => (body.trim().to_owned(), Some(status)),
        None => (trimmed.trim().to_owned(), None),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fp(value: Value) -> String {
        fingerprint(&value)
    }

    #[test]
    fn fingerprints_ignore_key_order() {
        assert_eq!(
            fp(json!({"action": "click", "uid": "e1", "o": {"b": 1, "a": 2}})),
            fp(json!({"o": {"a": 2, "b": 1}, "uid": "e1", "action": "click"}))
        );
        assert_ne!(
            fp(json!({"action": "click", "uid": "e1"})),
            fp(json!({"action": "click", "uid": "e2"}))
        );
    }

    #[test]
    fn repeats_of_failures_and_reads_are_refused_others_pass() {
        let click = fp(json!({"action": "click", "uid": "e1"}));
        let extract = fp(json!({"action": "extract"}));
        let mut guard = RepeatGuard::default();
        assert_eq!(guard.check(&click), None);
        guard.record(click.clone(), "click", false);
        assert_eq!(
            guard.check(&click),
            None,
            "a successful click may be repeated"
        );
        guard.record(click.clone(), "click", true);
        assert_eq!(guard.check(&click), Some(Refusal::RepeatOfFailure));
        assert_eq!(guard.check(&extract), None);
        guard.record(extract.clone(), "extract", false);
        assert_eq!(guard.check(&extract), Some(Refusal::RepeatOfRead));
        guard.record(click.clone(), "click", false);
        assert_eq!(guard.check(&extract), None);
    }

    #[test]
    fn loops_are_found_by_period_and_length() {
        let mut detector = LoopDetector::default();
        // Three scrolls are fine; the sixth identical call is a loop.
        for n in 1..=5 {
            assert_eq!(detector.push("scroll".into()), None, "call {n}");
        }
        assert_eq!(
            detector.push("scroll".into()),
            Some(Loop {
                period: 1,
                repeats: 6
            })
        );

        let mut detector = LoopDetector::default();
        detector.push("extract".into());
        let mut found = None;
        for _ in 0..3 {
            assert_eq!(found, None);
            detector.push("click e1".into());
            found = detector.push("click e2".into());
        }
        assert_eq!(
            found,
            Some(Loop {
                period: 2,
                repeats: 3
            })
        );

        let mut detector = LoopDetector::default();
        for call in ["a", "b", "c", "a", "b", "c", "a", "b", "d"] {
            assert_eq!(detector.push(call.into()), None);
        }
    }

    #[test]
    fn the_reflection_budget_is_three() {
        let mut budget = ReflectionBudget::default();
        assert_eq!(budget.take(), Some(2));
        assert_eq!(budget.take(), Some(1));
        assert_eq!(budget.take(), Some(0));
        assert_eq!(budget.take(), None);
        assert_eq!(budget.used(), 3);
    }

    #[test]
    fn a_later_passing_check_of_the_same_target_resolves_a_failed_one() {
        let mut ledger = CheckLedger::default();
        let short = check_target(&json!({"action": "wait_for", "uid": "e4", "timeoutMs": 500}));
        let long = check_target(&json!({"action": "wait_for", "uid": "e4", "timeoutMs": 9000}));
        assert_eq!(short, long);
        ledger.record(short, false, "timeout: e4 not visible");
        assert_eq!(ledger.first_failed(), Some("timeout: e4 not visible"));
        ledger.record(
            check_target(&json!({"action": "wait_for", "uid": "e5"})),
            true,
            "",
        );
        assert!(ledger.first_failed().is_some());
        ledger.record(long, true, "");
        assert_eq!(ledger.first_failed(), None);
    }

    #[test]
    fn status_lines() {
        assert_eq!(
            parse_status("Reference: CLM-1234\nSTATUS: DONE\n"),
            ("Reference: CLM-1234".into(), Some(Status::Done))
        );
        assert_eq!(
            parse_status("The portal needs a login.\n\n**Status: failed.**"),
            ("The portal needs a login.".into(), Some(Status::Failed))
        );
        assert_eq!(
            parse_status("`STATUS: DONE`"),
            (String::new(), Some(Status::Done))
        );
        assert_eq!(
            parse_status("STATUS: DONE\nbut then more text"),
            ("STATUS: DONE\nbut then more text".into(), None)
        );
        assert_eq!(
            parse_status("STATUS: MAYBE"),
            ("STATUS: MAYBE".into(), None)
        );
        assert_eq!(
            parse_status("I clicked it."),
            ("I clicked it.".into(), None)
        );
        assert_eq!(parse_status("é"), ("é".into(), None));
    }
}
