//! Events from the extension (PROTOCOL.md §11): logged with tracing, the last
//! [`EVENT_RING`] kept in memory for `status`, live sessions derived from them, and
//! every event appended as one JSON line to `<config-dir>/audit.jsonl`.
//!
//! What an authenticated extension can make the backend keep is capped: URLs and
//! other event text are cut to [`MAX_EVENT_TEXT_BYTES`], at most [`MAX_SESSIONS`]
//! live sessions are remembered, and the audit log rotates at
//! [`AUDIT_MAX_BYTES`] keeping [`AUDIT_FILES`] files (mode 0600).

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

/// Longest text kept from an event field (URL, domain) or a `clientId`, in bytes;
/// longer text is cut at a character boundary and ends with `…`.
pub const MAX_EVENT_TEXT_BYTES: usize = 1024;

/// Live sessions remembered; a `session_started` beyond this is logged, audited
/// and otherwise ignored (a real browser has far fewer tabs under control).
pub const MAX_SESSIONS: usize = 1000;

/// Size at which `audit.jsonl` is rotated (bytes).
pub const AUDIT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// Audit files kept: `audit.jsonl`, `audit.jsonl.1`, `audit.jsonl.2`.
pub const AUDIT_FILES: usize = 3;

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
    /// By browser (its extension's `clientId`, cut) and tab: tabIds are per
    /// browser process (PROTOCOL.md §5 "Browsers").
    sessions: BTreeMap<(String, TabId), SessionStarted>,
}

/// The event store; cheap to clone, shared by the hub and the WebSocket tasks.
#[derive(Debug, Clone)]
pub struct EventLog {
    state: Arc<Mutex<State>>,
    /// Lines for the audit writer task; `None` when no audit file is kept.
    audit: Option<mpsc::UnboundedSender<String>>,
}

/// Where and how much audit log to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditFile {
    /// `<config-dir>/audit.jsonl`.
    pub path: PathBuf,
    /// Rotate once the file would grow past this (bytes); [`AUDIT_MAX_BYTES`].
    pub max_bytes: u64,
    /// Files kept, the live one included ([`AUDIT_FILES`]); older are deleted.
    pub files: usize,
}

impl AuditFile {
    /// `path` with the default limits.
    pub fn new(path: PathBuf) -> Self {
        AuditFile {
            path,
            max_bytes: AUDIT_MAX_BYTES,
            files: AUDIT_FILES,
        }
    }
}

/// `text` cut to at most `max` bytes at a character boundary, ending with `…`
/// when cut (the `…` counts towards `max`).
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let ellipsis = '…';
    let mut end = max.saturating_sub(ellipsis.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + ellipsis.len_utf8());
    out.push_str(&text[..end]);
    out.push(ellipsis);
    out
}

