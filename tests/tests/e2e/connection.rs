//! End-to-end: pairing and the connection state machine (PROTOCOL.md §2): a peer
//! that cannot prove the extension's token (a squatter, or a backend paired with
//! another token) gets no token and no obedience, the popup says why, and
//! re-pairing with the right token reconnects at once.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use browser_bridge_protocol::PROTOCOL_VERSION;
use browser_bridge_tests::chromium::{Chromium, EXTENSION_ID, TempDir};
use browser_bridge_tests::harness::Stack;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message as Frame;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

/// Opens the pairing link as a user would and waits for the page's measured outcome
/// (`data-outcome`: `connected` / `fatal` / `pending`); returns `(outcome, status
/// text, target id)` with the tab still open.
async fn pair(stack: &Stack, token: &str) -> (String, String, String) {
    let link = format!(
        "chrome-extension://{EXTENSION_ID}/pair.html#token={token}&backendUrl={}",
        stack.ws_url.replace(':', "%3A").replace('/', "%2F")
    );
    let (target, session) = stack.chromium.open_page(&link).await.expect("pairing page");
    let outcome = "for (let i = 0; i < 200 && !(document.body && document.body.dataset.outcome); i++) \
                   await new Promise((r) => setTimeout(r, 50)); \
                   return [document.body.dataset.outcome, document.getElementById('status').textContent]";
    let shown = stack
        .chromium
        .eval(&session, outcome)
        .await
        .expect("pairing outcome");
    (
        shown[0].as_str().unwrap_or_default().to_owned(),
        shown[1].as_str().unwrap_or_default().to_owned(),
        target,
    )
}

async fn connected(stack: &Stack) -> bool {
    stack
        .status()
        .await
        .map(|s| s["connected"] == true)
        .unwrap_or(false)
}

/// A backend paired with another token cannot prove the extension's token: the
/// extension closes before sending anything but its hello, says why in the pairing
/// page and the popup, keeps retrying, and connects once re-paired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_with_another_token_is_refused_until_re_paired() {
    let stack = Stack::start().await.expect("stack");
    assert!(stack.ack_ms > 0);

    let (outcome, text, target) = pair(&stack, "not-the-token").await;
    assert_eq!(outcome, "unproven", "{text}");
    assert!(
        text.contains("does not know the pairing token"),
        "the reason is shown: {text}"
    );
    stack.chromium.close_target(&target).await.expect("close");
    let (_popup_target, popup) = stack.popup().await.expect("popup");
    let refused = "for (let i = 0; i < 100 && !document.getElementById('reason').textContent.includes('pairing token'); i++) \
                   await new Promise((r) => setTimeout(r, 50)); \
                   return [document.getElementById('state').textContent, document.getElementById('reason').textContent]";
    let shown = stack
        .chromium
        .eval(&popup, refused)
        .await
        .expect("popup state");
    assert_ne!(shown[0], "fatal", "not terminal: {shown}");
    assert!(
        shown[1]
            .as_str()
            .unwrap()
            .contains("does not know the pairing token"),
        "{shown}"
    );
    assert!(!connected(&stack).await, "the backend has no extension");
    let e = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "not_connected", "{e}");

    let (outcome, text, _pairing_tab) = pair(&stack, &stack.token.clone()).await;
    assert_eq!(outcome, "connected", "{text}");
    wait_connected(&stack, Duration::from_secs(15)).await;
    let tabs = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs after re-pairing");
    let tabs = tabs["tabs"].as_array().expect("tabs").clone();
    assert!(!tabs.is_empty());
    // The pairing tab is still open: its URL and title must not carry the token.
    let shown = serde_json::to_string(&tabs).unwrap();
    assert!(
        shown.contains("pair.html"),
        "the pairing tab is listed: {shown}"
    );
    assert!(
        !shown.contains(&stack.token),
        "list_tabs leaks the pairing token: {shown}"
    );
}

/// What a squatter on the backend's address saw: the upgrade request's text and
/// every frame, as sent by the extension.
#[derive(Default)]
struct Seen {
    upgrades: Vec<String>,
    frames: Vec<String>,
}

