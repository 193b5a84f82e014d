//! The conformance harness under test: through the `browser-bridge-conformance`
//! binary against our own backend and extension (`binary`), and as a library
//! against deliberately good and bad fake peers (`fakes`, no browser).
//!
//! Run with `cargo test -p browser-bridge-tests --test conformance`.

mod binary;
mod fakes;