/// The event with its free text (URLs, domains) cut to [`MAX_EVENT_TEXT_BYTES`].
fn capped(event: Event) -> Event {
    let c = |text: &mut String| {
        if text.len() > MAX_EVENT_TEXT_BYTES {
            *text = cut(text, MAX_EVENT_TEXT_BYTES);
        }
    };
    match event {
        Event::SessionStarted(mut s) => {
            c(&mut s.url);
            Event::SessionStarted(s)
        }
        Event::DomainBlocked(mut d) => {
            c(&mut d.url);
            c(&mut d.domain);
            Event::DomainBlocked(d)
        }
        other => other,
    }
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
        Self::with_audit(AuditFile::new(audit_path))
    }

    /// [`EventLog::with_audit_file`] with explicit rotation limits.
    pub fn with_audit(audit: AuditFile) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_audit(audit, rx));
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
        let client_id = cut(client_id, MAX_EVENT_TEXT_BYTES);
        if let Event::Unknown { name, .. } = &event {
            let name = cut(name, MAX_EVENT_TEXT_BYTES);
            tracing::info!(client_id, event = %name, "unknown event type ignored");
            return;
        }
        let event = capped(event);
        // JSON text: newlines and quotes in URLs arrive escaped on stderr.
        tracing::info!(client_id, event = %event.name(), detail = %serde_json::to_string(&event).unwrap_or_default(), "extension event");
        let record = EventRecord {
            received_at: now_ms(),
            client_id,
            event,
        };
        if let Some(audit) = &self.audit
            && let Ok(line) = serde_json::to_string(&record)
        {
            let _ = audit.send(line);
        }
        let mut state = self.lock();
        let browser = record.client_id.clone();
        match &record.event {
            Event::SessionStarted(s) => {
                let key = (browser, s.tab_id);
                if state.sessions.len() < MAX_SESSIONS || state.sessions.contains_key(&key) {
                    state.sessions.insert(key, s.clone());
                } else {
                    tracing::warn!(
                        tab_id = s.tab_id.0,
                        "more than {MAX_SESSIONS} live sessions: this one is not listed"
                    );
                }
            }
            Event::SessionEnded(e) => {
                state.sessions.remove(&(browser, e.tab_id));
            }
            Event::GlobalStop(_) => state.sessions.retain(|(b, _), _| *b != browser),
            // domain_blocked, and event types added later (Event is non-exhaustive).
            _ => {}
        }
        if state.ring.len() == EVENT_RING {
            state.ring.pop_front();
        }
        state.ring.push_back(record);
    }

    /// Forgets every live session (the backend is shutting down).
    pub fn clear_sessions(&self) {
        self.lock().sessions.clear();
    }

    /// Forgets the live sessions of the browser `client_id`: its extension
    /// disconnected.
    pub fn clear_sessions_of(&self, client_id: &str) {
        let client_id = cut(client_id, MAX_EVENT_TEXT_BYTES);
        self.lock().sessions.retain(|(b, _), _| *b != client_id);
    }

    /// The live sessions of the browser `client_id`, by tab id.
    pub fn sessions_of(&self, client_id: &str) -> Vec<SessionStarted> {
        let client_id = cut(client_id, MAX_EVENT_TEXT_BYTES);
        self.lock()
            .sessions
            .iter()
            .filter(|((b, _), _)| *b == client_id)
            .map(|(_, s)| s.clone())
            .collect()
    }

    /// The last [`EVENT_RING`] events, oldest first.
    pub fn recent(&self) -> Vec<EventRecord> {
        self.lock().ring.iter().cloned().collect()
    }

    /// Live sessions (started and not ended) of every browser, by browser then
    /// tab id.
    pub fn sessions(&self) -> Vec<SessionStarted> {
        self.lock().sessions.values().cloned().collect()
    }

    /// The first `limit` live sessions (by browser, then tab id), and how many
    /// there are in all.
    pub fn sessions_page(&self, limit: usize) -> (Vec<SessionStarted>, usize) {
        let state = self.lock();
        let listed = state.sessions.values().take(limit).cloned().collect();
        (listed, state.sessions.len())
    }
}

async fn write_audit(audit: AuditFile, mut rx: mpsc::UnboundedReceiver<String>) {
    while let Some(line) = rx.recv().await {
        let mut batch = line;
        batch.push('\n');
        while let Ok(more) = rx.try_recv() {
            batch.push_str(&more);
            batch.push('\n');
        }
        let target = audit.clone();
        let written = tokio::task::spawn_blocking(move || append(&target, &batch)).await;
        if let Ok(Err(e)) = written {
            tracing::warn!(path = %path_display(&audit.path), error = %e, "audit log write failed");
        }
    }
}

