//! A fake extension: dials the backend's `/extension` WebSocket with a
//! `chrome-extension://` Origin, sends a real `hello` with the pairing token, then
//! answers every `request` with a scripted outcome and reports what it received.

use std::time::Duration;

use browser_bridge_protocol::auth;
use browser_bridge_protocol::envelope::{Hello, Pong, Response};
use browser_bridge_protocol::extract::ExtractResult;
use browser_bridge_protocol::result::{ClickResult, PageResult, SideEffects};
use browser_bridge_protocol::{
    Action, ActionResult, BridgeError, Element, ErrorCode, Message, PROTOCOL_VERSION, TabId, Uid,
};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::Message as WsMessage;

/// The uid whose click answers `element_stale` (an extension-side error).
pub(crate) const STALE_UID: &str = "e404";

/// A connected fake extension; dropping it closes the socket.
pub(crate) struct FakeExtension {
    /// Every action received, in order.
    pub(crate) received: mpsc::UnboundedReceiver<Action>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeExtension {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeExtension {
    /// Connects to `ws://{addr}/extension`, retrying while the backend starts (up to
    /// 30 s), and completes the handshake.
    pub(crate) async fn connect(addr: &str, token: &str) -> FakeExtension {
        let url = format!("ws://{addr}/extension");
        let mut attempt = 0;
        let mut socket = loop {
            let mut request = url.as_str().into_client_request().expect("ws url");
            request.headers_mut().insert(
                "Origin",
                "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
                    .parse()
                    .expect("origin header"),
            );
            match tokio_tungstenite::connect_async(request).await {
                Ok((socket, _)) => break socket,
                Err(e) if attempt < 300 => {
                    attempt += 1;
                    if attempt % 50 == 0 {
                        eprintln!("fake extension still waiting for {url}: {e}");
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot connect to {url}: {e}"),
            }
        };
        let n_e = auth::encode_nonce(&rand::random());
        let hello = Message::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
            extension_version: "0.1.0".into(),
            client_id: uuid::Uuid::new_v4().to_string(),
            nonce: n_e.clone(),
            user_agent: Some("fake-extension".into()),
        });
        socket
            .send(WsMessage::text(hello.encode()))
            .await
            .expect("send hello");
        let Message::Challenge(challenge) = next_message(&mut socket).await else {
            panic!("expected a challenge")
        };
        let proof = challenge
            .answer(token, &n_e)
            .expect("the backend proves it knows the token");
        socket
            .send(WsMessage::text(Message::Auth(proof).encode()))
            .await
            .expect("send auth");
        let reply = next_message(&mut socket).await;
        assert!(
            matches!(reply, Message::Ack(_)),
            "expected ack, got {reply:?}"
        );

        let (tx, received) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            while let Some(frame) = socket.next().await {
                let Ok(WsMessage::Text(text)) = frame else {
                    continue;
                };
                let reply = match Message::decode(&text) {
                    Ok(Message::Request(request)) => {
                        let outcome = answer(&request.action);
                        let _ = tx.send(request.action);
                        Message::Response(Response {
                            id: request.id,
                            outcome,
                        })
                    }
                    Ok(Message::Ping(ping)) => Message::Pong(Pong { nonce: ping.nonce }),
                    _ => continue,
                };
                if socket.send(WsMessage::text(reply.encode())).await.is_err() {
                    break;
                }
            }
        });
        FakeExtension { received, task }
    }

    /// The next action the extension received (fails after 30 s).
    pub(crate) async fn next_action(&mut self) -> Action {
        tokio::time::timeout(Duration::from_secs(30), self.received.recv())
            .await
            .expect("an action within 30 s")
            .expect("fake extension still running")
    }
}

async fn next_message<S>(socket: &mut S) -> Message
where
    S: StreamExt<Item = Result<WsMessage, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame within 10 s")
            .expect("socket open")
            .expect("frame");
        if let WsMessage::Text(text) = frame {
            return Message::decode(&text).expect("valid message");
        }
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
            effects: SideEffects::default(),
        })),
        Action::Navigate(navigate) => Ok(ActionResult::Navigate(PageResult {
            tab_id: TabId(7),
            url: navigate.url.clone(),
            title: "Fake page".into(),
        })),
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
            },
            Element {
                uid: Uid("e7".into()),
                role: "button".into(),
                name: Some("Save".into()),
                value: None,
                visible: None,
                disabled: Some(true),
                checked: None,
            },
        ],
        obstacle: None,
        truncated: None,
    }
}