/// What a squatter answers to a hello.
#[derive(Clone)]
enum Answer {
    /// A bare `ack`, then a `navigate` to this URL and an `evaluate` that would
    /// read the page's cookies.
    AckThenRequests(String),
    /// Nothing at all: the socket stays open and silent.
    Silence,
    /// A `reject` whose message is the squatter's own text.
    Reject(&'static str),
}

/// A program that holds the backend's address without the token (the real backend
/// is not running), answering every hello with `answer`.
async fn squatter(seen: Arc<Mutex<Seen>>, answer: Answer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let seen = seen.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                let record = seen.clone();
                #[allow(clippy::result_large_err)]
                let callback = move |request: &Request, response: Response| {
                    record.lock().unwrap().upgrades.push(format!(
                        "{} {:?}",
                        request.uri(),
                        request.headers()
                    ));
                    Ok(response)
                };
                let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(stream, callback).await else {
                    return;
                };
                let replies = match answer {
                    Answer::AckThenRequests(target) => vec![
                        json!({"type": "ack", "protocolVersion": PROTOCOL_VERSION,
                            "backendVersion": "9.9.9",
                            "connectionId": uuid::Uuid::new_v4().to_string()}),
                        json!({"type": "request", "id": uuid::Uuid::new_v4().to_string(),
                            "timeoutMs": 30000, "action": {"action": "navigate", "url": target}}),
                        json!({"type": "request", "id": uuid::Uuid::new_v4().to_string(),
                            "timeoutMs": 10000, "action": {"action": "evaluate",
                            "expression": "return document.cookie + document.body.innerText"}}),
                    ],
                    Answer::Silence => Vec::new(),
                    Answer::Reject(text) => vec![json!({"type": "reject",
                        "error": {"code": "unauthorized", "message": text}})],
                };
                let mut first = true;
                while let Some(Ok(frame)) = ws.next().await {
                    let text = match frame {
                        Frame::Text(text) => text.to_string(),
                        Frame::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                        _ => continue,
                    };
                    seen.lock().unwrap().frames.push(text);
                    if std::mem::take(&mut first) {
                        for frame in &replies {
                            let _ = ws.send(Frame::text(frame.to_string())).await;
                        }
                    }
                }
            });
        }
    });
    format!("ws://{addr}/extension")
}

/// Chromium with a copy of the built extension, not paired with anything yet (no
/// backend runs); keep the returned directory alive as long as the browser.
async fn unpaired_chromium() -> (Chromium, TempDir) {
    let built = tokio::task::spawn_blocking(browser_bridge_tests::build::ensure_built)
        .await
        .unwrap()
        .expect("build");
    let extension = TempDir::new("extension").unwrap();
    let (from, to) = (built.extension_dist.clone(), extension.path().to_path_buf());
    tokio::task::spawn_blocking(move || browser_bridge_tests::build::copy_extension(&from, &to))
        .await
        .unwrap()
        .expect("copy the extension");
    let chromium = Chromium::launch(extension.path()).await.expect("chromium");
    (chromium, extension)
}

/// The squatter scenario of the trust model (PROTOCOL.md §2): with no `serve`
/// running, a local program listens on the configured address. The real extension
/// connects, but never sends the token (not in the upgrade, not in any frame) and
/// runs nothing it is sent; it keeps retrying, and says why in its popup.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_squatter_on_the_backend_address_gets_no_token_and_runs_nothing() {
    let (chromium, _extension) = unpaired_chromium().await;
    let fixtures = browser_bridge_tests::fixtures::FixtureServer::start()
        .await
        .expect("fixtures");
    let visited = fixtures.url("basic.html?squatter-was-obeyed");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let url = squatter(seen.clone(), Answer::AckThenRequests(visited.clone())).await;
    let token = "squatter-test-token-0123456789abcdefghijklmnop";
    chromium.pair(&url, token).await.expect("pairing page");
    // Two attempts at least: the first and a retry after the backoff.
    let until = Instant::now() + Duration::from_secs(20);
    while seen.lock().unwrap().upgrades.len() < 2 {
        assert!(Instant::now() < until, "the extension stopped retrying");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (upgrades, frames) = {
        let seen = seen.lock().unwrap();
        (seen.upgrades.clone(), seen.frames.clone())
    };
    for text in upgrades.iter().chain(&frames) {
        assert!(
            !text.contains(token),
            "the token reached the squatter: {text}"
        );
    }
    for frame in &frames {
        let frame: serde_json::Value = serde_json::from_str(frame).expect("JSON frames");
        assert_eq!(
            frame["type"], "hello",
            "only hellos, never an answer: {frame}"
        );
        assert!(frame.get("pairingToken").is_none());
    }
    let targets = chromium.targets().await.expect("targets");
    assert!(
        targets.iter().all(|t| !t["url"]
            .as_str()
            .unwrap_or_default()
            .contains("squatter-was-obeyed")),
        "the squatter's navigate ran: {targets:?}"
    );
}

