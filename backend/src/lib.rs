//! browser-bridge backend.
