//! The squatter: a plain TCP listener that records every byte it is sent, on
//! the address `act`, `status`, `mcp`, `run` and `RemoteBridge` are pointed at
//! (or a relay to the real serve): each refuses and never sends the token.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use browser_bridge_agent::llm::MODEL_ENV_VARIABLES;
use browser_bridge_backend::{Bridge, Probe, RemoteBridge};
use browser_bridge_protocol::auth::server_proof;
use browser_bridge_protocol::{Action, ErrorCode, PROTOCOL_VERSION};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::BIN;

/// How the squatter answers every request.
#[derive(Debug, Clone, Copy)]
enum Answer {
    /// A well-formed hello with a proof made with another token (what a serve
    /// paired with another token sends).
    OtherTokensProof,
    /// A well-formed hello with 43 made-up base64url characters as proof.
    MadeUpProof,
    /// 404, as any web server without the route.
    NotFound,
    /// 200 with a body that is no hello.
    Garbage,
    /// Not HTTP at all.
    NotHttp,
}

const ANSWERS: [Answer; 5] = [
    Answer::OtherTokensProof,
    Answer::MadeUpProof,
    Answer::NotFound,
    Answer::Garbage,
    Answer::NotHttp,
];

/// A program holding the address: records every byte of every connection.
struct Squatter {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Vec<u8>>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Squatter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Squatter {
    async fn start(answer: Answer) -> Squatter {
        Squatter::start_on("127.0.0.1:0".parse().unwrap(), answer).await
    }

    /// On `addr`: a port a serve just released, say. The serve's side of a
    /// connection the client keeps pooled holds the port (`FIN_WAIT_2`) until
    /// the client sees it closed, so the bind is retried for up to 5 s, as a
    /// squatter would.
    async fn start_on(addr: SocketAddr, answer: Answer) -> Squatter {
        let until = std::time::Instant::now() + Duration::from_secs(5);
        let listener = loop {
            match TcpListener::bind(addr).await {
                Ok(listener) => break listener,
                Err(e)
                    if e.kind() == std::io::ErrorKind::AddrInUse
                        && std::time::Instant::now() < until =>
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("bind {addr}: {e}"),
            }
        };
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let record = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve_connection(socket, answer, record.clone()));
            }
        });
        Squatter {
            addr,
            received,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Everything received, one entry per request (or per connection for
    /// [`Answer::NotHttp`]).
    fn requests(&self) -> Vec<String> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .collect()
    }

    /// Asserts the squatter saw at least one request, each of them a
    /// `GET /v1/hello?nonce=…` with no `Authorization` header, and the token
    /// nowhere in what was sent (request lines, headers, bodies).
    fn assert_only_hellos_without_the_token(&self, token: &str, what: &str) {
        let requests = self.requests();
        assert!(!requests.is_empty(), "{what}: the squatter was never asked");
        for request in &requests {
            assert!(
                request.starts_with("GET /v1/hello?nonce="),
                "{what}: {request}"
            );
            assert!(
                !request.to_ascii_lowercase().contains("authorization"),
                "{what}: {request}"
            );
            assert!(
                !request.contains(token),
                "{what}: the token leaked: {request}"
            );
        }
    }
}

