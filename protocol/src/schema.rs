//! JSON Schemas generated from the protocol types (PROTOCOL.md §3, §5).
//!
//! schemars derives the shapes together with the rules that
//! [`Action::validate`](crate::Action::validate) enforces and serde cannot express:
//! bounds, patterns and non-empty lists are `#[schemars(...)]` attributes on the
//! fields (on the same constants the validator reads), the target rules `extend`
//! attributes on the structs. So a client validating against [`action_schema`]
//! alone refuses what the decoder refuses (the golden vectors check both). This
//! module only adds the unknown-event branch and derives the flat tool schema.
//!
//! Three schemas, committed under `protocol/schema/` by the schema test:
//! - [`action_schema`]: the strict `Action` union (a top-level `oneOf`).
//! - [`envelope_schema`]: the `Message` union (every frame on the socket).
//! - [`tool_schema`]: the flat agent-tool schema (object at the root, no top-level
//!   combinators), for MCP `inputSchema` and LLM tool APIs.

use serde_json::{Map, Value, json};

use crate::action::ACTION_NAMES;

/// Names of the properties of one action in the flat tool schema that are not
/// parameters (the tag).
const TAG: &str = "action";

/// JSON Schema (draft 2020-12) of the [`Action`](crate::Action) union, with the
/// decoder's rules: exactly one of `uid`/`selector` for the targeted actions (at most
/// one for `scroll`), the uid pattern, `clickCount` 1..3, `wait_for.timeoutMs` ≤
/// 30 000, `screenshot.quality` 0..100, non-empty `values`/`paths`, absolute
/// `paths`, `scroll.amount` > 0, non-blank `url`/`selector`, non-empty `key`/`tool`,
/// the lists' `limit` 1..200 and non-empty `requestId`/`urlContains`/`resourceType`.
/// Keys are sorted, so the value prints the same on every build.
pub fn action_schema() -> Value {
    sort_keys(generated::<crate::Action>())
}

/// JSON Schema (draft 2020-12) of the [`Message`](crate::Message) union: every
/// envelope of §3, with the action rules of [`action_schema`], non-empty request
/// ids, and an extra `event` branch so that an unknown event type (which the
/// decoder keeps as `Event::Unknown`, §1) validates too.
pub fn envelope_schema() -> Value {
    let mut schema = generated::<crate::Message>();
    allow_unknown_events(def_mut(defs_mut(&mut schema), "Event"));
    sort_keys(schema)
}

/// The flat agent-tool schema, derived from [`action_schema`], kept small because a
/// model reads it on every request (the `browser` tool's description says which
/// action takes what): `{"type":"object"}` whose `action` is an enum of all
/// [`ACTION_NAMES`] and whose other properties are every parameter of every
/// action, each optional, with its type and enum — bounds, patterns and the
/// target rule (exactly one of `uid`/`selector`) are the decoder's to check, and
/// its `invalid_request` names the field — and a short note
/// ([`TOOL_PARAM_NOTES`]) only where the name and type do not say enough;
/// `required: ["action"]`. Everything is inlined: no `$ref`, `$defs` or
/// combinator at the top level, because MCP clients and the Anthropic and OpenAI
/// tool APIs refuse them.
pub fn tool_schema() -> Value {
    let strict = action_schema();
    let defs = strict["$defs"]
        .as_object()
        .expect("action schema has $defs");
    let mut params: Vec<(String, Value)> = Vec::new();
    for (_, variant) in variants(&strict) {
        let body = &defs[def_name(variant)];
        let Some(props) = body.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (prop, prop_schema) in props {
            if prop == TAG {
                continue;
            }
            let flat = loose(flatten(prop_schema, defs));
            match params.iter_mut().find(|(p, _)| p == prop) {
                Some((_, schema)) => *schema = common_keywords(schema, &flat),
                None => params.push((prop.clone(), flat)),
            }
        }
    }
    let mut properties = Map::new();
    properties.insert(
        TAG.into(),
        json!({ "type": "string", "enum": ACTION_NAMES }),
    );
    for (name, mut schema) in params {
        if name == BATCH_ACTIONS {
            // Each part is an action object as for a single call: the strict union
            // would repeat the whole tool schema inside it.
            schema["items"] = batch_part();
        } else if name == FORM_FIELDS {
            // Each field is a target object and its value, which the description
            // names (`fields[{uid,value}]`, true/false for checks).
            schema["items"] = json!({ "type": "object" });
        } else if let Some(Value::Object(items)) = schema.get_mut("items") {
            // The target rule of a list's items is in words, as at the top level.
            items.remove("oneOf");
        }
        if let Value::Object(o) = &mut schema {
            // So is a target object's (fill_form's submit, drag's ends).
            o.remove("oneOf");
            o.remove("dependentRequired");
            // A target object's fields (drag's ends, fill_form's submit) are
            // named in the description.
            if TARGET_OBJECTS.contains(&name.as_str()) {
                o.remove("properties");
            }
        }
        if let (Value::Object(o), Some((_, note))) = (
            &mut schema,
            TOOL_PARAM_NOTES.iter().find(|(p, _)| *p == name),
        ) {
            o.insert("description".into(), Value::String((*note).into()));
        }
        properties.insert(name, schema);
    }
    // Not an action field: the backend takes it off before decoding (§5 "Browsers").
    properties.insert(
        crate::browser::BROWSER_FIELD.into(),
        json!({ "type": "string" }),
    );
    sort_keys(json!({
        "type": "object",
        "properties": properties,
        "required": [TAG],
    }))
}

