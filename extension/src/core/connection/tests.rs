//! The connection machine, branch by branch, with a real token and real proofs.

use browser_bridge_protocol::{
    Ack, Challenge, ErrorCode, Hello, Reject, RequestId, SessionEndReason, TabId, auth,
    event::SessionEnded,
};

use super::*;

const TOKEN: &str = "pairing-token-for-the-tests";
const URL: &str = "ws://127.0.0.1:4321/extension";
const NOW: u64 = 1_700_000_000_000;

fn clock() -> Clock {
    Clock {
        now_ms: NOW,
        random: 0.5,
    }
}

fn nonce(byte: u8) -> String {
    auth::encode_nonce(&[byte; 32])
}

fn settings(token: Option<&str>) -> ConnectionSettings {
    ConnectionSettings {
        backend_url: URL.into(),
        pairing_token: token.map(Into::into),
        client_id: Some("client-1".into()),
        fatal: None,
        browser_name: None,
    }
}

fn run(conn: Conn, input: Input) -> (Conn, Vec<Effect>) {
    step(conn, input, clock())
}

fn sent(fx: &[Effect]) -> Vec<Message> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Send(text) => Some(Message::decode(text).expect("our own frame decodes")),
            _ => None,
        })
        .collect()
}

fn retry_timer(fx: &[Effect]) -> Option<(u32, u32)> {
    fx.iter().find_map(|e| match e {
        Effect::Timer {
            ms,
            input: Input::RetryDue { generation },
        } => Some((*ms, *generation)),
        _ => None,
    })
}

/// A connection whose socket is open and whose `hello` went out.
fn opened() -> Conn {
    let (conn, fx) = run(Conn::new("1.2.3".into(), Some("UA".into())), Input::Ensure);
    assert_eq!(fx, [Effect::LoadSettings { generation: 1 }]);
    assert_eq!(conn.phase, Phase::Connecting);
    let (conn, fx) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Ok(settings(Some(TOKEN))),
            nonce: nonce(1),
            client_id: "client-1".into(),
            browser_run_id: Some("run-1".into()),
        },
    );
    assert_eq!(
        fx,
        [
            Effect::Open {
                generation: 1,
                url: URL.into()
            },
            Effect::Timer {
                ms: 10_000,
                input: Input::HandshakeDeadline { generation: 1 }
            },
        ]
    );
    assert!(conn.socket_open);
    assert_eq!(conn.reason, format!("connecting to {URL}"));
    let (conn, fx) = run(conn, Input::Opened { generation: 1 });
    let frames = sent(&fx);
    let [Message::Hello(hello)] = &frames[..] else {
        panic!("hello expected: {fx:?}");
    };
    assert_eq!(hello.nonce, nonce(1));
    assert_eq!(hello.client_id, "client-1");
    assert_eq!(hello.extension_version, "1.2.3");
    assert_eq!(hello.user_agent.as_deref(), Some("UA"));
    assert_eq!(hello.protocol_version, PROTOCOL_VERSION);
    assert_eq!(
        (&hello.browser_name, &hello.browser_version),
        (&None, &None)
    );
    conn
}

/// The `hello` a connection sends with `browserName` set to `name`.
fn hello_named(name: Option<&str>) -> Hello {
    let ua = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.6778.85 Safari/537.36";
    let conn =
        Conn::new("1".into(), Some(ua.into())).with_default_name(Some("Chromium 131".into()));
    let (conn, _) = run(conn, Input::Ensure);
    let (conn, _) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Ok(ConnectionSettings {
                browser_name: name.map(Into::into),
                ..settings(Some(TOKEN))
            }),
            nonce: nonce(1),
            client_id: "client-1".into(),
            browser_run_id: Some("run-1".into()),
        },
    );
    let (_, fx) = run(conn, Input::Opened { generation: 1 });
    match &sent(&fx)[..] {
        [Message::Hello(hello)] => hello.clone(),
        _ => panic!("hello expected: {fx:?}"),
    }
}

