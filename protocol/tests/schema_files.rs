//! The committed schemas under `protocol/schema/` must be what the types generate.
//! Run with `UPDATE_SCHEMA=1` to rewrite them after changing a type.

use std::path::PathBuf;

use browser_bridge_protocol::ACTION_NAMES;
use browser_bridge_protocol::schema::{action_schema, envelope_schema, pretty, tool_schema};
use serde_json::{Value, json};

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema")
}

#[test]
fn committed_schemas_are_up_to_date() {
    let update = std::env::var("UPDATE_SCHEMA").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (file, schema) in [
        ("action.schema.json", action_schema()),
        ("envelope.schema.json", envelope_schema()),
        ("tool.schema.json", tool_schema()),
    ] {
        let path = schema_dir().join(file);
        let fresh = pretty(&schema);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != fresh {
            if update {
                std::fs::create_dir_all(schema_dir()).expect("create protocol/schema");
                std::fs::write(&path, &fresh).expect("write schema file");
            } else {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "out of date with the types: {stale:?}; run `UPDATE_SCHEMA=1 cargo test -p \
         browser-bridge-protocol --test schema_files` and commit protocol/schema/"
    );
}

/// Models read the action and tool schemas and cannot look up "§6": their
/// descriptions state each rule in words.
#[test]
fn agent_facing_schemas_name_no_protocol_sections() {
    for (file, schema) in [("action", action_schema()), ("tool", tool_schema())] {
        let text = schema.to_string();
        assert!(!text.contains('§'), "{file} schema names a section: {text}");
    }
}

#[test]
fn tool_schema_is_flat() {
    let tool = tool_schema();
    let root = tool.as_object().expect("object at the root");
    assert_eq!(root["type"], "object");
    for combinator in ["oneOf", "anyOf", "allOf", "not", "$ref", "$defs", "if"] {
        assert!(!root.contains_key(combinator), "top-level {combinator}");
    }
    assert_eq!(root["required"], serde_json::json!(["action"]));
    let enum_names: Vec<&str> = root["properties"]["action"]["enum"]
        .as_array()
        .expect("action enum")
        .iter()
        .map(|v| v.as_str().expect("string"))
        .collect();
    assert_eq!(enum_names, ACTION_NAMES);
    // Nothing refers anywhere: everything is inlined.
    let text = tool.to_string();
    assert!(!text.contains("$ref") && !text.contains("null"), "{text}");
    // Small: types and enums, no bounds or patterns (the decoder checks them), and
    // a note only where the name and type do not say enough.
    let props = root["properties"].as_object().expect("properties");
    assert_eq!(props["uid"], serde_json::json!({"type": "string"}));
    assert_eq!(props["tabId"], serde_json::json!({"type": "integer"}));
    assert_eq!(
        props["direction"]["enum"],
        serde_json::json!(["up", "down", "left", "right"])
    );
    for (name, note) in browser_bridge_protocol::schema::TOOL_PARAM_NOTES {
        assert_eq!(props[*name]["description"], *note, "{name}");
    }
    for (name, p) in props {
        assert!(
            p.get("type").is_some() || name == "input",
            "{name} has no type"
        );
    }
}

#[test]
fn tool_schema_holds_every_parameter_of_every_action() {
    // Every property of every variant of the strict schema appears in the flat one.
    let strict = action_schema();
    let tool = tool_schema();
    let defs = strict["$defs"].as_object().expect("$defs");
    let flat = tool["properties"].as_object().expect("properties");
    let mut seen = 0;
    for variant in strict["oneOf"].as_array().expect("oneOf") {
        let def = variant["$ref"]
            .as_str()
            .expect("$ref")
            .trim_start_matches("#/$defs/");
        if let Some(props) = defs[def]["properties"].as_object() {
            for name in props.keys() {
                assert!(
                    flat.contains_key(name),
                    "{def}.{name} missing from the tool schema"
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 40, "only {seen} parameters seen");
    assert_eq!(
        strict["oneOf"].as_array().map(Vec::len),
        Some(ACTION_NAMES.len())
    );
}

#[test]
fn strict_schema_encodes_the_target_rule() {
    let strict = action_schema();
    let defs = &strict["$defs"];
    for def in ["Type", "SelectOption", "UploadFile", "WaitFor"] {
        let one_of = defs[def]["oneOf"].as_array().expect("target oneOf");
        assert_eq!(one_of.len(), 2, "{def}");
        assert_eq!(one_of[0]["required"], serde_json::json!(["uid"]));
        assert_eq!(one_of[1]["required"], serde_json::json!(["selector"]));
    }
    // Pointer targets: a point is the third form, and x and y go together.
    for def in ["Click", "Hover", "DragEnd"] {
        let one_of = defs[def]["oneOf"].as_array().expect("pointer oneOf");
        assert_eq!(one_of.len(), 3, "{def}");
        assert_eq!(one_of[2]["required"], serde_json::json!(["x", "y"]));
        assert_eq!(
            defs[def]["dependentRequired"],
            serde_json::json!({"x": ["y"], "y": ["x"]})
        );
    }
    assert_eq!(
        defs["Scroll"]["not"]["required"],
        serde_json::json!(["uid", "selector"])
    );
    assert_eq!(defs["Click"]["properties"]["clickCount"]["maximum"], 3);
    assert_eq!(
        defs["WaitFor"]["properties"]["timeoutMs"]["maximum"],
        30_000
    );
    assert_eq!(defs["Uid"]["pattern"], "^e[0-9]+$");
    let envelope: Value = envelope_schema();
    assert_eq!(envelope["$defs"]["Click"], defs["Click"]);
}

/// schemars drops a bound silently when the field's type does not take it (a
/// `range` on a string): every bound the decoder checks is in the schema.
#[test]
fn strict_schema_carries_every_field_bound() {
    let strict = action_schema();
    let prop = |def: &str, field: &str| strict["$defs"][def]["properties"][field].clone();
    let has = |def: &str, field: &str, key: &str, want: Value| {
        assert_eq!(prop(def, field)[key], want, "{def}.{field}.{key}");
    };
    has("Click", "clickCount", "minimum", json!(1));
    has("Screenshot", "quality", "maximum", json!(100));
    has("SelectOption", "values", "minItems", json!(1));
    has("UploadFile", "paths", "minItems", json!(1));
    assert!(prop("UploadFile", "paths")["items"]["pattern"].is_string());
    has("Scroll", "amount", "exclusiveMinimum", json!(0));
    has("PressKey", "key", "minLength", json!(1));
    has("CallPageTool", "tool", "minLength", json!(1));
    for def in ["Navigate", "OpenTab"] {
        has(def, "url", "pattern", json!("\\S"));
    }
    for def in [
        "Click",
        "Hover",
        "Type",
        "SelectOption",
        "UploadFile",
        "WaitFor",
    ] {
        has(def, "selector", "pattern", json!("\\S"));
    }
    assert_eq!(envelope_schema()["$defs"]["RequestId"]["minLength"], 1);
}
