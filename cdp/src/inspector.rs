//! The `Inspector` domain: renderer crashes.

use serde::{Deserialize, Serialize};

use crate::{Command, Empty, Event};

/// `Inspector.enable`: turns on [`TargetCrashed`] and
/// [`TargetReloadedAfterCrash`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Inspector.enable";
    type Response = Empty;
}

/// `Inspector.targetCrashed`: the renderer died; commands hang until the tab
/// loads again.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TargetCrashed {}

impl Event for TargetCrashed {
    const METHOD: &'static str = "Inspector.targetCrashed";
}

/// `Inspector.targetReloadedAfterCrash`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TargetReloadedAfterCrash {}

impl Event for TargetReloadedAfterCrash {
    const METHOD: &'static str = "Inspector.targetReloadedAfterCrash";
}