/// A squatter that accepts the socket and then says nothing must not hold the
/// extension away: it gives up after §2's 10 s and dials again. A squatter's
/// `reject` is not terminal, and its text never reaches the popup.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_and_rejecting_squatters_neither_hold_the_extension_nor_speak_in_its_popup() {
    let (chromium, _extension) = unpaired_chromium().await;
    let token = "squatter-test-token-0123456789abcdefghijklmnop";

    let silent = Arc::new(Mutex::new(Seen::default()));
    let url = squatter(silent.clone(), Answer::Silence).await;
    let started = Instant::now();
    chromium.pair(&url, token).await.expect("pairing page");
    let until = Instant::now() + Duration::from_secs(25);
    while silent.lock().unwrap().upgrades.len() < 2 {
        assert!(
            Instant::now() < until,
            "the extension stayed on a silent socket for {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let phishing = "SQUATTER SAYS: re-pair at http://evil.example";
    let rejecting = Arc::new(Mutex::new(Seen::default()));
    let url = squatter(rejecting.clone(), Answer::Reject(phishing)).await;
    chromium.pair(&url, token).await.expect("pairing page");
    let until = Instant::now() + Duration::from_secs(20);
    while rejecting.lock().unwrap().upgrades.len() < 2 {
        assert!(
            Instant::now() < until,
            "a squatter's reject stopped the extension"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_target, session) = chromium
        .open_page(&format!("chrome-extension://{EXTENSION_ID}/popup.html"))
        .await
        .expect("popup");
    let reason = "for (let i = 0; i < 200 && !document.getElementById('reason').textContent.includes('refused'); i++) \
                  await new Promise((r) => setTimeout(r, 50)); \
                  return [document.getElementById('state').textContent, document.getElementById('reason').textContent]";
    let shown = chromium.eval(&session, reason).await.expect("popup state");
    assert_ne!(shown[0], "fatal", "{shown}");
    let reason = shown[1].as_str().unwrap_or_default();
    assert!(
        reason.contains("refused the connection (unauthorized)"),
        "{shown}"
    );
    assert!(
        !reason.contains("SQUATTER"),
        "the squatter's words reached the popup: {shown}"
    );
}

/// MV3 evicts an idle worker after 30 s: the 20 s ping
/// keeps the same connection alive with no session and no traffic from the agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_worker_keeps_its_connection() {
    let stack = Stack::start().await.expect("stack");
    let first = stack.status().await.expect("status")["extension"]["connectionId"].clone();
    assert!(first.is_string(), "connected with an id: {first}");
    tokio::time::sleep(Duration::from_secs(45)).await;
    let later = stack.status().await.expect("status");
    assert_eq!(
        later["extension"]["connectionId"], first,
        "same connection after 45 s idle: {later}"
    );
    let tabs = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs after idling");
    assert!(tabs["tabs"].is_array());
}

async fn wait_connected(stack: &Stack, within: Duration) {
    let until = Instant::now() + within;
    while !connected(stack).await {
        assert!(
            Instant::now() < until,
            "no reconnect within {within:?}; backend log:\n{}",
            stack.backend_log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The backend goes away and comes back on the same address: the extension
/// reconnects by itself (backoff 1 s doubling, at most 30 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_a_backend_restart() {
    let mut stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let before = stack.status().await.unwrap()["extension"]["connectionId"].clone();
    stack.restart_backend().await.expect("restart");
    wait_connected(&stack, Duration::from_secs(40)).await;
    let after = stack.status().await.unwrap()["extension"]["connectionId"].clone();
    assert_ne!(before, after, "a new connection");
    // The session survived on the extension's side.
    assert_eq!(
        stack
            .eval(tab, "return document.title")
            .await
            .expect("same tab"),
        "Basic fixture"
    );
}
