//! [`RemoteBridge`]: the [`Bridge`] of a running `serve`, reached over its HTTP API
//! (`POST /v1/act` with the pairing token). Used by the CLI's `act`, and by `mcp`
//! when a `serve` already answers ([`probe`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
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
    /// Where the token was read from, named when `serve` refuses it.
    token_dir: Option<Arc<Path>>,
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

    /// A client of the `serve` at `base_url` (e.g. `http://127.0.0.1:9333`;
    /// `127.0.0.1:9333` without a scheme means `http://`).
    pub fn with_base_url(base_url: impl Into<String>, token: impl Into<String>) -> Self {
        let base_url = base_url.into();
        let base_url = if base_url.contains("://") {
            base_url
        } else {
            format!("http://{base_url}")
        };
        RemoteBridge {
            base: Arc::from(base_url.trim_end_matches('/')),
            token: Arc::from(token.into()),
            token_dir: None,
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .unwrap_or_default(),
        }
    }

    /// Names the config directory the token came from, so a refused token is
    /// reported as "the token in <dir> does not match the serve on <addr>".
    #[must_use]
    pub fn with_token_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.token_dir = Some(Arc::from(dir.into()));
        self
    }

    /// The error for a non-success answer: the serve's JSON error, except that a
    /// 401 (wrong token) says which token and what to do.
    fn decode_error(&self, status: StatusCode, body: &[u8]) -> BridgeError {
        if status == StatusCode::UNAUTHORIZED {
            let from = self
                .token_dir
                .as_ref()
                .map(|dir| format!(" in {}", dir.display()))
                .unwrap_or_default();
            return BridgeError::new(
                ErrorCode::Unauthorized,
                format!(
                    "the pairing token{from} does not match the serve on {}: use the same \
                     `--config-dir` (or $BROWSER_BRIDGE_CONFIG_DIR) as that serve",
                    self.base
                ),
            );
        }
        decode_error(status, body)
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
            Err(self.decode_error(status, &body))
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
            Err(self.decode_error(status, &body))
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

/// True when a browser-bridge `serve` answers on `addr` at all, whatever its token:
/// `GET /v1/status` without a token gets its 401 JSON error (within 1 s). Tells a
/// port held by a serve with another pairing token from one held by something else.
pub async fn serve_answers(addr: SocketAddr) -> bool {
    let Ok(client) = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(1))
        .build()
    else {
        return false;
    };
    let Ok(response) = client.get(format!("http://{addr}/v1/status")).send().await else {
        return false;
    };
    if response.status() != StatusCode::UNAUTHORIZED {
        return false;
    }
    response
        .bytes()
        .await
        .is_ok_and(|body| serde_json::from_slice::<ErrorBody>(&body).is_ok())
}
