//! A scripted LLM: a real HTTP server on 127.0.0.1:0 that speaks the OpenAI
//! chat-completions wire format (`POST /v1/chat/completions`) and the Anthropic
//! Messages format (`POST /v1/messages`), answering each request with the next
//! reply of a script (text and/or tool calls, with usage fields). It also plays
//! GitHub's Copilot token exchange (`GET /copilot_internal/v2/token`), handing
//! out scripted session tokens whose chat base is this server's `/v1`. It checks the
//! conversation it is sent the way the real APIs do (every tool call answered by
//! a tool result with its id; Anthropic roles alternating) and answers 400 when it
//! is not, so a malformed conversation fails the run instead of passing silently.
//!
//! Shared by cli/tests/it/agent and the tests crate's agent_demo (by `#[path]`).
#![allow(dead_code, unreachable_pub)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

/// Which wire format a run uses (the server answers both; this picks the path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `/v1/chat/completions`.
    OpenAi,
    /// `/v1/messages`.
    Anthropic,
}

/// Builds a reply from the request it answers (to act on uids or quote what the
/// page said, as a model would).
pub type ReplyFn = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

/// One scripted reply.
#[derive(Clone, Default)]
pub struct Reply {
    /// Text content.
    pub text: String,
    /// Tool call arguments, one call each (tool `browser` unless `tools` names another).
    pub calls: Vec<Value>,
    /// The tool name of each call in `calls` (missing ones: `browser`).
    pub tools: Vec<String>,
    /// (prompt, completion) tokens reported.
    pub usage: (u64, u64),
    /// The part of the prompt tokens reported as read from the prompt cache.
    pub cached: u64,
    /// Answer this HTTP status (with `Retry-After: 0`) instead of a reply.
    pub status: Option<u16>,
    /// When set, the reply is built from the request instead.
    pub dynamic: Option<ReplyFn>,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("text", &self.text)
            .field("calls", &self.calls)
            .field("tools", &self.tools)
            .field("usage", &self.usage)
            .field("cached", &self.cached)
            .field("dynamic", &self.dynamic.is_some())
            .finish()
    }
}

impl Reply {
    /// One `browser` call with these arguments, reporting 100 + 10 tokens.
    pub fn call(arguments: Value) -> Reply {
        Reply {
            text: String::new(),
            calls: vec![arguments],
            usage: (100, 10),
            ..Reply::default()
        }
    }

    /// One call of the tool `name` with these arguments, 100 + 10 tokens.
    pub fn call_tool(name: &str, arguments: Value) -> Reply {
        Reply {
            tools: vec![name.into()],
            ..Reply::call(arguments)
        }
    }

    /// The tool name of call `n`.
    fn tool_name(&self, n: usize) -> &str {
        self.tools.get(n).map_or("browser", String::as_str)
    }

    /// A text-only reply (e.g. the final answer), 100 + 10 tokens.
    pub fn text(text: &str) -> Reply {
        Reply {
            text: text.into(),
            usage: (100, 10),
            ..Reply::default()
        }
    }

    /// An HTTP error status instead of a reply (e.g. 429), with `Retry-After: 0`.
    pub fn status(status: u16) -> Reply {
        Reply {
            status: Some(status),
            ..Reply::default()
        }
    }

