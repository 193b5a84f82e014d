//! `fill_form` and `batch` (PROTOCOL.md §5 "fill_form and batch"): the actions
//! made of several, their targets and fields, and which actions a batch may hold.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

/// An element target without other parameters: `fill_form.submit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
// Exactly one target; an explicit `null` counts as absent, as in the decoder.
#[schemars(extend("oneOf" = [
    { "required": ["uid"], "properties": { "uid": { "not": { "type": "null" } } } },
    { "required": ["selector"], "properties": { "selector": { "not": { "type": "null" } } } }
]))]
pub struct Target {
    /// Element uid from the last extract (give this or `selector`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<Uid>,
    /// CSS selector (give this or `uid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
    pub selector: Option<String>,
}

impl Target {
    /// The target; `invalid_request` when not exactly one of uid/selector.
    pub fn target(&self) -> Result<ElementTarget<'_>, BridgeError> {
        exactly_one_target(&self.uid, &self.selector)
    }
}

/// What a `fill_form` field is set to: text (in the field's own format for date,
/// time, color and range inputs; an option's value or label for a select), or
/// checked/unchecked for a checkbox, radio or switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FieldValue {
    /// Checked (`true`) or unchecked (`false`): a checkbox, radio or switch.
    Checked(bool),
    /// The text to set, or the option to select.
    Text(String),
}

/// One `fill_form` field: a target and its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("oneOf" = [
    { "required": ["uid"], "properties": { "uid": { "not": { "type": "null" } } } },
    { "required": ["selector"], "properties": { "selector": { "not": { "type": "null" } } } }
]))]
pub struct FormField {
    /// Element uid from the last extract (give this or `selector`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<Uid>,
    /// CSS selector (give this or `uid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
    pub selector: Option<String>,
    /// Text, an option's value or label, or a date/time/color/range value in its format; true or false for a checkbox, radio or switch.
    pub value: FieldValue,
}

impl FormField {
    /// The target; `invalid_request` when not exactly one of uid/selector.
    pub fn target(&self) -> Result<ElementTarget<'_>, BridgeError> {
        exactly_one_target(&self.uid, &self.selector)
    }
}

/// `fill_form` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillForm {
    /// 1 to 50 fields in the order to fill them, each `{uid or selector, value}`.
    #[schemars(length(min = 1, max = FILL_FORM_MAX_FIELDS))]
    pub fields: Vec<FormField>,
    /// The element to click once every field is filled, `{uid}` or `{selector}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<Target>,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

/// `batch` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    /// 1 to 10 actions of one tab, each an object as for a single call
    /// (`{"action":"click","uid":"e3"}`); not batch, open_tab, close_tab or list_tabs.
    #[schemars(with = "Vec<BatchPart>", length(min = 1, max = BATCH_MAX_ACTIONS))]
    #[serde(deserialize_with = "batch_actions")]
    pub actions: Vec<Action>,
    /// Stop at the first action that fails (default true); false runs them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_on_error: Option<bool>,
    /// The tab to act on; every action's own tabId must be this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}

/// `batch.actions`, each part decoded by its tag ([`crate::decode::NamedDecode`]):
/// the actions serde's derived `Vec<Action>` decoder gives, which
/// `Action::from_value` checks part by part first (`check_batch_parts`), without
/// that decoder: it buffers each part and carries a buffered decoder of every
/// action's struct, 9 % of the wasm extension (125 KB raw, 29 KB gzip).
fn batch_actions<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Action>, D::Error> {
    Vec::<Value>::deserialize(d)?
        .iter()
        .map(|part| {
            <Action as crate::decode::NamedDecode>::decode(part).map_err(serde::de::Error::custom)
        })
        .collect()
}

impl Batch {
    /// `stopOnError`, defaulted to true.
    pub fn stop_on_error(&self) -> bool {
        self.stop_on_error.unwrap_or(true)
    }
}

/// Actions a `batch` may not hold: another batch, the tab-management actions
/// (a batch runs on one tab under its lock), and `handoff` (it waits minutes for
/// the person).
pub const NOT_BATCHABLE: &[&str] = &["batch", "open_tab", "close_tab", "list_tabs", "handoff"];

/// The schema of one `batch` part: one of the batchable actions, each branch the
/// same as the action's branch of the `Action` union (its parameter struct and
/// its `action` constant), so a validator checks each part as an action.
struct BatchPart;

impl JsonSchema for BatchPart {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BatchPart".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let branches: Vec<Value> = batchable_schemas(generator)
            .into_iter()
            .map(|(name, schema)| {
                let mut branch = schema.to_value();
                if let Value::Object(o) = &mut branch {
                    let props = o
                        .entry("properties")
                        .or_insert_with(|| Value::Object(Default::default()));
                    if let Value::Object(props) = props {
                        props.insert(
                            "action".into(),
                            serde_json::json!({ "type": "string", "const": name }),
                        );
                    }
                    o.insert("required".into(), serde_json::json!(["action"]));
                    o.insert("type".into(), serde_json::json!("object"));
                }
                branch
            })
            .collect();
        schemars::json_schema!({
            "description": "One action of the batch, an object as for a single call.",
            "oneOf": branches
        })
    }
}

/// `(name, schema of its parameters)` of every action a batch may hold, in the
/// order of [`ACTION_NAMES`].
fn batchable_schemas(g: &mut schemars::SchemaGenerator) -> Vec<(&'static str, schemars::Schema)> {
    vec![
        ("navigate", g.subschema_for::<Navigate>()),
        ("go_back", g.subschema_for::<History>()),
        ("go_forward", g.subschema_for::<History>()),
        ("reload", g.subschema_for::<Reload>()),
        ("click", g.subschema_for::<Click>()),
        ("hover", g.subschema_for::<Hover>()),
        ("drag", g.subschema_for::<Drag>()),
        ("type", g.subschema_for::<Type>()),
        ("press_key", g.subschema_for::<PressKey>()),
        ("select_option", g.subschema_for::<SelectOption>()),
        ("scroll", g.subschema_for::<Scroll>()),
        ("wait_for", g.subschema_for::<WaitFor>()),
        ("extract", g.subschema_for::<Extract>()),
        ("evaluate", g.subschema_for::<Evaluate>()),
        ("screenshot", g.subschema_for::<Screenshot>()),
        ("upload_file", g.subschema_for::<UploadFile>()),
        ("handle_dialog", g.subschema_for::<HandleDialog>()),
        ("list_page_tools", g.subschema_for::<TabOnly>()),
        ("call_page_tool", g.subschema_for::<CallPageTool>()),
        ("fill_form", g.subschema_for::<FillForm>()),
        ("console_messages", g.subschema_for::<ConsoleMessages>()),
        ("network_requests", g.subschema_for::<NetworkRequests>()),
        (
            "network_response_body",
            g.subschema_for::<NetworkResponseBody>(),
        ),
        ("wait_for_download", g.subschema_for::<WaitForDownload>()),
        ("list_downloads", g.subschema_for::<ListDownloads>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch part schema lists every action a batch may hold, and no other.
    #[test]
    fn batchable_schemas_are_every_action_but_the_unbatchable() {
        let mut generator = schemars::SchemaGenerator::default();
        let listed: Vec<&str> = batchable_schemas(&mut generator)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let expected: Vec<&str> = ACTION_NAMES
            .iter()
            .copied()
            .filter(|n| !NOT_BATCHABLE.contains(n))
            .collect();
        assert_eq!(listed, expected);
    }
}
