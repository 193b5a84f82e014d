//! Extract quality on the real-page corpus (`../shared/corpus/`): capture CDP inputs
//! from headless Chromium, shape them with the protocol crate's pure page logic, and
//! measure content recall against Readability's `expected.html`.

pub mod capture;
pub mod cdp;
pub mod measure;
pub mod recall;