#[test]
fn hello_names_the_browser_as_set_else_by_its_brand() {
    let hello = hello_named(Some("Work"));
    assert_eq!(hello.browser_name.as_deref(), Some("Work"));
    assert_eq!(hello.browser_version.as_deref(), Some("131.0.6778.85"));
    assert_eq!(hello.browser_run_id.as_deref(), Some("run-1"));
    let hello = hello_named(None);
    assert_eq!(hello.browser_name.as_deref(), Some("Chromium 131"));
}

fn challenge(token: &str) -> String {
    let n_b = nonce(2);
    Message::Challenge(Challenge {
        proof: auth::backend_proof(token, &nonce(1), &n_b),
        nonce: n_b,
    })
    .encode()
}

fn ack() -> String {
    Message::Ack(Ack {
        protocol_version: PROTOCOL_VERSION,
        backend_version: "9.9.9".into(),
        connection_id: "c-1".into(),
    })
    .encode()
}

fn text(text: String) -> Input {
    Input::Text {
        generation: 1,
        text,
    }
}

fn connected() -> Conn {
    let (conn, fx) = run(opened(), text(challenge(TOKEN)));
    assert_eq!(conn.phase, Phase::Authenticating);
    let frames = sent(&fx);
    let [Message::Auth(a)] = &frames[..] else {
        panic!("auth expected: {fx:?}");
    };
    assert_eq!(a.proof, auth::extension_proof(TOKEN, &nonce(1), &nonce(2)));
    let (conn, fx) = run(conn, text(ack()));
    assert_eq!(conn.phase, Phase::Connected);
    assert_eq!(conn.connected_at, Some(NOW));
    assert!(matches!(sent(&fx)[..], [Message::Ping(_)]), "{fx:?}");
    conn
}

fn session_ended(tab: i64) -> Event {
    Event::SessionEnded(SessionEnded {
        tab_id: TabId(tab),
        reason: SessionEndReason::Stopped,
        action_count: 1,
        ended_at: NOW,
    })
}

#[test]
fn the_full_handshake_then_requests_pings_and_pongs() {
    let conn = connected();
    assert_eq!(conn.status().state, "connected");
    assert_eq!(conn.status().reason, format!("connected to {URL}"));
    let request =
        r#"{"type":"request","id":"r-1","timeoutMs":15000,"action":{"action":"list_tabs"}}"#;
    let (conn, fx) = run(conn, text(request.into()));
    assert!(
        matches!(&fx[..], [Effect::Dispatch(r)] if r.id == RequestId("r-1".into())),
        "{fx:?}"
    );
    let (conn, fx) = run(conn, text(r#"{"type":"ping","nonce":7}"#.into()));
    assert!(
        matches!(sent(&fx)[..], [Message::Pong(Pong { nonce: 7 })]),
        "{fx:?}"
    );
    let (conn, _) = step(
        conn,
        text(r#"{"type":"pong","nonce":2}"#.into()),
        Clock {
            now_ms: NOW + 5,
            random: 0.5,
        },
    );
    assert_eq!(conn.last_pong_at, Some(NOW + 5));
    let (conn, fx) = run(conn, Input::PingDue { generation: 1 });
    assert!(
        matches!(sent(&fx)[..], [Message::Ping(Ping { nonce: 3 })]),
        "{fx:?}"
    );
    // A ping timer of an older attempt does nothing.
    let (_, fx) = run(conn, Input::PingDue { generation: 0 });
    assert!(fx.is_empty());
}

#[test]
fn a_challenge_without_the_right_proof_is_an_impostor() {
    let (conn, fx) = run(opened(), text(challenge("another-token")));
    assert_eq!(conn.phase, Phase::Disconnected);
    assert_eq!(conn.refused_at, Some(NOW));
    assert!(!conn.socket_open);
    assert!(sent(&fx).is_empty(), "nothing more is sent: {fx:?}");
    assert!(fx.contains(&Effect::Close));
    assert_eq!(retry_timer(&fx), Some((1_000, 1)));
    assert!(
        conn.reason.contains("does not know the pairing token"),
        "{}",
        conn.reason
    );
}

#[test]
fn anything_before_the_proof_is_an_impostor() {
    for frame in [
        r#"{"type":"request","id":"r","action":{"action":"list_tabs"}}"#,
        r#"{"type":"ack"}"#,
        "not json",
    ] {
        let (conn, fx) = run(opened(), text(frame.into()));
        assert_eq!(conn.phase, Phase::Disconnected, "{frame}");
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::Dispatch(_) | Effect::Send(_))),
            "{frame}: {fx:?}"
        );
    }
}

