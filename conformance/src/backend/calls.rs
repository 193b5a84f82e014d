//! The HTTP side of a backend-mode check and the request frames it causes: an
//! action posted in the background, its answer, the next `request` frame.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::ClientSocket;
use super::http::{HttpAnswer, HttpApi};

/// Starts `POST /v1/act` in the background.
pub(super) fn spawn_act(api: &HttpApi, action: Value) -> JoinHandle<Result<HttpAnswer, String>> {
    let api = api.clone();
    tokio::spawn(async move { api.act(&action).await })
}

pub(super) async fn joined(
    task: JoinHandle<Result<HttpAnswer, String>>,
) -> Result<HttpAnswer, String> {
    task.await.map_err(|e| format!("HTTP task failed: {e}"))?
}

/// The next `request` frame, skipping anything else.
pub(super) async fn next_request(
    socket: &mut ClientSocket,
    wait: Duration,
) -> Result<Value, String> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let frame = socket
            .recv_json(left)
            .await
            .map_err(|e| format!("waiting for a request: {e}"))?;
        if frame.get("type") == Some(&json!("request")) {
            return Ok(frame);
        }
    }
}

/// An `evaluate` action of `expression`.
pub(super) fn evaluate(expression: &str) -> Value {
    json!({"action": "evaluate", "expression": expression})
}
