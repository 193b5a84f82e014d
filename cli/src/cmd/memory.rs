//! `browser-bridge memory`: the built-in agent's task memory
//! ([`browser_bridge_agent::memory`]) under `<config-dir>/memory/` — `list`,
//! `search "<task>"`, `forget <id>`, `clear` — and how `run` and `chat` open
//! it ([`open_for_run`]).

use std::path::Path;

use browser_bridge_agent::memory::{self, DEFAULT_FLOOR, Memory, Store, StoreError};
use browser_bridge_backend::config::resolve_config_dir;
use browser_bridge_protocol::{BridgeError, ErrorCode};
use serde_json::json;

use crate::args::{MemoryArgs, MemoryCommand};
use crate::output::{internal, print_json, print_stdout};

/// Runs one `memory` subcommand.
///
/// # Errors
/// `invalid_request` for an unknown or malformed id; `internal_error` when the
/// config dir cannot be found, the store cannot be written, or (`search`) the
/// model is not installed (the message says how to install it).
pub(crate) fn memory(args: &MemoryArgs) -> Result<(), BridgeError> {
    let config_dir = resolve_config_dir(args.config_dir.as_deref()).map_err(internal)?;
    let store = Store::new(&config_dir);
    match &args.command {
        MemoryCommand::List => {
            let loaded = store.load();
            warn_skipped(&loaded.skipped);
            if args.json {
                let all: Vec<_> = loaded.stored.iter().map(|s| &s.experience).collect();
                print_json(&all);
            } else if loaded.stored.is_empty() {
                eprintln!("no experience in {}", store.dir().display());
            } else {
                for stored in &loaded.stored {
                    let e = &stored.experience;
                    print_stdout(&format!("{}  {}", e.id, e.text));
                }
            }
        }
        MemoryCommand::Search { query, k, all } => {
            let memory = Memory::open(&config_dir).map_err(internal)?;
            let loaded = store.load();
            warn_skipped(&loaded.skipped);
            let vector = memory.embed(query.trim());
            let floor = if *all { f32::MIN } else { DEFAULT_FLOOR };
            let found = memory::recall(&loaded.stored, &vector, "", *k, floor);
            if args.json {
                let found: Vec<_> = found
                    .iter()
                    .map(|l| json!({"score": l.score, "experience": l.experience}))
                    .collect();
                print_json(&found);
            } else if found.is_empty() {
                eprintln!("no past run is close to {query:?}");
            } else {
                for lesson in found {
                    let e = lesson.experience;
                    print_stdout(&format!("{:.2}  {}  {}", lesson.score, e.id, e.text));
                }
            }
        }
        MemoryCommand::Forget { id } => {
            store.forget(id).map_err(store_error)?;
            eprintln!("forgot {id}");
        }
        MemoryCommand::Clear => {
            let removed = store.clear().map_err(store_error)?;
            eprintln!("forgot {removed} experience(s)");
        }
    }
    Ok(())
}

/// The memory of a `run` or `chat`: `None` with `--no-memory`, or, said once
/// on stderr, when the model is not installed or there is no config dir
/// (memory is an aid: the run goes on without it).
pub(crate) fn open_for_run(no_memory: bool, config_dir: Option<&Path>) -> Option<Memory> {
    if no_memory {
        return None;
    }
    let opened = resolve_config_dir(config_dir)
        .map_err(|e| e.to_string())
        .and_then(|dir| Memory::open(&dir).map_err(|e| e.to_string()));
    match opened {
        Ok(memory) => Some(memory),
        Err(e) => {
            eprintln!("memory off: {e}");
            None
        }
    }
}

/// The lessons for `task` (unreadable store files said on stderr).
pub(crate) fn lessons(memory: Option<&Memory>, task: &str, url: Option<&str>) -> Option<String> {
    let (lessons, skipped) = memory?.lessons(task, url);
    warn_skipped(&skipped);
    lessons
}

/// Stores a run's experience; a failure to write is said, not fatal.
pub(crate) fn remember(
    memory: Option<&Memory>,
    task: &str,
    url: Option<&str>,
    events: &[browser_bridge_agent::AgentEvent],
    report: &browser_bridge_agent::FinalReport,
) {
    if let Some(memory) = memory
        && let Err(e) = memory.remember(task, url, events, report)
    {
        eprintln!("memory: not saved: {e}");
    }
}

fn warn_skipped(skipped: &[String]) {
    for line in skipped {
        eprintln!("memory: skipped unreadable {line}");
    }
}

fn store_error(error: StoreError) -> BridgeError {
    match error {
        StoreError::UnknownId(_) | StoreError::BadId(_) => {
            BridgeError::new(ErrorCode::InvalidRequest, error.to_string())
        }
        StoreError::Io { .. } => internal(error),
    }
}
