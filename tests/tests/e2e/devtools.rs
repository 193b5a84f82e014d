//! End-to-end: a session's console and network (PROTOCOL.md §10.1) in real
//! Chromium: messages at each level and an uncaught error, a 404, a closed
//! port, response bodies read back exactly (text, and binary as base64), the
//! limit and the filters, eviction past 500, and a restarted service worker.

use std::time::Duration;

use base64::Engine as _;
use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

/// Polls `expression` in `tab` until it returns `true` (at most 10 s).
async fn until(stack: &Stack, tab: i64, expression: &str) {
    for _ in 0..100 {
        if stack.eval(tab, expression).await.ok() == Some(json!(true)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never true: {expression}");
}

/// `console_messages` with `params` on `tab`: its messages.
async fn console(stack: &Stack, tab: i64, params: Value) -> Vec<Value> {
    let mut action = json!({"action": "console_messages", "tabId": tab});
    action
        .as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    let r = stack.act(action).await.expect("console_messages");
    assert_eq!(r["tabId"], tab, "{r}");
    r["messages"].as_array().expect("messages").clone()
}

/// `network_requests` with `params` on `tab`: its requests.
async fn requests(stack: &Stack, tab: i64, params: Value) -> Vec<Value> {
    let mut action = json!({"action": "network_requests", "tabId": tab});
    action
        .as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    let r = stack.act(action).await.expect("network_requests");
    r["requests"].as_array().expect("requests").clone()
}

fn texts(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["text"].as_str().expect("text"))
        .collect()
}

/// The one request whose URL ends with `suffix`.
fn request_ending<'a>(list: &'a [Value], suffix: &str) -> &'a Value {
    let found: Vec<&Value> = list
        .iter()
        .filter(|r| r["url"].as_str().unwrap_or_default().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "requests ending {suffix}: {list:?}");
    found[0]
}

