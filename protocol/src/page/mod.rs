//! Pure page logic behind `extract` (PROTOCOL.md §6): the per-tab uid cache, the
//! compact view of what CDP returns, DOM → Markdown shaping, interactive element
//! filtering and truncation. No DOM, no CDP: the extension gathers the inputs and
//! these functions shape them, so everything here is tested natively.

pub mod content;
pub mod dom;
pub mod elements;
pub mod fallback;
pub mod markdown;
pub mod shape;
pub mod snapshot;
mod table;
pub mod uids;
pub mod url;

pub use shape::{PageInputs, shape_extract};
pub use uids::{BackendNodeId, UidCache, not_found_error, stale_error};