/// The short notes of the flat tool schema's parameters whose name and type do not
/// say enough (defaults, formats, units); the others carry none. Each is what a
/// model needs, in as few words as will do.
pub const TOOL_PARAM_NOTES: &[(&str, &str)] = &[
    ("clear", "false appends"),
    ("expression", "async function body: `return` the value"),
    ("focus", "user's window"),
    ("key", "KeyboardEvent.key"),
    ("keystrokes", "key by key"),
    ("paths", "absolute"),
    ("timeoutMs", "<=30000; downloads 300000, handoff 600000"),
    ("values", "values or labels"),
];

/// `schema` with only what a model needs to form a call — `type`, `enum`,
/// `items`, `properties`, `required` — at any depth: no descriptions (the notes
/// replace them) and no bounds or patterns, which the decoder checks, naming the
/// field and the bound in its `invalid_request`.
fn loose(schema: Value) -> Value {
    const DROPPED: &[&str] = &[
        "pattern",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "default",
    ];
    match schema {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(k, v)| !(k == "description" && v.is_string()))
                .filter(|(k, v)| !DROPPED.contains(&k.as_str()) || v.is_object())
                .map(|(k, v)| (k, loose(v)))
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.into_iter().map(loose).collect()),
        other => other,
    }
}

/// The parameters that are a target object (`{uid}`, `{selector}`, and for
/// `drag`'s ends `{x, y}`).
const TARGET_OBJECTS: &[&str] = &["from", "to", "submit"];

/// The `fill_form` parameter that holds its fields.
const FORM_FIELDS: &str = "fields";

/// The `batch` parameter that holds its parts.
const BATCH_ACTIONS: &str = "actions";

/// A `batch` part in the flat tool schema: an object as for a single call (the
/// description says so; the decoder checks each part and names its index).
fn batch_part() -> Value {
    json!({ "type": "object" })
}

/// The text of a committed schema file: pretty JSON with sorted keys and a final
/// newline (what `protocol/schema/*.schema.json` hold).
pub fn pretty(schema: &Value) -> String {
    let mut text =
        serde_json::to_string_pretty(&sort_keys(schema.clone())).expect("JSON value serialises");
    text.push('\n');
    text
}

/// schemars' schema of `T` as a JSON value.
fn generated<T: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises")
}

fn defs_mut(schema: &mut Value) -> &mut Map<String, Value> {
    schema
        .get_mut("$defs")
        .and_then(Value::as_object_mut)
        .expect("schemars puts definitions under $defs")
}

fn def_mut<'a>(defs: &'a mut Map<String, Value>, name: &str) -> &'a mut Map<String, Value> {
    defs.get_mut(name)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("schema: no definition {name}"))
}

/// `(action name, variant schema)` of a union tagged by `action`.
fn variants(union: &Value) -> Vec<(&'static str, &Value)> {
    let list = union["oneOf"].as_array().expect("Action schema is a oneOf");
    list.iter()
        .map(|v| {
            let tag = v["properties"][TAG]["const"]
                .as_str()
                .expect("each variant has an action const");
            let name = ACTION_NAMES
                .iter()
                .find(|n| **n == tag)
                .unwrap_or_else(|| panic!("schema variant {tag} is not in ACTION_NAMES"));
            (*name, v)
        })
        .collect()
}