    /// A reply built by `build` from the request it answers.
    pub fn from_request(build: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Reply {
        Reply {
            dynamic: Some(Arc::new(build)),
            ..Reply::default()
        }
    }

    /// The same reply with `text` alongside.
    pub fn saying(mut self, text: &str) -> Reply {
        self.text = text.into();
        self
    }

    /// The same reply reporting other token counts.
    pub fn usage(mut self, prompt: u64, completion: u64) -> Reply {
        self.usage = (prompt, completion);
        self
    }

    /// The same reply reporting `cached` of its prompt tokens as cache reads.
    pub fn cached(mut self, cached: u64) -> Reply {
        self.cached = cached;
        self
    }
}

#[derive(Default)]
struct Shared {
    script: VecDeque<Reply>,
    requests: Vec<Value>,
    /// Per chat request: the headers a Copilot integration must send.
    headers: Vec<Value>,
    calls_made: usize,
    /// Copilot session tokens to hand out: (token, seconds until it expires).
    copilot_tokens: VecDeque<(String, i64)>,
    /// The `Authorization` header of every token exchange.
    exchanges: Vec<String>,
    base_url: String,
}

/// A running scripted server.
pub struct ScriptedLlm {
    /// Its address.
    pub addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedLlm {
    /// Serves `script` on 127.0.0.1:0.
    pub async fn start(script: Vec<Reply>) -> ScriptedLlm {
        Self::with_copilot_tokens(script, Vec::new()).await
    }

    /// Serves `script`, and hands out `tokens` (token, seconds to expiry; 0:
    /// expired at once) one per Copilot token exchange, in order.
    pub async fn with_copilot_tokens(script: Vec<Reply>, tokens: Vec<(&str, i64)>) -> ScriptedLlm {
        let shared = Arc::new(Mutex::new(Shared {
            script: script.into(),
            copilot_tokens: tokens.into_iter().map(|(t, s)| (t.to_owned(), s)).collect(),
            ..Shared::default()
        }));
        let app = Router::new()
            .route("/v1/chat/completions", post(openai))
            .route("/v1/messages", post(anthropic))
            .route("/copilot_internal/v2/token", get(copilot_token))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        shared.lock().unwrap().base_url = format!("http://{addr}/v1");
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        ScriptedLlm { addr, shared, task }
    }

    /// `http://127.0.0.1:<port>/v1`, the `--base-url` of either provider.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.lock().unwrap().requests.clone()
    }

    /// `http://127.0.0.1:<port>`, Copilot's `--base-url` (the GitHub API).
    pub fn github_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Per chat-completions request: its `authorization`, `editor-version`,
    /// `copilot-integration-id` and `user-agent` headers.
    pub fn headers(&self) -> Vec<Value> {
        self.shared.lock().unwrap().headers.clone()
    }

    /// The `Authorization` header of every Copilot token exchange.
    pub fn exchanges(&self) -> Vec<String> {
        self.shared.lock().unwrap().exchanges.clone()
    }

    /// Replies not yet used.
    pub fn remaining(&self) -> usize {
        self.shared.lock().unwrap().script.len()
    }
}

type Answer = Response;

/// The next reply; an error status is answered with a body that echoes
/// `credential` (the request's key header), as careless gateways do.
fn next(
    shared: &Mutex<Shared>,
    body: Value,
    credential: &str,
) -> Result<(Reply, Vec<String>), Box<Answer>> {
    let mut shared = shared.lock().unwrap();
    let next = shared.script.pop_front();
    let next = match next {
        Some(Reply {
            dynamic: Some(build),
            ..
        }) => Some(build(&body)),
        other => other,
    };
    shared.requests.push(body);
    let Some(reply) = next else {
        return Err(Box::new(
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"error": {"message": "the script is exhausted"}})),
            )
                .into_response(),
        ));
    };
    if let Some(status) = reply.status {
        let status = StatusCode::from_u16(status).unwrap();
        return Err(Box::new(
            (
                status,
                [("retry-after", "0")],
                Json(json!({"error": {"type": "rate_limit_error",
                    "message": format!("scripted; the request had {credential:?}")}})),
            )
                .into_response(),
        ));
    }
    let ids = reply
        .calls
        .iter()
        .map(|_| {
            shared.calls_made += 1;
            format!("call_{}", shared.calls_made)
        })
        .collect();
    Ok((reply, ids))
}

fn bad_request(message: String) -> Answer {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({"error": {"type": "invalid_request_error", "message": message}})),
    )
        .into_response()
}

