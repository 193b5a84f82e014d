//! [`RemoteBridge`]: the [`Bridge`] of a running `serve`, reached over its HTTP API
//! (`POST /v1/act` with the pairing token). Used by the CLI's `act` and `status`,
//! and by `mcp` and `run` when a `serve` already answers ([`probe`]).
//!
//! The token is sent only to a server that proved it knows it (`GET /v1/hello`,
//! PROTOCOL.md §2.1, [`hello`]): whatever else holds the address gets
//! one request without `Authorization` and the client refuses with `unauthorized`
//! naming the address.

pub mod hello;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use browser_bridge_protocol::browser::BROWSER_FIELD;
use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode};
use reqwest::StatusCode;
use serde::Deserialize;

use crate::bridge::Bridge;
use hello::{ProofFailure, prove_server};

/// How long the proof (`GET /v1/hello`) may take before a request.
const PROOF_TIMEOUT: Duration = Duration::from_secs(5);

/// How long [`probe`] waits for the proof: it decides between forwarding and
/// hosting, so a silent port must not hold `mcp` up.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Added to an action's deadline for the HTTP round trip, covering the server's
/// connect-wait (5 s by default) and some slack.
const CLIENT_SLACK: Duration = Duration::from_secs(15);

/// A client of a running `serve`. Cheap to clone.
///
/// Before every request that carries the token, it asks the server to prove it
/// knows the token (`GET /v1/hello` with a fresh nonce, PROTOCOL.md §2.1) and
/// refuses with `unauthorized` when the proof is wrong or missing. Proving every
/// time (one loopback round trip, well under a millisecond) is what keeps a
/// long-lived client (`mcp` forwarding, `run`) from handing the token to a program
/// that took the port after `serve` stopped. What that leaves open: a port taken
/// over between the proof and the request that follows it, microseconds later.
#[derive(Clone)]
pub struct RemoteBridge {
    base: Arc<str>,
    token: Arc<str>,
    /// Where the token was read from, named when `serve` refuses it.
    token_dir: Option<Arc<Path>>,
    client: reqwest::Client,
    /// Sent as `Browser-Bridge-Client` on `/v1/act` ([`Bridge::for_client`]);
    /// `None`: the shared `http` client.
    client_name: Option<Arc<str>>,
    /// Sent as `browser` in each `/v1/act` body ([`Bridge::for_browser`]).
    browser: Option<Arc<str>>,
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
            client_name: None,
            browser: None,
            // No redirects: a proven server never sends one, and a redirect would
            // take the token to an address that proved nothing.
            client: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
        }
    }

    /// Asks the server to prove it knows the token (`GET /v1/hello`, §2.1). Sends
    /// no token.
    ///
    /// # Errors
    /// `not_connected` when nothing answers; `unauthorized` when what answers
    /// gives no valid proof (the message names the address and the config
    /// directory); `protocol_mismatch` for a serve of another protocol version.
    pub async fn prove(&self) -> Result<(), BridgeError> {
        self.check_proof(PROOF_TIMEOUT)
            .await
            .map_err(|failure| self.proof_error(failure))
    }

    async fn check_proof(&self, timeout: Duration) -> Result<(), ProofFailure> {
        prove_server(&self.client, &self.base, &self.token, timeout).await
    }

    /// The error for a failed proof: says the token was not sent, names the
    /// address and, when known, the config directory the token came from.
    fn proof_error(&self, failure: ProofFailure) -> BridgeError {
        let from = self
            .token_dir
            .as_ref()
            .map(|dir| format!(" in {}", dir.display()))
            .unwrap_or_default();
        match failure {
            ProofFailure::Unreachable(e) => self.unreachable(&e),
            ProofFailure::Unproven(detail) => BridgeError::new(
                ErrorCode::Unauthorized,
                format!(
                    "the program answering at {} did not prove it knows the pairing token{from} \
                     ({detail}): the token was not sent. Either another program holds that \
                     address, or a serve paired with another token answers there: then use \
                     that serve's `--config-dir` (or $BROWSER_BRIDGE_CONFIG_DIR)",
                    self.base
                ),
            ),
            ProofFailure::OtherVersion(version) => BridgeError::new(
                ErrorCode::ProtocolMismatch,
                format!(
                    "the serve at {} speaks protocol version {version}, this client {}: the \
                     token was not sent; run the same browser-bridge version for both",
                    self.base,
                    browser_bridge_protocol::PROTOCOL_VERSION
                ),
            ),
        }
    }

    /// Names the config directory the token came from, so a refused token is
    /// reported as "the token in DIR does not match the serve on ADDR".
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

    /// `GET /v1/status` as JSON, after [`RemoteBridge::prove`].
    ///
    /// # Errors
    /// As [`RemoteBridge::prove`]; `not_connected` when nothing answers;
    /// `unauthorized` on 401/403; `internal_error` on any other failure.
    pub async fn status(&self) -> Result<serde_json::Value, BridgeError> {
        let request = self.client.get(format!("{}/v1/status", self.base));
        self.proven_json(request, "status").await
    }

    /// Sends `request` with the token after [`RemoteBridge::prove`], within
    /// 5 s, and reads its JSON answer; `what` names it in errors.
    async fn proven_json(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<serde_json::Value, BridgeError> {
        self.prove().await?;
        let response = request
            .bearer_auth(&*self.token)
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| self.unreachable(&e))?;
        if status.is_success() {
            serde_json::from_slice(&body)
                .map_err(|e| BridgeError::internal(format!("{what}: bad JSON from serve: {e}")))
        } else {
            Err(self.decode_error(status, &body))
        }
    }
}

