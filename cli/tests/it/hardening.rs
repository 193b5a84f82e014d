//! Bad input never wedges the server (PROTOCOL.md §1, transport limits), over real
//! sockets: hostile frames decode in linear time and still name the field, a flood
//! of silent TCP connections neither exhausts file descriptors nor locks out
//! `/v1/status`, an extension that stops reading is dropped with every request
//! answered once, status stays small, and untrusted text cannot forge a log line.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{EXT_ORIGIN, Ws, connect_extension, connect_extension_at, hello, send};
use browser_bridge_protocol::PROTOCOL_VERSION;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

/// About 1 MiB of `"kNNNNNN":"v"` keys to pad a frame with.
fn padding(bytes: usize) -> Map<String, Value> {
    let mut map = Map::new();
    let mut i = 0;
    while map.len() * 14 < bytes {
        map.insert(format!("k{i:06}"), Value::from("v"));
        i += 1;
    }
    map
}

fn padded(mut value: Value, bytes: usize) -> Value {
    let object = value.as_object_mut().unwrap();
    for (k, v) in padding(bytes) {
        object.insert(k, v);
    }
    value
}

/// A generous regression bound: linear decoding of 1 MiB takes milliseconds; the
/// quadratic search it replaced took tens of minutes at this size (74 s at 175 KiB).
const DECODE_BOUND: Duration = Duration::from_secs(5);

#[tokio::test]
async fn hostile_frames_decode_in_linear_time_and_name_the_field() {
    // The default 10 s for hello: a 1 MiB frame on a busy machine needs more than
    // the tests' usual 300 ms to arrive.
    let server = crate::common::start(browser_bridge_backend::ServeOptions {
        hello_timeout: Duration::from_secs(10),
        ..crate::common::options()
    })
    .await;
    let client = crate::common::http();

    // A 1 MiB hello with one mistyped field, before authentication: refused for
    // its size, never decoded.
    let mut bad_hello = padded(hello(PROTOCOL_VERSION, "h"), 1 << 20);
    bad_hello["protocolVersion"] = json!("4");
    let text = bad_hello.to_string();
    assert!(text.len() > 1 << 20);
    let started = Instant::now();
    let mut hostile = Vec::new();
    for _ in 0..2 {
        let mut ws = crate::common::connect_raw(&server, Some(EXT_ORIGIN))
            .await
            .unwrap();
        ws.send(WsMessage::text(text.clone())).await.unwrap();
        hostile.push(ws);
    }
    // The server keeps answering while both decode.
    let (status, _) = get_status(&client, &server.base_url(), &server.token).await;
    assert_eq!(status, 200);
    for mut ws in hostile {
        let reject = crate::common::recv(&mut ws).await.expect("a reject");
        assert_eq!(reject["type"], "reject", "{reject}");
        assert_eq!(reject["error"]["code"], "invalid_request");
        let message = reject["error"]["message"].as_str().unwrap();
        assert!(message.contains("at most 65536 bytes"), "{message}");
    }
    assert!(started.elapsed() < DECODE_BOUND, "{:?}", started.elapsed());

    // A 1 MiB request action with one mistyped field, over HTTP.
    let action = padded(
        json!({"action": "click", "selector": "#go", "clickCount": "2"}),
        1 << 20,
    );
    let started = Instant::now();
    let (status, body) = crate::common::post_act(&client, &server, &action.to_string()).await;
    assert!(started.elapsed() < DECODE_BOUND, "{:?}", started.elapsed());
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "invalid_request");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("click: clickCount: invalid type"),
        "{message}"
    );

    // A 1 MiB response result with one mistyped field, from the extension: the
    // request still gets its one answer, naming the field.
    let ws = connect_extension(&server, "c-hostile").await;
    crate::common::wait_connected(&server, "c-hostile").await;
    let extension = crate::common::serve_requests(ws, |request| {
        let result = padded(
            json!({"action": "navigate", "tabId": "one", "url": "https://a.test/", "title": "A"}),
            1 << 20,
        );
        Some(json!({"type": "response", "id": request["id"], "result": result}))
    });
    let started = Instant::now();
    let (status, body) = crate::common::post_act(
        &client,
        &server,
        r#"{"action":"navigate","url":"https://a.test/"}"#,
    )
    .await;
    assert!(started.elapsed() < DECODE_BOUND, "{:?}", started.elapsed());
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "internal_error");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("response.result: tabId: invalid type"),
        "{message}"
    );
    extension.abort();
    server.shutdown().await.unwrap();
}

pub(crate) async fn get_status(
    client: &reqwest::Client,
    base: &str,
    token: &str,
) -> (u16, Vec<u8>) {
    let response = client
        .get(format!("{base}/v1/status"))
        .bearer_auth(token)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .expect("/v1/status answers");
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap().to_vec())
}

