//! The OpenAI-compatible chat-completions client (`POST {base}/chat/completions`
//! with `tools` of type `function`). The same wire format is served by OpenAI,
//! DeepSeek, Qwen (DashScope compatible mode), Ollama (`http://127.0.0.1:11434/v1`)
//! and LM Studio (`http://127.0.0.1:1234/v1`).

use serde_json::{Value, json};

use super::{Endpoint, LlmError, Model, Reply, ToolSpec, Usage, token_count};
use crate::conversation::{Conversation, ToolCall, Turn};

/// A chat-completions client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    endpoint: Endpoint,
}

impl OpenAiClient {
    /// A client posting to `{base_url}/chat/completions`; without a key no
    /// `Authorization` header is sent (local servers).
    pub fn new(
        http: reqwest::Client,
        base_url: &str,
        model: &str,
        api_key: Option<String>,
    ) -> Self {
        OpenAiClient {
            endpoint: Endpoint::new(http, base_url, "chat/completions", model, api_key),
        }
    }
}

impl Model for OpenAiClient {
    async fn reply(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> Result<Reply, LlmError> {
        let body = request_body(&self.endpoint.model, conversation, tools);
        let headers: Vec<(&str, String)> = self
            .endpoint
            .api_key
            .iter()
            .map(|key| ("authorization", format!("Bearer {key}")))
            .collect();
        let answer = self.endpoint.post(&headers, &body).await;
        answer
            .and_then(|answer| parse_reply(&answer))
            .map_err(|error| self.endpoint.redacted(error))
    }
}

/// The request body: system message, the (elided) turns, the tools. No
/// `max_tokens`, `temperature` or `tool_choice`: OpenAI's reasoning models refuse
/// the first two, and some compatible local servers the last; the defaults
/// (auto tool choice, the model's own limits) are what the loop wants.
pub fn request_body(model: &str, conversation: &Conversation, tools: &[ToolSpec]) -> Value {
    let mut messages = vec![json!({"role": "system", "content": conversation.system})];
    for turn in conversation.elided_turns() {
        messages.push(match turn {
            Turn::User(text) => json!({"role": "user", "content": text}),
            Turn::Assistant { text, calls } => {
                let mut message = json!({
                    "role": "assistant",
                    "content": if text.trim().is_empty() { Value::Null } else { Value::String(text) },
                });
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {
                                    "name": call.name,
                                    "arguments": call.arguments.to_string(),
                                },
                            })
                        })
                        .collect();
                }
                message
            }
            Turn::ToolResult {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    json!({
        "model": model,
        "messages": messages,
        "tools": tools
            .iter()
            .map(|tool| json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.schema,
                },
            }))
            .collect::<Vec<_>>(),
    })
}

/// Reads `choices[0].message` (content, tool_calls) and `usage`.
///
/// # Errors
/// [`LlmError::Shape`] when there is no choice or a tool call's arguments are not
/// a JSON object (its text is kept so the model can be told).
pub fn parse_reply(answer: &Value) -> Result<Reply, LlmError> {
    let message = answer
        .pointer("/choices/0/message")
        .ok_or_else(|| LlmError::Shape(format!("no choices[0].message in {answer}")))?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut calls = Vec::new();
    for (n, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let function = &call["function"];
        // Arguments are a JSON string on the wire; some local servers send an object.
        let arguments = match &function["arguments"] {
            Value::String(text) if text.trim().is_empty() => json!({}),
            Value::String(text) => serde_json::from_str(text)
                .unwrap_or_else(|_| json!({ "unparsable_arguments": text })),
            Value::Object(_) => function["arguments"].clone(),
            _ => json!({}),
        };
        calls.push(ToolCall {
            id: call["id"]
                .as_str()
                .map_or_else(|| format!("call_{n}"), str::to_owned),
            name: function["name"].as_str().unwrap_or_default().to_owned(),
            arguments,
        });
    }
    let usage = Usage {
        prompt_tokens: token_count(answer, "/usage/prompt_tokens"),
        cached_prompt_tokens: token_count(answer, "/usage/prompt_tokens_details/cached_tokens"),
        completion_tokens: token_count(answer, "/usage/completion_tokens"),
    };
    Ok(Reply { text, calls, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_carries_turns_calls_and_results_in_order() {
        let mut conversation = Conversation::new("task", None);
        conversation.push(Turn::Assistant {
            text: String::new(),
            calls: vec![ToolCall {
                id: "c1".into(),
                name: "browser".into(),
                arguments: json!({"action": "extract"}),
            }],
        });
        conversation.push(Turn::ToolResult {
            call_id: "c1".into(),
            content: "tab 1 · http://x/ · X".into(),
            is_error: false,
            snapshot: true,
        });
        conversation.push(Turn::User("reflect".into()));
        let body = request_body("m", &conversation, &[ToolSpec::browser()]);
        let messages = body["messages"].as_array().unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(messages[2]["content"], Value::Null);
        assert_eq!(
            messages[2]["tool_calls"][0]["function"]["arguments"],
            "{\"action\":\"extract\"}"
        );
        assert_eq!(messages[3]["tool_call_id"], "c1");
        assert_eq!(body["tools"][0]["function"]["name"], "browser");
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
        assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none());
    }

    #[test]
    fn replies_parse_calls_text_and_usage() {
        let answer = json!({
            "choices": [{"message": {
                "role": "assistant",
                "content": "Reading the page.",
                "tool_calls": [
                    {"id": "a", "type": "function",
                     "function": {"name": "browser", "arguments": "{\"action\":\"extract\"}"}},
                    {"id": "b", "type": "function",
                     "function": {"name": "browser", "arguments": "{not json"}}
                ]
            }}],
            "usage": {"prompt_tokens": 812, "completion_tokens": 31, "total_tokens": 843,
                      "prompt_tokens_details": {"cached_tokens": 512}}
        });
        let reply = parse_reply(&answer).unwrap();
        assert_eq!(reply.text, "Reading the page.");
        assert_eq!(reply.calls[0].arguments, json!({"action": "extract"}));
        assert_eq!(
            reply.calls[1].arguments,
            json!({"unparsable_arguments": "{not json"})
        );
        assert_eq!(
            reply.usage,
            Usage {
                prompt_tokens: 812,
                cached_prompt_tokens: 512,
                completion_tokens: 31
            }
        );
        assert!(parse_reply(&json!({"error": "x"})).is_err());
    }
}
