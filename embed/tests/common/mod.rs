//! The model as installed, loaded once per test binary. A missing model fails
//! the test with the install instruction (no silent skip).

use std::sync::OnceLock;

use browser_bridge_embed::Embedder;

pub(crate) fn embedder() -> &'static Embedder {
    static E: OnceLock<Embedder> = OnceLock::new();
    E.get_or_init(|| {
        let dir = Embedder::locate().unwrap_or_else(|e| panic!("{e}"));
        Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"))
    })
}
