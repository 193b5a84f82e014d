//! The `Network` domain: a session's requests (PROTOCOL.md §10.1) and what tells
//! a failed document load.

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

/// `Network.getResponseBody`: the body Chrome keeps of a finished request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBody {
    /// `Network.RequestId`.
    pub request_id: String,
}

/// `Network.getResponseBody`'s answer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseBody {
    /// The body: text, or base64.
    #[serde(default)]
    pub body: String,
    /// `body` is base64 (a binary body).
    #[serde(default)]
    pub base64_encoded: bool,
}

impl Command for GetResponseBody {
    const METHOD: &'static str = "Network.getResponseBody";
    type Response = ResponseBody;
}

/// `Network.Request` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The URL, fragment removed.
    #[serde(default)]
    pub url: String,
    /// `GET`, `POST`, …
    #[serde(default)]
    pub method: String,
}

/// `Network.Response` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// HTTP status.
    #[serde(default)]
    pub status: u16,
    /// MIME type.
    #[serde(default)]
    pub mime_type: String,
}

/// `Network.requestWillBeSent` (the fields we read); sent again with the same
/// `requestId` and a `redirectResponse` for each redirect hop.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    /// `Network.RequestId`.
    #[serde(default)]
    pub request_id: String,
    /// The request.
    #[serde(default)]
    pub request: Request,
    /// `Network.MonotonicTime` (s).
    #[serde(default)]
    pub timestamp: f64,
    /// `Network.ResourceType`.
    #[serde(rename = "type", default)]
    pub resource_type: Option<String>,
    /// The response that redirected here.
    #[serde(default)]
    pub redirect_response: Option<Response>,
}

impl Event for RequestWillBeSent {
    const METHOD: &'static str = "Network.requestWillBeSent";
}

/// `Network.responseReceived` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    /// `Network.RequestId`.
    #[serde(default)]
    pub request_id: String,
    /// `Network.ResourceType`.
    #[serde(rename = "type", default)]
    pub resource_type: String,
    /// The response.
    #[serde(default)]
    pub response: Response,
}

impl Event for ResponseReceived {
    const METHOD: &'static str = "Network.responseReceived";
}

/// `Network.loadingFinished` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFinished {
    /// `Network.RequestId`.
    #[serde(default)]
    pub request_id: String,
    /// `Network.MonotonicTime` (s).
    #[serde(default)]
    pub timestamp: f64,
    /// Bytes received over the network.
    #[serde(default)]
    pub encoded_data_length: f64,
}

impl Event for LoadingFinished {
    const METHOD: &'static str = "Network.loadingFinished";
}

/// `Network.loadingFailed` (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    /// `Network.RequestId`.
    #[serde(default)]
    pub request_id: String,
    /// `Network.MonotonicTime` (s).
    #[serde(default)]
    pub timestamp: f64,
    /// Why it was blocked (`inspector`, `csp`, …), when it was.
    #[serde(default)]
    pub blocked_reason: Option<String>,
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
