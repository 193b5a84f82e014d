//! Events, extension → backend, one way (PROTOCOL.md §11).
//!
//! On the wire: `{"type":"event","event":{"event":"session_started","tabId":3,…}}`.
//! An event name this version does not know decodes to [`Event::Unknown`] so that a
//! newer extension never breaks an older backend.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::decode::from_object;
use crate::ids::TabId;

/// Why a session ended (§10). Non-exhaustive: a later version may add reasons
/// (v3 did), so code outside this crate matches with a wildcard arm.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum SessionEndReason {
    /// The tab was closed.
    TabClosed,
    /// The debugger was detached by the browser or the user (debugging bar cancelled).
    Detached,
    /// The user stopped the session in the popup, or the agent closed the tab.
    Stopped,
    /// The system went idle (`chrome.idle`).
    SystemIdle,
    /// The screen was locked (`chrome.idle`).
    ScreenLocked,
    /// The tab reached a blocklisted domain.
    DomainBlocked,
    /// Stop all was pressed.
    GlobalStop,
}

impl SessionEndReason {
    /// The wire name, e.g. `"tab_closed"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `session_started`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionStarted {
    /// The tab now under control.
    pub tab_id: TabId,
    /// Its URL at attach.
    pub url: String,
    /// In the agent window.
    pub agent_window: bool,
    /// ms since the Unix epoch.
    pub started_at: u64,
}

/// `session_ended`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnded {
    /// The tab released.
    pub tab_id: TabId,
    /// Why.
    pub reason: SessionEndReason,
    /// Actions run in the session.
    pub action_count: u64,
    /// ms since the Unix epoch.
    pub ended_at: u64,
}

/// `domain_blocked`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DomainBlocked {
    /// The tab, when one was involved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// The refused URL.
    pub url: String,
    /// The blocklist entry that matched.
    pub domain: String,
    /// ms since the Unix epoch.
    pub at: u64,
}

/// `global_stop`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GlobalStop {
    /// Sessions ended by it.
    pub session_count: u64,
    /// ms since the Unix epoch.
    pub at: u64,
}

/// An event, tagged by `event`. Later versions add event types without a version
/// bump (§11); this one decodes them as [`Event::Unknown`].
// Tags: the variant name in snake_case, by schemars and strum alike (tested below).
#[derive(Debug, Clone, PartialEq, JsonSchema, strum::EnumDiscriminants)]
#[schemars(tag = "event", rename_all = "snake_case")]
#[strum_discriminants(
    name(EventKind),
    vis(pub(crate)),
    derive(strum::EnumString, strum::IntoStaticStr, strum::VariantNames),
    strum(serialize_all = "snake_case")
)]
#[non_exhaustive]
pub enum Event {
    /// A session started.
    SessionStarted(SessionStarted),
    /// A session ended.
    SessionEnded(SessionEnded),
    /// A request or navigation hit the blocklist.
    DomainBlocked(DomainBlocked),
    /// Stop all was pressed.
    GlobalStop(GlobalStop),
    /// An event type this version does not know: kept whole, otherwise ignored.
    #[schemars(skip)]
    #[strum_discriminants(strum(disabled))]
    Unknown {
        /// Its `event` name.
        name: String,
        /// The whole object.
        raw: Value,
    },
}

impl Event {
    /// The wire name (`"session_started"`, or the unknown name).
    pub fn name(&self) -> &str {
        match self {
            Event::Unknown { name, .. } => name,
            known => EventKind::from(known).into(),
        }
    }
}

fn tagged<T: Serialize>(name: &str, body: &T) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(body)?;
    if let Value::Object(map) = &mut value {
        map.insert("event".into(), Value::String(name.into()));
    }
    Ok(value)
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = match self {
            Event::SessionStarted(e) => tagged(self.name(), e),
            Event::SessionEnded(e) => tagged(self.name(), e),
            Event::DomainBlocked(e) => tagged(self.name(), e),
            Event::GlobalStop(e) => tagged(self.name(), e),
            Event::Unknown { raw, .. } => Ok(raw.clone()),
        }
        .map_err(serde::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = Value::deserialize(deserializer)?;
        let name = raw
            .get("event")
            .and_then(Value::as_str)
            .ok_or_else(|| D::Error::custom("event: missing string field `event`"))?
            .to_owned();
        let fields = |e: String| D::Error::custom(format!("{name}: {e}"));
        match name.parse::<EventKind>() {
            Ok(EventKind::SessionStarted) => from_object(&raw, &["event"])
                .map(Event::SessionStarted)
                .map_err(fields),
            Ok(EventKind::SessionEnded) => from_object(&raw, &["event"])
                .map(Event::SessionEnded)
                .map_err(fields),
            Ok(EventKind::DomainBlocked) => from_object(&raw, &["event"])
                .map(Event::DomainBlocked)
                .map_err(fields),
            Ok(EventKind::GlobalStop) => from_object(&raw, &["event"])
                .map(Event::GlobalStop)
                .map_err(fields),
            // `Unknown` has no wire name of its own (strum-disabled), so it never parses.
            Ok(EventKind::Unknown) | Err(_) if raw.is_object() => Ok(Event::Unknown { name, raw }),
            Ok(EventKind::Unknown) | Err(_) => {
                Err(D::Error::custom(format!("event {name}: invalid fields")))
            }
        }
    }
}

impl crate::decode::NamedDecode for SessionStarted {}
impl crate::decode::NamedDecode for SessionEnded {}
impl crate::decode::NamedDecode for DomainBlocked {}
impl crate::decode::NamedDecode for GlobalStop {}

#[cfg(test)]
mod tests {
    use super::*;

    /// strum's names (used to encode and decode) are schemars' tags, which follow
    /// serde's rename rule; `Unknown` has none of its own.
    #[test]
    fn event_kinds_are_the_wire_tags() {
        let schema = serde_json::to_value(schemars::schema_for!(Event)).expect("schema");
        let tags: Vec<&str> = schema["oneOf"]
            .as_array()
            .expect("oneOf")
            .iter()
            .map(|v| v["properties"]["event"]["const"].as_str().expect("const"))
            .collect();
        let names = <EventKind as strum::VariantNames>::VARIANTS;
        assert_eq!(tags, names[..names.len() - 1]);
        assert!("unknown".parse::<EventKind>().is_err());
        let ended = Event::SessionEnded(SessionEnded {
            tab_id: TabId(1),
            reason: SessionEndReason::Stopped,
            action_count: 0,
            ended_at: 0,
        });
        assert_eq!(
            serde_json::to_value(&ended).expect("event")["event"],
            ended.name()
        );
    }

    #[test]
    fn end_reasons_are_their_wire_names() {
        use strum::IntoEnumIterator;
        for reason in SessionEndReason::iter() {
            let wire = serde_json::to_value(reason).expect("reason");
            assert_eq!(wire, reason.as_str());
            assert_eq!(
                serde_json::from_value::<SessionEndReason>(wire).ok(),
                Some(reason)
            );
        }
    }
}
