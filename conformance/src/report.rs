//! One line per check, then `N passed, N failed`: the conformance harness's output.

use std::fmt::Write as _;

/// The outcome of one check: `Err` carries the reason it failed.
pub type Outcome = Result<(), String>;

/// The outcome of one named check, as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// `area: what`, e.g. `handshake: ack shape`.
    pub name: String,
    /// `Err(reason)` when the check failed.
    pub outcome: Outcome,
}

/// Collects check results and prints each as it is recorded.
#[derive(Debug, Default)]
pub struct Report {
    results: Vec<CheckResult>,
    quiet: bool,
}

impl Report {
    /// A report that prints every line to stdout as it is recorded.
    pub fn new() -> Self {
        Report::default()
    }

    /// A report that prints nothing (tests read [`Report::results`] instead).
    pub fn quiet() -> Self {
        Report {
            results: Vec::new(),
            quiet: true,
        }
    }

    /// Records (and prints) one check.
    #[allow(clippy::print_stdout)] // the report is the conformance binary's output
    pub fn record(&mut self, name: impl Into<String>, outcome: Outcome) {
        let result = CheckResult {
            name: name.into(),
            outcome,
        };
        if !self.quiet {
            println!("{}", line(&result));
        }
        self.results.push(result);
    }

    /// Every check recorded so far, in order.
    pub fn results(&self) -> &[CheckResult] {
        &self.results
    }

    /// Number of checks that held.
    pub fn passed(&self) -> usize {
        self.results.iter().filter(|r| r.outcome.is_ok()).count()
    }

    /// Number of checks that failed.
    pub fn failed(&self) -> usize {
        self.results.len() - self.passed()
    }

    /// The final line, exactly `N passed, N failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    /// Every line of the report (checks, then the summary), for error messages.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for result in &self.results {
            let _ = writeln!(out, "{}", line(result));
        }
        out.push_str(&self.summary());
        out
    }
}

/// `ok  name` or `FAIL name: reason`.
fn line(result: &CheckResult) -> String {
    match &result.outcome {
        Ok(()) => format!("ok  {}", result.name),
        Err(reason) => format!("FAIL {}: {reason}", result.name),
    }
}

/// Fails with `reason` unless `condition` holds.
pub fn ensure(condition: bool, reason: impl FnOnce() -> String) -> Outcome {
    if condition { Ok(()) } else { Err(reason()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lines() {
        let mut report = Report::quiet();
        report.record("handshake: ack shape", Ok(()));
        report.record("ids: unique", Err("id `x` seen twice".into()));
        assert_eq!(report.summary(), "1 passed, 1 failed");
        assert_eq!(
            report.render(),
            "ok  handshake: ack shape\nFAIL ids: unique: id `x` seen twice\n1 passed, 1 failed"
        );
    }
}
