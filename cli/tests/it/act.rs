//! `/v1/act` and the request pool against a fake extension over real sockets:
//! pass-through, deadlines, disconnects, replacement, connect-wait, concurrency,
//! HTTP auth (PROTOCOL.md §2–§4, docs/DESIGN.md "Backend").

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::*;
use browser_bridge_backend::{Bridge, RemoteBridge, ServeOptions};
use browser_bridge_protocol::{Action, ErrorCode};
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;

const LIST_TABS: &str = r#"{"action":"list_tabs"}"#;

#[tokio::test]
async fn result_and_error_pass_through() {
    let server = start(options()).await;
    let ws = connect_extension(&server, "c").await;
    wait_connected(&server, "c").await;
    let _ext = serve_requests(ws, |request| {
        let id = &request["id"];
        assert_eq!(
            uuid::Uuid::parse_str(id.as_str()?).ok()?.get_version_num(),
            4
        );
        Some(match request["action"]["action"].as_str()? {
            "list_tabs" => {
                assert_eq!(request["timeoutMs"], 15_000);
                json!({"type":"response","id":id,"result":{"action":"list_tabs","tabs":[
                    {"tabId":3,"windowId":1,"url":"https://a.test/","title":"A","active":true,"agentWindow":false,"session":false}]}})
            }
            "click" => {
                json!({"type":"response","id":id,"error":{"code":"element_stale","message":"e4 is stale: extract again"}})
            }
            _ => return None,
        })
    });
    let client = http();
    let (status, body) = post_act(&client, &server, LIST_TABS).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["action"], "list_tabs");
    assert_eq!(body["tabs"][0]["tabId"], 3);
    assert_eq!(body["tabs"][0]["title"], "A");

    let (status, body) = post_act(&client, &server, r#"{"action":"click","uid":"e4"}"#).await;
    assert_eq!(status, 422);
    assert_eq!(
        body,
        json!({"error":{"code":"element_stale","message":"e4 is stale: extract again"}})
    );

    // The same through RemoteBridge, the CLI's client.
    let remote = RemoteBridge::new(server.addr, server.token.clone());
    let result = remote
        .act(Action::from_json(LIST_TABS).unwrap())
        .await
        .unwrap();
    assert_eq!(result.action_name(), "list_tabs");
    let error = remote
        .act(Action::from_json(r#"{"action":"click","uid":"e4"}"#).unwrap())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::ElementStale);
    assert!(matches!(
        browser_bridge_backend::probe(server.addr, &server.token, None).await,
        browser_bridge_backend::Probe::Proven(_)
    ));
    assert!(matches!(
        browser_bridge_backend::probe(server.addr, "wrong", None).await,
        browser_bridge_backend::Probe::Refused(e) if e.code == ErrorCode::Unauthorized
    ));
}

#[tokio::test]
async fn invalid_action_json_is_422_and_nothing_is_sent() {
    let server = start(options()).await;
    let ws = connect_extension(&server, "c").await;
    wait_connected(&server, "c").await;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let _ext = serve_requests(ws, move |request| {
        counter.fetch_add(1, Ordering::SeqCst);
        echo_evaluate(request)
    });
    let client = http();
    for bad in [
        "not json",
        r#"{"action":"fly"}"#,
        r#"{"action":"click","uid":"e1","selector":"a"}"#,
        r#"{"action":"click"}"#,
        r#"[1,2]"#,
    ] {
        let (status, body) = post_act(&client, &server, bad).await;
        assert_eq!(status, 422, "{bad}");
        assert_eq!(body["error"]["code"], "invalid_request", "{bad}: {body}");
    }
    let (status, body) = post_act(
        &client,
        &server,
        r#"{"action":"evaluate","expression":"return 5"}"#,
    )
    .await;
    assert_eq!((status, &body["value"]), (200, &json!(5)));
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "only the valid action reached the extension"
    );
}

/// A fake extension on `server` that records every action it is sent and answers
/// each with `result`; keep the returned task alive as long as it should serve.
async fn recording_extension(
    server: &browser_bridge_backend::ServerHandle,
    result: Value,
) -> (
    Arc<std::sync::Mutex<Vec<Value>>>,
    tokio::task::JoinHandle<crate::common::Ws>,
) {
    let ws = connect_extension(server, "c").await;
    wait_connected(server, "c").await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let log = seen.clone();
    let task = serve_requests(ws, move |request| {
        log.lock().unwrap().push(request["action"].clone());
        Some(json!({"type":"response","id":request["id"],"result":result}))
    });
    (seen, task)
}

/// `upload_file` would hand a file to the page, which an `evaluate` can then read:
/// no file of the config directory (the pairing token) is ever sent, whatever
/// path leads to it (a symlink, `..`); other files go through.
#[tokio::test]
async fn upload_file_never_hands_out_the_config_directory() {
    let server = start(options()).await;
    let (seen, _ext) = recording_extension(
        &server,
        json!({"action":"upload_file","tabId":1,"files":["report.txt"]}),
    )
    .await;
    let token = server.config_dir.join("pairing-token");
    let elsewhere = temp_config_dir();
    let link = elsewhere.join("innocent.txt");
    std::os::unix::fs::symlink(&token, &link).unwrap();
    let dotted = elsewhere.join("..").join(
        server
            .config_dir
            .strip_prefix(elsewhere.parent().unwrap())
            .unwrap_or(&server.config_dir),
    );
    let client = http();
    for path in [
        token.clone(),
        link.clone(),
        dotted.join("pairing-token"),
        server.config_dir.join("audit.jsonl"),
    ] {
        let body = json!({"action":"upload_file","selector":"#f","paths":[path]}).to_string();
        let (status, answer) = post_act(&client, &server, &body).await;
        assert_eq!(status, 422, "{}: {answer}", path.display());
        assert_eq!(answer["error"]["code"], "invalid_action");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("config directory"), "{message}");
        // Inside a batch too, naming the action's index.
        let upload = json!({"action":"upload_file","selector":"#f","paths":[path]});
        let body = json!({"action":"batch","actions":[{"action":"extract"}, upload]}).to_string();
        let (status, answer) = post_act(&client, &server, &body).await;
        assert_eq!(status, 422, "batch {}: {answer}", path.display());
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("batch: actions[1]: upload_file: "),
            "{message}"
        );
        assert!(message.contains("config directory"), "{message}");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "sent: {:?}",
        seen.lock().unwrap()
    );
    let ordinary = elsewhere.join("report.txt");
    std::fs::write(&ordinary, "hello").unwrap();
    let body = json!({"action":"upload_file","selector":"#f","paths":[ordinary]}).to_string();
    let (status, answer) = post_act(&client, &server, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

/// §5: only http(s) and about:blank are loaded; anything else is refused by the
/// backend itself, with a message naming the scheme, and never reaches the
/// extension — through HTTP and through the hub that MCP, the CLI and the agent
/// share.
#[tokio::test]
async fn non_web_url_schemes_are_refused_before_sending() {
    let server = start(options()).await;
    let (seen, _ext) = recording_extension(
        &server,
        json!({"action":"navigate","tabId":1,"url":"about:blank","title":""}),
    )
    .await;
    let client = http();
    for (url, named) in [
        ("javascript:alert(document.cookie)", "`javascript:`"),
        ("JavaScript:alert(1)", "`javascript:`"),
        ("  javascript:alert(1)", "`javascript:`"),
        ("file:///etc/passwd", "`file:`"),
        ("data:text/html,<script>alert(1)</script>", "`data:`"),
        ("chrome://settings", "`chrome:`"),
        (
            "chrome-extension://abcdefghijklmnop/options.html",
            "`chrome-extension:`",
        ),
        ("view-source:https://example.com/", "`view-source:`"),
        ("blob:https://example.com/1", "`blob:`"),
        ("about:srcdoc", "about:blank"),
        ("about:version", "about:blank"),
        ("https:example.com", "https://"),
        ("example.com", "no scheme"),
    ] {
        for action in ["navigate", "open_tab"] {
            let body = json!({ "action": action, "url": url }).to_string();
            let (status, answer) = post_act(&client, &server, &body).await;
            assert_eq!(status, 422, "{action} {url}: {answer}");
            assert_eq!(answer["error"]["code"], "invalid_action", "{action} {url}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(named), "{action} {url}: {message}");
        }
        // Inside a batch too, naming the action's index.
        let navigate = json!({ "action": "navigate", "url": url });
        let body = json!({ "action": "batch", "actions": [{"action": "extract"}, navigate] });
        let (status, answer) = post_act(&client, &server, &body.to_string()).await;
        assert_eq!(status, 422, "batch {url}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("batch: actions[1]: "), "{message}");
        assert!(message.contains(named), "batch {url}: {message}");
        let via_hub = server
            .hub
            .act(Action::from_value(json!({ "action": "navigate", "url": url })).unwrap())
            .await
            .unwrap_err();
        assert_eq!(via_hub.code, ErrorCode::InvalidAction, "{url}");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing reached the extension: {:?}",
        seen.lock().unwrap()
    );
    // The allowed ones are sent.
    for url in ["https://example.com/", "HTTP://127.0.0.1:9/", "about:blank"] {
        let body = json!({ "action": "navigate", "url": url }).to_string();
        let (status, answer) = post_act(&client, &server, &body).await;
        assert_eq!(status, 200, "{url}: {answer}");
    }
    let sent: Vec<Value> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|a| a["url"].clone())
        .collect();
    assert_eq!(
        sent,
        [
            json!("https://example.com/"),
            json!("HTTP://127.0.0.1:9/"),
            json!("about:blank")
        ]
    );
}

#[tokio::test]
async fn past_the_deadline_is_504_timeout_and_the_late_response_is_dropped() {
    let server = start(ServeOptions {
        deadline_override: Some(Duration::from_millis(300)),
        ..options()
    })
    .await;
    let mut ws = connect_extension(&server, "slow").await;
    wait_connected(&server, "slow").await;
    let client = http();
    let call = spawn_act(&client, &server, LIST_TABS);
    let request = recv(&mut ws).await.unwrap();
    assert_eq!(request["timeoutMs"], 300, "the applied deadline is sent");
    let (status, body) = call.await.unwrap();
    assert_eq!(status, 504);
    assert_eq!(body["error"]["code"], "timeout");
    // Answer late: dropped, and the connection keeps working.
    send(
        &mut ws,
        &json!({"type":"response","id":request["id"],"result":{"action":"list_tabs","tabs":[]}}),
    )
    .await;
    send(&mut ws, &json!({"type":"ping","nonce":9})).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "pong");
    let status = server.hub.status().await;
    assert_eq!(
        (status.in_flight, status.waiting),
        (0, 0),
        "no leaked pending entry"
    );
    let _ext = serve_requests(ws, echo_evaluate);
    let (status, body) = post_act(
        &client,
        &server,
        r#"{"action":"evaluate","expression":"return 8"}"#,
    )
    .await;
    assert_eq!((status, &body["value"]), (200, &json!(8)));
}

#[tokio::test]
async fn disconnect_mid_request_is_503_not_connected_and_never_resent() {
    let server = start(options()).await;
    let mut ws = connect_extension(&server, "flaky").await;
    wait_connected(&server, "flaky").await;
    let client = http();
    let call = spawn_act(&client, &server, LIST_TABS);
    let request = recv(&mut ws).await.unwrap();
    assert_eq!(request["type"], "request");
    drop(ws);
    // The same client reconnects at once (a restarted service worker): the lost
    // request must not be re-sent on the new socket.
    let mut again = connect_extension(&server, "flaky").await;
    let (status, body) = call.await.unwrap();
    assert_eq!(status, 503);
    assert_eq!(body["error"]["code"], "not_connected");
    send(&mut again, &json!({"type":"ping","nonce":2})).await;
    assert_eq!(
        recv(&mut again).await.unwrap(),
        json!({"type":"pong","nonce":2}),
        "no request re-sent"
    );
}

#[tokio::test]
async fn a_newer_connection_with_the_same_client_id_replaces_the_older() {
    let server = start(options()).await;
    let mut old = connect_extension(&server, "same").await;
    wait_connected(&server, "same").await;
    let client = http();
    let call = spawn_act(&client, &server, LIST_TABS);
    assert_eq!(recv(&mut old).await.unwrap()["type"], "request");
    let new = connect_extension(&server, "same").await;
    assert_eq!(
        close_code(&mut old).await,
        Some(1000),
        "the old socket is closed"
    );
    let (status, body) = call.await.unwrap();
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("not_connected"))
    );
    let _ext = serve_requests(new, echo_evaluate);
    let (status, body) = post_act(
        &client,
        &server,
        r#"{"action":"evaluate","expression":"return 77"}"#,
    )
    .await;
    assert_eq!(
        (status, &body["value"]),
        (200, &json!(77)),
        "requests go to the new socket"
    );
}

