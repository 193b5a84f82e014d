//! The experiences on disk: `<config-dir>/memory/<id>.json`, one file per
//! experience with its vector beside it in the same JSON (`{"experience",
//! "vector"}`). Writes go through a temporary file and a rename, so a crash
//! leaves the old file or the new one; a file that does not parse is
//! reported and skipped, never fatal.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::summary::Experience;

/// The directory under the config dir.
pub const DIR: &str = "memory";

/// One stored experience and its embedding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    /// The summary.
    pub experience: Experience,
    /// The embedding of its task.
    pub vector: Vec<f32>,
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `forget` of an id that is not stored.
    #[error("no experience with id {0:?} in memory (see `browser-bridge memory list`)")]
    UnknownId(String),
    /// An id that is not 1–32 ASCII letters, digits or dashes.
    #[error("invalid experience id {0:?}")]
    BadId(String),
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

/// The memory directory of one config dir.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// What [`Store::load`] read: the experiences, oldest first, and one line
/// per file it skipped.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Every readable experience, oldest first.
    pub stored: Vec<Stored>,
    /// `path: why` for each file that could not be read or parsed.
    pub skipped: Vec<String>,
}

impl Store {
    /// The store under `config_dir` (created on the first write).
    pub fn new(config_dir: &Path) -> Self {
        Store {
            dir: config_dir.join(DIR),
        }
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `stored` as `<id>.json`, atomically.
    ///
    /// # Errors
    /// [`StoreError::BadId`], [`StoreError::Io`].
    pub fn save(&self, stored: &Stored) -> Result<(), StoreError> {
        let path = self.path(&stored.experience.id)?;
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        private_dir(&self.dir).map_err(io)?;
        let temporary = self.dir.join(format!(".{}.json.tmp", stored.experience.id));
        let json = serde_json::to_vec(stored).expect("experiences serialise");
        private_write(&temporary, &json).map_err(io)?;
        std::fs::rename(&temporary, &path).map_err(io)
    }

    /// Every experience, oldest first; unreadable files are listed in
    /// [`Loaded::skipped`]. A missing directory is an empty store.
    pub fn load(&self) -> Loaded {
        let mut loaded = Loaded::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return loaded,
            Err(e) => {
                loaded.skipped.push(format!("{}: {e}", self.dir.display()));
                return loaded;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            let parsed = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    serde_json::from_slice::<Stored>(&bytes).map_err(|e| e.to_string())
                });
            match parsed {
                Ok(stored) => loaded.stored.push(stored),
                Err(e) => loaded.skipped.push(format!("{}: {e}", path.display())),
            }
        }
        loaded.stored.sort_by(|a, b| {
            (a.experience.created, &a.experience.id).cmp(&(b.experience.created, &b.experience.id))
        });
        loaded
    }

    /// Deletes the experience `id`.
    ///
    /// # Errors
    /// [`StoreError::UnknownId`] when it is not stored, [`StoreError::BadId`],
    /// [`StoreError::Io`].
    pub fn forget(&self, id: &str) -> Result<(), StoreError> {
        let path = self.path(id)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(StoreError::UnknownId(id.to_owned()))
            }
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    /// Deletes every experience (readable or not); returns how many files went.
    ///
    /// # Errors
    /// [`StoreError::Io`].
    pub fn clear(&self) -> Result<usize, StoreError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| StoreError::Io { path, source }
        };
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io(&self.dir)(e)),
        };
        let mut removed = 0;
        for entry in entries {
            let path = entry.map_err(io(&self.dir))?.path();
            if path.extension().is_some_and(|x| x == "json" || x == "tmp") {
                std::fs::remove_file(&path).map_err(io(&path))?;
                removed += usize::from(path.extension().is_some_and(|x| x == "json"));
            }
        }
        Ok(removed)
    }

    fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        let valid = !id.is_empty()
            && id.len() <= 32
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            return Err(StoreError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.json")))
    }
}

/// A new experience id: 12 hex digits from the time and the process, so
/// that two runs never share one.
pub fn new_id(created_ms: u64) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(created_ms);
    hasher.write_u32(std::process::id());
    format!("{:012x}", hasher.finish() & 0xffff_ffff_ffff)
}

/// Creates `dir` and missing parents mode 0700 (tasks and pages' text are the
/// person's own, as README says of the config directory); an existing one is narrowed.
fn private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700);
        builder.create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    builder.create(dir)
}

/// Writes `bytes` to a new or truncated `path`, mode 0600.
fn private_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: &str, created: u64) -> Stored {
        Stored {
            experience: Experience {
                id: id.into(),
                created,
                task: format!("task {id}"),
                start_url: String::new(),
                domain: String::new(),
                outcome: "done".into(),
                success: true,
                steps: 1,
                failures: vec![],
                fixes: vec![],
                text: "t".into(),
            },
            vector: vec![0.6, 0.8],
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bb-memory-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn saves_loads_forgets_and_clears() {
        let dir = temp_dir("cycle");
        let store = Store::new(&dir);
        assert!(store.load().stored.is_empty(), "no directory: empty");
        store.save(&stored("b2", 20)).unwrap();
        store.save(&stored("a1", 10)).unwrap();
        let loaded = store.load();
        assert!(loaded.skipped.is_empty());
        let ids: Vec<&str> = loaded
            .stored
            .iter()
            .map(|s| s.experience.id.as_str())
            .collect();
        assert_eq!(ids, ["a1", "b2"], "oldest first");
        assert_eq!(loaded.stored[0], stored("a1", 10));
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(store.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.dir()), 0o700, "memory/ is private");
            assert_eq!(mode(&dir), 0o700, "so is a config dir it creates");
            assert_eq!(mode(&store.dir().join("a1.json")), 0o600);
        }
        store.forget("a1").unwrap();
        assert_eq!(store.load().stored.len(), 1);
        assert_eq!(store.clear().unwrap(), 1);
        assert!(store.load().stored.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_corrupt_file_is_reported_and_skipped() {
        let dir = temp_dir("corrupt");
        let store = Store::new(&dir);
        store.save(&stored("good", 1)).unwrap();
        std::fs::write(store.dir().join("bad.json"), b"{\"experience\": tru").unwrap();
        std::fs::write(store.dir().join("other.json"), b"{\"vector\": []}").unwrap();
        let loaded = store.load();
        assert_eq!(loaded.stored.len(), 1);
        assert_eq!(loaded.skipped.len(), 2, "{:?}", loaded.skipped);
        assert!(loaded.skipped.iter().any(|s| s.contains("bad.json")));
        // `clear` removes the corrupt ones too.
        assert_eq!(store.clear().unwrap(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn forgetting_an_unknown_or_bad_id_is_a_clear_error() {
        let dir = temp_dir("forget");
        let store = Store::new(&dir);
        let error = store.forget("0123456789ab").unwrap_err();
        assert!(matches!(error, StoreError::UnknownId(_)));
        assert!(
            error
                .to_string()
                .contains("no experience with id \"0123456789ab\"")
        );
        // A path is never an id: nothing outside the directory can be deleted.
        for bad in ["../token", "a/b", "", "x.json"] {
            assert!(
                matches!(store.forget(bad), Err(StoreError::BadId(_))),
                "{bad}"
            );
        }
        assert!(new_id(5).len() == 12 && new_id(5) != new_id(5));
    }
}
