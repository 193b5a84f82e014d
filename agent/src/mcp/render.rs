//! A `tools/call` result as the model reads it: the text blocks, a one-line
//! summary for each image or audio block (as the `browser` tool's screenshots:
//! the image itself is not sent), embedded text resources, the structured
//! content when there is nothing else, all cut to [`RESULT_MAX_BYTES`].

use serde_json::Value;

/// Longest result text fed back to the model (bytes); past it the text is cut
/// and says so.
pub const RESULT_MAX_BYTES: usize = 16 * 1024;

/// The observation text of a result, given as the MCP JSON `CallToolResult`
/// (`content` blocks, `structuredContent`).
pub fn result_text(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in result["content"].as_array().into_iter().flatten() {
        let mime = block["mimeType"].as_str().unwrap_or("unknown type");
        match block["type"].as_str().unwrap_or_default() {
            "text" => parts.push(block["text"].as_str().unwrap_or_default().to_owned()),
            kind @ ("image" | "audio") => {
                let bytes = block["data"].as_str().map_or(0, |data| data.len() / 4 * 3);
                parts.push(format!("[{kind} {mime}, about {bytes} bytes: not shown]"));
            }
            "resource" => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or_default();
                match resource["text"].as_str() {
                    Some(text) => parts.push(format!("[resource {uri}]\n{text}")),
                    None => parts.push(format!("[resource {uri}: binary, not shown]")),
                }
            }
            "resource_link" => {
                let uri = block["uri"].as_str().unwrap_or_default();
                parts.push(format!("[resource link {uri}]"));
            }
            other => parts.push(format!("[{other} content: not shown]")),
        }
    }
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null())
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    let (cut, was_cut) = browser_bridge_protocol::text::truncate_bytes(&text, RESULT_MAX_BYTES);
    if was_cut {
        format!("{cut}\n[cut at {RESULT_MAX_BYTES} of {} bytes]", text.len())
    } else if text.is_empty() {
        "(no content)".into()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_images_and_resources_are_rendered() {
        let result = json!({"content": [
            {"type": "text", "text": "Forecast: rain"},
            {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "A"}},
            {"type": "resource_link", "uri": "file:///b.bin", "name": "b"}
        ]});
        assert_eq!(
            result_text(&result),
            "Forecast: rain\n[image image/png, about 18 bytes: not shown]\n\
             [resource file:///a.txt]\nA\n[resource link file:///b.bin]"
        );
    }

    #[test]
    fn structured_content_stands_in_for_no_content() {
        let result = json!({"content": [], "structuredContent": {"temp": 12}});
        assert_eq!(result_text(&result), "{\"temp\":12}");
        assert_eq!(result_text(&json!({"content": []})), "(no content)");
    }

    #[test]
    fn long_results_are_cut_at_the_cap() {
        let result = json!({"content": [{"type": "text", "text": "x".repeat(40_000)}]});
        let text = result_text(&result);
        assert!(
            text.ends_with("\n[cut at 16384 of 40000 bytes]"),
            "{}",
            &text[16_000..]
        );
        assert_eq!(
            text.len(),
            RESULT_MAX_BYTES + "\n[cut at 16384 of 40000 bytes]".len()
        );
    }
}