#[tokio::test]
async fn without_an_extension_the_request_waits_then_503() {
    let server = start(ServeOptions {
        connect_wait: Duration::from_millis(300),
        ..options()
    })
    .await;
    let (status, body) = post_act(&http(), &server, LIST_TABS).await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["code"], "not_connected");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("extension")
    );
}

#[tokio::test]
async fn an_extension_connecting_within_the_wait_gets_the_request() {
    let server = start(ServeOptions {
        connect_wait: Duration::from_secs(10),
        ..options()
    })
    .await;
    let client = http();
    let call = spawn_act(
        &client,
        &server,
        r#"{"action":"evaluate","expression":"return 31"}"#,
    );
    for _ in 0..500 {
        if server.hub.status().await.waiting == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.hub.status().await.waiting, 1);
    let ws = connect_extension(&server, "late-comer").await;
    let _ext = serve_requests(ws, echo_evaluate);
    let (status, body) = call.await.unwrap();
    assert_eq!((status, &body["value"]), (200, &json!(31)));
}

#[tokio::test]
async fn a_thousand_concurrent_calls_each_get_their_own_result() {
    let server = start(options()).await;
    let ws = connect_extension(&server, "busy").await;
    wait_connected(&server, "busy").await;
    // Answer in a scrambled order: collect a batch, answer it reversed.
    let (mut sink, mut stream) = futures_util::StreamExt::split(ws);
    let _ext = tokio::spawn(async move {
        use futures_util::StreamExt;
        let mut batch = Vec::new();
        loop {
            let next = tokio::time::timeout(Duration::from_millis(20), stream.next()).await;
            match next {
                Ok(Some(Ok(WsMessage::Text(text)))) => {
                    let request: Value = serde_json::from_str(&text).unwrap();
                    batch.push(echo_evaluate(&request).unwrap());
                    if batch.len() < 64 {
                        continue;
                    }
                }
                Ok(Some(Ok(_))) => continue,
                Ok(_) => break,
                Err(_) => {}
            }
            for reply in batch.drain(..).rev() {
                sink.send(WsMessage::text(reply.to_string())).await.unwrap();
            }
        }
    });
    let client = http();
    let calls: Vec<_> = (0..1000)
        .map(|n| {
            let client = client.clone();
            let url = server.base_url();
            let token = server.token.clone();
            tokio::spawn(async move {
                let response = client
                    .post(format!("{url}/v1/act"))
                    .bearer_auth(token)
                    .body(format!(
                        r#"{{"action":"evaluate","expression":"return {n}"}}"#
                    ))
                    .send()
                    .await
                    .unwrap();
                let status = response.status().as_u16();
                (n, status, response.json::<Value>().await.unwrap())
            })
        })
        .collect();
    for call in calls {
        let (n, status, body) = call.await.unwrap();
        assert_eq!(status, 200, "{n}: {body}");
        assert_eq!(
            body["value"],
            json!(n),
            "call {n} got another call's result"
        );
    }
    let status = server.hub.status().await;
    assert_eq!((status.in_flight, status.waiting), (0, 0));
}

