//! Request checks (PROTOCOL.md §3, §4, §5, §11) through the backend's HTTP API:
//! ids, routing, one answer per request, error pass-through with HTTP statuses,
//! the deadline, keep-alive, events, a disconnect mid-request, and each client's
//! current tab.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::http::{HttpAnswer, HttpApi};
use super::{ANSWER_WAIT, BackendTarget, ClientSocket, client_id, connect_extension};
use crate::report::{Outcome, Report, ensure};
use crate::wire::{expect_error, is_uuid_v4, short, str_field, u64_field};

/// `evaluate`'s backend deadline (§5), sent as `timeoutMs`.
const EVALUATE_DEADLINE_MS: u64 = 15_000;

/// Every code an extension can answer with, and the HTTP status `/v1/act` gives it;
/// last, a code from a newer extension that no version knows yet, which passes
/// through unchanged too (§4, §12).
const PASS_THROUGH: [(&str, u16); 12] = [
    ("invalid_request", 422),
    ("invalid_action", 422),
    ("domain_blocked", 422),
    ("session_not_found", 422),
    ("element_not_found", 422),
    ("element_stale", 422),
    ("element_not_interactable", 422),
    ("navigation_failed", 422),
    ("timeout", 504),
    ("cancelled", 422),
    ("internal_error", 422),
    ("conformance_future_code", 422),
];

/// Runs the request checks, each on a fresh connection with one shared clientId
/// (so every new connection replaces the last and is the one the backend uses).
/// §2.1: the proof answered by `/v1/hello` verifies with our token, the address
/// we reached, and our version.
async fn server_proof(api: &HttpApi) -> Outcome {
    let nonce = browser_bridge_protocol::auth::encode_nonce(&rand::random());
    let ((status, body), address) = api.hello_at(&nonce).await?;
    ensure(status == 200, || format!("HTTP {status} {}", short(&body)))?;
    let version = u64_field(&body, "protocolVersion")?;
    ensure(
        version == u64::from(browser_bridge_protocol::PROTOCOL_VERSION),
        || format!("protocolVersion {version}"),
    )?;
    let proof = str_field(&body, "proof")?;
    ensure(
        browser_bridge_protocol::auth::verify_server_proof(api.token(), &nonce, &address, proof),
        || format!("the proof does not match our token at {address}"),
    )
}

/// §2.1: nonces outside 16–128 base64url characters are refused.
async fn bad_hello_nonce(api: &HttpApi) -> Outcome {
    for nonce in ["short", "has+plus/and/slash=padding", &"a".repeat(129)] {
        let (status, body) = api.hello(nonce).await?;
        ensure(status == 400, || {
            format!("nonce {nonce:?}: HTTP {status} {}", short(&body))
        })?;
        expect_error(&body["error"], "invalid_request")?;
    }
    Ok(())
}

