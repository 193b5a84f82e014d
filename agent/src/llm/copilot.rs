//! GitHub Copilot's chat API: the user's GitHub token is exchanged for a
//! short-lived Copilot session token (`GET {github}/copilot_internal/v2/token`
//! with `Authorization: token <gh>`, answering `{token, expires_at, endpoints:
//! {api}}`), which is refreshed [`REFRESH_MARGIN`] before it expires; the chat
//! itself is the OpenAI chat-completions wire format ([`super::openai`]) at
//! `{endpoints.api}/chat/completions` with the headers Copilot requires of an
//! integration (`Editor-Version`, `Copilot-Integration-Id`, `User-Agent`), the
//! values the public Copilot Chat clients send. A chat request answered 401 (a
//! session revoked or expired early) is sent once more with a new session.
//!
//! `--base-url` with `--provider copilot` is the GitHub API base of the
//! exchange (default `https://api.github.com`); the chat base is whatever the
//! exchange names, which must be `https://` unless the exchange was itself
//! reached over `http://` (a test's scripted exchange). Errors leave with the
//! GitHub token and the session tokens redacted ([`LlmError::redact`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::Mutex;

use super::{LlmError, Model, Reply, ToolSpec, openai, post_json};
use crate::conversation::Conversation;

/// The exchange's path under the GitHub API base.
pub const TOKEN_PATH: &str = "copilot_internal/v2/token";

/// The chat base when the exchange's answer names none.
pub const DEFAULT_CHAT_BASE: &str = "https://api.githubcopilot.com";

/// A session token is exchanged again once it has less than this left (its
/// lifetime is about 30 min), so no request goes out with one about to expire.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// `Editor-Version`, as the public Copilot Chat clients send it.
pub const EDITOR_VERSION: &str = "vscode/1.104.1";
/// `Editor-Plugin-Version`.
pub const EDITOR_PLUGIN_VERSION: &str = "copilot-chat/0.26.7";
/// `Copilot-Integration-Id`: the chat API refuses requests without a known one.
pub const INTEGRATION_ID: &str = "vscode-chat";
/// `User-Agent`.
pub const USER_AGENT: &str = "GitHubCopilotChat/0.26.7";

/// A Copilot session: the bearer token of the chat API, when it expires, and
/// where the chat API is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The session token (`Authorization: Bearer …`).
    pub token: String,
    /// Its expiry (Unix seconds).
    pub expires_at: u64,
    /// The chat base URL (`endpoints.api`), without a trailing `/`.
    pub api: String,
}

impl Session {
    /// Reads the exchange's answer. The chat base must be `https://` (the session
    /// token goes to it) unless `plain_http` (the exchange itself was reached
    /// over `http://`: a test's scripted server).
    ///
    /// # Errors
    /// [`LlmError::Shape`] without a `token` string or a numeric `expires_at`,
    /// or with an `endpoints.api` that is not https when that is required.
    pub fn from_answer(answer: &Value, plain_http: bool) -> Result<Session, LlmError> {
        let token = answer["token"]
            .as_str()
            .filter(|token| !token.is_empty())
            .ok_or_else(|| LlmError::Shape("the Copilot token exchange gave no token".into()))?;
        let expires_at = answer["expires_at"].as_u64().ok_or_else(|| {
            LlmError::Shape("the Copilot token exchange gave no expires_at".into())
        })?;
        let api = answer
            .pointer("/endpoints/api")
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_CHAT_BASE)
            .trim_end_matches('/')
            .to_owned();
        let https = api
            .get(..8)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
        if !https && !plain_http {
            return Err(LlmError::Shape(format!(
                "the Copilot token exchange named the chat endpoint {api:?}, which is not \
                 https: refused, the session token would be sent in clear"
            )));
        }
        Ok(Session {
            token: token.to_owned(),
            expires_at,
            api,
        })
    }

    /// Still good at `now` (Unix seconds) for longer than [`REFRESH_MARGIN`].
    pub fn is_fresh(&self, now: u64) -> bool {
        self.expires_at > now.saturating_add(REFRESH_MARGIN.as_secs())
    }
}

/// A Copilot chat client. Cheap to clone (the session is shared).
#[derive(Debug, Clone)]
pub struct CopilotClient {
    http: reqwest::Client,
    token_url: Arc<str>,
    github_token: Arc<str>,
    model: Arc<str>,
    session: Arc<Mutex<Option<Session>>>,
}

impl CopilotClient {
    /// A client exchanging `github_token` at `{github_base}/copilot_internal/v2/token`.
    pub fn new(http: reqwest::Client, github_base: &str, model: &str, github_token: &str) -> Self {
        CopilotClient {
            http,
            token_url: format!("{}/{TOKEN_PATH}", github_base.trim_end_matches('/')).into(),
            github_token: github_token.into(),
            model: model.into(),
            session: Arc::default(),
        }
    }

    /// The current session, exchanged anew when there is none, it is no longer
    /// fresh, or it is `refused` (the chat API answered 401 to it). A token just
    /// handed out is used once even when it is already stale (a clock skew must
    /// not make every request exchange twice).
    async fn session(&self, refused: Option<&Session>) -> Result<Session, LlmError> {
        let mut current = self.session.lock().await;
        if let Some(session) = current
            .as_ref()
            .filter(|s| s.is_fresh(unix_now()) && Some(*s) != refused)
        {
            return Ok(session.clone());
        }
        let session = self.exchange().await?;
        *current = Some(session.clone());
        Ok(session)
    }

