//! Task memory (DESIGN.md "Task memory"): after each run a deterministic
//! summary of what happened ([`summary`]) is embedded and kept under
//! `<config-dir>/memory/` ([`store`]); before the next run the closest past
//! runs for the task (a bonus for the same domain) are given to the model as lessons
//! ([`mod@recall`]). No model call writes or reads it; the sentence embedder is
//! behind [`Embed`] so that this module stays free of the model's runtime.

pub mod recall;
pub mod store;
pub mod summary;

use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::report::{AgentEvent, FinalReport, Progress};

pub use recall::{DEFAULT_FLOOR, DEFAULT_K, Lesson, lessons_text, recall};
pub use store::{Loaded, Store, StoreError, Stored};
pub use summary::{Experience, Failure, summarize};

/// The local multilingual model ([`browser_bridge_embed`]).
impl Embed for browser_bridge_embed::Embedder {
    fn embed(&self, text: &str) -> Vec<f32> {
        browser_bridge_embed::Embedder::embed(self, text)
    }
}

/// A sentence embedder: text → an L2-normalised vector (the same length for
/// every text of one model).
pub trait Embed: Send + Sync {
    /// The vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32>;
}

/// Cosine similarity of two vectors (0 when a length differs or one is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The memory of one config dir with its embedder: what `run` and `chat` use.
#[derive(Clone)]
pub struct Memory {
    store: Store,
    embedder: Arc<dyn Embed>,
}

impl Memory {
    /// The store under `config_dir`, embedded with `embedder`.
    pub fn new(config_dir: &Path, embedder: Arc<dyn Embed>) -> Self {
        Memory {
            store: Store::new(config_dir),
            embedder,
        }
    }

    /// The memory under `config_dir` with the installed model
    /// ([`browser_bridge_embed::Embedder::locate`]), loaded once here.
    ///
    /// # Errors
    /// The model is not installed or unreadable; the message says how to
    /// install it.
    pub fn open(config_dir: &Path) -> Result<Self, browser_bridge_embed::EmbedError> {
        let embedder =
            browser_bridge_embed::Embedder::load(&browser_bridge_embed::Embedder::locate()?)?;
        Ok(Memory::new(config_dir, Arc::new(embedder)))
    }

    /// The vector of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embedder.embed(text)
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The lessons block for `task` starting at `url` (the top [`DEFAULT_K`]
    /// above [`DEFAULT_FLOOR`]), or `None`; the second value lists the
    /// store's unreadable files.
    pub fn lessons(&self, task: &str, url: Option<&str>) -> (Option<String>, Vec<String>) {
        let domain = summary::domain_of(url.unwrap_or_default());
        let loaded = self.store.load();
        let query = self.embedder.embed(task.trim());
        let lessons = recall(&loaded.stored, &query, &domain, DEFAULT_K, DEFAULT_FLOOR);
        (lessons_text(&lessons), loaded.skipped)
    }

    /// Stores the experience of a run of `task` (from its recorded `events`
    /// and `report`) and returns it.
    ///
    /// # Errors
    /// [`StoreError::Io`] when it cannot be written.
    pub fn remember(
        &self,
        task: &str,
        url: Option<&str>,
        events: &[AgentEvent],
        report: &FinalReport,
    ) -> Result<Experience, StoreError> {
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let id = store::new_id(created);
        let experience = summarize(&id, created, task, url, events, report);
        // The task alone: the domain counts through recall's bonus, so that a
        // query without one (`memory search`) scores the same.
        let vector = self.embedder.embed(&experience.task);
        self.store.save(&Stored {
            experience: experience.clone(),
            vector,
        })?;
        Ok(experience)
    }
}

/// A [`Progress`] that keeps every event for [`Memory::remember`] and passes
/// it on.
pub struct Recorder<'a, P> {
    /// Where the events go on to.
    pub inner: &'a mut P,
    /// Every event so far.
    pub events: Vec<AgentEvent>,
}

impl<'a, P: Progress> Recorder<'a, P> {
    /// Records what goes to `inner`.
    pub fn new(inner: &'a mut P) -> Self {
        Recorder {
            inner,
            events: Vec::new(),
        }
    }
}

impl<P: Progress> Progress for Recorder<'_, P> {
    fn event(&mut self, event: &AgentEvent) {
        self.events.push(event.clone());
        self.inner.event(event);
    }

    fn waiting_for_model(&mut self, waiting: bool) {
        self.inner.waiting_for_model(waiting);
    }
}