/// Reads requests off one connection (headers, then `Content-Length` bytes of
/// body), records each and answers it as `answer` says, until the peer closes.
async fn serve_connection(mut socket: TcpStream, answer: Answer, record: Arc<Mutex<Vec<Vec<u8>>>>) {
    // A squatter with its own token proves over its own address, as serve does.
    let local = socket
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break Some(at + 4);
            }
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => break None,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let Some(head_end) = head_end else {
            if !buffer.is_empty() {
                record.lock().unwrap().push(std::mem::take(&mut buffer));
            }
            return;
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + length {
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let end = buffer.len().min(head_end + length);
        let request: Vec<u8> = buffer.drain(..end).collect();
        let nonce = String::from_utf8_lossy(&request)
            .split_once("nonce=")
            .map(|(_, rest)| {
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect::<String>()
            })
            .unwrap_or_default();
        record.lock().unwrap().push(request);
        let (status, body) = match answer {
            Answer::OtherTokensProof => (
                "200 OK",
                format!(
                    r#"{{"protocolVersion":{PROTOCOL_VERSION},"proof":"{}"}}"#,
                    server_proof("the-squatters-own-token", &nonce, &local)
                ),
            ),
            Answer::MadeUpProof => (
                "200 OK",
                format!(
                    r#"{{"protocolVersion":{PROTOCOL_VERSION},"proof":"{}"}}"#,
                    "A".repeat(43)
                ),
            ),
            Answer::NotFound => ("404 Not Found", "not found".to_owned()),
            Answer::Garbage => ("200 OK", "<html>hello</html>".to_owned()),
            Answer::NotHttp => {
                let _ = socket.write_all(b"SSH-2.0-OpenSSH_9.6\r\n").await;
                // Keep reading: whatever the client sends next is recorded too.
                let mut rest = Vec::new();
                let _ =
                    tokio::time::timeout(Duration::from_millis(500), socket.read_to_end(&mut rest))
                        .await;
                if !rest.is_empty() {
                    record.lock().unwrap().push(rest);
                }
                return;
            }
        };
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if socket.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// A config directory with a token, as the user's.
fn config_dir() -> (std::path::PathBuf, String) {
    let dir = temp_config_dir();
    let token = browser_bridge_backend::config::load_or_create_token(&dir).unwrap();
    (dir, token)
}

/// The binary with `args`, no model settings from the environment, within 30 s.
async fn run_bin(args: &[&str], dir: &Path) -> Output {
    let mut command = tokio::process::Command::new(BIN);
    for var in MODEL_ENV_VARIABLES {
        command.env_remove(var);
    }
    command
        .env_remove("BROWSER_BRIDGE_URL")
        .args(args)
        .arg("--config-dir")
        .arg(dir)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    tokio::time::timeout(Duration::from_secs(30), command.output())
        .await
        .expect("the command ends within 30 s")
        .unwrap()
}

/// The last stderr line as the CLI's error JSON.
fn error_of(output: &Output) -> Value {
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text.lines().last().expect("an error line on stderr");
    serde_json::from_str(line).unwrap_or_else(|_| panic!("stderr is not JSON: {text}"))
}

/// Exit 4, stdout empty, and the error JSON: `unauthorized`, naming `address`
/// (and `dir` when given) and saying the token was not sent.
fn assert_refused(output: &Output, address: &str, dir: Option<&Path>, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{what}: {stderr}");
    assert!(output.stdout.is_empty(), "{what}: {stderr}");
    let error = error_of(output);
    assert_eq!(error["error"]["code"], "unauthorized", "{what}: {error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("the program answering at {address} did not prove")),
        "{what}: {message}"
    );
    assert!(
        message.contains("the token was not sent"),
        "{what}: {message}"
    );
    if let Some(dir) = dir {
        assert!(message.contains(dir.to_str().unwrap()), "{what}: {message}");
    }
}

#[tokio::test]
async fn act_and_status_refuse_a_squatter_and_never_send_the_token() {
    let (dir, token) = config_dir();
    for answer in ANSWERS {
        let squatter = Squatter::start(answer).await;
        let url = squatter.url();
        let act = run_bin(
            &["act", r#"{"action":"list_tabs"}"#, "--server", &url],
            &dir,
        )
        .await;
        assert_refused(&act, &url, Some(&dir), &format!("act, {answer:?}"));
        let status = run_bin(&["status", "--server", &url], &dir).await;
        assert_refused(&status, &url, Some(&dir), &format!("status, {answer:?}"));
        squatter.assert_only_hellos_without_the_token(&token, &format!("{answer:?}"));
    }
}

#[tokio::test]
async fn mcp_refuses_to_forward_to_a_squatter_and_exits_non_zero() {
    let (dir, token) = config_dir();
    for answer in [Answer::OtherTokensProof, Answer::NotFound, Answer::NotHttp] {
        let squatter = Squatter::start(answer).await;
        let listen = squatter.addr.to_string();
        let out = run_bin(&["mcp", "--listen", &listen], &dir).await;
        assert_refused(
            &out,
            &squatter.url(),
            Some(&dir),
            &format!("mcp, {answer:?}"),
        );
        squatter.assert_only_hellos_without_the_token(&token, &format!("mcp, {answer:?}"));
    }
}

/// `run` refuses before the model is ever asked: its base URL is the
/// squatter too, so a model call would show up among the recorded requests.
#[tokio::test]
async fn run_refuses_a_squatter_before_anything_else() {
    let (dir, token) = config_dir();
    for answer in [Answer::MadeUpProof, Answer::Garbage] {
        let squatter = Squatter::start(answer).await;
        let listen = squatter.addr.to_string();
        let model = format!("{}/v1", squatter.url());
        let run = run_bin(
            &[
                "run",
                "list my tabs",
                "--listen",
                &listen,
                "--base-url",
                &model,
            ],
            &dir,
        )
        .await;
        assert_refused(
            &run,
            &squatter.url(),
            Some(&dir),
            &format!("run, {answer:?}"),
        );
        squatter.assert_only_hellos_without_the_token(&token, &format!("run, {answer:?}"));
    }
}

/// The library client too: every method refuses before sending, and `probe`
/// (how `mcp` chooses) reports the refusal instead of "nothing there".
#[tokio::test]
async fn remote_bridge_refuses_a_squatter_on_every_call() {
    let squatter = Squatter::start(Answer::OtherTokensProof).await;
    let token = "the-users-token-0123456789";
    let remote = RemoteBridge::new(squatter.addr, token);
    for _ in 0..2 {
        let error = remote
            .act(Action::from_json(r#"{"action":"list_tabs"}"#).unwrap())
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::Unauthorized, "{error:?}");
        let error = remote.status().await.unwrap_err();
        assert_eq!(error.code, ErrorCode::Unauthorized, "{error:?}");
    }
    match browser_bridge_backend::probe(squatter.addr, token, None).await {
        Probe::Refused(error) => {
            assert_eq!(error.code, ErrorCode::Unauthorized);
            assert!(error.message.contains(&squatter.url()), "{}", error.message);
        }
        other => panic!("expected Refused, got {other:?}"),
    }
    // Four calls and the probe: five hellos, nothing else.
    assert_eq!(squatter.requests().len(), 5);
    squatter.assert_only_hellos_without_the_token(token, "RemoteBridge");
}

/// Nothing listening is not a refusal: `probe` says `Absent` (so `mcp` hosts the
/// socket itself) and `act` keeps its "start serve" message.
#[tokio::test]
async fn a_free_port_is_absent_not_refused() {
    let addr: SocketAddr = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    assert!(matches!(
        browser_bridge_backend::probe(addr, "t", None).await,
        Probe::Absent
    ));
    let error = RemoteBridge::new(addr, "t")
        .act(Action::from_json(r#"{"action":"list_tabs"}"#).unwrap())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::NotConnected);
    assert!(
        error.message.contains("start `browser-bridge serve`"),
        "{}",
        error.message
    );
}

/// A long-lived client (`mcp` forwarding, `run`) proves the server before every
/// request: a serve that stops and a squatter that takes its port at once, with no
/// failed request in between, get a fresh hello, never the token.
#[tokio::test]
async fn a_long_lived_client_proves_before_every_request() {
    for answer in [Answer::NotFound, Answer::OtherTokensProof] {
        let server = start(options()).await;
        let addr = server.addr;
        let token = server.token.clone();
        let remote = RemoteBridge::new(addr, token.clone());
        remote.prove().await.unwrap();
        assert_eq!(remote.status().await.unwrap()["connected"], false);
        server.shutdown().await.unwrap();
        // The squatter takes the port before the client's next request.
        let squatter = Squatter::start_on(addr, answer).await;
        for _ in 0..2 {
            let error = remote.status().await.unwrap_err();
            assert_eq!(error.code, ErrorCode::Unauthorized, "{error:?}");
            let error = remote
                .act(browser_bridge_protocol::Action::ListTabs(
                    browser_bridge_protocol::action::ListTabs {},
                ))
                .await
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::Unauthorized, "{error:?}");
        }
        assert_eq!(squatter.requests().len(), 4);
        squatter.assert_only_hellos_without_the_token(&token, "after the serve stopped");
    }
}

// ---------------------------------------------------------------- a relay

/// A program on another port that passes every connection through to the real
/// serve byte for byte and keeps what the client sent: the real serve's proof
/// reaches the client, but it names the serve's own address, not the one the
/// client dialled.
#[tokio::test]
async fn act_refuses_a_relay_to_the_real_serve_and_never_sends_the_token() {
    let server = start(options()).await;
    let dir = server.config_dir.clone();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(Mutex::new(Vec::<u8>::new()));
    let record = sent.clone();
    let target = server.addr;
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let Ok(mut upstream) = TcpStream::connect(target).await else {
                    return;
                };
                let (mut from_client, mut to_client) = client.split();
                let (mut from_serve, mut to_serve) = upstream.split();
                let up = async {
                    let mut buffer = [0u8; 8192];
                    while let Ok(n @ 1..) = from_client.read(&mut buffer).await {
                        record.lock().unwrap().extend_from_slice(&buffer[..n]);
                        if to_serve.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_serve.shutdown().await;
                };
                let down = async {
                    let _ = tokio::io::copy(&mut from_serve, &mut to_client).await;
                };
                tokio::join!(up, down);
            });
        }
    });
    let act = run_bin(
        &["act", r#"{"action":"list_tabs"}"#, "--server", &relay],
        &dir,
    )
    .await;
    assert_refused(&act, &relay, Some(&dir), "act through a relay");
    let sent = String::from_utf8_lossy(&sent.lock().unwrap()).into_owned();
    assert!(sent.starts_with("GET /v1/hello?nonce="), "{sent}");
    assert!(
        !sent.to_ascii_lowercase().contains("authorization"),
        "{sent}"
    );
    assert!(!sent.contains(&server.token), "the token leaked: {sent}");
    // The same serve, dialled directly, proves itself.
    let direct = run_bin(&["status", "--server", &server.base_url()], &dir).await;
    assert_ne!(
        direct.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
}