#[tokio::test]
async fn http_auth_origin_and_host_refusals() {
    let server = start(options()).await;
    let client = http();
    let url = format!("{}/v1/status", server.base_url());
    let act_url = format!("{}/v1/act", server.base_url());

    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(
        status(client.get(&url).send().await.unwrap()),
        401,
        "no token"
    );
    assert_eq!(
        status(client.get(&url).bearer_auth("wrong").send().await.unwrap()),
        401
    );
    assert_eq!(
        status(client.post(&act_url).body(LIST_TABS).send().await.unwrap()),
        401
    );
    let body: Value = client.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(body["error"]["code"], "unauthorized");

    let ok = client
        .get(&url)
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    let ok: Value = ok.json().await.unwrap();
    assert_eq!(ok["connected"], false);

    for origin in ["https://evil.test", "null", "http://localhost:3000"] {
        let r = client
            .post(&act_url)
            .bearer_auth(&server.token)
            .header("Origin", origin)
            .body(LIST_TABS)
            .send()
            .await
            .unwrap();
        assert_eq!(status(r), 403, "{origin}");
    }
    let r = client
        .get(&url)
        .bearer_auth(&server.token)
        .header("Origin", EXT_ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 200, "the extension's own origin may read status");
    for host in ["evil.test", "evil.test:9333", "192.168.0.10"] {
        let r = client
            .get(&url)
            .bearer_auth(&server.token)
            .header("Host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(status(r), 403, "{host}");
    }
    let r = client
        .get(&url)
        .bearer_auth(&server.token)
        .header("Host", "localhost")
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 200);
}

