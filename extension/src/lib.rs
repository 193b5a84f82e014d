//! browser-bridge extension (wasm).
