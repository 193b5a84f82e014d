//! The conformance harness against deliberately good and bad fake peers (real
//! sockets, no browser): a fake extension that follows PROTOCOL.md passes every
//! extension-mode check, and the same fake answering each request twice fails the
//! one-answer check; a fake backend that acks any token fails the token checks.

use std::time::Duration;

use browser_bridge_protocol::{Auth, Message, PROTOCOL_VERSION, auth, check_url_scheme};
use browser_bridge_tests::conformance::Report;
use browser_bridge_tests::conformance::backend::{BackendTarget, run as run_backend};
use browser_bridge_tests::conformance::extension::ExtensionHarness;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Frame;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const TAB: u64 = 7;
/// The tab `open_tab` opens.
const OTHER_TAB: u64 = 8;
/// The shared agent window, of requests without `client`.
const AGENT_WINDOW: u64 = 1;

/// The tabs opened for a request's `client` (PROTOCOL.md §3, §10), each in its
/// client's own window: `(tabId, windowId)`, and each client's window.
#[derive(Default)]
struct ClientTabs {
    tabs: Vec<(u64, u64)>,
    windows: Vec<String>,
}

impl ClientTabs {
    /// A new tab in `client`'s window (made on its first tab).
    fn open(&mut self, client: &str) -> (u64, u64) {
        let window = match self.windows.iter().position(|c| c == client) {
            Some(at) => at,
            None => {
                self.windows.push(client.to_owned());
                self.windows.len() - 1
            }
        } as u64
            + 100;
        let tab = 1_000 + self.tabs.len() as u64;
        self.tabs.push((tab, window));
        (tab, window)
    }

    fn has(&self, tab: &Value) -> bool {
        self.tabs.iter().any(|(t, _)| tab == &json!(t))
    }
}

/// How the fake extension misbehaves, if at all.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fake {
    /// Follows PROTOCOL.md.
    Good,
    /// Answers every request twice.
    Double,
    /// Trusts any peer, as v4 did: answers `auth` whatever the backend's proof,
    /// and obeys a bare `ack`.
    Trusting,
    /// Ignores a request's `client`: every client's tabs in one window.
    OneWindow,
}