impl RemoteBridge {
    /// `POST /v1/console/link`, after [`RemoteBridge::prove`]: the one-time
    /// console link `<base>/#code=<code>` (works once, for 60 s; PROTOCOL.md
    /// §2.2 "Console").
    ///
    /// # Errors
    /// As [`RemoteBridge::status`]; `internal_error` when too many links are
    /// pending (serve's 429: not a usage error, a wait-and-retry).
    pub async fn console_link(&self) -> Result<String, BridgeError> {
        let request = self.client.post(format!("{}/v1/console/link", self.base));
        let value = self
            .proven_json(request, "console link")
            .await
            .map_err(|error| match error.code {
                ErrorCode::InvalidRequest => {
                    BridgeError::internal(format!("serve refused a new link: {}", error.message))
                }
                _ => error,
            })?;
        let path = value["path"]
            .as_str()
            .filter(|p| p.starts_with("/#code="))
            .ok_or_else(|| BridgeError::internal("console link: no path in serve's answer"))?;
        Ok(format!("{}{path}", self.base))
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
        self.prove().await?;
        let timeout = Duration::from_millis(action.deadline_ms()) + CLIENT_SLACK;
        let mut request = self.client.post(format!("{}/v1/act", self.base));
        if let Some(name) = &self.client_name {
            request = request.header(crate::hub::clients::CLIENT_HEADER, &**name);
        }
        let mut body = serde_json::to_value(&action)
            .map_err(|e| BridgeError::internal(format!("encoding the action: {e}")))?;
        if let (Some(browser), Some(map)) = (&self.browser, body.as_object_mut()) {
            map.insert(BROWSER_FIELD.into(), (**browser).into());
        }
        let response = request
            .bearer_auth(&*self.token)
            .json(&body)
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

    /// Sends `Browser-Bridge-Client: <client>` with every action, so the serve
    /// keeps this client's current tab apart from its other callers'.
    fn for_client(&self, client: &str) -> Self {
        RemoteBridge {
            client_name: Some(Arc::from(client)),
            ..self.clone()
        }
    }

    /// Sends `browser` in every `/v1/act` body (PROTOCOL.md §5 "Browsers").
    fn for_browser(&self, browser: Option<&str>) -> Self {
        RemoteBridge {
            browser: browser.map(Arc::from),
            ..self.clone()
        }
    }
}

/// What [`probe`] found on an address.
#[derive(Debug)]
pub enum Probe {
    /// A `serve` that proved it knows the token: the client to use (already proven).
    Proven(RemoteBridge),
    /// Nothing answers there (no connection, or silence for 1 s).
    Absent,
    /// Something answers but did not prove it knows the token, or speaks another
    /// protocol version: the error to report (the token was not sent).
    Refused(BridgeError),
}

/// Asks what answers on `addr` to prove it knows `token` (`GET /v1/hello`, §2.1,
/// within 1 s), sending no token. `mcp` and `run` use it to choose
/// between forwarding to a running `serve` and hosting the extension WebSocket;
/// `token_dir` is named in the refusal.
pub async fn probe(addr: SocketAddr, token: &str, token_dir: Option<&Path>) -> Probe {
    let mut bridge = RemoteBridge::new(addr, token);
    if let Some(dir) = token_dir {
        bridge = bridge.with_token_dir(dir);
    }
    match bridge.check_proof(PROBE_TIMEOUT).await {
        Ok(()) => Probe::Proven(bridge),
        Err(ProofFailure::Unreachable(_)) => Probe::Absent,
        Err(failure) => Probe::Refused(bridge.proof_error(failure)),
    }
}
