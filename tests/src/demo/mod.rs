//! The demo: the bundled demo site, the real backend, real headless Chromium with
//! the built extension, and a scripted agent driving them through the HTTP API.

pub mod agent;
pub mod scenario;
pub mod site;