#[test]
fn an_unproven_reject_retries_and_hides_the_peer_text() {
    let reject = Message::Reject(Reject {
        error: BridgeError::new(ErrorCode::ProtocolMismatch, "click here: evil.test"),
    })
    .encode();
    let (conn, fx) = run(opened(), text(reject));
    assert_eq!(conn.phase, Phase::Disconnected);
    assert!(!conn.reason.contains("evil.test"), "{}", conn.reason);
    assert!(conn.reason.contains("protocol_mismatch"), "{}", conn.reason);
    assert!(conn.reason.contains("update the older"), "{}", conn.reason);
    assert!(retry_timer(&fx).is_some());
    assert!(!fx.iter().any(|e| matches!(e, Effect::StoreFatal { .. })));
    // Any other code before the proof is not a version matter.
    let reject = Message::Reject(Reject {
        error: BridgeError::new(ErrorCode::Unauthorized, "update me"),
    })
    .encode();
    let (conn, _) = run(opened(), text(reject));
    assert!(conn.reason.contains("unauthorized"), "{}", conn.reason);
    assert!(!conn.reason.contains("update"), "{}", conn.reason);
    assert!(conn.reason.contains("another program"), "{}", conn.reason);
    // Nor is a code of the stranger's own shown.
    let reject = r#"{"type":"reject","error":{"code":"reinstall_from_evil_test","message":"x"}}"#;
    let (conn, _) = run(opened(), text(reject.to_owned()));
    assert!(!conn.reason.contains("evil"), "{}", conn.reason);
    assert!(conn.reason.contains("an unknown code"), "{}", conn.reason);
}

#[test]
fn a_proven_reject_is_fatal_and_stored() {
    let (conn, _) = run(opened(), text(challenge(TOKEN)));
    let reject = Message::Reject(Reject {
        error: BridgeError::new(ErrorCode::Unauthorized, "bad proof"),
    })
    .encode();
    let (conn, fx) = run(conn, text(reject));
    assert_eq!(conn.phase, Phase::Fatal);
    assert_eq!(conn.reason, "unauthorized: bad proof");
    assert!(retry_timer(&fx).is_none());
    assert!(fx.contains(&Effect::StoreFatal {
        code: ErrorCode::Unauthorized,
        message: "unauthorized: bad proof".into()
    }));
    // Its socket's close changes nothing; the alarm does not reconnect; re-pairing does.
    let (conn, fx) = run(
        conn,
        Input::Closed {
            generation: 1,
            code: 1000,
            reason: String::new(),
        },
    );
    assert!(fx.is_empty());
    let (conn, fx) = run(conn, Input::Ensure);
    assert!(fx.is_empty());
    let (conn, fx) = run(conn, Input::Reconnect);
    assert_eq!(fx, [Effect::LoadSettings { generation: 2 }]);
    assert_eq!(conn.phase, Phase::Connecting);
}