/// A port nothing listens on: bound, then let go.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_level_and_an_uncaught_error_are_listed_in_order() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("devtools/levels.html", None)
        .await
        .expect("open");
    until(&stack, tab, "return window.__logged === true").await;
    let url = stack.fixtures.url("devtools/levels.html");

    let all = console(&stack, tab, json!({"limit": 200})).await;
    let long = format!("long {}", "x".repeat(3000));
    let cut = all
        .iter()
        .find(|m| m["text"].as_str().unwrap().starts_with("long x"))
        .expect("the long message");
    let cut_text = cut["text"].as_str().unwrap();
    assert!(
        cut_text.len() <= 2048 && cut_text.ends_with("…[cut]"),
        "{cut}"
    );
    assert!(long.starts_with(cut_text.trim_end_matches("…[cut]")));

    let page: Vec<(&str, &str)> = all
        .iter()
        .filter(|m| m["url"] == url)
        .map(|m| (m["level"].as_str().unwrap(), m["text"].as_str().unwrap()))
        .filter(|(_, t)| !t.starts_with("long x"))
        .collect();
    assert_eq!(
        page,
        [
            ("info", "plain log 42 true null undefined Array(3)"),
            ("info", "an info line"),
            ("debug", "a debug line"),
            ("warning", "a warning line"),
            ("error", "an error line"),
            ("error", "Assertion failed: one is not above two"),
            (
                "error",
                &*format!("Uncaught Error: boom from the levels page\n    at {url}:21:9")
            ),
        ],
        "{all:?}"
    );
    let first = all.iter().find(|m| m["url"] == url).unwrap();
    assert_eq!(first["line"], 13, "{first}");
    assert!(first["timestamp"].as_f64().unwrap() > 1.7e12, "{first}");

    let errors = console(&stack, tab, json!({"level": "error"})).await;
    let thrown = errors
        .iter()
        .find(|m| {
            m["text"]
                .as_str()
                .unwrap()
                .starts_with("Uncaught Error: boom")
        })
        .unwrap_or_else(|| panic!("no uncaught error in {errors:?}"));
    assert_eq!(thrown["line"], 21, "{thrown}");
    assert!(errors.iter().all(|m| m["level"] == "error"), "{errors:?}");
    // The browser's own entry for the image that is not there.
    assert!(
        errors
            .iter()
            .any(|m| m["text"].as_str().unwrap().contains("404")
                && m["url"]
                    .as_str()
                    .unwrap_or_default()
                    .ends_with("no-such-image.png")),
        "{errors:?}"
    );
    let warnings = console(&stack, tab, json!({"level": "warning"})).await;
    assert_eq!(texts(&warnings), ["a warning line"]);
    let debug = console(&stack, tab, json!({"level": "debug"})).await;
    assert_eq!(texts(&debug), ["a debug line"]);
    // The newest two, oldest first.
    let last_two = console(&stack, tab, json!({"level": "info", "limit": 2})).await;
    assert_eq!(texts(&last_two)[0], "an info line");
    assert!(texts(&last_two)[1].starts_with("long x"));

    let bad = stack
        .act(json!({"action": "console_messages", "tabId": tab, "limit": 201}))
        .await
        .unwrap_err();
    assert_eq!(bad.code, "invalid_request", "{bad}");
    assert!(bad.message.contains("limit"), "{bad}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_listed_with_status_or_error_and_bodies_read_back_exactly() {
    let stack = Stack::start().await.expect("stack");
    let port = closed_port();
    let path = format!("devtools/requests.html?closed={port}");
    let tab = stack.open(&path, None).await.expect("open");
    until(&stack, tab, "return window.__fetched === true").await;

    let list = requests(&stack, tab, json!({"limit": 200})).await;
    let document = request_ending(&list, &path);
    assert_eq!(
        (
            &document["resourceType"],
            &document["status"],
            &document["method"]
        ),
        (&json!("Document"), &json!(200), &json!("GET")),
        "{document}"
    );
    let data = request_ending(&list, "/devtools/data.json");
    let fixture =
        std::fs::read(browser_bridge_tests::fixtures::fixtures_dir().join("devtools/data.json"))
            .expect("data.json");
    assert_eq!(data["status"], 200, "{data}");
    assert_eq!(data["resourceType"], "Fetch", "{data}");
    assert_eq!(data["mimeType"], "application/json", "{data}");
    assert!(
        data["bytes"].as_u64().unwrap() >= fixture.len() as u64,
        "{data}"
    );
    assert!(data["ms"].is_u64(), "{data}");
    let missing = request_ending(&list, "/devtools/missing.json");
    assert_eq!(missing["status"], 404, "{missing}");
    let closed = request_ending(&list, &format!(":{port}/closed"));
    assert!(closed.get("status").is_none(), "{closed}");
    assert_eq!(closed["error"], "net::ERR_CONNECTION_REFUSED", "{closed}");

    // The text body, exactly.
    let body = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": data["requestId"]}))
        .await
        .expect("text body");
    assert_eq!(body["base64Encoded"], false, "{body}");
    assert_eq!(
        body["body"].as_str().unwrap().as_bytes(),
        fixture.as_slice()
    );
    assert!(body.get("truncated").is_none(), "{body}");

    // The binary body, in base64, byte for byte.
    let png = request_ending(&list, "/devtools/pixel.png");
    assert_eq!(png["mimeType"], "image/png", "{png}");
    let body = stack
        .act(
            json!({"action": "network_response_body", "tabId": tab, "requestId": png["requestId"]}),
        )
        .await
        .expect("binary body");
    assert_eq!(body["base64Encoded"], true, "{body}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body["body"].as_str().unwrap())
        .expect("base64");
    let fixture =
        std::fs::read(browser_bridge_tests::fixtures::fixtures_dir().join("devtools/pixel.png"))
            .expect("pixel.png");
    assert_eq!(bytes, fixture);

    // The failed one has no body; a made-up id was never seen.
    let failed = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": closed["requestId"]}))
        .await
        .unwrap_err();
    assert_eq!(failed.code, "invalid_action", "{failed}");
    assert!(failed.message.contains("failed"), "{failed}");
    let unseen = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": "999999.1"}))
        .await
        .unwrap_err();
    assert_eq!(unseen.code, "invalid_action", "{unseen}");
    assert!(unseen.message.contains("no request 999999.1"), "{unseen}");

    // Filters and limit.
    let fetches = requests(&stack, tab, json!({"resourceType": "fetch"})).await;
    assert_eq!(fetches.len(), 4, "{fetches:?}");
    let json_only = requests(&stack, tab, json!({"urlContains": ".json"})).await;
    let urls: Vec<&str> = json_only
        .iter()
        .map(|r| r["url"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(urls.len(), 2, "{json_only:?}");
    assert!(
        urls.contains(&"data.json") && urls.contains(&"missing.json"),
        "{urls:?}"
    );
    let newest = requests(&stack, tab, json!({"limit": 1})).await;
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0], *list.last().unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_500_the_oldest_are_evicted_with_their_bodies() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("devtools/flood.html", None).await.expect("open");
    let newest = console(&stack, tab, json!({"limit": 200})).await;
    let expected: Vec<String> = (400..600).map(|i| format!("flood {i}")).collect();
    assert_eq!(texts(&newest), expected);
    // Every fifth message is at the debug level: of those, the ones of the first
    // hundred messages are gone.
    let debug = console(&stack, tab, json!({"level": "debug", "limit": 200})).await;
    let expected: Vec<String> = (100..600)
        .step_by(5)
        .map(|i| format!("flood {i}"))
        .collect();
    assert_eq!(texts(&debug), expected);

    let document = requests(&stack, tab, json!({"resourceType": "Document"})).await;
    let document_id = document.last().expect("the document")["requestId"].clone();
    let read = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": document_id}))
        .await
        .expect("the document's body while it is kept");
    assert!(
        read["body"].as_str().unwrap().contains("fetchMany"),
        "{read}"
    );

    // One after the other, so that they are sent in order; not awaited by the
    // evaluate, whose deadline 505 fetches may outlast on a busy machine.
    stack
        .eval(tab, "window.fetchMany(505); return 1")
        .await
        .expect("fetchMany");
    for _ in 0..600 {
        if stack.eval(tab, "return window.__fetchedMany").await.ok() == Some(json!(505)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let kept = requests(
        &stack,
        tab,
        json!({"limit": 200, "urlContains": "data.json?n="}),
    )
    .await;
    assert_eq!(kept.len(), 200);
    assert!(
        kept.last().unwrap()["url"]
            .as_str()
            .unwrap()
            .ends_with("?n=504")
    );
    // 506 requests since the session started (the document, 505 fetches): the
    // oldest went, fetch 100 is still there.
    assert!(
        requests(&stack, tab, json!({"urlContains": "?n=0"}))
            .await
            .is_empty()
    );
    assert_eq!(
        requests(&stack, tab, json!({"urlContains": "?n=100"}))
            .await
            .len(),
        1
    );
    assert!(
        requests(&stack, tab, json!({"resourceType": "Document"}))
            .await
            .is_empty(),
        "the document was evicted"
    );
    let gone = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": document_id}))
        .await
        .unwrap_err();
    assert_eq!(gone.code, "invalid_action", "{gone}");
    assert!(gone.message.contains("evicted"), "{gone}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_worker_answers_with_fresh_buffers() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("devtools/requests.html", None)
        .await
        .expect("open");
    until(&stack, tab, "return window.__fetched === true").await;
    stack
        .eval(tab, "console.warn('before the restart'); return 1")
        .await
        .expect("log");
    let before = requests(&stack, tab, json!({})).await;
    let data_id = request_ending(&before, "/devtools/data.json")["requestId"].clone();
    let connection = stack.status().await.expect("status")["extension"]["connectionId"].clone();
    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    for _ in 0..100 {
        let now = stack.status().await.expect("status")["extension"]["connectionId"].clone();
        if now.is_string() && now != connection {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The requests went with the worker (a re-attached debugger's Runtime.enable
    // may replay the page's console messages, so those are not counted here).
    assert!(requests(&stack, tab, json!({})).await.is_empty());
    let gone = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": data_id}))
        .await
        .unwrap_err();
    assert_eq!(gone.code, "invalid_action", "{gone}");
    // The buffers fill again.
    stack
        .eval(
            tab,
            "console.warn('after the restart'); await fetch('data.json?again'); return 1",
        )
        .await
        .expect("log again");
    let warnings = console(&stack, tab, json!({"level": "warning"})).await;
    assert_eq!(texts(&warnings).last(), Some(&"after the restart"));
    let again = requests(&stack, tab, json!({"urlContains": "?again"})).await;
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0]["status"], 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_user_opened_keeps_what_it_logged_before_attach() {
    let stack = Stack::start().await.expect("stack");
    let url = stack.fixtures.url("devtools/levels.html");
    stack
        .chromium
        .open_page(&url)
        .await
        .expect("the user's tab");
    let tabs = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let tab = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["url"] == url)
        .unwrap_or_else(|| panic!("no tab on {url}: {tabs}"))["tabId"]
        .as_i64()
        .unwrap();
    // The first action attaches; enabling Runtime replays what was logged.
    let warnings = console(&stack, tab, json!({"level": "warning"})).await;
    assert_eq!(texts(&warnings), ["a warning line"]);
    assert!(requests(&stack, tab, json!({})).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_process_iframe_logs_and_fetches_into_its_tabs_buffers() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("devtools/framed.html", None)
        .await
        .expect("open");
    let mut infos = Vec::new();
    for _ in 0..100 {
        infos = console(&stack, tab, json!({"level": "info"})).await;
        if !infos.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(texts(&infos), ["child fetched"]);
    let child_url = stack
        .fixtures
        .url_on("localhost", "devtools/frame-child.html");
    let warnings = console(&stack, tab, json!({"level": "warning"})).await;
    assert_eq!(texts(&warnings), ["from the child frame"]);
    assert_eq!(warnings[0]["url"], child_url);
    let fetched = requests(&stack, tab, json!({"urlContains": "?from=child"})).await;
    assert_eq!(fetched.len(), 1, "{fetched:?}");
    assert_eq!(fetched[0]["status"], 200);
    // Its body comes from the frame's own session.
    let body = stack
        .act(json!({"action": "network_response_body", "tabId": tab, "requestId": fetched[0]["requestId"]}))
        .await
        .expect("the child's body");
    let fixture =
        std::fs::read(browser_bridge_tests::fixtures::fixtures_dir().join("devtools/data.json"))
            .expect("data.json");
    assert_eq!(
        body["body"].as_str().unwrap().as_bytes(),
        fixture.as_slice()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lists_answer_while_a_dialog_holds_the_page() {
    let stack = Stack::start().await.expect("stack");
    let r = stack
        .act(json!({"action": "navigate", "url": stack.fixtures.url("dialogs/alert-on-load.html")}))
        .await
        .expect("navigate");
    assert!(r["dialog"].is_object(), "{r}");
    let tab = r["tabId"].as_i64().unwrap();
    // Read from the buffers, without the page the dialog blocks.
    let document = requests(&stack, tab, json!({"resourceType": "Document"})).await;
    assert_eq!(document.len(), 1, "{document:?}");
    assert_eq!(document[0]["status"], 200);
    console(&stack, tab, json!({})).await;
    let blocked = stack
        .act(json!({"action": "extract", "tabId": tab}))
        .await
        .unwrap_err();
    assert_eq!(blocked.code, "invalid_action", "{blocked}");
}
