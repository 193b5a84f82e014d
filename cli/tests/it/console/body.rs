//! Console request bodies against a raw socket, playing the attacker: the
//! guard answers before any body byte is read, bodies are capped at 16 KiB and
//! must arrive within 10 s (PROTOCOL.md §2.2 "Console").

use std::time::{Duration, Instant};

use browser_bridge_backend::server::ServerHandle;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{SESSION, get, own_origin, signed_in};

/// Sends `head` (a request head, blank line included) and `body` on a raw
/// socket, then waits up to `wait` for the answer; `(status, elapsed, closed)`,
/// status 0 when the connection closed without one, `closed` when serve then
/// closed the connection within 2 s.
async fn raw(
    server: &ServerHandle,
    head: &str,
    body: &[u8],
    wait: Duration,
) -> (u16, Duration, bool) {
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(body).await.unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(wait, socket.read(&mut buf))
            .await
            .expect("an answer in time")
            .unwrap_or(0);
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(!text.to_ascii_lowercase().contains("set-cookie"), "{text}");
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let elapsed = started.elapsed();
    let closed = async { while socket.read(&mut buf).await.unwrap_or(0) > 0 {} };
    let closed = tokio::time::timeout(Duration::from_secs(2), closed)
        .await
        .is_ok();
    (status, elapsed, closed)
}

fn head(server: &ServerHandle, path: &str, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\n{extra}\r\n",
        host = server.addr,
        origin = own_origin(server),
    )
}

#[tokio::test]
async fn bodies_are_read_after_the_guard_capped_and_under_a_deadline() {
    let (server, session) = signed_in(crate::common::options()).await;
    // No session, a megabyte announced, no byte sent: refused at once, and the
    // connection is not kept waiting for the body.
    for path in ["/console/api/runs", "/console/api/stop_all"] {
        let (status, took, closed) = raw(
            &server,
            &head(&server, path, "Content-Length: 1000000\r\n"),
            b"",
            Duration::from_secs(3),
        )
        .await;
        assert_eq!(status, 401, "{path}");
        assert!(took < Duration::from_secs(2), "{path}: {took:?}");
        assert!(closed, "{path}: the connection is closed");
    }
    // Forged sessions and cookies fare no better.
    let forged = format!(
        "Content-Length: 1000000\r\nCookie: bb_console={session}\r\n{SESSION}: {}\r\n",
        "ab".repeat(32)
    );
    let (status, _, _) = raw(
        &server,
        &head(&server, "/console/api/runs", &forged),
        b"",
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(status, 401);
    // With a session: over the cap, announced or streamed, is 413.
    let signed = format!("{SESSION}: {session}\r\n");
    for path in ["/console/api/runs", "/console/api/session"] {
        let (status, took, _) = raw(
            &server,
            &head(&server, path, &format!("{signed}Content-Length: 16385\r\n")),
            b"",
            Duration::from_secs(3),
        )
        .await;
        assert_eq!(status, 413, "{path}");
        assert!(took < Duration::from_secs(2), "{path}: {took:?}");
    }
    let chunk = vec![b' '; 20 * 1024];
    let chunked = format!("{:x}\r\n", chunk.len()).into_bytes();
    let body = [chunked.as_slice(), &chunk, b"\r\n0\r\n\r\n"].concat();
    let (status, _, _) = raw(
        &server,
        &head(
            &server,
            "/console/api/runs",
            &format!("{signed}Transfer-Encoding: chunked\r\n"),
        ),
        &body,
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(status, 413);
    // A body that never finishes is cut at the deadline (10 s), and dropped.
    let (status, took, closed) = raw(
        &server,
        &head(
            &server,
            "/console/api/runs",
            &format!("{signed}Content-Length: 100\r\n"),
        ),
        b"{\"task\": \"",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(status, 408);
    assert!(closed, "the connection is closed after the 408");
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(15),
        "{took:?}"
    );
    // Serve still answers.
    assert_eq!(
        get(&server, "/console/api/state", &[(SESSION, &session)])
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn many_anonymous_huge_bodies_are_refused_at_once_and_hold_nothing() {
    let (server, session) = signed_in(crate::common::options()).await;
    // No session (401), or a foreign Origin on the code exchange (403).
    let own = own_origin(&server);
    let started = Instant::now();
    let attempts = (0..64).map(|i| {
        let (path, origin, status) = [
            ("/console/api/runs", own.as_str(), 401),
            ("/console/api/session", "http://evil.test", 403),
        ][i % 2];
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nOrigin: {origin}\r\nContent-Length: 30000000\r\n\r\n",
            server.addr
        );
        let server = &server;
        async move { (raw(server, &head, b"", Duration::from_secs(5)).await, status) }
    });
    for ((status, _, closed), wanted) in futures_util::future::join_all(attempts).await {
        assert_eq!(status, wanted);
        assert!(closed);
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        get(&server, "/console/api/state", &[(SESSION, &session)])
            .await
            .0,
        200
    );
}
