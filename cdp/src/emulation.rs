//! The `Emulation` domain.

use serde::Serialize;

use crate::{Command, Empty};

/// `Emulation.setFocusEmulationEnabled`: the page behaves as visible and focused
/// while the client is attached, whatever its window does.
#[derive(Debug, Clone, Serialize)]
pub struct SetFocusEmulationEnabled {
    /// On or off.
    pub enabled: bool,
}

impl Command for SetFocusEmulationEnabled {
    const METHOD: &'static str = "Emulation.setFocusEmulationEnabled";
    type Response = Empty;
}
