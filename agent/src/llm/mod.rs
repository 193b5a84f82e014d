//! Chat models with native tool calling, over plain HTTP (reqwest; no provider
//! SDK): an OpenAI-compatible chat-completions client ([`openai`]: OpenAI,
//! DeepSeek, Qwen, Ollama, LM Studio… chosen by base URL), an Anthropic
//! Messages client ([`anthropic`]) and GitHub Copilot's chat API ([`copilot`]:
//! a token exchange, then the OpenAI wire format).

pub mod anthropic;
mod config;
pub mod copilot;
pub mod openai;

pub use config::{MODEL_ENV_VARIABLES, ModelConfig, is_loopback_url};

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use browser_bridge_backend::tool;
use serde_json::Value;

use crate::conversation::{Conversation, ToolCall};

/// Longest wait for one model reply (ms); the run's overall timeout still applies.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// `max_tokens` of an Anthropic request (the Messages API requires a bound; the
/// OpenAI-compatible request leaves it to the model).
pub const MAX_COMPLETION_TOKENS: u32 = 4096;

/// Tokens of one reply, or summed over a run, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Every input token (OpenAI `prompt_tokens`; Anthropic `input_tokens` +
    /// `cache_creation_input_tokens` + `cache_read_input_tokens`).
    pub prompt_tokens: u64,
    /// The part of `prompt_tokens` read from the provider's prompt cache (OpenAI
    /// `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`),
    /// billed at a fraction of the input price.
    pub cached_prompt_tokens: u64,
    /// Output tokens (OpenAI `completion_tokens`, Anthropic `output_tokens`).
    pub completion_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.cached_prompt_tokens += other.cached_prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }
}

/// One model reply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// The text (empty when the model only called tools).
    pub text: String,
    /// The tool calls, in order.
    pub calls: Vec<ToolCall>,
    /// Tokens this reply cost.
    pub usage: Usage,
}

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The HTTP request failed (connection, TLS, timeout).
    #[error("cannot reach the model at {url}: {source}")]
    Http {
        /// The endpoint.
        url: String,
        /// The cause.
        #[source]
        source: reqwest::Error,
    },
    /// The provider answered an error status.
    #[error("the model API answered HTTP {status}: {body}")]
    Status {
        /// HTTP status code.
        status: u16,
        /// The body (cut to 500 bytes).
        body: String,
    },
    /// The answer was not the expected JSON shape.
    #[error("unexpected answer from the model API: {0}")]
    Shape(String),
}

/// What a secret is replaced with in an error's text.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this (bytes) are left in place: no real credential is
/// that short, and replacing every occurrence would garble the message.
pub const MIN_REDACTED_LEN: usize = 8;

impl LlmError {
    /// This error with each of `secrets` (the API key, the GitHub token, the
    /// Copilot session token) in its text replaced by [`REDACTED`]: a provider's
    /// error body may echo the request's credentials, and the error is printed
    /// (stderr, the `--json` `final` event). Applied by every client before an
    /// error leaves this module.
    #[must_use]
    pub fn redact(self, secrets: &[&str]) -> LlmError {
        let clean = |mut text: String| {
            for secret in secrets.iter().filter(|s| s.len() >= MIN_REDACTED_LEN) {
                if text.contains(secret) {
                    text = text.replace(secret, REDACTED);
                }
            }
            text
        };
        match self {
            LlmError::Status { status, body } => LlmError::Status {
                status,
                body: clean(body),
            },
            LlmError::Shape(text) => LlmError::Shape(clean(text)),
            // reqwest's error names only the URL, which holds no credential.
            http @ LlmError::Http { .. } => http,
        }
    }
}

/// A tool offered to the model: its name, description and JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// `browser`, or `mcp__<server>__<tool>` for another MCP server's tool
    /// (`^[a-zA-Z0-9_-]{1,64}$`, the providers' pattern).
    pub name: String,
    /// What it does and how its errors are handled.
    pub description: String,
    /// The object-rooted input schema.
    pub schema: Value,
}

impl ToolSpec {
    /// The `browser` tool: the protocol crate's flat tool schema (plus the
    /// `includeText` option) and the MCP tool's description.
    pub fn browser() -> Self {
        ToolSpec {
            name: tool::TOOL_NAME.to_owned(),
            description: tool::DESCRIPTION.to_owned(),
            schema: Value::Object(tool::input_schema()),
        }
    }
}

/// A chat model the loop can ask for the next step.
pub trait Model: Send + Sync {
    /// Sends the conversation with `tools` offered (`browser` first) and returns
    /// the reply.
    fn reply(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> impl Future<Output = Result<Reply, LlmError>> + Send;
}

/// Which wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible chat completions (`POST {base}/chat/completions`).
    Openai,
    /// Anthropic Messages (`POST {base}/messages`).
    Anthropic,
    /// GitHub Copilot: the GitHub token exchanged for a session token at
    /// `{base}/copilot_internal/v2/token`, then OpenAI chat completions at the
    /// chat base the exchange names ([`copilot`]).
    Copilot,
}

