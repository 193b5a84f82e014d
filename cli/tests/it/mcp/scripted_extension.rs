//! The MCP tests' scripted extension: the workspace's fake extension
//! (`browser_bridge_conformance::fake`, which dials `/extension` and does the
//! handshake) answering every `request` with a scripted outcome and reporting
//! what it received.

use std::time::Duration;

use browser_bridge_conformance::fake::{self, FakeExtension};
use browser_bridge_protocol::envelope::Response;
use browser_bridge_protocol::extract::ExtractResult;
use browser_bridge_protocol::result::{ClickResult, PageResult, SideEffects};
use browser_bridge_protocol::{
    Action, ActionResult, BridgeError, Element, ErrorCode, Message, TabId, Uid,
};
use tokio::sync::mpsc;

/// The uid whose click answers `element_stale` (an extension-side error).
pub(crate) const STALE_UID: &str = "e404";

/// A connected scripted extension; dropping it closes the socket.
pub(crate) struct ScriptedExtension {
    /// Every action received, in order.
    pub(crate) received: mpsc::UnboundedReceiver<Action>,
    task: tokio::task::JoinHandle<fake::ExtensionSocket>,
}

impl Drop for ScriptedExtension {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedExtension {
    /// Connects to `ws://{addr}/extension`, retrying while the backend starts (up to
    /// 30 s), and completes the handshake.
    pub(crate) async fn connect(addr: &str, token: &str) -> ScriptedExtension {
        let (socket, _ack) = FakeExtension::new(format!("ws://{addr}/extension"), token)
            .retry_for(Duration::from_secs(30))
            .connect()
            .await
            .unwrap_or_else(|e| panic!("the fake extension connects to {addr}: {e}"));
        let (tx, received) = mpsc::unbounded_channel();
        let task = fake::answer_requests(socket, move |frame| {
            let Ok(Message::Request(request)) = Message::decode(&frame.to_string()) else {
                panic!("the backend sent an invalid request: {frame}")
            };
            let outcome = answer(&request.action);
            let _ = tx.send(request.action);
            let reply = Message::Response(Response {
                id: request.id,
                outcome,
            });
            Some(serde_json::from_str(&reply.encode()).expect("a response is JSON"))
        });
        ScriptedExtension { received, task }
    }

    /// The next action the extension received (fails after 30 s).
    pub(crate) async fn next_action(&mut self) -> Action {
        tokio::time::timeout(Duration::from_secs(30), self.received.recv())
            .await
            .expect("an action within 30 s")
            .expect("fake extension still running")
    }
}

/// The scripted answers: `extract` returns [`sample_extract`], clicking
/// [`STALE_UID`] answers `element_stale`, other clicks succeed, `navigate`
/// echoes its URL, anything else is `invalid_action`.
fn answer(action: &Action) -> Result<ActionResult, BridgeError> {
    match action {
        Action::Extract(_) => Ok(ActionResult::Extract(sample_extract())),
        Action::Click(click) if click.uid.as_ref().is_some_and(|u| u.0 == STALE_UID) => Err(
            BridgeError::new(ErrorCode::ElementStale, "the page changed; extract again"),
        ),
        Action::Click(_) => Ok(ActionResult::Click(ClickResult {
            tab_id: TabId(7),
            url: "http://127.0.0.1/form".into(),
            navigated: false,
            hit: None,
            effects: SideEffects::default(),
            changes: None,
        })),
        Action::Navigate(navigate) => Ok(ActionResult::Navigate(PageResult::new(
            TabId(7),
            navigate.url.clone(),
            "Fake page",
        ))),
        other => Err(BridgeError::invalid_action(format!(
            "fake extension: {} not scripted",
            other.name()
        ))),
    }
}

/// The page the fake extension's `extract` returns.
pub(crate) fn sample_extract() -> ExtractResult {
    ExtractResult {
        tab_id: TabId(7),
        url: "http://127.0.0.1/form".into(),
        title: "Order form".into(),
        text: "Order form\nQuantity\nSave".into(),
        markdown: "# Order form\n\nPick a quantity, then save.".into(),
        elements: vec![
            Element {
                uid: Uid("e1".into()),
                role: "spinbutton".into(),
                name: Some("Quantity".into()),
                value: Some("2".into()),
                visible: None,
                disabled: None,
                checked: None,
                multiline: None,
                readonly: None,
                options: None,
                frame_origin: None,
                value_length: None,
                clickable: None,
                hint: None,
            },
            Element {
                uid: Uid("e7".into()),
                role: "button".into(),
                name: Some("Save".into()),
                value: None,
                visible: None,
                disabled: Some(true),
                checked: None,
                multiline: None,
                readonly: None,
                options: None,
                frame_origin: None,
                value_length: None,
                clickable: None,
                hint: None,
            },
        ],
        obstacle: None,
        truncated: None,
        part: None,
        parts: None,
        changes: None,
    }
}
