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
/// `paths`, `scroll.amount` > 0, non-blank `url`/`selector`, non-empty `key`/`tool`.
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

/// The flat agent-tool schema, derived from [`action_schema`]: `{"type":"object"}`
/// whose `action` is an enum of all [`ACTION_NAMES`] and whose other properties are
/// every parameter of every action, each optional, its description naming the
/// actions that take it (`uid — click, hover, …: Element uid from the last
/// extract …`); `required: ["action"]`. Everything is inlined: no `$ref`, `$defs`
/// or combinator at the top level, because MCP clients and the Anthropic and
/// OpenAI tool APIs refuse them. Per-action rules that a flat object cannot hold
/// (exactly one target) are in the descriptions; the extension still validates
/// with the strict schema.
pub fn tool_schema() -> Value {
    let strict = action_schema();
    let defs = strict["$defs"]
        .as_object()
        .expect("action schema has $defs");
    let mut params: Vec<Param> = Vec::new();
    let mut action_help = Vec::new();
    for (name, variant) in variants(&strict) {
        let body = &defs[def_name(variant)];
        if let Some(d) = variant.get("description").and_then(Value::as_str) {
            action_help.push(format!("{name}: {}", sentence(d)));
        }
        let required = string_list(body.get("required"));
        let Some(props) = body.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (prop, prop_schema) in props {
            if prop == TAG {
                continue;
            }
            let mut flat = flatten(prop_schema, defs);
            let description = flat
                .as_object_mut()
                .and_then(|o| o.remove("description"))
                .and_then(|d| d.as_str().map(sentence))
                .unwrap_or_default();
            let user = Use {
                action: name,
                required: required.iter().any(|r| r == prop),
                description,
            };
            match params.iter_mut().find(|p| &p.name == prop) {
                Some(p) => {
                    p.schema = common_keywords(&p.schema, &flat);
                    p.uses.push(user);
                }
                None => params.push(Param {
                    name: prop.clone(),
                    schema: flat,
                    uses: vec![user],
                }),
            }
        }
    }
    let mut properties = Map::new();
    properties.insert(
        TAG.into(),
        json!({
            "type": "string",
            "enum": ACTION_NAMES,
            "description": format!("The action to run. {}", action_help.join(" ")),
        }),
    );
    for p in params {
        let description = p.describe();
        let mut schema = p.schema;
        if let Value::Object(o) = &mut schema {
            o.insert("description".into(), Value::String(description));
        }
        properties.insert(p.name, schema);
    }
    sort_keys(json!({
        "type": "object",
        "description": "One browser action per call: set `action` and the parameters that \
            action takes (each parameter names its actions). Element actions take exactly \
            one of `uid` (from the last extract) or `selector`; scroll takes at most one.",
        "properties": properties,
        "required": [TAG],
    }))
}

/// The text of a committed schema file: pretty JSON with sorted keys and a final
/// newline (what `protocol/schema/*.schema.json` hold).
pub fn pretty(schema: &Value) -> String {
    let mut text =
        serde_json::to_string_pretty(&sort_keys(schema.clone())).expect("JSON value serialises");
    text.push('\n');
    text
}

/// One parameter of the flat schema and the actions that take it.
struct Param {
    name: String,
    schema: Value,
    uses: Vec<Use>,
}

/// One action's use of a parameter.
struct Use {
    action: &'static str,
    required: bool,
    description: String,
}

impl Param {
    /// `uid — click, hover, …: Element uid … scroll: Container uid …`: actions grouped
    /// by their (identical) field description, `(required)` where the action needs it.
    fn describe(&self) -> String {
        let mut groups: Vec<(Vec<String>, &str)> = Vec::new();
        for u in &self.uses {
            let label = if u.required && !u.description.contains("(required)") {
                format!("{} (required)", u.action)
            } else {
                u.action.to_string()
            };
            match groups.iter_mut().find(|(_, d)| *d == u.description) {
                Some((actions, _)) => actions.push(label),
                None => groups.push((vec![label], &u.description)),
            }
        }
        let parts: Vec<String> = groups
            .into_iter()
            .map(|(actions, d)| format!("{}: {d}", actions.join(", ")))
            .collect();
        format!("{} — {}", self.name, parts.join(" "))
    }
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
fn common_keywords(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => Value::Object(
            a.iter()
                .filter(|(k, v)| b.get(*k) == Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => a.clone(),
    }
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// One line, ending with a full stop.
fn sentence(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.ends_with(['.', '…', '?', '!']) {
        line
    } else {
        format!("{line}.")
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