impl Provider {
    /// The default base URL.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::Openai => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
            // The token exchange's base; the chat base comes from the exchange.
            Provider::Copilot => "https://api.github.com",
        }
    }

    /// The default model.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::Openai => "gpt-4.1-mini",
            Provider::Anthropic => "claude-sonnet-4-5",
            Provider::Copilot => "gpt-4.1",
        }
    }

    /// The provider's usual API key variables, in the order read (Copilot's
    /// key is the user's GitHub token, as the `gh` CLI reads it).
    pub fn key_variables(self) -> &'static [&'static str] {
        match self {
            Provider::Openai => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY"],
            Provider::Copilot => &["GITHUB_TOKEN", "GH_TOKEN"],
        }
    }
}

/// The variable read first for the API key, whatever the provider.
pub const KEY_VARIABLE: &str = "BROWSER_BRIDGE_API_KEY";

/// The API key: `BROWSER_BRIDGE_API_KEY`, else the provider's usual variables
/// (empty values count as unset). `lookup` reads a variable (`std::env::var` in
/// the CLI; a map in tests).
pub fn api_key(provider: Provider, lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    std::iter::once(KEY_VARIABLE)
        .chain(provider.key_variables().iter().copied())
        .filter_map(lookup)
        .find(|value| !value.trim().is_empty())
}

/// A configured model client of either provider.
#[derive(Debug, Clone)]
pub enum LlmClient {
    /// OpenAI-compatible.
    Openai(openai::OpenAiClient),
    /// Anthropic Messages.
    Anthropic(anthropic::AnthropicClient),
    /// GitHub Copilot.
    Copilot(copilot::CopilotClient),
}

impl LlmClient {
    /// A client for `provider` at `base_url` using `model`; `api_key` may be
    /// absent for local servers (Ollama, LM Studio). For Copilot it is the GitHub
    /// token (an absent one makes every exchange fail with HTTP 401).
    pub fn new(provider: Provider, base_url: &str, model: &str, api_key: Option<String>) -> Self {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .unwrap_or_default();
        match provider {
            Provider::Openai => {
                LlmClient::Openai(openai::OpenAiClient::new(http, base_url, model, api_key))
            }
            Provider::Anthropic => LlmClient::Anthropic(anthropic::AnthropicClient::new(
                http, base_url, model, api_key,
            )),
            Provider::Copilot => LlmClient::Copilot(copilot::CopilotClient::new(
                http,
                base_url,
                model,
                api_key.as_deref().unwrap_or_default(),
            )),
        }
    }
}

impl Model for LlmClient {
    async fn reply(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> Result<Reply, LlmError> {
        match self {
            LlmClient::Openai(client) => client.reply(conversation, tools).await,
            LlmClient::Anthropic(client) => client.reply(conversation, tools).await,
            LlmClient::Copilot(client) => client.reply(conversation, tools).await,
        }
    }
}

/// Retries of a request the provider answered "busy" (429, 500, 502, 503, 529).
pub const MAX_RETRIES: u32 = 2;

/// Longest wait before a retry, whatever `Retry-After` says.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(20);

/// Statuses worth retrying: rate limits and overloaded or failing gateways
/// (529 is Anthropic's "overloaded").
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 529)
}

/// The wait before retry number `attempt` (1-based): the provider's
/// `Retry-After` seconds when given, else 1 s doubling; at most [`MAX_RETRY_WAIT`].
pub fn retry_wait(attempt: u32, retry_after: Option<&str>) -> Duration {
    let wait = retry_after
        .and_then(|value| value.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map_or_else(
            || Duration::from_secs(1 << attempt.saturating_sub(1).min(4)),
            Duration::from_secs_f64,
        );
    wait.min(MAX_RETRY_WAIT)
}

/// Where and as whom a client posts: the one URL, the model name and the key
/// (absent for local servers). Shared by both providers; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    http: reqwest::Client,
    url: Arc<str>,
    /// The model name sent in every request body.
    pub(crate) model: Arc<str>,
    /// The API key, when one was configured.
    pub(crate) api_key: Option<Arc<str>>,
}

impl Endpoint {
    /// Posts to `{base_url}/{path}` (a trailing `/` on `base_url` is ignored).
    pub(crate) fn new(
        http: reqwest::Client,
        base_url: &str,
        path: &str,
        model: &str,
        api_key: Option<String>,
    ) -> Self {
        Endpoint {
            http,
            url: format!("{}/{path}", base_url.trim_end_matches('/')).into(),
            model: model.into(),
            api_key: api_key.map(Into::into),
        }
    }

    /// `error` with the API key redacted ([`LlmError::redact`]).
    pub(crate) fn redacted(&self, error: LlmError) -> LlmError {
        error.redact(&[self.api_key.as_deref().unwrap_or_default()])
    }

    /// [`post_json`] to this endpoint.
    pub(crate) async fn post(
        &self,
        headers: &[(&str, String)],
        body: &Value,
    ) -> Result<Value, LlmError> {
        post_json(&self.http, &self.url, headers, body).await
    }
}