pub(super) async fn run(target: &BackendTarget, report: &mut Report) {
    let api = HttpApi::new(&target.http_base, &target.token);
    report.record(
        "http: GET /v1/hello proves the server knows the token (no token sent)",
        server_proof(&api).await,
    );
    report.record(
        "http: GET /v1/hello with a malformed nonce → HTTP 400 invalid_request",
        bad_hello_nonce(&api).await,
    );
    // Without a reachable HTTP API every request check would fail the same way.
    let reachable = match api.status().await {
        Ok((200, _)) => Ok(()),
        Ok((status, body)) => Err(format!("HTTP {status} {}", short(&body))),
        Err(e) => Err(e),
    };
    let reachable = reachable.map_err(|e| {
        format!(
            "{}/v1/status: {e}; request checks skipped",
            target.http_base
        )
    });
    let skip = reachable.is_err();
    report.record("http: /v1/status answers 200 with the token", reachable);
    if skip {
        return;
    }
    http_guards(&api, report).await;
    report.record(
        "http: no extension connected → HTTP 503 not_connected",
        no_extension(&api).await,
    );
    let me = client_id();
    macro_rules! check {
        ($name:expr, $check:ident $(, $arg:expr)*) => {{
            let outcome = match connect_extension(target, &me).await {
                Ok((mut socket, _)) => {
                    let outcome = $check(&mut socket, &api $(, $arg)*).await;
                    socket.close().await;
                    outcome
                }
                Err(e) => Err(format!("could not connect as an extension: {e}")),
            };
            report.record($name, outcome);
        }};
    }
    check!("keep-alive: ping → pong with the nonce", ping_pong);
    let mut concurrent = Vec::new();
    check!(
        "ids: 8 concurrent requests, UUIDv4 ids, each caller gets its own result",
        concurrent_requests,
        &mut concurrent
    );
    for (name, outcome) in concurrent {
        report.record(name, outcome);
    }
    check!(
        "one answer: duplicate and unknown-id responses ignored, connection stays up",
        duplicate_response
    );
    for (code, status) in PASS_THROUGH {
        check!(
            format!("errors: {code} passes through /v1/act as HTTP {status}"),
            pass_through,
            code,
            status
        );
    }
    check!(
        "pointer: drag sent with its ends as given, dragAndDrop and hit passed through",
        drag_passes_through
    );
    check!(
        "errors: invalid action JSON → HTTP 422 invalid_request, nothing sent",
        invalid_action_json
    );
    check!(
        "deadline: no answer → HTTP 504 timeout, late response ignored",
        deadline
    );
    check!(
        "deadline: a batch's timeoutMs is the sum of its actions', its result passes through",
        batch_deadline
    );
    check!(
        "events: unknown event type tolerated, connection stays up",
        unknown_event
    );
    check!(
        "events: session_started appears in /v1/status with the clientId",
        events_in_status,
        &me
    );
    check!(
        "disconnect mid-request → HTTP 503 not_connected",
        disconnect_mid_request
    );
    check!(
        "clients: an action without tabId goes to its client's current tab, never another's",
        current_tab_per_client
    );
    check!(
        "observe: taken off the action, the tab extracted after it, changes answered",
        observed_click
    );
}

/// A page of tab 9 at `/form`: one textbox and one button, and `markdown`.
fn form_page(markdown: &str) -> Value {
    json!({"action": "extract", "tabId": 9, "url": "https://a.test/form", "title": "Form",
           "text": "", "markdown": markdown,
           "elements": [{"uid": "e1", "role": "textbox", "name": "Email"},
                        {"uid": "e2", "role": "button", "name": "Save"}]})
}

/// Answers the next request with `result`, after checking it is `action` and has
/// neither `observe` nor `since` (PROTOCOL.md §5 "Observed actions").
async fn answer_next(socket: &mut ClientSocket, action: &str, result: Value) -> Outcome {
    let request = next_request(socket, ANSWER_WAIT).await?;
    let sent = &request["action"];
    ensure(sent["action"] == json!(action), || {
        format!("expected {action}, the extension got {}", short(&request))
    })?;
    ensure(
        sent.get("observe").is_none() && sent.get("since").is_none(),
        || format!("observe/since reached the extension: {}", short(&request)),
    )?;
    let id = str_field(&request, "id")?.to_owned();
    socket
        .send(&json!({"type": "response", "id": id, "result": result}))
        .await
}

/// A `drag` goes to the extension with its ends as sent, and its result,
/// `dragAndDrop` and the `hit` at `to`, comes back unchanged (§5 "Pointer
/// targets").
async fn drag_passes_through(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let action = json!({"action": "drag", "tabId": 9, "from": {"uid": "e2"},
                        "to": {"x": 300.5, "y": 40}, "steps": 3});
    let task = spawn_act(api, action);
    let request = next_request(socket, ANSWER_WAIT).await?;
    let sent = &request["action"];
    ensure(
        sent["from"] == json!({"uid": "e2"})
            && sent["to"]["x"] == json!(300.5)
            && sent["steps"] == json!(3),
        || format!("the extension got {}", short(&request)),
    )?;
    let result = json!({"action": "drag", "tabId": 9, "dragAndDrop": true,
                        "hit": {"role": "listitem", "name": "Third", "uid": "e5"}});
    let id = str_field(&request, "id")?.to_owned();
    socket
        .send(&json!({"type": "response", "id": id, "result": result.clone()}))
        .await?;
    let (status, body) = joined(task).await?;
    ensure(status == 200 && body == result, || {
        format!("drag: HTTP {status} {}", short(&body))
    })
}

