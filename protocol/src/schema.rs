//! JSON Schemas generated from the protocol types (PROTOCOL.md §3, §5).

use serde_json::Value;

/// JSON Schema (draft 2020-12) of the [`crate::Action`] union.
pub fn action_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(crate::Action)).expect("schema serialises")
}

/// JSON Schema (draft 2020-12) of the [`crate::Message`] union (every envelope).
pub fn envelope_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(crate::Message)).expect("schema serialises")
}

/// The flat agent-tool schema: `{"type":"object"}` with `action` and every parameter.
pub fn tool_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {"action": {"type": "string", "enum": crate::ACTION_NAMES}}, "required": ["action"]})
}
