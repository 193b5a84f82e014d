//! The page pipeline's integration tests, one binary with a module per topic:
//! element filtering and uids, Markdown shaping (both on snapshots recorded from
//! headless Chromium in `tests/fixtures/`), and the obstacle table.
//!
//! Run one topic with `cargo test -p browser-bridge-page --test it -- obstacle::`.

mod clickables;
mod elements;
mod labelled;
mod markdown;
mod obstacle;
mod options;