/// A `browser-bridge serve` child; its stderr is collected.
pub(crate) struct Serve {
    child: Child,
    pub(crate) base: String,
    pub(crate) token: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    /// `serve` on port 0; with `nofile`, under that (lower) open-file limit, the
    /// common default soft limit, so a flood can exhaust it.
    pub(crate) fn spawn(dir: &Path, nofile: Option<u64>) -> Serve {
        let mut command = match nofile {
            Some(limit) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(BIN);
                sh
            }
            None => Command::new(BIN),
        };
        let mut child = command
            .args(["serve", "--listen", "127.0.0.1:0", "--config-dir"])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let base = loop {
            let line = lines.next().expect("serve announces its address").unwrap();
            if let Some(rest) = line.strip_prefix("listening on ") {
                break rest.to_owned();
            }
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let token = std::fs::read_to_string(dir.join("pairing-token"))
            .unwrap()
            .trim()
            .to_owned();
        Serve {
            child,
            base,
            token,
            stderr,
        }
    }

    pub(crate) fn ws_url(&self) -> String {
        format!("{}/extension", self.base.replacen("http://", "ws://", 1))
    }

    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .map(|d| d.count())
            .unwrap_or(0)
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// Stops the child and returns its stderr lines.
    pub(crate) fn finish(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(200));
        self.stderr.lock().unwrap().clone()
    }
}

