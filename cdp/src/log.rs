//! The `Log` domain: the browser's own entries (a failed resource load, a
//! deprecation, an intervention), not the page's console calls.

use serde::{Deserialize, Serialize};

use crate::{Command, Empty, Event};

/// `Log.enable`: entries are reported with `Log.entryAdded`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Log.enable";
    type Response = Empty;
}

/// `Log.LogEntry` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// `network`, `javascript`, `violation`, `intervention`, …
    #[serde(default)]
    pub source: String,
    /// `verbose`, `info`, `warning` or `error`.
    #[serde(default)]
    pub level: String,
    /// The text.
    #[serde(default)]
    pub text: String,
    /// The resource it is about.
    #[serde(default)]
    pub url: Option<String>,
    /// Its line, counted from 0.
    #[serde(default)]
    pub line_number: Option<u32>,
    /// When (ms since the Unix epoch).
    #[serde(default)]
    pub timestamp: f64,
}

/// `Log.entryAdded`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EntryAdded {
    /// The entry.
    #[serde(default)]
    pub entry: LogEntry,
}

impl Event for EntryAdded {
    const METHOD: &'static str = "Log.entryAdded";
}