/// `extract`, then an observed click: the backend sends the click without
/// `observe`, extracts the tab, and answers the new text line as `changes`.
async fn observed_click(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let task = spawn_act(api, json!({"action": "extract", "tabId": 9}));
    answer_next(socket, "extract", form_page("# Form")).await?;
    joined(task).await?;
    let task = spawn_act(
        api,
        json!({"action": "click", "tabId": 9, "uid": "e2", "observe": true}),
    );
    let clicked = json!({"action": "click", "tabId": 9, "url": "https://a.test/form",
                         "navigated": false});
    answer_next(socket, "click", clicked).await?;
    answer_next(socket, "extract", form_page("# Form\n\nEnter an email.")).await?;
    let (status, body) = joined(task).await?;
    ensure(
        status == 200 && body["changes"]["text"] == json!(["Enter an email."]),
        || format!("observed click: HTTP {status} {}", short(&body)),
    )
}

async fn http_guards(api: &HttpApi, report: &mut Report) {
    let action = json!({"action": "list_tabs"});
    let refused = |answer: Result<HttpAnswer, String>, want: u16| -> Outcome {
        let (status, body) = answer?;
        ensure(status == want, || {
            format!("HTTP {status} {}, expected {want}", short(&body))
        })
    };
    report.record(
        "http: /v1/act without a token → HTTP 401",
        refused(api.act_with(&action, None, None).await, 401),
    );
    report.record(
        "http: /v1/act with a wrong token → HTTP 401",
        refused(
            api.act_with(&action, Some("not-the-token"), None).await,
            401,
        ),
    );
    let token = api.token().to_owned();
    report.record(
        "http: /v1/act with a web Origin → HTTP 403",
        refused(
            api.act_with(&action, Some(&token), Some("http://evil.example"))
                .await,
            403,
        ),
    );
}

async fn no_extension(api: &HttpApi) -> Outcome {
    let (status, body) = api.act(&json!({"action": "list_tabs"})).await?;
    ensure(status == 503, || {
        format!("HTTP {status} {}, expected 503", short(&body))
    })?;
    expect_error(&body["error"], "not_connected")
}

/// Starts `POST /v1/act` in the background.
fn spawn_act(api: &HttpApi, action: Value) -> JoinHandle<Result<HttpAnswer, String>> {
    let api = api.clone();
    tokio::spawn(async move { api.act(&action).await })
}

pub(super) async fn joined(
    task: JoinHandle<Result<HttpAnswer, String>>,
) -> Result<HttpAnswer, String> {
    task.await.map_err(|e| format!("HTTP task failed: {e}"))?
}

/// The next `request` frame, skipping anything else.
pub(super) async fn next_request(
    socket: &mut ClientSocket,
    wait: Duration,
) -> Result<Value, String> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let frame = socket
            .recv_json(left)
            .await
            .map_err(|e| format!("waiting for a request: {e}"))?;
        if frame.get("type") == Some(&json!("request")) {
            return Ok(frame);
        }
    }
}

/// A successful `evaluate` response carrying `value`.
fn evaluate_response(id: &str, value: Value) -> Value {
    json!({"type": "response", "id": id,
           "result": {"action": "evaluate", "tabId": 1, "type": "number", "value": value}})
}

fn evaluate(expression: &str) -> Value {
    json!({"action": "evaluate", "expression": expression})
}

/// Sends a ping and waits for the pong with its nonce (other frames are skipped).
async fn expect_pong(socket: &mut ClientSocket, nonce: u64) -> Outcome {
    socket
        .send(&json!({"type": "ping", "nonce": nonce}))
        .await?;
    let deadline = tokio::time::Instant::now() + ANSWER_WAIT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let frame = socket
            .recv_json(left)
            .await
            .map_err(|e| format!("waiting for pong {nonce}: {e}"))?;
        if frame.get("type") == Some(&json!("pong")) {
            let got = u64_field(&frame, "nonce")?;
            return ensure(got == nonce, || {
                format!("pong nonce {got}, expected {nonce}")
            });
        }
    }
}