/// Appends `text` to the audit file (created 0600, its directory 0700), first
/// rotating `audit.jsonl` → `.1` → `.2` … when the text would take it past
/// `max_bytes`, so the log never holds much more than `files × max_bytes`.
fn append(audit: &AuditFile, text: &str) -> std::io::Result<()> {
    let path = &audit.path;
    if let Some(dir) = path.parent() {
        crate::config::create_private_dir(dir).map_err(std::io::Error::other)?;
    }
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    if size > 0 && size + text.len() as u64 > audit.max_bytes {
        rotate(path, audit.files)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}

/// `audit.jsonl.{files-1}` is deleted, each `.n` becomes `.n+1`, the live file `.1`.
fn rotate(path: &Path, files: usize) -> std::io::Result<()> {
    let numbered = |n: usize| {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    };
    if files <= 1 {
        return std::fs::remove_file(path);
    }
    match std::fs::remove_file(numbered(files - 1)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    for n in (1..files - 1).rev() {
        match std::fs::rename(numbered(n), numbered(n + 1)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    std::fs::rename(path, numbered(1))
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

    #[test]
    fn sessions_are_per_browser() {
        let log = EventLog::in_memory();
        log.record("work", started(7));
        log.record("home", started(7));
        log.record("home", started(8));
        let tabs =
            |b: &str| -> Vec<i64> { log.sessions_of(b).iter().map(|s| s.tab_id.0).collect() };
        assert_eq!((tabs("work"), tabs("home")), (vec![7], vec![7, 8]));
        // The same tabId ending in one browser leaves the other's.
        log.record(
            "home",
            Event::SessionEnded(SessionEnded {
                tab_id: TabId(7),
                reason: SessionEndReason::TabClosed,
                action_count: 1,
                ended_at: 2,
            }),
        );
        assert_eq!((tabs("work"), tabs("home")), (vec![7], vec![8]));
        log.record(
            "work",
            Event::GlobalStop(GlobalStop {
                session_count: 1,
                at: 3,
            }),
        );
        assert_eq!((tabs("work"), tabs("home")), (vec![], vec![8]));
        log.record("work", started(9));
        log.clear_sessions_of("home");
        assert_eq!((tabs("work"), tabs("home")), (vec![9], vec![]));
    }

    #[test]
    fn event_text_and_sessions_are_capped() {
        let log = EventLog::in_memory();
        let long = format!("https://example.test/{}", "é".repeat(5000));
        log.record(
            &"c".repeat(10_000),
            Event::SessionStarted(SessionStarted {
                tab_id: TabId(1),
                url: long.clone(),
                agent_window: true,
                started_at: 1,
            }),
        );
        let record = &log.recent()[0];
        assert_eq!(record.client_id.len(), MAX_EVENT_TEXT_BYTES);
        let Event::SessionStarted(kept) = &record.event else {
            panic!("{record:?}")
        };
        assert!(kept.url.len() <= MAX_EVENT_TEXT_BYTES, "{}", kept.url.len());
        assert!(kept.url.len() > MAX_EVENT_TEXT_BYTES - 4);
        assert!(kept.url.ends_with('…'));
        assert!(long.starts_with(kept.url.trim_end_matches('…')));
        for tab in 2..(MAX_SESSIONS as i64 + 50) {
            log.record("c1", started(tab));
        }
        let (listed, total) = log.sessions_page(10);
        assert_eq!((listed.len(), total), (10, MAX_SESSIONS));
        // By browser, then tab: "c1" sorts before the long "ccc…".
        assert_eq!(listed[0].tab_id, TabId(2));
    }

    #[test]
    fn cut_respects_char_boundaries() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("abcdefghij", 6), "abc…");
        assert_eq!(cut("ééééé", 6), "é…");
    }

    #[test]
    fn audit_rotates_by_size_and_keeps_three_files() {
        let dir =
            std::env::temp_dir().join(format!("bb-rotate-{}", crate::config::generate_token()));
        let audit = AuditFile {
            path: dir.join(crate::config::AUDIT_FILE),
            max_bytes: 1000,
            files: 3,
        };
        let line = format!("{}\n", "x".repeat(99));
        for _ in 0..100 {
            append(&audit, &line).unwrap();
        }
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]);
        for name in &names {
            let len = std::fs::metadata(dir.join(name)).unwrap().len();
            assert!(len <= 1000 && len.is_multiple_of(100), "{name}: {len}");
        }
        assert_eq!(
            std::fs::metadata(dir.join("audit.jsonl.1")).unwrap().len(),
            1000
        );
        std::fs::remove_dir_all(&dir).unwrap();
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
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
