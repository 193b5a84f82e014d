//! browser-bridge test harness.