    async fn exchange(&self) -> Result<Session, LlmError> {
        let url = &*self.token_url;
        let response = self
            .http
            .get(url)
            .header("authorization", format!("token {}", self.github_token))
            .header("accept", "application/json")
            .header("editor-version", EDITOR_VERSION)
            .header("editor-plugin-version", EDITOR_PLUGIN_VERSION)
            .header("user-agent", USER_AGENT)
            .send()
            .await
            .map_err(|source| LlmError::Http {
                url: url.to_owned(),
                source,
            })?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|source| LlmError::Http {
            url: url.to_owned(),
            source,
        })?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes);
            let (cut, _) = browser_bridge_protocol::text::truncate_bytes(&text, 400);
            return Err(LlmError::Status {
                status: status.as_u16(),
                body: format!(
                    "the Copilot token exchange failed (is the GitHub token's account \
                     subscribed to Copilot?): {cut}"
                ),
            });
        }
        let answer: Value = serde_json::from_slice(&bytes)
            .map_err(|e| LlmError::Shape(format!("the Copilot token exchange: not JSON: {e}")))?;
        let plain_http = url
            .get(..7)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
        Session::from_answer(&answer, plain_http)
    }
}

impl Model for CopilotClient {
    async fn reply(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> Result<Reply, LlmError> {
        let mut sent = Vec::new();
        self.reply_sending(conversation, tools, &mut sent)
            .await
            .map_err(|error| {
                let mut secrets = vec![&*self.github_token];
                secrets.extend(sent.iter().map(String::as_str));
                error.redact(&secrets)
            })
    }
}

impl CopilotClient {
    /// The reply; `sent` collects the session tokens it sent, for redaction.
    async fn reply_sending(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
        sent: &mut Vec<String>,
    ) -> Result<Reply, LlmError> {
        let body = openai::request_body(&self.model, conversation, tools);
        let mut session = self.session(None).await?;
        let mut retried = false;
        loop {
            sent.push(session.token.clone());
            let headers = [
                ("authorization", format!("Bearer {}", session.token)),
                ("editor-version", EDITOR_VERSION.to_owned()),
                ("editor-plugin-version", EDITOR_PLUGIN_VERSION.to_owned()),
                ("copilot-integration-id", INTEGRATION_ID.to_owned()),
                ("user-agent", USER_AGENT.to_owned()),
            ];
            let url = format!("{}/chat/completions", session.api);
            match post_json(&self.http, &url, &headers, &body).await {
                Err(LlmError::Status { status: 401, .. }) if !retried => {
                    retried = true;
                    session = self.session(Some(&session)).await?;
                }
                answer => return openai::parse_reply(&answer?),
            }
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_exchange_answer_gives_the_token_expiry_and_chat_base() {
        let session = Session::from_answer(
            &json!({
                "token": "tid=abc;exp=1700000000",
                "expires_at": 1_700_000_000u64,
                "refresh_in": 1500,
                "endpoints": {"api": "https://api.individual.githubcopilot.com/"}
            }),
            false,
        )
        .unwrap();
        assert_eq!(session.api, "https://api.individual.githubcopilot.com");
        assert_eq!(session.expires_at, 1_700_000_000);
        let bare = Session::from_answer(&json!({"token": "t", "expires_at": 5}), false).unwrap();
        assert_eq!(bare.api, DEFAULT_CHAT_BASE);
        assert!(Session::from_answer(&json!({"expires_at": 5}), false).is_err());
        assert!(Session::from_answer(&json!({"token": "t"}), false).is_err());
    }

    #[test]
    fn a_chat_endpoint_that_is_not_https_is_refused() {
        for api in [
            "http://api.githubcopilot.com",
            "ftp://x",
            "api.githubcopilot.com",
        ] {
            let answer = json!({"token": "t", "expires_at": 5, "endpoints": {"api": api}});
            let error = Session::from_answer(&answer, false).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "unexpected answer from the model API: the Copilot token exchange named \
                     the chat endpoint {api:?}, which is not https: refused, the session \
                     token would be sent in clear"
                )
            );
        }
        // Only an exchange reached over http itself (a scripted server) may name one.
        let local = json!({"token": "t", "expires_at": 5,
                           "endpoints": {"api": "http://127.0.0.1:9/v1"}});
        assert_eq!(
            Session::from_answer(&local, true).unwrap().api,
            "http://127.0.0.1:9/v1"
        );
        let upper = json!({"token": "t", "expires_at": 5, "endpoints": {"api": "HTTPS://a.b"}});
        assert!(Session::from_answer(&upper, false).is_ok());
    }

    #[test]
    fn a_session_is_refreshed_a_minute_before_it_expires() {
        let session = Session {
            token: "t".into(),
            expires_at: 1000,
            api: DEFAULT_CHAT_BASE.into(),
        };
        assert!(session.is_fresh(939));
        assert!(!session.is_fresh(940));
        assert!(!session.is_fresh(1000));
    }
}