#[test]
fn a_stored_fatal_error_or_no_token_stops_before_the_socket() {
    let (conn, _) = run(Conn::new("1".into(), None), Input::Ensure);
    let (conn, fx) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Ok(ConnectionSettings {
                fatal: Some("unauthorized: bad proof".into()),
                ..settings(Some(TOKEN))
            }),
            nonce: nonce(1),
            client_id: "c".into(),
            browser_run_id: Some("r".into()),
        },
    );
    assert_eq!((conn.phase, fx), (Phase::Fatal, Vec::new()));
    let (conn, _) = run(Conn::new("1".into(), None), Input::Ensure);
    let (conn, fx) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Ok(settings(None)),
            nonce: nonce(1),
            client_id: "c".into(),
            browser_run_id: Some("r".into()),
        },
    );
    assert_eq!((conn.phase, fx), (Phase::Unpaired, Vec::new()));
    assert_eq!(conn.status().state, "unpaired");
    // The alarm tries again (a token may have been stored without an event).
    let (_, fx) = run(conn, Input::Ensure);
    assert_eq!(fx, [Effect::LoadSettings { generation: 2 }]);
}

#[test]
fn a_storage_error_retries_and_a_bad_url_is_fatal() {
    let (conn, _) = run(Conn::new("1".into(), None), Input::Ensure);
    let (conn, fx) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Err("quota".into()),
            nonce: nonce(1),
            client_id: "c".into(),
            browser_run_id: Some("r".into()),
        },
    );
    assert_eq!(conn.phase, Phase::Disconnected);
    assert_eq!(conn.reason, "storage: quota");
    assert_eq!(retry_timer(&fx), Some((1_000, 1)));
    let (conn, fx) = run(conn, Input::RetryDue { generation: 1 });
    assert_eq!(fx, [Effect::LoadSettings { generation: 2 }]);
    let (conn, _) = run(
        conn,
        Input::Settings {
            generation: 2,
            settings: Ok(settings(Some(TOKEN))),
            nonce: nonce(1),
            client_id: "c".into(),
            browser_run_id: Some("r".into()),
        },
    );
    let (conn, fx) = run(
        conn,
        Input::SocketFailed {
            generation: 2,
            error: "SyntaxError".into(),
        },
    );
    assert_eq!(conn.phase, Phase::Fatal);
    assert_eq!(
        conn.reason,
        format!("invalid backend URL {URL:?}: SyntaxError")
    );
    assert_eq!(fx, [Effect::Close]);
}

#[test]
fn closes_back_off_and_an_ack_resets_the_backoff() {
    let mut conn = opened();
    let mut delays = Vec::new();
    for _ in 0..7 {
        let generation = conn.generation;
        let (next, fx) = run(
            conn,
            Input::Closed {
                generation,
                code: 1006,
                reason: String::new(),
            },
        );
        assert_eq!(next.reason, "socket closed (code 1006)");
        let (ms, due) = retry_timer(&fx).expect("a retry");
        delays.push(ms);
        let (next, _) = run(next, Input::RetryDue { generation: due });
        let (next, _) = run(
            next,
            Input::Settings {
                generation: due + 1,
                settings: Ok(settings(Some(TOKEN))),
                nonce: nonce(1),
                client_id: "c".into(),
                browser_run_id: Some("r".into()),
            },
        );
        conn = next;
    }
    assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    assert_eq!(conn.attempts, 7);
    let conn = {
        let generation = conn.generation;
        let n_b = nonce(2);
        let ch = Message::Challenge(Challenge {
            proof: auth::backend_proof(TOKEN, &nonce(1), &n_b),
            nonce: n_b,
        })
        .encode();
        let (c, _) = run(
            conn,
            Input::Text {
                generation,
                text: ch,
            },
        );
        let (c, _) = run(
            c,
            Input::Text {
                generation,
                text: ack(),
            },
        );
        c
    };
    assert_eq!((conn.phase, conn.attempts), (Phase::Connected, 0));
}

