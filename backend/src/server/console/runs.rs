//! The console's task runs: each run's events kept in order, so a page that
//! subscribes late (or again) still sees every step, and followed live over SSE
//! (`GET /console/api/runs/{id}/events`). One run at a time.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// Runs kept for the page (the newest; older ones are forgotten).
const KEPT_RUNS: usize = 8;

/// One event of a run, as sent over SSE: `step` (an agent event), `done` (the
/// final report) or `error` (the run could not start, failed or was stopped).
#[derive(Debug, Clone, Serialize)]
pub struct RunEvent {
    /// The SSE event name: `step`, `done` or `error`.
    pub kind: &'static str,
    /// Its data: the agent event, the report, or `{"message"}`.
    pub data: Value,
}

impl RunEvent {
    /// True for `done` and `error`: nothing follows.
    pub fn is_last(&self) -> bool {
        self.kind != "step"
    }
}

/// One run: its id, task and events so far.
#[derive(Debug)]
pub struct Run {
    /// `r-<12 hex>`.
    pub id: String,
    /// The task as typed.
    pub task: String,
    events: Mutex<Vec<RunEvent>>,
    // Count of events, so followers wake on each new one.
    count: watch::Sender<usize>,
    abort: Mutex<Option<AbortHandle>>,
}

impl Run {
    fn push(&self, event: RunEvent) {
        let mut events = self.events.lock().expect("run events");
        if events.last().is_some_and(RunEvent::is_last) {
            return;
        }
        events.push(event);
        let len = events.len();
        drop(events);
        self.count.send_replace(len);
    }

    /// The events from index `from` on.
    pub fn events_from(&self, from: usize) -> Vec<RunEvent> {
        let events = self.events.lock().expect("run events");
        events.get(from..).map(<[_]>::to_vec).unwrap_or_default()
    }

    /// True once `done` or `error` was pushed.
    pub fn finished(&self) -> bool {
        let events = self.events.lock().expect("run events");
        events.last().is_some_and(RunEvent::is_last)
    }

    /// Waits until there are more than `seen` events.
    pub async fn changed(&self, seen: usize) {
        let mut rx = self.count.subscribe();
        let _ = rx.wait_for(|len| *len > seen).await;
    }

    /// Ends the run now (Stop all): its task is aborted and `error` pushed.
    pub fn stop(&self, message: &str) -> bool {
        if self.finished() {
            return false;
        }
        if let Some(abort) = self.abort.lock().expect("run abort").take() {
            abort.abort();
        }
        self.push(RunEvent {
            kind: "error",
            data: serde_json::json!({ "message": message }),
        });
        true
    }
}

/// Where a [`TaskRunner`](super::TaskRunner) reports a run.
#[derive(Debug, Clone)]
pub struct RunSink(Arc<Run>);

impl RunSink {
    /// One agent step event (any JSON object).
    pub fn step(&self, event: Value) {
        self.0.push(RunEvent {
            kind: "step",
            data: event,
        });
    }

    /// The final report; the run is over.
    pub fn done(&self, report: Value) {
        self.0.push(RunEvent {
            kind: "done",
            data: report,
        });
    }

    /// The run failed with `message`; it is over.
    pub fn error(&self, message: impl Into<String>) {
        let message: String = message.into();
        self.0.push(RunEvent {
            kind: "error",
            data: serde_json::json!({ "message": message }),
        });
    }
}

/// The runs the console knows, newest last.
#[derive(Debug, Default)]
pub struct Runs {
    runs: Mutex<VecDeque<Arc<Run>>>,
}

impl Runs {
    /// A new run of `task`, unless one is still going (`Err` with its id).
    pub fn begin(&self, task: &str) -> Result<(Arc<Run>, RunSink), String> {
        let mut runs = self.runs.lock().expect("runs");
        if let Some(going) = runs.iter().find(|run| !run.finished()) {
            return Err(going.id.clone());
        }
        let run = Arc::new(Run {
            id: format!("r-{}", super::auth::random_hex(6)),
            task: task.to_owned(),
            events: Mutex::new(Vec::new()),
            count: watch::Sender::new(0),
            abort: Mutex::new(None),
        });
        runs.push_back(run.clone());
        while runs.len() > KEPT_RUNS {
            runs.pop_front();
        }
        Ok((run.clone(), RunSink(run)))
    }

    /// Lets Stop all abort `run`'s task.
    pub fn set_abort(run: &Run, abort: AbortHandle) {
        *run.abort.lock().expect("run abort") = Some(abort);
    }

    /// The run with `id`.
    pub fn get(&self, id: &str) -> Option<Arc<Run>> {
        let runs = self.runs.lock().expect("runs");
        runs.iter().find(|run| run.id == id).cloned()
    }

    /// `{id, task, finished}` of each kept run, oldest first.
    pub fn summary(&self) -> Vec<Value> {
        let runs = self.runs.lock().expect("runs");
        runs.iter()
            .map(|run| serde_json::json!({ "id": run.id, "task": run.task, "finished": run.finished() }))
            .collect()
    }

    /// Stops every run still going; returns how many.
    pub fn stop_all(&self, message: &str) -> usize {
        let runs: Vec<_> = self.runs.lock().expect("runs").iter().cloned().collect();
        runs.iter().filter(|run| run.stop(message)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_run_at_a_time_and_events_end_with_the_last() {
        let runs = Runs::default();
        let (run, sink) = runs.begin("a").unwrap();
        assert_eq!(runs.begin("b").unwrap_err(), run.id);
        sink.step(serde_json::json!({"event":"tool_call"}));
        let follower = {
            let run = run.clone();
            tokio::spawn(async move { run.changed(1).await })
        };
        sink.done(serde_json::json!({"success":true}));
        follower.await.unwrap();
        sink.error("late");
        let kinds: Vec<_> = run.events_from(0).iter().map(|e| e.kind).collect();
        assert_eq!(kinds, ["step", "done"]);
        assert!(!run.stop("x"), "already over");
        let (next, _sink) = runs.begin("b").expect("the first is over");
        assert_eq!(runs.stop_all("stopped"), 1);
        assert_eq!(next.events_from(0)[0].kind, "error");
    }
}
