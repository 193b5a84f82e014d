//! What the model is offered for another server's tool: a name in the
//! providers' tool-name pattern `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's and
//! Anthropic's), a capped description, and an input schema with an object root
//! (both APIs refuse any other root).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

/// The prefix of every MCP tool name offered: `mcp__<server>__<tool>`, as
/// Claude Code names them.
pub const PREFIX: &str = "mcp__";

/// Longest tool name the providers accept (chars, all ASCII).
pub const NAME_MAX: usize = 64;

/// Longest description offered (bytes): a server's long manual would be paid
/// for on every request.
pub const DESCRIPTION_MAX_BYTES: usize = 1024;

/// `mcp__<server>__<tool>` with every character outside `[a-zA-Z0-9_-]`
/// replaced by `_`, cut to [`NAME_MAX`]; a name already in `taken` gets a
/// `_2`, `_3`… suffix in place of its last characters.
pub fn tool_name(server: &str, tool: &str, taken: &HashSet<String>) -> String {
    let full: String = format!("{PREFIX}{}__{}", clean(server), clean(tool))
        .chars()
        .take(NAME_MAX)
        .collect();
    if !taken.contains(&full) {
        return full;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            let keep = NAME_MAX.saturating_sub(suffix.len()).min(full.len());
            format!("{}{suffix}", &full[..keep])
        })
        .find(|name| !taken.contains(name))
        .unwrap_or(full)
}

fn clean(part: &str) -> String {
    let cleaned: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "_".into()
    } else {
        cleaned
    }
}

/// True for a name the providers accept.
pub fn is_valid_name(name: &str) -> bool {
    (1..=NAME_MAX).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The description offered: the server's (else the tool's title), cut to
/// [`DESCRIPTION_MAX_BYTES`], then which server it comes from.
pub fn description(server: &str, text: Option<&str>) -> String {
    let text = text.unwrap_or_default().trim();
    let (cut, was_cut) = browser_bridge_protocol::text::truncate_bytes(text, DESCRIPTION_MAX_BYTES);
    let ellipsis = if was_cut { "…" } else { "" };
    if cut.is_empty() {
        format!("A tool of the MCP server `{server}`.")
    } else {
        format!("{cut}{ellipsis} (MCP server `{server}`)")
    }
}

/// The input schema offered: an object-rooted schema is kept (with `type:
/// "object"` and `properties` added when missing, which OpenAI requires); a
/// schema whose root is another type is replaced by an open object schema, since
/// an MCP `tools/call` sends an object of arguments whatever the schema says.
pub fn input_schema(schema: &Map<String, Value>) -> Value {
    let object_root = match schema.get("type") {
        None => true,
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "object"),
        Some(_) => false,
    };
    if !object_root {
        return json!({"type": "object", "properties": {}, "additionalProperties": true});
    }
    let mut schema = schema.clone();
    schema.insert("type".into(), json!("object"));
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".into(), json!({}));
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_providers_pattern() {
        let none = HashSet::new();
        assert_eq!(
            tool_name("files", "read_file", &none),
            "mcp__files__read_file"
        );
        let odd = tool_name("my server.v2", "get.weather/now", &none);
        assert_eq!(odd, "mcp__my_server_v2__get_weather_now");
        assert!(is_valid_name(&odd));
        let long = tool_name(&"s".repeat(40), &"t".repeat(40), &none);
        assert_eq!(long.len(), NAME_MAX);
        assert!(is_valid_name(&long));
        assert!(is_valid_name(&tool_name("", "日本", &none)));
    }

    #[test]
    fn clashing_names_get_a_suffix() {
        let mut taken = HashSet::new();
        let first = tool_name("a", "x.y", &taken);
        taken.insert(first.clone());
        let second = tool_name("a", "x/y", &taken);
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("mcp__a__x_y", "mcp__a__x_y_2")
        );
        taken.insert(second);
        let long = tool_name("s", &"t".repeat(70), &taken);
        taken.insert(long.clone());
        let clash = tool_name("s", &"t".repeat(80), &taken);
        assert_eq!(clash.len(), NAME_MAX);
        assert!(clash.ends_with("_2") && clash != long);
    }

    #[test]
    fn schemas_get_an_object_root() {
        let object = |v: Value| v.as_object().unwrap().clone();
        let kept = input_schema(&object(json!({"type": "object",
            "properties": {"city": {"type": "string"}}, "required": ["city"]})));
        assert_eq!(kept["required"], json!(["city"]));
        let typed = input_schema(&object(json!({"properties": {"q": {"type": "string"}}})));
        assert_eq!(typed["type"], "object");
        assert_eq!(typed["properties"]["q"]["type"], "string");
        assert_eq!(input_schema(&Map::new())["properties"], json!({}));
        let replaced = input_schema(&object(json!({"type": "string"})));
        assert_eq!(
            replaced,
            json!({"type": "object", "properties": {}, "additionalProperties": true})
        );
    }

    #[test]
    fn descriptions_are_capped_and_name_their_server() {
        assert_eq!(
            description("files", Some("Reads a file.")),
            "Reads a file. (MCP server `files`)"
        );
        assert_eq!(
            description("files", None),
            "A tool of the MCP server `files`."
        );
        let long = description("s", Some(&"word ".repeat(1000)));
        assert!(long.len() < DESCRIPTION_MAX_BYTES + 40 && long.contains("…"));
    }
}
