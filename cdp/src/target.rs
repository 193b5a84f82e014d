//! The `Target` domain: targets (tabs, iframes, workers) and the sessions
//! attached to them.

use serde::{Deserialize, Serialize};

use crate::{Command, Empty, Event, id};

id!(
    /// `Target.TargetID`.
    TargetId(String)
);
id!(
    /// `Target.SessionID`: a flat session on one target (commands and events
    /// carry it as `sessionId`).
    SessionId(String)
);

/// `Target.TargetInfo` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// The target.
    #[serde(default)]
    pub target_id: TargetId,
    /// `page`, `iframe`, `service_worker`, `worker`, …
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its URL.
    #[serde(default)]
    pub url: String,
}

/// `Target.setAutoAttach`: attach to child targets (out-of-process iframes,
/// workers) as they appear ([`AttachedToTarget`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    /// On or off.
    pub auto_attach: bool,
    /// New targets pause until `Runtime.runIfWaitingForDebugger`.
    pub wait_for_debugger_on_start: bool,
    /// Flat sessions (`sessionId` on the same connection).
    pub flatten: bool,
}

impl SetAutoAttach {
    /// Every child target, flat, paused at start so that it can be set up before
    /// it runs.
    pub fn paused_children() -> SetAutoAttach {
        SetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: true,
        }
    }
}

impl Command for SetAutoAttach {
    const METHOD: &'static str = "Target.setAutoAttach";
    type Response = Empty;
}

/// `Target.attachedToTarget` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The new flat session.
    pub session_id: SessionId,
    /// The target.
    pub target_info: TargetInfo,
    /// It waits for `Runtime.runIfWaitingForDebugger`.
    #[serde(default)]
    pub waiting_for_debugger: bool,
}

impl Event for AttachedToTarget {
    const METHOD: &'static str = "Target.attachedToTarget";
}

/// `Target.detachedFromTarget`: a flat session ended (its iframe went away or
/// its document moved to another process, which attaches anew).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedFromTarget {
    /// The session that ended.
    pub session_id: SessionId,
}

impl Event for DetachedFromTarget {
    const METHOD: &'static str = "Target.detachedFromTarget";
}

/// `Target.getTargets`: every target of the browser.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GetTargets {}

/// `Target.getTargets` → `{targetInfos}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetsResponse {
    /// The targets.
    pub target_infos: Vec<TargetInfo>,
}

impl Command for GetTargets {
    const METHOD: &'static str = "Target.getTargets";
    type Response = GetTargetsResponse;
}

/// `Target.createTarget`: opens a page (a new tab).
#[derive(Debug, Clone, Serialize)]
pub struct CreateTarget {
    /// The URL it opens.
    pub url: String,
}

/// `Target.createTarget` → `{targetId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTargetResponse {
    /// The new page.
    pub target_id: TargetId,
}

impl Command for CreateTarget {
    const METHOD: &'static str = "Target.createTarget";
    type Response = CreateTargetResponse;
}

/// `Target.attachToTarget`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget {
    /// The target.
    pub target_id: TargetId,
    /// A flat session (commands carry `sessionId`).
    pub flatten: bool,
}

/// `Target.attachToTarget` → `{sessionId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTargetResponse {
    /// The session.
    pub session_id: SessionId,
}

impl Command for AttachToTarget {
    const METHOD: &'static str = "Target.attachToTarget";
    type Response = AttachToTargetResponse;
}

/// `Target.closeTarget`: closes a tab or stops a worker.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget {
    /// The target.
    pub target_id: TargetId,
}

impl Command for CloseTarget {
    const METHOD: &'static str = "Target.closeTarget";
    type Response = Empty;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn attached_to_target_and_auto_attach() {
        let e: AttachedToTarget = serde_json::from_value(json!({
            "sessionId": "S1",
            "targetInfo": {"targetId": "T1", "type": "iframe", "title": "", "url": "https://x.test/", "attached": true},
            "waitingForDebugger": true
        }))
        .unwrap();
        assert_eq!(e.session_id, SessionId("S1".into()));
        assert_eq!(e.target_info.kind, "iframe");
        assert!(e.waiting_for_debugger);
        assert_eq!(
            serde_json::to_value(SetAutoAttach::paused_children()).unwrap(),
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
        );
    }
}