#[test]
fn a_stalled_handshake_times_out_and_late_inputs_are_ignored() {
    let conn = opened();
    let (conn, fx) = run(conn, Input::HandshakeDeadline { generation: 1 });
    assert_eq!(conn.phase, Phase::Disconnected);
    assert!(
        conn.reason
            .contains("did not complete the handshake within 10 s")
    );
    assert_eq!(retry_timer(&fx), Some((1_000, 1)));
    // The old socket's late frames and close, and a deadline of a finished
    // handshake, do nothing.
    let before = conn.clone();
    let (conn, fx) = run(conn, text(challenge(TOKEN)));
    assert!(fx.is_empty());
    let (conn, fx) = run(
        conn,
        Input::Closed {
            generation: 1,
            code: 1006,
            reason: "gone".into(),
        },
    );
    assert!(fx.is_empty());
    assert_eq!(conn, before);
    let (_, fx) = run(connected(), Input::HandshakeDeadline { generation: 1 });
    assert!(fx.is_empty());
}

#[test]
fn events_queue_while_disconnected_and_flush_after_ack() {
    let mut conn = Conn::new("1".into(), None);
    for tab in 0..(MAX_QUEUED_EVENTS as i64 + 5) {
        let (next, fx) = run(conn, Input::Outgoing(Outgoing::Event(session_ended(tab))));
        assert!(fx.is_empty());
        conn = next;
    }
    assert_eq!(conn.queued(), MAX_QUEUED_EVENTS);
    // Responses without a socket are dropped (the backend answered not_connected).
    let response = Response::err(RequestId("r".into()), BridgeError::internal("x"));
    let (conn, fx) = run(conn, Input::Outgoing(Outgoing::Response(response.clone())));
    assert!(fx.is_empty());
    assert_eq!(conn.queued(), MAX_QUEUED_EVENTS);
    // Carry the queue through a handshake.
    let (conn, _) = run(conn, Input::Ensure);
    let (conn, _) = run(
        conn,
        Input::Settings {
            generation: 1,
            settings: Ok(settings(Some(TOKEN))),
            nonce: nonce(1),
            client_id: "c".into(),
            browser_run_id: Some("r".into()),
        },
    );
    let (conn, _) = run(conn, text(challenge(TOKEN)));
    let (conn, fx) = run(conn, text(ack()));
    let frames = sent(&fx);
    assert_eq!(
        frames.len(),
        MAX_QUEUED_EVENTS + 1,
        "the queue, then a ping"
    );
    // The oldest five were dropped.
    let Message::Event(EventMessage {
        event: Event::SessionEnded(first),
    }) = &frames[0]
    else {
        panic!("{:?}", frames[0]);
    };
    assert_eq!(first.tab_id, TabId(5));
    assert_eq!(conn.queued(), 0);
    // Connected: events and responses go out at once.
    let (conn, fx) = run(conn, Input::Outgoing(Outgoing::Event(session_ended(1))));
    assert_eq!(sent(&fx).len(), 1);
    let (_, fx) = run(conn, Input::Outgoing(Outgoing::Response(response)));
    assert!(matches!(sent(&fx)[..], [Message::Response(_)]));
}

#[test]
fn malformed_requests_are_answered_when_they_have_an_id() {
    let conn = connected();
    let (conn, fx) = run(
        conn,
        text(r#"{"type":"request","id":"r-9","action":{"action":"no_such"}}"#.into()),
    );
    let frames = sent(&fx);
    let [Message::Response(r)] = &frames[..] else {
        panic!("{fx:?}");
    };
    assert_eq!(r.id, RequestId("r-9".into()));
    let (_, fx) = run(conn, text("{".into()));
    assert!(matches!(&fx[..], [Effect::Log(l)] if l.starts_with("undecodable frame ignored")));
}

#[test]
fn ensure_does_not_disturb_a_live_or_opening_connection() {
    let (conn, fx) = run(opened(), Input::Ensure);
    assert!(fx.is_empty());
    let (_, fx) = run(conn, Input::Opened { generation: 7 });
    assert!(fx.is_empty());
    let (_, fx) = run(connected(), Input::Ensure);
    assert!(fx.is_empty());
}
