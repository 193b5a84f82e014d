//! [`RemoteBridge`]: the [`Bridge`] of a running `serve`, reached over its HTTP API
//! (`POST /v1/act` with the pairing token). Used by the CLI's `act`, and by `mcp`
//! when a `serve` already answers ([`probe`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode};
use reqwest::StatusCode;
use serde::Deserialize;

use crate::bridge::Bridge;

/// Added to an action's deadline for the HTTP round trip, covering the server's
/// connect-wait (5 s by default) and some slack.
const CLIENT_SLACK: Duration = Duration::from_secs(15);

/// A client of a running `serve`. Cheap to clone.
#[derive(Clone)]
pub struct RemoteBridge {
    base: Arc<str>,
    token: Arc<str>,
    client: reqwest::Client,
}

impl std::fmt::Debug for RemoteBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteBridge")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct ErrorBody {
    error: BridgeError,
}

impl RemoteBridge {
    /// A client of the `serve` listening on `addr`, authenticating with `token`.
    pub fn new(addr: SocketAddr, token: impl Into<String>) -> Self {
        Self::with_base_url(format!("http://{addr}"), token)
    }

    /// A client of the `serve` at `base_url` (e.g. `http://127.0.0.1:9333`).
    pub fn with_base_url(base_url: impl Into<String>, token: impl Into<String>) -> Self {
        RemoteBridge {
            base: Arc::from(base_url.into().trim_end_matches('/')),
            token: Arc::from(token.into()),
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .unwrap_or_default(),
        }
    }

    fn unreachable(&self, e: &reqwest::Error) -> BridgeError {
        BridgeError::new(
            ErrorCode::NotConnected,
            format!(
                "no browser-bridge serve answers at {} ({e}): start `browser-bridge serve`",
                self.base
            ),
        )
    }

    /// `GET /v1/status` as JSON.
    ///
    /// # Errors
    /// `not_connected` when nothing answers; `unauthorized` on 401/403;
    /// `internal_error` on any other failure.
    pub async fn status(&self) -> Result<serde_json::Value, BridgeError> {
        let response = self
            .client
            .get(format!("{}/v1/status", self.base))
            .bearer_auth(&*self.token)
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| self.unreachable(&e))?;
        if status.is_success() {
            serde_json::from_slice(&body)
                .map_err(|e| BridgeError::internal(format!("status: bad JSON from serve: {e}")))
        } else {
            Err(decode_error(status, &body))
        }
    }
}

fn decode_error(status: StatusCode, body: &[u8]) -> BridgeError {
    if let Ok(ErrorBody { error }) = serde_json::from_slice(body) {
        return error;
    }
    let code = match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ErrorCode::Unauthorized,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::NotConnected,
        StatusCode::GATEWAY_TIMEOUT => ErrorCode::Timeout,
        _ => ErrorCode::InternalError,
    };
    BridgeError::new(
        code,
        format!(
            "serve answered HTTP {status}: {}",
            String::from_utf8_lossy(body)
        ),
    )
}

impl Bridge for RemoteBridge {
    async fn act(&self, action: Action) -> Result<ActionResult, BridgeError> {
        let timeout = Duration::from_millis(action.deadline_ms()) + CLIENT_SLACK;
        let response = self
            .client
            .post(format!("{}/v1/act", self.base))
            .bearer_auth(&*self.token)
            .json(&action)
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    BridgeError::new(
                        ErrorCode::Timeout,
                        format!("serve did not answer within {} ms", timeout.as_millis()),
                    )
                } else {
                    self.unreachable(&e)
                }
            })?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| self.unreachable(&e))?;
        if status == StatusCode::OK {
            serde_json::from_slice(&body)
                .map_err(|e| BridgeError::internal(format!("bad result JSON from serve: {e}")))
        } else {
            Err(decode_error(status, &body))
        }
    }
}

/// True when a `serve` at `addr` answers `GET /v1/status` with 200 for `token`
/// (within 1 s). `mcp` uses it to reuse a running `serve`.
pub async fn probe(addr: SocketAddr, token: &str) -> bool {
    let Ok(client) = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(1))
        .build()
    else {
        return false;
    };
    client
        .get(format!("http://{addr}/v1/status"))
        .bearer_auth(token)
        .send()
        .await
        .is_ok_and(|r| r.status() == StatusCode::OK)
}
