//! The `Network` domain: only what tells a failed document load.

use serde::{Deserialize, Serialize};

use crate::{Command, Empty, Event};

/// `Network.enable`: turns on the domain's events.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Network.enable";
    type Response = Empty;
}

/// `Network.disable`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Disable {}

impl Command for Disable {
    const METHOD: &'static str = "Network.disable";
    type Response = Empty;
}

/// `Network.loadingFailed` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    /// `Network.ResourceType`: `Document`, `Script`, …
    #[serde(rename = "type", default)]
    pub resource_type: String,
    /// The net error, `net::ERR_CONNECTION_REFUSED`.
    #[serde(default)]
    pub error_text: String,
    /// The load was cancelled (not a failure to report).
    #[serde(default)]
    pub canceled: bool,
}

impl LoadingFailed {
    /// A document load that failed (not one that was cancelled).
    pub fn is_document_failure(&self) -> bool {
        self.resource_type == "Document" && !self.canceled
    }
}

impl Event for LoadingFailed {
    const METHOD: &'static str = "Network.loadingFailed";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_failures() {
        let failed = |v| {
            serde_json::from_value::<LoadingFailed>(v)
                .unwrap()
                .is_document_failure()
        };
        assert!(failed(
            json!({"requestId": "1", "type": "Document", "errorText": "net::ERR_FAILED"})
        ));
        assert!(!failed(
            json!({"type": "Document", "errorText": "net::ERR_ABORTED", "canceled": true})
        ));
        assert!(!failed(
            json!({"type": "Image", "errorText": "net::ERR_FAILED"})
        ));
    }
}