async fn ping_pong(socket: &mut ClientSocket, _api: &HttpApi) -> Outcome {
    expect_pong(socket, 4_294_967_301).await
}

/// One full round trip: post `evaluate` `return n`, answer it with `n`, check HTTP 200.
async fn round_trip(socket: &mut ClientSocket, api: &HttpApi, n: u64) -> Outcome {
    let task = spawn_act(api, evaluate(&format!("return {n}")));
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    socket.send(&evaluate_response(&id, json!(n))).await?;
    let (status, body) = joined(task).await?;
    ensure(
        status == 200 && body.get("value") == Some(&json!(n)),
        || format!("round trip: HTTP {status} {}", short(&body)),
    )
}

async fn concurrent_requests(
    socket: &mut ClientSocket,
    api: &HttpApi,
    details: &mut Vec<(String, Outcome)>,
) -> Outcome {
    const N: u64 = 8;
    let tasks: Vec<_> = (0..N)
        .map(|n| spawn_act(api, evaluate(&format!("return {n}"))))
        .collect();
    let mut requests = Vec::new();
    for _ in 0..N {
        requests.push(next_request(socket, ANSWER_WAIT).await?);
    }
    let mut ids = HashSet::new();
    let mut shape: Outcome = Ok(());
    for request in &requests {
        let id = str_field(request, "id")?;
        if !is_uuid_v4(id) {
            return Err(format!("request id `{id}` is not a UUIDv4"));
        }
        if !ids.insert(id.to_owned()) {
            return Err(format!("request id `{id}` used twice"));
        }
        if shape.is_ok() {
            shape = forwarded_intact(request);
        }
    }
    details.push((
        "requests: action forwarded intact, timeoutMs = the action's deadline".into(),
        shape,
    ));
    // Answer in reverse order, each with the number its own expression returns.
    for request in requests.iter().rev() {
        let id = str_field(request, "id")?;
        let expression = request["action"]["expression"].as_str().unwrap_or_default();
        let n: u64 = expression
            .trim_start_matches("return ")
            .parse()
            .map_err(|_| format!("cannot read n from `{expression}`"))?;
        socket.send(&evaluate_response(id, json!(n))).await?;
    }
    for (n, task) in tasks.into_iter().enumerate() {
        let (status, body) = joined(task).await?;
        ensure(status == 200, || {
            format!("call {n}: HTTP {status} {}", short(&body))
        })?;
        ensure(body.get("action") == Some(&json!("evaluate")), || {
            format!(
                "call {n}: result not tagged with its action: {}",
                short(&body)
            )
        })?;
        ensure(body.get("value") == Some(&json!(n)), || {
            format!("call {n} got another call's result: {}", short(&body))
        })?;
    }
    Ok(())
}

fn forwarded_intact(request: &Value) -> Outcome {
    let action = &request["action"];
    ensure(action.get("action") == Some(&json!("evaluate")), || {
        format!("request.action lost its tag: {}", short(request))
    })?;
    ensure(
        action["expression"]
            .as_str()
            .is_some_and(|e| e.starts_with("return ")),
        || format!("request.action.expression changed: {}", short(request)),
    )?;
    let timeout = u64_field(request, "timeoutMs")?;
    ensure(timeout == EVALUATE_DEADLINE_MS, || {
        format!("evaluate timeoutMs {timeout}, expected {EVALUATE_DEADLINE_MS}")
    })
}

async fn duplicate_response(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let task = spawn_act(api, evaluate("return 1"));
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    socket.send(&evaluate_response(&id, json!(1))).await?;
    socket.send(&evaluate_response(&id, json!(2))).await?;
    let unknown = uuid::Uuid::new_v4().to_string();
    socket.send(&evaluate_response(&unknown, json!(3))).await?;
    let (status, body) = joined(task).await?;
    ensure(
        status == 200 && body.get("value") == Some(&json!(1)),
        || {
            format!(
                "expected the first answer (1), got HTTP {status} {}",
                short(&body)
            )
        },
    )?;
    expect_pong(socket, 11).await?;
    round_trip(socket, api, 5).await
}