/// GitHub's `GET /copilot_internal/v2/token`: the next scripted session token,
/// 401 without `Authorization: token …`, 404 when none is left (a body that
/// echoes the `Authorization` header).
async fn copilot_token(State(shared): State<Arc<Mutex<Shared>>>, headers: HeaderMap) -> Answer {
    let mut shared = shared.lock().unwrap();
    let authorization = header(&headers, "authorization");
    shared.exchanges.push(authorization.clone());
    if !authorization.starts_with("token ") || authorization.len() <= "token ".len() {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"message": "Bad credentials"})),
        )
            .into_response();
    }
    let Some((token, seconds)) = shared.copilot_tokens.pop_front() else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"message": "Not Found", "authorization": authorization})),
        )
            .into_response();
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    Json(json!({
        "token": token,
        "expires_at": now + seconds,
        "refresh_in": (seconds - 300).max(0),
        "endpoints": {"api": shared.base_url},
    }))
    .into_response()
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

async fn openai(
    State(shared): State<Arc<Mutex<Shared>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Answer {
    if let Err(message) = check_openai(&body) {
        return bad_request(message);
    }
    shared.lock().unwrap().headers.push(json!({
        "authorization": header(&headers, "authorization"),
        "editor-version": header(&headers, "editor-version"),
        "copilot-integration-id": header(&headers, "copilot-integration-id"),
        "user-agent": header(&headers, "user-agent"),
    }));
    let (reply, ids) = match next(&shared, body, &header(&headers, "authorization")) {
        Ok(next) => next,
        Err(answer) => return *answer,
    };
    let tool_calls: Vec<Value> = reply
        .calls
        .iter()
        .zip(&ids)
        .enumerate()
        .map(|(n, (arguments, id))| {
            json!({"id": id, "type": "function",
                   "function": {"name": reply.tool_name(n), "arguments": arguments.to_string()}})
        })
        .collect();
    let mut message = json!({
        "role": "assistant",
        "content": if reply.text.is_empty() { Value::Null } else { json!(reply.text) },
    });
    if !tool_calls.is_empty() {
        message["tool_calls"] = json!(tool_calls);
    }
    let (prompt, completion) = reply.usage;
    (
        StatusCode::OK,
        Json(json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": if tool_calls.is_empty() { "stop" } else { "tool_calls" }}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion,
                      "prompt_tokens_details": {"cached_tokens": reply.cached}},
        })),
    )
        .into_response()
}