#[tokio::test]
async fn non_loopback_listen_is_refused_without_allow_remote() {
    let err = browser_bridge_backend::start_server(ServeOptions {
        listen: "0.0.0.0:0".parse().unwrap(),
        ..options()
    })
    .await
    .unwrap_err();
    assert!(err.to_string().contains("--allow-remote"), "{err}");
}

#[tokio::test]
async fn malformed_or_mismatched_responses_still_answer_their_request() {
    let server = start(options()).await;
    let ws = connect_extension(&server, "confused").await;
    wait_connected(&server, "confused").await;
    let _ext = serve_requests(ws, |request| {
        let id = &request["id"];
        Some(match request["action"]["action"].as_str()? {
            // Both result and error: invalid per §3.
            "list_tabs" => {
                json!({"type":"response","id":id,"result":{"action":"list_tabs","tabs":[]},
                                  "error":{"code":"timeout","message":"x"}})
            }
            // A result for another action.
            "evaluate" => {
                json!({"type":"response","id":id,"result":{"action":"list_tabs","tabs":[]}})
            }
            _ => return None,
        })
    });
    let hub = server.hub.clone();
    let error = hub
        .act(Action::from_json(LIST_TABS).unwrap())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InternalError);
    assert!(
        error.message.contains("invalid response"),
        "{}",
        error.message
    );
    let error = hub
        .act(Action::from_json(r#"{"action":"evaluate","expression":"return 1"}"#).unwrap())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::InternalError);
    assert!(
        error.message.contains("`evaluate` request"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn shutdown_answers_requests_waiting_for_a_connection() {
    let server = start(ServeOptions {
        connect_wait: Duration::from_secs(30),
        ..options()
    })
    .await;
    let hub = server.hub.clone();
    let call = tokio::spawn(async move { hub.act(Action::from_json(LIST_TABS).unwrap()).await });
    for _ in 0..500 {
        if server.hub.status().await.waiting == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let hub = server.hub.clone();
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .expect("shutdown does not wait for the 30 s connect-wait")
        .unwrap();
    let error = call.await.unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::NotConnected);
    assert_eq!(hub.status().await.waiting, 0);
}