/// The token count at `pointer` in a provider's answer, 0 when absent.
pub(crate) fn token_count(answer: &Value, pointer: &str) -> u64 {
    answer.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// POSTs `body` to `url` with `headers` and returns the JSON answer, retrying
/// a busy provider up to [`MAX_RETRIES`] times (the run's timeout still bounds it).
pub(crate) async fn post_json(
    http: &reqwest::Client,
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
) -> Result<Value, LlmError> {
    let http_error = |source| LlmError::Http {
        url: url.to_owned(),
        source,
    };
    let mut attempt = 0;
    let (status, bytes) = loop {
        let mut request = http.post(url).json(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let response = request.send().await.map_err(http_error)?;
        let status = response.status();
        if attempt < MAX_RETRIES && is_retryable(status.as_u16()) {
            attempt += 1;
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let wait = retry_wait(attempt, retry_after.as_deref());
            tracing::warn!(%status, attempt, ?wait, "model API busy; retrying");
            tokio::time::sleep(wait).await;
            continue;
        }
        break (status, response.bytes().await.map_err(http_error)?);
    };
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes);
        let (cut, _) = browser_bridge_protocol::text::truncate_bytes(&text, 500);
        return Err(LlmError::Status {
            status: status.as_u16(),
            body: cut.to_owned(),
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| LlmError::Shape(format!("not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_waits() {
        assert!(is_retryable(429) && is_retryable(529) && !is_retryable(400));
        assert_eq!(retry_wait(1, None), Duration::from_secs(1));
        assert_eq!(retry_wait(2, None), Duration::from_secs(2));
        assert_eq!(retry_wait(1, Some("0")), Duration::ZERO);
        assert_eq!(retry_wait(1, Some("2.5")), Duration::from_millis(2500));
        assert_eq!(retry_wait(1, Some("3600")), MAX_RETRY_WAIT);
        assert_eq!(
            retry_wait(1, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn usage_sums() {
        let mut total = Usage::default();
        total += Usage {
            prompt_tokens: 1200,
            cached_prompt_tokens: 0,
            completion_tokens: 40,
        };
        total += Usage {
            prompt_tokens: 1500,
            cached_prompt_tokens: 1100,
            completion_tokens: 12,
        };
        assert_eq!(
            total,
            Usage {
                prompt_tokens: 2700,
                cached_prompt_tokens: 1100,
                completion_tokens: 52
            }
        );
    }

    #[test]
    fn the_bridge_key_wins_then_the_provider_variable() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let both = env(&[("BROWSER_BRIDGE_API_KEY", "bb"), ("OPENAI_API_KEY", "oa")]);
        assert_eq!(api_key(Provider::Openai, both).as_deref(), Some("bb"));
        let provider_only = env(&[("BROWSER_BRIDGE_API_KEY", " "), ("ANTHROPIC_API_KEY", "an")]);
        assert_eq!(
            api_key(Provider::Anthropic, provider_only).as_deref(),
            Some("an")
        );
        let other_provider = env(&[("ANTHROPIC_API_KEY", "an")]);
        assert_eq!(api_key(Provider::Openai, other_provider), None);
        let gh = env(&[("GITHUB_TOKEN", ""), ("GH_TOKEN", "gho_1")]);
        assert_eq!(api_key(Provider::Copilot, gh).as_deref(), Some("gho_1"));
    }

    /// With TLS compiled in, an https base URL gets as far as the handshake (a
    /// server that hangs up fails it) instead of being refused as an unsupported
    /// scheme before any connection.
    #[tokio::test]
    async fn https_base_urls_are_supported() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let hang_up = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            drop(socket);
        });
        let client = LlmClient::new(
            Provider::Openai,
            &format!("https://127.0.0.1:{port}/v1"),
            "m",
            Some("k".into()),
        );
        let conversation = Conversation::new("t", None);
        let error = client
            .reply(&conversation, &[ToolSpec::browser()])
            .await
            .expect_err("the server hangs up");
        let LlmError::Http { source, .. } = &error else {
            panic!("not an HTTP error: {error}")
        };
        assert!(!source.is_builder(), "https refused up front: {source:?}");
        assert!(source.is_connect() || source.is_request(), "{source:?}");
        hang_up.await.unwrap();
    }

    #[test]
    fn every_secret_is_redacted_from_error_text() {
        let error = LlmError::Status {
            status: 401,
            body:
                "bad token gho_abcdefgh for Bearer tid=session;exp=1 (key sk-12345678, user anna)"
                    .into(),
        };
        let redacted = error
            .redact(&["gho_abcdefgh", "tid=session;exp=1", "sk-12345678", "anna"])
            .to_string();
        assert_eq!(
            redacted,
            "the model API answered HTTP 401: bad token [redacted] for Bearer [redacted] \
             (key [redacted], user anna)"
        );
        let shape = LlmError::Shape("echo gho_abcdefgh".into()).redact(&["gho_abcdefgh"]);
        assert_eq!(
            shape.to_string(),
            "unexpected answer from the model API: echo [redacted]"
        );
    }

    #[test]
    fn the_tool_is_the_protocol_schema() {
        let tool = ToolSpec::browser();
        assert_eq!(tool.name, "browser");
        assert_eq!(tool.schema["type"], "object");
        assert!(tool.schema["properties"]["action"]["enum"].is_array());
    }
}
