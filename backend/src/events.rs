//! Events from the extension (PROTOCOL.md §11): logged with tracing, the last
//! [`EVENT_RING`] kept in memory for `status`, live sessions derived from them, and
//! every event appended as one JSON line to `<config-dir>/audit.jsonl`.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use browser_bridge_protocol::event::SessionStarted;
use browser_bridge_protocol::{Event, TabId};
use serde::Serialize;
use tokio::sync::mpsc;

/// Events kept in memory for `status`.
pub const EVENT_RING: usize = 100;

/// One received event as kept in memory and written to the audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventRecord {
    /// When the backend received it (ms since the Unix epoch).
    pub received_at: u64,
    /// The `clientId` of the extension that sent it.
    pub client_id: String,
    /// The event as sent (`{"event":"session_started",…}`).
    pub event: Event,
}

#[derive(Debug, Default)]
struct State {
    ring: VecDeque<EventRecord>,
    sessions: BTreeMap<TabId, SessionStarted>,
}

/// The event store; cheap to clone, shared by the hub and the WebSocket tasks.
#[derive(Debug, Clone)]
pub struct EventLog {
    state: Arc<Mutex<State>>,
    /// Lines for the audit writer task; `None` when no audit file is kept.
    audit: Option<mpsc::UnboundedSender<String>>,
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl EventLog {
    /// A store without an audit file (memory and tracing only).
    pub fn in_memory() -> Self {
        EventLog {
            state: Arc::default(),
            audit: None,
        }
    }

    /// A store that also appends to `audit_path` (created when missing). Spawns the
    /// writer task, so it must be called inside a tokio runtime. Write failures are
    /// logged, never fatal: losing an audit line must not fail a browser action.
    pub fn with_audit_file(audit_path: PathBuf) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_audit(audit_path, rx));
        EventLog {
            state: Arc::default(),
            audit: Some(tx),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the ring inconsistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Logs, keeps and audits one event from `client_id`. Unknown event types are
    /// logged and otherwise ignored (§1).
    pub fn record(&self, client_id: &str, event: Event) {
        if let Event::Unknown { name, .. } = &event {
            tracing::info!(client_id, event = %name, "unknown event type ignored");
            return;
        }
        tracing::info!(client_id, event = %event.name(), detail = %serde_json::to_string(&event).unwrap_or_default(), "extension event");
        let record = EventRecord {
            received_at: now_ms(),
            client_id: client_id.to_owned(),
            event,
        };
        if let Some(audit) = &self.audit
            && let Ok(line) = serde_json::to_string(&record)
        {
            let _ = audit.send(line);
        }
        let mut state = self.lock();
        match &record.event {
            Event::SessionStarted(s) => {
                state.sessions.insert(s.tab_id, s.clone());
            }
            Event::SessionEnded(e) => {
                state.sessions.remove(&e.tab_id);
            }
            Event::GlobalStop(_) => state.sessions.clear(),
            Event::DomainBlocked(_) | Event::Unknown { .. } => {}
        }
        if state.ring.len() == EVENT_RING {
            state.ring.pop_front();
        }
        state.ring.push_back(record);
    }

    /// Forgets the live sessions: the extension that owned them disconnected.
    pub fn clear_sessions(&self) {
        self.lock().sessions.clear();
    }

    /// The last [`EVENT_RING`] events, oldest first.
    pub fn recent(&self) -> Vec<EventRecord> {
        self.lock().ring.iter().cloned().collect()
    }

    /// Live sessions (started and not ended), by tab id.
    pub fn sessions(&self) -> Vec<SessionStarted> {
        self.lock().sessions.values().cloned().collect()
    }
}

async fn write_audit(path: PathBuf, mut rx: mpsc::UnboundedReceiver<String>) {
    while let Some(line) = rx.recv().await {
        let mut batch = line;
        batch.push('\n');
        while let Ok(more) = rx.try_recv() {
            batch.push_str(&more);
            batch.push('\n');
        }
        let target = path.clone();
        let written = tokio::task::spawn_blocking(move || append(&target, &batch)).await;
        if let Ok(Err(e)) = written {
            tracing::warn!(path = %path_display(&path), error = %e, "audit log write failed");
        }
    }
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

fn path_display(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use browser_bridge_protocol::SessionEndReason;
    use browser_bridge_protocol::event::{GlobalStop, SessionEnded};

    use super::*;

    fn started(tab: i64) -> Event {
        Event::SessionStarted(SessionStarted {
            tab_id: TabId(tab),
            url: format!("https://example.test/{tab}"),
            agent_window: true,
            started_at: 1,
        })
    }

    #[test]
    fn ring_keeps_last_hundred_and_sessions_follow_events() {
        let log = EventLog::in_memory();
        for tab in 0..150 {
            log.record("c1", started(tab));
        }
        let recent = log.recent();
        assert_eq!(recent.len(), EVENT_RING);
        assert_eq!(recent[0].event, started(50));
        assert_eq!(log.sessions().len(), 150);
        log.record(
            "c1",
            Event::SessionEnded(SessionEnded {
                tab_id: TabId(3),
                reason: SessionEndReason::TabClosed,
                action_count: 2,
                ended_at: 2,
            }),
        );
        assert_eq!(log.sessions().len(), 149);
        log.record(
            "c1",
            Event::GlobalStop(GlobalStop {
                session_count: 149,
                at: 3,
            }),
        );
        assert!(log.sessions().is_empty());
        let unknown = Event::Unknown {
            name: "future".into(),
            raw: serde_json::json!({"event":"future"}),
        };
        log.record("c1", unknown);
        assert_eq!(log.recent().len(), EVENT_RING);
        assert_eq!(log.recent().last().unwrap().event.name(), "global_stop");
    }

    #[tokio::test]
    async fn audit_file_gets_json_lines() {
        let dir =
            std::env::temp_dir().join(format!("bb-audit-{}", crate::config::generate_token()));
        let path = dir.join(crate::config::AUDIT_FILE);
        let log = EventLog::with_audit_file(path.clone());
        log.record("c9", started(4));
        log.record("c9", started(5));
        let mut lines = Vec::new();
        for _ in 0..200 {
            if let Ok(text) = std::fs::read_to_string(&path) {
                lines = text.lines().map(str::to_owned).collect();
                if lines.len() == 2 {
                    break;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(lines.len(), 2, "{lines:?}");
        let first: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(first["clientId"], "c9");
        assert_eq!(first["event"]["event"], "session_started");
        assert_eq!(first["event"]["tabId"], 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