async fn anthropic(
    State(shared): State<Arc<Mutex<Shared>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Answer {
    if let Err(message) = check_anthropic(&body) {
        return bad_request(message);
    }
    let (reply, ids) = match next(&shared, body, &header(&headers, "x-api-key")) {
        Ok(next) => next,
        Err(answer) => return *answer,
    };
    let mut content = Vec::new();
    if !reply.text.is_empty() {
        content.push(json!({"type": "text", "text": reply.text}));
    }
    for (n, (arguments, id)) in reply.calls.iter().zip(&ids).enumerate() {
        content.push(
            json!({"type": "tool_use", "id": id, "name": reply.tool_name(n), "input": arguments}),
        );
    }
    let (prompt, completion) = reply.usage;
    (
        StatusCode::OK,
        Json(json!({
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": "scripted",
            "content": content,
            "stop_reason": if reply.calls.is_empty() { "end_turn" } else { "tool_use" },
            // The Messages API counts cache reads apart from `input_tokens`.
            "usage": {"input_tokens": prompt - reply.cached,
                      "cache_read_input_tokens": reply.cached,
                      "cache_creation_input_tokens": 0,
                      "output_tokens": completion},
        })),
    )
        .into_response()
}

/// Every assistant `tool_calls` id is answered by a following `tool` message
/// before the next assistant message; the tool is offered.
fn check_openai(body: &Value) -> Result<(), String> {
    if body["tools"][0]["function"]["name"] != "browser" {
        return Err("no browser tool offered".into());
    }
    let messages = body["messages"].as_array().ok_or("no messages")?;
    if messages.first().map(|m| &m["role"]) != Some(&json!("system")) {
        return Err("the first message is not the system prompt".into());
    }
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        match message["role"].as_str() {
            Some("assistant") => {
                if !open.is_empty() {
                    return Err(format!("tool calls {open:?} were never answered"));
                }
                let text = message["content"].as_str().unwrap_or_default();
                if text.is_empty() && message.get("tool_calls").is_none() {
                    return Err("an assistant message needs content or tool_calls".into());
                }
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    open.push(call["id"].as_str().unwrap_or_default().to_owned());
                }
            }
            Some("tool") => {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                let Some(at) = open.iter().position(|o| o == id) else {
                    return Err(format!("tool message for unknown call {id}"));
                };
                open.remove(at);
            }
            Some("user") if !open.is_empty() => {
                return Err(format!(
                    "user message before tool calls {open:?} were answered"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Roles alternate starting with user; every `tool_use` is answered by a
/// `tool_result` in the next (user) message.
fn check_anthropic(body: &Value) -> Result<(), String> {
    if body["tools"][0]["name"] != "browser" || !body["max_tokens"].is_u64() {
        return Err("no browser tool or no max_tokens".into());
    }
    let messages = body["messages"].as_array().ok_or("no messages")?;
    let mut expected_role = "user";
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        if message["role"] != expected_role {
            return Err(format!("roles must alternate; expected {expected_role}"));
        }
        let blocks = message["content"]
            .as_array()
            .ok_or("content must be blocks")?;
        if blocks.is_empty() {
            return Err("messages must have non-empty content".into());
        }
        if expected_role == "user" {
            for block in blocks {
                if block["type"] == "tool_result" {
                    let id = block["tool_use_id"].as_str().unwrap_or_default();
                    open.retain(|o| o != id);
                }
            }
            if !open.is_empty() {
                return Err(format!("tool_use {open:?} without tool_result"));
            }
            expected_role = "assistant";
        } else {
            for block in blocks {
                if block["type"] == "tool_use" {
                    open.push(block["id"].as_str().unwrap_or_default().to_owned());
                }
            }
            expected_role = "user";
        }
    }
    if expected_role != "assistant" {
        return Err("the last message must be the user's".into());
    }
    Ok(())
}

/// The text of the last user-side message of a request (either wire format):
/// tool results and text blocks joined by newlines.
pub fn last_user_text(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let mut parts = Vec::new();
    for message in messages.iter().rev() {
        match message["role"].as_str() {
            Some("assistant") => break,
            Some("tool") | Some("user") => match &message["content"] {
                Value::String(text) => parts.push(text.clone()),
                Value::Array(blocks) => {
                    for block in blocks.iter().rev() {
                        if let Some(text) = block["text"].as_str().or(block["content"].as_str()) {
                            parts.push(text.to_owned());
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    parts.reverse();
    parts.join("\n")
}

/// The names of the tools a request offers (either wire format), in order.
pub fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().or(tool["name"].as_str()))
        .map(str::to_owned)
        .collect()
}

/// The uid of the element line of the newest page snapshot in `request` whose role
/// is `role` and whose name contains `name` (`e5 textbox "Policy number"` → `e5`).
pub fn uid_for(request: &Value, role: &str, name: &str) -> Option<String> {
    all_text(request)
        .lines()
        .rev()
        .filter_map(|line| {
            let mut words = line.splitn(3, ' ');
            let uid = words.next()?;
            let line_role = words.next()?;
            let rest = words.next()?;
            (uid.starts_with('e')
                && uid[1..].chars().all(|c| c.is_ascii_digit())
                && line_role == role
                && rest.starts_with('"')
                && rest.contains(name))
            .then(|| uid.to_owned())
        })
        .next()
}

/// Every string in a JSON value, one after the other, newline separated.
fn all_text(value: &Value) -> String {
    match value {
        Value::String(text) => format!("{text}\n"),
        Value::Array(items) => items.iter().map(all_text).collect(),
        Value::Object(map) => map.values().map(all_text).collect(),
        _ => String::new(),
    }
}