/// A small extension that follows the protocol on one fake tab, but for `fake`'s
/// flaw. Like the real one, it reconnects after a plain close and stops for good
/// after a `reject` from a backend that proved the token.
async fn fake_extension(url: String, token: String, fake: Fake) {
    while session(&url, &token, fake).await {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// One connection; true when the extension should reconnect.
async fn session(url: &str, token: &str, fake: Fake) -> bool {
    let double = fake == Fake::Double;
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(
        "origin",
        "chrome-extension://fakefakefakefakefakefakefakefake"
            .parse()
            .unwrap(),
    );
    let Ok((mut ws, _)) = tokio_tungstenite::connect_async(request).await else {
        return true;
    };
    let n_e = auth::encode_nonce(&rand::random());
    let hello = json!({"type": "hello", "protocolVersion": PROTOCOL_VERSION,
                       "extensionVersion": "0.1.0", "clientId": "fake-client", "nonce": n_e});
    ws.send(Frame::text(hello.to_string())).await.unwrap();
    let mut actions = 0u64;
    let mut opened = ClientTabs::default();
    let (mut proven, mut acked) = (false, false);
    while let Some(Ok(frame)) = ws.next().await {
        let Frame::Text(text) = frame else { continue };
        let value: Value = serde_json::from_str(text.as_str()).unwrap();
        let mut out = Vec::new();
        // Until the backend proves the token, nothing it sends is obeyed (§2).
        if !acked {
            match (Message::decode(text.as_str()), proven) {
                (Ok(Message::Challenge(challenge)), false) => {
                    let answer = match fake {
                        Fake::Trusting => Some(Auth {
                            proof: auth::extension_proof(token, &n_e, &challenge.nonce),
                        }),
                        _ => challenge.answer(token, &n_e),
                    };
                    let Some(answer) = answer else {
                        return true;
                    };
                    proven = true;
                    let auth = Message::Auth(answer).encode();
                    if ws.send(Frame::text(auth)).await.is_err() {
                        return true;
                    }
                    continue;
                }
                (Ok(Message::Ack(_)), true) => {
                    acked = true;
                    continue;
                }
                (Ok(Message::Ack(_)), false) if fake == Fake::Trusting => {
                    acked = true;
                    continue;
                }
                // A reject is terminal only from a backend that proved itself.
                (Ok(Message::Reject(_)), proven) => return !proven,
                _ => return true,
            }
        }
        match value["type"].as_str() {
            Some("reject") => return false,
            Some("ping") => out.push(json!({"type": "pong", "nonce": value["nonce"]})),
            Some("request") => {
                let id = value["id"].clone();
                let answer = match Message::decode(text.as_str()) {
                    Err(e) => Err(json!(e.error)),
                    Ok(_) => {
                        actions += 1;
                        // Nobody is there to answer a hand-off: it waits its
                        // timeoutMs out (§5 "Hand-off").
                        if value["action"]["action"] == "handoff" {
                            let ms = value["action"]["timeoutMs"].as_u64().unwrap_or_default();
                            tokio::time::sleep(Duration::from_millis(ms)).await;
                        }
                        let client = value["client"].as_str().filter(|_| fake != Fake::OneWindow);
                        act(&value["action"], actions, &mut out, client, &mut opened)
                    }
                };
                let response = match answer {
                    Ok(result) => json!({"type": "response", "id": id, "result": result}),
                    Err(error) => json!({"type": "response", "id": id, "error": error}),
                };
                out.insert(0, response.clone());
                if double {
                    out.push(response);
                }
            }
            _ => {}
        }
        for frame in out {
            if ws.send(Frame::text(frame.to_string())).await.is_err() {
                return true;
            }
        }
    }
    true
}

/// Whether every point of a pointer action (its own x, y; a drag's ends) lies in
/// the fake's 780×493 viewport.
fn points_inside(action: &Value) -> bool {
    let inside = |p: &Value| match (p["x"].as_f64(), p["y"].as_f64()) {
        (Some(x), Some(y)) => (0.0..780.0).contains(&x) && (0.0..493.0).contains(&y),
        _ => true,
    };
    inside(action) && inside(&action["from"]) && inside(&action["to"])
}

fn error(code: &str, message: &str) -> Result<Value, Value> {
    Err(json!({"code": code, "message": message}))
}

/// One action on the fake tab (or a tab opened for `client`); events go to
/// `out` after the response.
fn act(
    action: &Value,
    count: u64,
    out: &mut Vec<Value>,
    client: Option<&str>,
    opened: &mut ClientTabs,
) -> Result<Value, Value> {
    let name = action["action"].as_str().unwrap_or_default();
    if action
        .get("tabId")
        .is_some_and(|t| t != &json!(TAB) && t != &json!(OTHER_TAB) && !opened.has(t))
    {
        return error(
            "session_not_found",
            "no session for that tab; pass one of [7]",
        );
    }
    let now = 1_764_000_000_000u64.max(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64,
    );
    match name {
        "navigate" => {
            let url = action["url"].as_str().unwrap_or_default();
            if let Err(e) = check_url_scheme(url) {
                return Err(json!(e));
            }
            if count == 1 {
                out.push(
                    json!({"type": "event", "event": {"event": "session_started", "tabId": TAB,
                                "url": url, "agentWindow": true, "startedAt": now}}),
                );
            }
            Ok(json!({"action": "navigate", "tabId": TAB, "url": url, "title": ""}))
        }
        "evaluate" => {
            let expression = action["expression"].as_str().unwrap_or_default();
            if let Some(thrown) = expression.strip_prefix("throw ") {
                return error("invalid_action", &format!("Uncaught {thrown}"));
            }
            // The page of the pointer checks: one click counted, and a drag's
            // mouse events as the page records them.
            if expression == "return window.conformanceClicks" {
                return Ok(
                    json!({"action": "evaluate", "tabId": TAB, "type": "number", "value": 1}),
                );
            }
            if expression == "return window.conformanceDrag" {
                let seen = json!([
                    ["mousedown", 20, 30, 1],
                    ["mousemove", 60, 50, 1],
                    ["mousemove", 120, 80, 1],
                    ["mouseup", 120, 80, 0]
                ]);
                return Ok(
                    json!({"action": "evaluate", "tabId": TAB, "type": "object", "value": seen}),
                );
            }
            if expression == "return window.__conformanceKeys" {
                return Ok(
                    json!({"action": "evaluate", "tabId": TAB, "type": "number", "value": 3}),
                );
            }
            let n: u64 = expression
                .trim_start_matches("return ")
                .parse()
                .unwrap_or(0);
            Ok(json!({"action": "evaluate", "tabId": TAB, "type": "number", "value": n}))
        }
        "list_tabs" => {
            let tab = |tab: u64, window: u64| {
                json!({"tabId": tab, "windowId": window, "url": "about:blank", "title": "",
                       "active": true, "agentWindow": true, "session": true})
            };
            let mut tabs = vec![tab(TAB, AGENT_WINDOW)];
            tabs.extend(opened.tabs.iter().map(|(t, w)| tab(*t, *w)));
            Ok(json!({"action": "list_tabs", "tabs": tabs}))
        }
        // A point outside the 780×493 viewport presses nothing (§5 "Pointer
        // targets"); inside it, the button of the pointer check is hit.
        "click" | "hover" | "drag" if !points_inside(action) => error(
            "invalid_action",
            "x, y is outside the viewport (780×493 CSS px): give a point inside it",
        ),
        "click" if action.get("x").is_some() => Ok(
            json!({"action": "click", "tabId": TAB, "url": "about:blank", "navigated": false,
                   "hit": {"role": "button", "name": "Point here"}}),
        ),
        "drag" => Ok(json!({"action": "drag", "tabId": TAB, "dragAndDrop": false})),
        "click" if action["selector"] == "#conformance-edit" => {
            Ok(json!({"action": "click", "tabId": TAB, "url": "about:blank"}))
        }
        "type" => Ok(json!({"action": "type", "tabId": TAB, "value": action["text"]})),
        // The beforeunload check's page prompts on a reload that reports it.
        "reload" if action["beforeUnload"] == "accept" => {
            Ok(json!({"action": "reload", "tabId": TAB, "url": "about:blank", "title": ""}))
        }
        "reload" => Ok(
            json!({"action": "reload", "tabId": TAB, "url": "about:blank", "title": "",
            "loadPending": true, "dialog": {"type": "beforeunload", "message": ""}}),
        ),
        "click" => error(
            "element_not_found",
            "nothing matches; extract and pick another target",
        ),
        "close_tab" => {
            let tab = action["tabId"].clone();
            opened.tabs.retain(|(t, _)| tab != json!(t));
            out.push(
                json!({"type": "event", "event": {"event": "session_ended", "tabId": tab,
                            "reason": "tab_closed", "actionCount": count, "endedAt": now}}),
            );
            Ok(json!({"action": "close_tab", "tabId": tab}))
        }
        "open_tab" => {
            let (tab, window) = match client {
                Some(client) => opened.open(client),
                None => (OTHER_TAB, AGENT_WINDOW),
            };
            Ok(
                json!({"action": "open_tab", "tabId": tab, "windowId": window,
                      "url": "about:blank", "title": ""}),
            )
        }
        "screenshot" => Ok(
            json!({"action": "screenshot", "tabId": TAB, "mimeType": "image/png",
                                  "data": "iVBORw0KGgoAAAANSUhEUg==", "width": 780, "height": 493}),
        ),
        // The only wait on this page is the dialog check's: the timer's alert
        // opens under it, so it ends at once naming the dialog.
        "wait_for" => error(
            "invalid_action",
            "an alert dialog opened during wait_for (\"conformance dialog\"): answer it \
             with handle_dialog, then retry",
        ),
        // The page logged `conformance first` (info), then `conformance console`
        // (warning); it made no request.
        "console_messages" => {
            let logged = [
                ("info", "conformance first"),
                ("warning", "conformance console"),
            ];
            let limit = action["limit"].as_u64().unwrap_or(50) as usize;
            let matching: Vec<Value> = logged
                .iter()
                .filter(|(level, _)| action["level"].is_null() || action["level"] == *level)
                .map(|(level, text)| json!({"level": level, "text": text, "timestamp": now}))
                .collect();
            let newest = matching[matching.len().saturating_sub(limit)..].to_vec();
            Ok(json!({"action": "console_messages", "tabId": TAB, "messages": newest}))
        }
        // The page registered `conformance-echo` through WebMCP (PROTOCOL.md §9).
        "list_page_tools" => Ok(json!({"action": "list_page_tools", "tabId": TAB,
            "pageProvided": true, "groups": [{"name": "webmcp", "description": "",
            "source": "webmcp", "tools": [{"name": "conformance-echo",
            "description": "Echoes", "inputSchema": {"type": "object"}}]}]})),
        "call_page_tool" if action["tool"] == "conformance-echo" => Ok(json!({
            "action": "call_page_tool", "tabId": TAB, "pageProvided": true,
            "output": {"content": [{"type": "text", "text": action["input"]["say"]}]}})),
        "handoff" => Ok(
            json!({"action": "handoff", "tabId": TAB, "outcome": "timeout",
            "elapsedMs": action["timeoutMs"]}),
        ),
        "network_requests" => {
            Ok(json!({"action": "network_requests", "tabId": TAB, "requests": []}))
        }
        // The page began no download (PROTOCOL.md §10.2): the list is empty, a
        // wait times out at its own timeoutMs, and no id is this session's.
        "list_downloads" => Ok(json!({"action": "list_downloads", "tabId": TAB, "downloads": []})),
        "wait_for_download" if action.get("downloadId").is_some() => error(
            "invalid_action",
            &format!(
                "download {} is not one of tab {TAB}'s downloads",
                action["downloadId"]
            ),
        ),
        "wait_for_download" => {
            // Answered once its timeoutMs has passed (the check asks for 300 ms;
            // this fake answers in turn, so it blocks its task meanwhile).
            let ms = action["timeoutMs"].as_u64().unwrap_or(30_000).min(2_000);
            std::thread::sleep(Duration::from_millis(ms));
            error(
                "timeout",
                &format!("tab {TAB} began no download within {ms} ms"),
            )
        }
        "network_response_body" => error(
            "invalid_action",
            &format!(
                "no request {} in this tab's session: take a requestId from network_requests",
                action["requestId"].as_str().unwrap_or_default()
            ),
        ),
        "handle_dialog" => Ok(
            json!({"action": "handle_dialog", "tabId": TAB, "dialogType": "alert",
                   "message": "conformance dialog"}),
        ),
        // Each field is set as asked and read back.
        "fill_form" => {
            let fields: Vec<Value> = action["fields"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, f)| json!({"index": i, "value": f["value"]}))
                .collect();
            Ok(json!({"action": "fill_form", "tabId": TAB, "fields": fields}))
        }
        // Each action in order, as on its own.
        "batch" => {
            let stop = action["stopOnError"] != false;
            let mut results = Vec::new();
            for (i, part) in action["actions"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                match act(part, count, out, client, opened) {
                    Ok(result) => results.push(json!({"index": i, "result": result})),
                    Err(error) => {
                        results.push(json!({"index": i, "error": error}));
                        if stop {
                            break;
                        }
                    }
                }
            }
            Ok(json!({"action": "batch", "tabId": TAB, "results": results}))
        }
        other => error("internal_error", &format!("the fake does not do {other}")),
    }
}

async fn extension_report(fake: Fake) -> Report {
    let harness = ExtensionHarness::bind("127.0.0.1:0".parse().unwrap(), "fake-token")
        .await
        .unwrap();
    let fake = tokio::spawn(fake_extension(harness.ws_url(), "fake-token".into(), fake));
    let mut report = Report::quiet();
    harness.run(Duration::from_secs(10), &mut report).await;
    fake.abort();
    report
}

#[tokio::test]
async fn a_conforming_fake_extension_passes_every_check() {
    let report = extension_report(Fake::Good).await;
    assert_eq!(report.failed(), 0, "{}", report.render());
    assert!(report.passed() >= 18, "{}", report.render());
}

#[tokio::test]
async fn a_double_answer_fails_the_one_answer_check() {
    let report = extension_report(Fake::Double).await;
    let failed: Vec<_> = report
        .results()
        .iter()
        .filter(|r| r.outcome.is_err())
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        failed,
        ["one answer per request id, no response to unknown ids"],
        "{}",
        report.render()
    );
}

