//! The API's error body, shared by every HTTP route (`/v1/*`, the console's,
//! and the body reader every POST uses).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use browser_bridge_protocol::BridgeError;
use serde_json::json;

/// `{"error":{"code","message"}}` with `status`.
pub fn error_response(status: StatusCode, error: BridgeError) -> Response {
    (status, Json(json!({ "error": error }))).into_response()
}