async fn pass_through(socket: &mut ClientSocket, api: &HttpApi, code: &str, want: u16) -> Outcome {
    let task = spawn_act(api, evaluate("return 1"));
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?;
    let message = format!("conformance says {code}");
    let frame = json!({"type": "response", "id": id, "error": {"code": code, "message": message}});
    socket.send(&frame).await?;
    let (status, body) = joined(task).await?;
    ensure(status == want, || {
        format!("HTTP {status} {}, expected {want}", short(&body))
    })?;
    expect_error(&body["error"], code)?;
    ensure(body["error"]["message"] == json!(message), || {
        format!("message not passed through: {}", short(&body))
    })
}

async fn invalid_action_json(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let bad = [
        json!({"action": "conformance_no_such_action"}),
        json!({"action": "click", "uid": "e1", "selector": "#both"}),
        json!({"action": "click"}),
        json!({"action": "click", "uid": "e1", "x": 5, "y": 5}),
        json!({"action": "hover", "x": 5}),
        json!({"action": "drag", "from": {"uid": "e1"}, "to": {"uid": "e2"}, "steps": 51}),
    ];
    for action in bad {
        let (status, body) = api.act(&action).await?;
        ensure(status == 422, || {
            format!("{action}: HTTP {status} {}, expected 422", short(&body))
        })?;
        expect_error(&body["error"], "invalid_request").map_err(|e| format!("{action}: {e}"))?;
    }
    match next_request(socket, Duration::from_millis(300)).await {
        Ok(request) => Err(format!(
            "an invalid action reached the extension: {}",
            short(&request)
        )),
        Err(_) => Ok(()),
    }
}

async fn deadline(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    // wait_for's deadline is its own timeoutMs + 5 s (§5): 5.1 s here.
    let action = json!({"action": "wait_for", "selector": "#never", "timeoutMs": 100});
    let task = spawn_act(api, action);
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    let timeout = u64_field(&request, "timeoutMs")?;
    ensure(timeout == 5_100, || {
        format!("wait_for timeoutMs {timeout}, expected 5100")
    })?;
    let (status, body) = joined(task).await?;
    ensure(status == 504, || {
        format!("HTTP {status} {}, expected 504", short(&body))
    })?;
    expect_error(&body["error"], "timeout")?;
    let late = json!({"type": "response", "id": id,
                      "result": {"action": "wait_for", "tabId": 1, "elapsedMs": 5200}});
    socket.send(&late).await?;
    expect_pong(socket, 12).await?;
    round_trip(socket, api, 6).await
}

async fn batch_deadline(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    // wait_for 100 ms + 5 s, then evaluate 15 s (§5): 20.1 s.
    let action = json!({"action": "batch", "actions": [
        {"action": "wait_for", "selector": "#soon", "timeoutMs": 100},
        {"action": "evaluate", "expression": "return 2"}
    ]});
    let task = spawn_act(api, action);
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    let timeout = u64_field(&request, "timeoutMs")?;
    ensure(timeout == 20_100, || {
        format!("batch timeoutMs {timeout}, expected 20100")
    })?;
    let result = json!({"action": "batch", "tabId": 1, "results": [
        {"index": 0, "result": {"action": "wait_for", "tabId": 1, "elapsedMs": 3}},
        {"index": 1, "error": {"code": "invalid_action", "message": "conformance"}}
    ]});
    socket
        .send(&json!({"type": "response", "id": id, "result": result}))
        .await?;
    let (status, body) = joined(task).await?;
    ensure(status == 200 && body == result, || {
        format!(
            "HTTP {status} {}, expected 200 with the batch result",
            short(&body)
        )
    })
}

async fn unknown_event(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let frame = json!({"type": "event", "event": {"event": "conformance_probe", "at": 1}});
    socket.send(&frame).await?;
    expect_pong(socket, 13).await?;
    round_trip(socket, api, 7).await
}

