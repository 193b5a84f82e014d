//! Timing marks of one `POST /v1/act` inside the backend, for the bench's
//! profile (`browser-bridge-bench --profile`): asked for with the request header
//! [`TIMING_HEADER`], answered in the response's `Server-Timing` header (W3C
//! Server Timing). Off, a [`Trace`] is `None` and marks cost one branch.
//!
//! Marks, in order: `handler` (axum handler entered: head and body read, auth
//! passed), `decoded` (action decoded and validated), `owner` (the hub's owner
//! task took the job), `encoded` (request frame encoded and queued), `ws_task`
//! (the socket task took the frame), `ws_written` (frame written and flushed),
//! `ws_read` (the response frame read off the socket), `owner_resp` (the owner
//! task matched it), `reply` (the handler has the outcome), `encoded_resp`
//! (response body encoded). Each is epoch ms (`SystemTime`, the clock a bench
//! on the same machine reads).

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Request header asking for the marks (any value).
pub const TIMING_HEADER: &str = "browser-bridge-timing";

tokio::task_local! {
    /// The trace of the request the current task serves.
    static CURRENT: Trace;
}

/// Epoch ms with sub-ms digits.
pub fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_default()
}

/// Marks `(label, epoch ms)` in the order taken.
type Marks = Vec<(&'static str, f64)>;

/// One request's marks, shared by the tasks it passes through; `None` when not
/// asked for.
#[derive(Debug, Clone, Default)]
pub struct Trace(Option<Arc<Mutex<Marks>>>);

impl Trace {
    /// A trace that records.
    pub fn on() -> Trace {
        Trace(Some(Arc::default()))
    }

    /// Marks `label` now.
    pub fn mark(&self, label: &'static str) {
        if self.0.is_some() {
            self.mark_at(label, epoch_ms());
        }
    }

    /// Marks `label` at `at` (epoch ms).
    pub fn mark_at(&self, label: &'static str, at: f64) {
        if let Some(marks) = &self.0 {
            marks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((label, at));
        }
    }

    /// The trace of the request this task serves (see [`Trace::scope`]).
    pub fn current() -> Trace {
        CURRENT.try_with(Trace::clone).unwrap_or_default()
    }

    /// Runs `f` with `self` as [`Trace::current`].
    pub async fn scope<F: Future>(self, f: F) -> F::Output {
        CURRENT.scope(self, f).await
    }

    /// The `Server-Timing` value: `t0;desc="<epoch ms of the first mark>"`, then
    /// each mark as `<label>;dur=<ms since t0>`; `None` when off or empty.
    pub fn server_timing(&self) -> Option<String> {
        let marks = self
            .0
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let t0 = marks.first()?.1;
        let mut out = format!("t0;desc=\"{t0:.3}\"");
        for (label, at) in marks {
            out.push_str(&format!(", {label};dur={:.3}", at - t0));
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn marks_follow_the_scope_and_render_in_order() {
        assert!(Trace::current().server_timing().is_none());
        let trace = Trace::on();
        trace.mark_at("handler", 1000.0);
        trace
            .clone()
            .scope(async {
                Trace::current().mark_at("decoded", 1000.25);
                // A spawned task does not inherit it: the hub carries it by hand.
                let other = tokio::spawn(async { Trace::current().server_timing() });
                assert_eq!(other.await.unwrap(), None);
            })
            .await;
        assert_eq!(
            trace.server_timing().as_deref(),
            Some("t0;desc=\"1000.000\", handler;dur=0.000, decoded;dur=0.250")
        );
        let off = Trace::default();
        off.mark("handler");
        assert_eq!(off.server_timing(), None);
    }
}