/// The soft open-file limit of this (test) process.
fn own_nofile_limit() -> u64 {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    line.split_whitespace()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap_or(u64::MAX)
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_silent_connections_neither_exhausts_fds_nor_locks_out_status() {
    // The server runs under 1 024 open files (a common default soft limit, lowered
    // with `ulimit`, never raised); this process opens the flood, so it needs its
    // own limit to hold it: 1 100 connections, fewer if the limit is lower.
    const SERVER_NOFILE: u64 = 1024;
    let flood = 1100.min(own_nofile_limit().saturating_sub(100) as usize);
    assert!(
        flood as u64 > SERVER_NOFILE / 2,
        "this process may open only {flood} sockets: too few to test a flood"
    );
    let dir = crate::common::temp_config_dir();
    let serve = Serve::spawn(&dir, Some(SERVER_NOFILE));
    let addr = serve.base.trim_start_matches("http://").to_owned();
    let baseline = serve.fds();
    let mut silent = Vec::with_capacity(flood);
    for _ in 0..flood {
        silent.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let client = crate::common::http();
    let (status, body) = get_status(&client, &serve.base, &serve.token).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let during = serve.fds();
    assert!(
        during <= baseline + browser_bridge_backend::server::accept::MAX_CONNECTIONS + 16,
        "{during} fds open (baseline {baseline})"
    );
    // Still answering after more of the flood.
    for _ in 0..100.min(flood) {
        silent.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    let (status, _) = get_status(&client, &serve.base, &serve.token).await;
    assert_eq!(status, 200);
    eprintln!(
        "silent flood of {} connections: server fds {baseline} before, {during} during",
        silent.len()
    );
    drop(silent);
    let stderr = serve.finish();
    assert!(
        !stderr.iter().any(|l| l.contains("Too many open files")),
        "{:?}",
        stderr
            .iter()
            .filter(|l| l.contains("Too many"))
            .take(3)
            .collect::<Vec<_>>()
    );
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_that_stops_reading_is_dropped_and_every_request_answered_once() {
    let dir = crate::common::temp_config_dir();
    let serve = Serve::spawn(&dir, None);
    // Authenticated, then never reads again (the socket stays open).
    let stuck: Ws = connect_extension_at(&serve.ws_url(), &serve.token, "c-stuck").await;
    let client = crate::common::http();
    let baseline = serve.rss_kib();
    let expression = format!("return '{}'", "x".repeat(4 << 20));
    let body = Arc::new(json!({"action": "evaluate", "expression": expression}).to_string());
    let started = Instant::now();
    let mut calls = Vec::new();
    for _ in 0..30 {
        // Staggered, so the figure is what the backend keeps, not 30 bodies
        // parsed at the same instant.
        tokio::time::sleep(Duration::from_millis(100)).await;
        calls.push({
            let (client, base, token, body) = (
                client.clone(),
                serve.base.clone(),
                serve.token.clone(),
                body.clone(),
            );
            tokio::spawn(async move {
                let response = client
                    .post(format!("{base}/v1/act"))
                    .bearer_auth(token)
                    .header("content-type", "application/json")
                    .body(body.as_str().to_owned())
                    .timeout(Duration::from_secs(120))
                    .send()
                    .await
                    .expect("one answer");
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap();
                (status, body)
            })
        });
    }
    let mut peak = baseline;
    while !calls.iter().all(|c| c.is_finished()) {
        peak = peak.max(serve.rss_kib());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    for call in calls {
        let (status, body) = call.await.unwrap();
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"]["code"], "not_connected", "{body}");
    }
    // Dropped within the send timeout (10 s), well before the 60 s idle timeout.
    assert!(elapsed < Duration::from_secs(45), "{elapsed:?}");
    let (_, status) = get_status(&client, &serve.base, &serve.token).await;
    let status: Value = serde_json::from_slice(&status).unwrap();
    assert_eq!(status["extension"], Value::Null, "{status}");
    assert_eq!(status["inFlight"], 0);
    let grown_mib = peak.saturating_sub(baseline) / 1024;
    eprintln!(
        "non-reading extension, 30 × 4 MiB requests: serve RSS {} MiB before, peak {} MiB, all answered in {elapsed:?}",
        baseline / 1024,
        peak / 1024
    );
    // Bounded: the 32 MiB outbound queue plus requests being read and parsed
    // (98–150 MiB measured, more when the machine is busy and more of the 30
    // bodies overlap); the unbounded queue it replaced grew by about 290 MB here.
    assert!(grown_mib < 200, "RSS grew by {grown_mib} MiB");
    drop(stuck);
    serve.finish();
}

#[tokio::test]
async fn status_stays_small_with_many_sessions_and_long_urls() {
    let dir = crate::common::temp_config_dir().join("fresh");
    let mut options = crate::common::options();
    options.config_dir = Some(dir.clone());
    let server = crate::common::start(options).await;
    let mut ws = connect_extension(&server, "c-caps").await;
    let long_url = format!("https://example.test/{}", "p".repeat(64 * 1024));
    for tab in 0..1500 {
        let event = json!({"type": "event", "event": {
            "event": "session_started", "tabId": tab, "url": long_url,
            "agentWindow": true, "startedAt": 1}});
        send(&mut ws, &event).await;
    }
    let client = crate::common::http();
    let status = loop {
        let (_, body) = get_status(&client, &server.base_url(), &server.token).await;
        let status: Value = serde_json::from_slice(&body).unwrap();
        if status["events"].as_array().unwrap().len() == 100
            && status["events"][99]["event"]["tabId"] == 1499
        {
            break body;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        status.len() < 300 * 1024,
        "status is {} bytes",
        status.len()
    );
    let status: Value = serde_json::from_slice(&status).unwrap();
    assert_eq!(
        status["sessionCount"],
        browser_bridge_backend::events::MAX_SESSIONS
    );
    let sessions = status["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), browser_bridge_backend::hub::STATUS_SESSIONS);
    let url = sessions[0]["url"].as_str().unwrap();
    assert!(
        url.len() <= browser_bridge_backend::events::MAX_EVENT_TEXT_BYTES,
        "{}",
        url.len()
    );
    assert!(url.starts_with("https://example.test/ppp") && url.ends_with('…'));

    // The audit log and its directory are private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let audit = dir.join("audit.jsonl");
        for _ in 0..200 {
            if audit.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&audit), 0o600);
        assert_eq!(mode(&dir.join("pairing-token")), 0o600);
        let first = std::fs::read_to_string(&audit).unwrap();
        let first: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        assert!(first["event"]["url"].as_str().unwrap().len() <= 1024);
    }
    drop(ws);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_newline_in_an_untrusted_message_type_does_not_forge_a_log_line() {
    let dir = crate::common::temp_config_dir();
    let serve = Serve::spawn(&dir, None);
    let forged = "x\nFORGED 2026-01-01T00:00:00Z  INFO browser_bridge: extension connected";
    // Before authentication, as the first frame…
    let mut request = serve.ws_url().into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Origin", HeaderValue::from_static(EXT_ORIGIN));
    let (mut raw, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    send(&mut raw, &json!({"type": forged})).await;
    while let Some(Ok(_)) = raw.next().await {}
    // …and after it.
    let mut ws = connect_extension_at(&serve.ws_url(), &serve.token, "c-log").await;
    send(&mut ws, &json!({"type": forged})).await;
    send(&mut ws, &json!({"type": "ping", "nonce": 7})).await;
    let pong = crate::common::recv(&mut ws).await.unwrap();
    assert_eq!(pong["type"], "pong");
    let lines = serve.finish();
    assert!(
        !lines.iter().any(|l| l.starts_with("FORGED")),
        "a forged line: {lines:#?}"
    );
    let escaped = lines.iter().filter(|l| l.contains("x\\nFORGED")).count();
    assert!(escaped >= 2, "both frames logged, escaped: {lines:#?}");
}

/// A client that sends half its headers and stops must not hold the shutdown
/// (Ctrl-C) until the header-read timeout: a connection with no request under way
/// closes at once. Found by an attacker trial: the port was free meanwhile, and
/// a long-lived client could have proved a squatter there.
#[tokio::test]
async fn a_half_sent_request_does_not_hold_the_shutdown() {
    use tokio::io::AsyncWriteExt;
    let server = crate::common::start(crate::common::options()).await;
    let mut half = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    half.write_all(b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let idle = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .expect("shutdown within 5 s, not after the 10 s header timeout")
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    drop((half, idle));
}