/// The `$defs` key a variant points at.
fn def_name(variant: &Value) -> &str {
    variant["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .expect("each variant refers to its parameter struct")
}

/// Adds a branch to the `Event` union for event names this version does not know.
fn allow_unknown_events(event: &mut Map<String, Value>) {
    let branches = event
        .get_mut("oneOf")
        .and_then(Value::as_array_mut)
        .expect("Event schema is a oneOf");
    let known: Vec<Value> = branches
        .iter()
        .filter_map(|b| b["properties"]["event"]["const"].as_str())
        .map(|s| Value::String(s.into()))
        .collect();
    branches.push(json!({
        "description": "An event type this version does not know: accepted and ignored (§1).",
        "type": "object",
        "properties": { "event": { "type": "string", "not": { "enum": known } } },
        "required": ["event"]
    }));
}

/// Inlines `$ref`s, drops the `null` alternatives of optional fields and the
/// non-standard `format`s, turning
/// `oneOf` lists of string constants into plain `enum`s, so that a property of the
/// flat tool schema is self-contained and easy for any client.
fn flatten(schema: &Value, defs: &Map<String, Value>) -> Value {
    let Value::Object(o) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local $ref");
        if let Value::Object(target) = flatten(&defs[name], defs) {
            out.extend(target);
        }
    }
    for (k, v) in o {
        match k.as_str() {
            "$ref" => {}
            "anyOf" => {
                let rest: Vec<&Value> = v
                    .as_array()
                    .expect("anyOf is a list")
                    .iter()
                    .filter(|b| b.get("type") != Some(&json!("null")))
                    .collect();
                if let [only] = rest.as_slice() {
                    if let Value::Object(inner) = flatten(only, defs) {
                        for (ik, iv) in inner {
                            out.entry(ik).or_insert(iv);
                        }
                    }
                } else {
                    let all: Vec<Value> = rest.into_iter().map(|b| flatten(b, defs)).collect();
                    out.insert(k.clone(), Value::Array(all));
                }
            }
            "oneOf" => match string_consts(v) {
                Some(values) => {
                    out.insert("type".into(), json!("string"));
                    out.insert("enum".into(), Value::Array(values));
                }
                None => {
                    out.insert(k.clone(), flatten_all(v, defs));
                }
            },
            "type" => {
                out.insert(k.clone(), without_null(v));
            }
            "items" | "not" => {
                out.insert(k.clone(), flatten(v, defs));
            }
            "properties" => {
                let props = v
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(name, p)| (name.clone(), flatten(p, defs)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(k.clone(), Value::Object(props));
            }
            // schemars' `format`s (`uint8`, `int64`, `double`) are not JSON Schema
            // formats; some tool APIs refuse unknown ones, and the bounds say enough.
            "format" => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    if out.get("default") == Some(&Value::Null) {
        out.remove("default");
    }
    Value::Object(out)
}

fn flatten_all(list: &Value, defs: &Map<String, Value>) -> Value {
    Value::Array(
        list.as_array()
            .map(|l| l.iter().map(|v| flatten(v, defs)).collect())
            .unwrap_or_default(),
    )
}

/// `["string","null"]` → `"string"`.
fn without_null(types: &Value) -> Value {
    match types {
        Value::Array(list) => {
            let rest: Vec<Value> = list.iter().filter(|t| *t != "null").cloned().collect();
            match rest.as_slice() {
                [one] => one.clone(),
                _ => Value::Array(rest),
            }
        }
        other => other.clone(),
    }
}

/// The constants of a `oneOf` whose every branch is a string `const`.
fn string_consts(list: &Value) -> Option<Vec<Value>> {
    list.as_array()?
        .iter()
        .map(|b| b.get("const").filter(|c| c.is_string()).cloned())
        .collect()
}

/// The keywords two schemas of one parameter agree on (used when actions disagree,
/// e.g. `selector` is non-blank for click but free for scroll: the flat schema keeps
/// the looser rule and never refuses what some action accepts).
/// Two parameters of one name but different types (`submit`: type's boolean,
/// fill_form's target object) keep both: `type` lists both, and the other
/// keywords are each one's own.
fn common_keywords(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(a), Value::Object(b))
            if a.get("type").is_some()
                && b.get("type").is_some()
                && a.get("type") != b.get("type") =>
        {
            let mut out = b.clone();
            out.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
            out.insert("type".into(), json!([a["type"], b["type"]]));
            Value::Object(out)
        }
        (Value::Object(a), Value::Object(b)) => Value::Object(
            a.iter()
                .filter(|(k, v)| b.get(*k) == Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => a.clone(),
    }
}

/// The same value with every object's keys in sorted order, whatever serde_json's
/// map type (the `preserve_order` feature may be on in some builds).
fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(list) => Value::Array(list.into_iter().map(sort_keys).collect()),
        other => other,
    }
}