async fn events_in_status(socket: &mut ClientSocket, api: &HttpApi, me: &str) -> Outcome {
    let url = format!("http://conformance.invalid/{}", uuid::Uuid::new_v4());
    let frame = json!({"type": "event", "event": {"event": "session_started", "tabId": 424242,
                       "url": url, "agentWindow": true, "startedAt": 1_700_000_000_000u64}});
    socket.send(&frame).await?;
    // Events are one way: a pong proves the backend has read the frame before it.
    expect_pong(socket, 14).await?;
    let (status, body) = api.status().await?;
    ensure(status == 200, || {
        format!("/v1/status HTTP {status} {}", short(&body))
    })?;
    let text = body.to_string();
    ensure(text.contains(&url), || {
        format!("the event's url is not in /v1/status: {}", short(&body))
    })?;
    ensure(text.contains(me), || {
        format!("our clientId is not in /v1/status: {}", short(&body))
    })
}

async fn disconnect_mid_request(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let task = spawn_act(api, evaluate("return 1"));
    next_request(socket, ANSWER_WAIT).await?;
    // Drop the connection without answering: the caller must hear not_connected
    // at once, and the request is never re-sent to a later connection.
    socket.close_in_place().await;
    let (status, body) = joined(task).await?;
    ensure(status == 503, || {
        format!("HTTP {status} {}, expected 503", short(&body))
    })?;
    expect_error(&body["error"], "not_connected")
}

/// Posts `action` as `client`, answers its request frame with `result` (when the
/// frame passes `check`), and returns the HTTP answer.
async fn acted_as(
    socket: &mut ClientSocket,
    api: &HttpApi,
    client: &str,
    action: Value,
    check: impl FnOnce(&Value) -> Outcome,
    result: Value,
) -> Result<HttpAnswer, String> {
    let task = {
        let (api, client) = (api.clone(), client.to_owned());
        tokio::spawn(async move { api.act_as(&client, &action).await })
    };
    let request = next_request(socket, ANSWER_WAIT).await?;
    let id = str_field(&request, "id")?.to_owned();
    let checked = check(&request["action"]);
    socket
        .send(&json!({"type": "response", "id": id, "result": result}))
        .await?;
    checked?;
    joined(task).await
}

/// §5 "Clients": after `open_tab` answered tab 41 for client a, a's `evaluate`
/// without tabId is sent with tabId 41; client b's is sent without one; a bad
/// client name is HTTP 422 `invalid_request`.
async fn current_tab_per_client(socket: &mut ClientSocket, api: &HttpApi) -> Outcome {
    let (a, b) = (
        format!("conformance-a-{}", &client_id()[..8]),
        format!("conformance-b-{}", &client_id()[..8]),
    );
    let opened = json!({"action": "open_tab", "tabId": 41, "windowId": 2,
                        "url": "about:blank", "title": ""});
    acted_as(
        socket,
        api,
        &a,
        json!({"action": "open_tab", "url": "about:blank"}),
        |_| Ok(()),
        opened,
    )
    .await?;
    let answer =
        |tab: u64| json!({"action": "evaluate", "tabId": tab, "type": "number", "value": 1});
    let (status, body) = acted_as(
        socket,
        api,
        &a,
        evaluate("return 1"),
        |action| {
            ensure(action.get("tabId") == Some(&json!(41)), || {
                format!(
                    "client a's evaluate was sent without its current tab 41: {}",
                    short(action)
                )
            })
        },
        answer(41),
    )
    .await?;
    ensure(status == 200, || {
        format!("client a: HTTP {status} {}", short(&body))
    })?;
    // b has no tab, and the only session the backend knows of is a's (this
    // extension never announced it): b is answered at once, nothing is sent.
    let (status, body) = api.act_as(&b, &evaluate("return 1")).await?;
    expect_error(&body["error"], "session_not_found").map_err(|e| {
        format!(
            "client b, with no tab, got HTTP {status} {}: {e}",
            short(&body)
        )
    })?;
    let (status, body) = api.act_as("two words", &evaluate("return 1")).await?;
    ensure(status == 422, || {
        format!(
            "a bad client name: HTTP {status} {}, expected 422",
            short(&body)
        )
    })?;
    expect_error(&body["error"], "invalid_request")
}