#[tokio::test]
async fn one_window_for_every_client_fails_the_window_check() {
    let report = extension_report(Fake::OneWindow).await;
    let failed: Vec<_> = report
        .results()
        .iter()
        .filter(|r| r.outcome.is_err())
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "sessions: open_tab for two clients (request.client) → a window each, reused, not the shared one"
        ],
        "{}",
        report.render()
    );
}

#[tokio::test]
async fn an_extension_that_trusts_an_unproven_backend_fails_the_impostor_checks() {
    let report = extension_report(Fake::Trusting).await;
    let failed: Vec<_> = report
        .results()
        .iter()
        .filter(|r| r.outcome.is_err())
        .map(|r| r.name.as_str())
        .collect();
    assert!(
        failed
            .contains(&"handshake: a wrong backend proof → the extension sends no auth and closes"),
        "{}",
        report.render()
    );
    assert!(
        !failed.contains(&"handshake: hello shape"),
        "{}",
        report.render()
    );
}

/// A backend that proves the token but then acks any `auth` and any hello,
/// whatever its proof, version or fields.
async fn careless_backend(token: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                    return;
                };
                let ack = json!({"type": "ack", "protocolVersion": PROTOCOL_VERSION,
                                 "backendVersion": "0.0.1",
                                 "connectionId": uuid::Uuid::new_v4().to_string()});
                let Some(Ok(Frame::Text(hello))) = ws.next().await else {
                    return;
                };
                let hello: Value = serde_json::from_str(hello.as_str()).unwrap_or_default();
                let n_e = hello["nonce"].as_str().unwrap_or_default();
                let n_b = auth::encode_nonce(&rand::random());
                let challenge = json!({"type": "challenge", "nonce": n_b,
                                       "proof": auth::backend_proof(token, n_e, &n_b)});
                let _ = ws.send(Frame::text(challenge.to_string())).await;
                if ws.next().await.is_some() {
                    let _ = ws.send(Frame::text(ack.to_string())).await;
                }
                while let Some(Ok(_)) = ws.next().await {}
            });
        }
    });
    format!("ws://{addr}/extension")
}

#[tokio::test]
async fn a_backend_that_acks_any_token_fails_the_handshake_checks() {
    let url = careless_backend("right-token").await;
    let mut report = Report::quiet();
    run_backend(&BackendTarget::new(&url, "right-token"), &mut report).await;
    let failed = |name: &str| {
        report
            .results()
            .iter()
            .any(|r| r.name.starts_with(name) && r.outcome.is_err())
    };
    assert!(
        failed("handshake: wrong extension proof"),
        "{}",
        report.render()
    );
    assert!(failed("handshake: auth replayed"), "{}", report.render());
    assert!(
        failed("handshake: a hello carrying pairingToken"),
        "{}",
        report.render()
    );
    assert!(failed("handshake: a v4 hello"), "{}", report.render());
    assert!(
        failed("handshake: version above range"),
        "{}",
        report.render()
    );
    assert!(failed("origin: web origin refused"), "{}", report.render());
    assert!(!failed("handshake: ack shape"), "{}", report.render());
}
