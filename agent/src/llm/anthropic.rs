//! The Anthropic Messages client (`POST {base}/messages`, `anthropic-version:
//! 2023-06-01`, tools with `input_schema`). Messages alternate user/assistant, so
//! tool results and any text injected after them (a reflection request) are
//! merged into one user message of content blocks.

use serde_json::{Value, json};

use super::{
    Endpoint, LlmError, MAX_COMPLETION_TOKENS, Model, Reply, ToolSpec, Usage, token_count,
};
use crate::conversation::{Conversation, ToolCall, Turn};

/// The `anthropic-version` header value.
pub const API_VERSION: &str = "2023-06-01";

/// A Messages API client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    endpoint: Endpoint,
}

impl AnthropicClient {
    /// A client posting to `{base_url}/messages`.
    pub fn new(
        http: reqwest::Client,
        base_url: &str,
        model: &str,
        api_key: Option<String>,
    ) -> Self {
        AnthropicClient {
            endpoint: Endpoint::new(http, base_url, "messages", model, api_key),
        }
    }
}

impl Model for AnthropicClient {
    async fn reply(
        &self,
        conversation: &Conversation,
        tools: &[ToolSpec],
    ) -> Result<Reply, LlmError> {
        let body = request_body(&self.endpoint.model, conversation, tools);
        let mut headers = vec![("anthropic-version", API_VERSION.to_owned())];
        if let Some(key) = &self.endpoint.api_key {
            headers.push(("x-api-key", key.to_string()));
        }
        let answer = self.endpoint.post(&headers, &body).await;
        answer
            .and_then(|answer| parse_reply(&answer))
            .map_err(|error| self.endpoint.redacted(error))
    }
}

/// The request body: `system`, the turns as alternating messages, the tools.
pub fn request_body(model: &str, conversation: &Conversation, tools: &[ToolSpec]) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for turn in conversation.elided_turns() {
        let (role, blocks) = match turn {
            Turn::User(text) => ("user", vec![json!({"type": "text", "text": text})]),
            Turn::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": content,
                    "is_error": is_error,
                })],
            ),
            Turn::Assistant { text, calls } => {
                let mut blocks = Vec::new();
                if !text.trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                blocks.extend(calls.into_iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                }));
                ("assistant", blocks)
            }
        };
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(blocks);
                }
            }
            _ => messages.push(json!({"role": role, "content": blocks})),
        }
    }
    // Prompt caching: the tools and system prompt are the same on every step
    // (and every task), and each step's conversation is the previous one plus a
    // few blocks, so both prefixes are marked for the cache (reads cost a tenth).
    if let Some(block) = messages
        .last_mut()
        .and_then(|message| message["content"].as_array_mut())
        .and_then(|content| content.last_mut())
    {
        block["cache_control"] = json!({"type": "ephemeral"});
    }
    json!({
        "model": model,
        "max_tokens": MAX_COMPLETION_TOKENS,
        "system": [{
            "type": "text",
            "text": conversation.system,
            "cache_control": {"type": "ephemeral"},
        }],
        "messages": messages,
        "tools": tools
            .iter()
            .map(|tool| json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.schema,
            }))
            .collect::<Vec<_>>(),
    })
}

/// Reads the `text` and `tool_use` blocks of `content` and `usage`.
///
/// # Errors
/// [`LlmError::Shape`] when there is no `content` array.
pub fn parse_reply(answer: &Value) -> Result<Reply, LlmError> {
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| LlmError::Shape(format!("no content array in {answer}")))?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (n, block) in content.iter().enumerate() {
        match block["type"].as_str() {
            Some("text") => texts.push(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => calls.push(ToolCall {
                id: block["id"]
                    .as_str()
                    .map_or_else(|| format!("toolu_{n}"), str::to_owned),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => {}
        }
    }
    let count = |field: &str| token_count(answer, &format!("/usage/{field}"));
    // `input_tokens` excludes what was written to or read from the cache.
    let usage = Usage {
        prompt_tokens: count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens"),
        cached_prompt_tokens: count("cache_read_input_tokens"),
        completion_tokens: count("output_tokens"),
    };
    Ok(Reply {
        text: texts.join("\n"),
        calls,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_and_a_reflection_share_one_user_message() {
        let mut conversation = Conversation::new("task", None);
        conversation.push(Turn::Assistant {
            text: "Clicking.".into(),
            calls: vec![ToolCall {
                id: "t1".into(),
                name: "browser".into(),
                arguments: json!({"action": "click", "uid": "e9"}),
            }],
        });
        conversation.push(Turn::ToolResult {
            call_id: "t1".into(),
            content: "element_not_found: no e9".into(),
            is_error: true,
            snapshot: false,
        });
        conversation.push(Turn::User("reflect".into()));
        let body = request_body("m", &conversation, &[ToolSpec::browser()]);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["role"], "assistant");
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        assert_eq!(messages[1]["content"][1]["input"]["uid"], "e9");
        assert_eq!(messages[2]["role"], "user");
        assert_eq!(messages[2]["content"][0]["type"], "tool_result");
        assert_eq!(messages[2]["content"][0]["is_error"], true);
        assert_eq!(messages[2]["content"][1]["text"], "reflect");
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
        assert!(
            body["system"][0]["text"]
                .as_str()
                .unwrap()
                .contains("STATUS: DONE")
        );
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(
            messages[2]["content"][1]["cache_control"]["type"],
            "ephemeral"
        );
        assert!(messages[1]["content"][1].get("cache_control").is_none());
    }

    #[test]
    fn replies_parse_blocks_and_usage() {
        let answer = json!({
            "content": [
                {"type": "text", "text": "Opening the form."},
                {"type": "tool_use", "id": "toolu_1", "name": "browser",
                 "input": {"action": "navigate", "url": "http://127.0.0.1:1/claim/"}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 24, "cache_creation_input_tokens": 200,
                      "cache_read_input_tokens": 800, "output_tokens": 56}
        });
        let reply = parse_reply(&answer).unwrap();
        assert_eq!(reply.text, "Opening the form.");
        assert_eq!(reply.calls[0].id, "toolu_1");
        assert_eq!(reply.calls[0].arguments["action"], "navigate");
        assert_eq!(
            reply.usage,
            Usage {
                prompt_tokens: 1024,
                cached_prompt_tokens: 800,
                completion_tokens: 56
            }
        );
    }
}
