//! The `Fetch` domain: requests paused before they leave, each then continued or
//! failed.

use serde::{Deserialize, Serialize};

use crate::page::FrameId;
use crate::{Command, Empty, Event, id};

id!(
    /// `Fetch.RequestId`: one paused request.
    RequestId(String)
);

/// `Fetch.RequestPattern`: which requests pause.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPattern {
    /// Wildcard URL pattern (`*` = all).
    pub url_pattern: String,
    /// `Network.ResourceType`: `Document`, `Script`, …
    pub resource_type: String,
    /// `Request` (before it is sent) or `Response`.
    pub request_stage: String,
}

/// `Fetch.enable`: pause the requests matching `patterns`
/// ([`RequestPaused`]); each must then get [`ContinueRequest`] or
/// [`FailRequest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Enable {
    /// What pauses.
    pub patterns: Vec<RequestPattern>,
}

impl Enable {
    /// Every document request (main frame and iframes, each redirect hop), paused
    /// before it is sent.
    pub fn documents() -> Enable {
        Enable {
            patterns: vec![RequestPattern {
                url_pattern: "*".into(),
                resource_type: "Document".into(),
                request_stage: "Request".into(),
            }],
        }
    }
}

impl Command for Enable {
    const METHOD: &'static str = "Fetch.enable";
    type Response = Empty;
}

/// `Fetch.continueRequest`: lets a paused request go, unchanged.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueRequest {
    /// The paused request.
    pub request_id: RequestId,
}

impl Command for ContinueRequest {
    const METHOD: &'static str = "Fetch.continueRequest";
    type Response = Empty;
}

/// `Fetch.failRequest`: fails a paused request with a net error.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailRequest {
    /// The paused request.
    pub request_id: RequestId,
    /// `Network.ErrorReason`, e.g. `BlockedByClient`.
    pub error_reason: &'static str,
}

impl Command for FailRequest {
    const METHOD: &'static str = "Fetch.failRequest";
    type Response = Empty;
}

/// `Fetch.requestPaused` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPaused {
    /// Answer with this id.
    pub request_id: RequestId,
    /// The request.
    pub request: Request,
    /// The frame that made it.
    #[serde(default)]
    pub frame_id: FrameId,
}

impl Event for RequestPaused {
    const METHOD: &'static str = "Fetch.requestPaused";
}

/// `Network.Request` (the field we read).
#[derive(Debug, Clone, Deserialize)]
pub struct Request {
    /// The URL requested.
    #[serde(default)]
    pub url: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_pattern_and_paused_request() {
        assert_eq!(
            serde_json::to_value(Enable::documents()).unwrap(),
            json!({"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]})
        );
        let p: RequestPaused = serde_json::from_value(json!({
            "requestId": "interception-1", "frameId": "F",
            "request": {"url": "https://a.test/", "method": "GET", "headers": {}},
            "resourceType": "Document"
        }))
        .unwrap();
        assert_eq!(p.request_id, RequestId("interception-1".into()));
        assert_eq!(p.request.url, "https://a.test/");
        assert_eq!(
            serde_json::to_value(FailRequest {
                request_id: p.request_id,
                error_reason: "BlockedByClient"
            })
            .unwrap(),
            json!({"requestId": "interception-1", "errorReason": "BlockedByClient"})
        );
    }
}
