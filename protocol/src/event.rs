//! Events, extension → backend, one way (PROTOCOL.md §11).
//!
//! On the wire: `{"type":"event","event":{"event":"session_started","tabId":3,…}}`.
//! An event name this version does not know decodes to [`Event::Unknown`] so that a
//! newer extension never breaks an older backend.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::ids::TabId;

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
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

/// An event, tagged by `event`.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
#[schemars(tag = "event", rename_all = "snake_case")]
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
            Event::SessionStarted(_) => "session_started",
            Event::SessionEnded(_) => "session_ended",
            Event::DomainBlocked(_) => "domain_blocked",
            Event::GlobalStop(_) => "global_stop",
            Event::Unknown { name, .. } => name,
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
        let parse = |what: &str| D::Error::custom(format!("event {what}: invalid fields"));
        Ok(match name.as_str() {
            "session_started" => Event::SessionStarted(
                crate::decode::from_object(&raw, &["event"])
                    .map_err(|e| D::Error::custom(format!("session_started: {e}")))?,
            ),
            "session_ended" => Event::SessionEnded(
                crate::decode::from_object(&raw, &["event"])
                    .map_err(|e| D::Error::custom(format!("session_ended: {e}")))?,
            ),
            "domain_blocked" => Event::DomainBlocked(
                crate::decode::from_object(&raw, &["event"])
                    .map_err(|e| D::Error::custom(format!("domain_blocked: {e}")))?,
            ),
            "global_stop" => Event::GlobalStop(
                crate::decode::from_object(&raw, &["event"])
                    .map_err(|e| D::Error::custom(format!("global_stop: {e}")))?,
            ),
            _ if raw.is_object() => Event::Unknown { name, raw },
            _ => return Err(parse(&name)),
        })
    }
}
