//! End-to-end: navigation, tabs and sessions (PROTOCOL.md §5, §10) in real
//! headless Chromium through the real backend.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_reload_and_navigation_errors() {
    let stack = Stack::start().await.expect("stack");
    let basic = stack.fixtures.url("basic.html");
    let second = stack.fixtures.url("second.html");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let r = stack
        .act(json!({ "action": "navigate", "tabId": tab, "url": second }))
        .await
        .expect("navigate 2");
    assert_eq!(r["title"], "Second fixture");

    let back = stack
        .act(json!({ "action": "go_back", "tabId": tab }))
        .await
        .expect("go_back");
    assert_eq!(
        (
            back["action"].clone(),
            back["url"].clone(),
            back["title"].clone()
        ),
        (json!("go_back"), json!(basic), json!("Basic fixture"))
    );
    let fwd = stack
        .act(json!({ "action": "go_forward", "tabId": tab }))
        .await
        .expect("go_forward");
    assert_eq!(fwd["url"], second);
    stack
        .eval(tab, "window.marker = 42; return 1")
        .await
        .expect("mark");
    let reload = stack
        .act(json!({ "action": "reload", "tabId": tab }))
        .await
        .expect("reload");
    assert_eq!(reload["title"], "Second fixture");
    assert_eq!(
        stack
            .eval(tab, "return typeof window.marker")
            .await
            .expect("eval"),
        "undefined",
        "reload gave a new document"
    );

    let fwd_end = stack
        .act(json!({ "action": "go_forward", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(fwd_end.code, "invalid_action", "{fwd_end}");

    // Nothing listens on a port we just released: Chrome reports the net error.
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let closed = format!("http://127.0.0.1:{closed_port}/");
    let failed = stack
        .act(json!({ "action": "navigate", "tabId": tab, "url": closed }))
        .await
        .unwrap_err();
    assert_eq!(failed.code, "navigation_failed", "{failed}");
    assert!(
        failed.message.contains("net::ERR_CONNECTION_REFUSED"),
        "{failed}"
    );

    for url in [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,hi",
        "chrome://settings",
    ] {
        let refused = stack
            .act(json!({ "action": "navigate", "tabId": tab, "url": url }))
            .await
            .unwrap_err();
        assert_eq!(refused.code, "invalid_action", "{url}: {refused}");
    }
    let blank = stack
        .act(json!({ "action": "navigate", "tabId": tab, "url": "about:blank" }))
        .await
        .expect("about:blank");
    assert_eq!(blank["url"], "about:blank");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_sessions_and_tab_resolution() {
    let stack = Stack::start().await.expect("stack");
    // No session yet: an action without tabId cannot guess.
    let none = stack
        .act(json!({ "action": "evaluate", "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(none.code, "session_not_found", "{none}");

    let a = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("basic.html") }))
        .await
        .expect("open a");
    assert_eq!(a["title"], "Basic fixture");
    let tab_a = a["tabId"].as_i64().unwrap();
    // One agent-window session: the default target.
    let r = stack
        .act(json!({ "action": "evaluate", "expression": "return location.pathname" }))
        .await
        .expect("default tab");
    assert_eq!(r["value"], "/basic.html");

    let b = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("second.html") }))
        .await
        .expect("open b");
    let tab_b = b["tabId"].as_i64().unwrap();
    assert_eq!(a["windowId"], b["windowId"], "the agent window is reused");

    let list = stack
        .act(json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs");
    let tabs = list["tabs"].as_array().unwrap();
    let find = |id: i64| {
        tabs.iter()
            .find(|t| t["tabId"] == id)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        (
            find(tab_a)["agentWindow"].clone(),
            find(tab_a)["session"].clone()
        ),
        (json!(true), json!(true))
    );
    let user_tab = tabs
        .iter()
        .find(|t| t["agentWindow"] == false)
        .expect("the user's own tab is listed");
    assert_eq!(user_tab["session"], false);
    assert_ne!(user_tab["windowId"], a["windowId"]);

    // The caller's current tab is the one it opened last (§5 "Clients").
    let r = stack
        .act(json!({ "action": "evaluate", "expression": "return location.pathname" }))
        .await
        .expect("current tab");
    assert_eq!(r["value"], "/second.html");
    // A client with no current tab yet, two sessions, both another client's:
    // no default, and the other client's tabs are no candidates (§5 "Clients").
    let ambiguous = stack
        .act_as(
            "newcomer",
            json!({ "action": "evaluate", "expression": "return 1" }),
        )
        .await
        .unwrap_err();
    assert_eq!(ambiguous.code, "session_not_found");
    assert!(
        ambiguous.message.contains("navigate or open_tab first")
            && !ambiguous.message.contains(&tab_a.to_string())
            && !ambiguous.message.contains(&tab_b.to_string()),
        "{ambiguous}"
    );

    let gone = stack
        .act(json!({ "action": "evaluate", "tabId": 987654, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(gone.code, "session_not_found", "{gone}");

    // close_tab: the agent closed it → session_ended `stopped` (§10) with its action count.
    let closed = stack
        .act(json!({ "action": "close_tab", "tabId": tab_b }))
        .await
        .expect("close_tab");
    assert_eq!(closed["tabId"], tab_b);
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab_b
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "stopped");
    assert_eq!(ended["actionCount"], 2);
    let after = stack
        .act(json!({ "action": "evaluate", "tabId": tab_b, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(after.code, "session_not_found", "{after}");

    // The user closes a session tab: session_ended `tab_closed`.
    let targets = stack.chromium.targets().await.expect("targets");
    let target = targets
        .iter()
        .find(|t| {
            t["type"] == "page"
                && t["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with("/basic.html"))
        })
        .expect("tab a's target");
    stack
        .chromium
        .close_target(target["targetId"].as_str().unwrap())
        .await
        .expect("user closes the tab");
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab_a
        })
        .await
        .expect("session_ended tab_closed");
    assert_eq!(ended["reason"], "tab_closed");
    assert_eq!(ended["actionCount"], 2);

    // An explicit tabId of the user's own tab starts a session there (not agent window).
    let user = user_tab["tabId"].as_i64().unwrap();
    stack
        .open("basic.html", Some(user))
        .await
        .expect("navigate the user's tab");
    let started = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_started" && e["tabId"] == user
        })
        .await
        .expect("session_started");
    assert_eq!(started["agentWindow"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_without_session_opens_an_agent_window_tab() {
    let stack = Stack::start().await.expect("stack");
    let first = stack.open("basic.html", None).await.expect("navigate");
    let second = stack
        .open("second.html", None)
        .await
        .expect("navigate again");
    assert_eq!(first, second, "the single agent-window session is reused");
    let list = stack
        .act(json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs");
    let agent: Vec<&Value> = list["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["agentWindow"] == true)
        .collect();
    assert_eq!(agent.len(), 1, "{list}");
    assert_eq!(agent[0]["url"], stack.fixtures.url("second.html"));

    // focus: true opens in the user's window, as its active tab, not in the agent window.
    let shown = stack
        .act(
            json!({ "action": "open_tab", "url": stack.fixtures.url("basic.html"), "focus": true }),
        )
        .await
        .expect("open_tab focus");
    assert_ne!(shown["windowId"], agent[0]["windowId"]);
    let list = stack
        .act(json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs");
    let entry = list["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tabId"] == shown["tabId"])
        .cloned();
    let entry = entry.unwrap_or_else(|| panic!("the focused tab is listed: {list}"));
    assert_eq!(
        (
            entry["agentWindow"].clone(),
            entry["active"].clone(),
            entry["session"].clone()
        ),
        (json!(false), json!(true), json!(true))
    );
}

/// Serves one small page (no-store, so neither the HTTP cache nor the
/// back/forward cache can stand in for the server) until the task is aborted.
async fn serve_page(listener: tokio::net::TcpListener) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = "<!doctype html><title>Soon gone</title><p>served</p>";
    loop {
        let Ok((mut socket, _)) = listener.accept().await else {
            return;
        };
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await;
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: no-store\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let _ = socket.write_all(response.as_bytes()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_and_history_to_an_unreachable_page_fail_with_the_net_error() {
    let stack = Stack::start().await.expect("stack");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gone = format!("http://{}/", listener.local_addr().unwrap());
    let server = tokio::spawn(serve_page(listener));
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let served = stack
        .act(json!({ "action": "navigate", "tabId": tab, "url": gone }))
        .await
        .expect("navigate to the served page");
    assert_eq!(served["title"], "Soon gone");

    // The listener lives in the task: once it ends, the port refuses connections.
    server.abort();
    assert!(server.await.unwrap_err().is_cancelled());

    let reload = stack
        .act(json!({ "action": "reload", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(reload.code, "navigation_failed", "{reload}");
    assert!(
        reload.message.contains("net::ERR_CONNECTION_REFUSED") && reload.message.contains(&gone),
        "{reload}"
    );

    let basic = stack.fixtures.url("basic.html");
    stack
        .act(json!({ "action": "navigate", "tabId": tab, "url": basic }))
        .await
        .expect("navigate away");
    let back = stack
        .act(json!({ "action": "go_back", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(back.code, "navigation_failed", "{back}");
    assert!(
        back.message.contains("net::ERR_CONNECTION_REFUSED"),
        "{back}"
    );
    let fwd = stack
        .act(json!({ "action": "go_forward", "tabId": tab }))
        .await
        .expect("go_forward to a reachable page");
    assert_eq!(fwd["url"], basic);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_that_never_ends_answers_once_the_document_is_usable() {
    let stack = Stack::start().await.expect("stack");
    let url = stack.fixtures.url("dialogs/hanging-load.html");
    // An image and an async script that the server never answers: no load event.
    let mut last_tab = None;
    for action in [
        json!({ "action": "navigate", "url": url }),
        json!({ "action": "reload" }),
        json!({ "action": "open_tab", "url": url }),
    ] {
        let name = action["action"].clone();
        let start = std::time::Instant::now();
        let r = stack.act(action).await.expect("navigation");
        let took = start.elapsed();
        assert!(took < Duration::from_secs(6), "{name} took {took:?}");
        assert_eq!(
            (
                r["url"].clone(),
                r["title"].clone(),
                r["loadPending"].clone()
            ),
            (
                json!(url),
                json!("Report with a hanging image"),
                json!(true)
            ),
            "{name}: {r}"
        );
        let tab = r["tabId"].as_i64().expect("tabId");
        last_tab = Some(tab);
        // extract reads the document on screen, whatever the pending load.
        let page = stack
            .act(json!({ "action": "extract", "tabId": tab }))
            .await
            .expect("extract");
        let markdown = page["markdown"].as_str().unwrap_or_default();
        assert!(
            markdown.contains("Revenue grew by 12 percent"),
            "{name}: {page}"
        );
        let download = browser_bridge_tests::harness::uid_named(&page, "Download report");
        stack
            .act(json!({ "action": "click", "tabId": tab, "uid": download }))
            .await
            .expect("click");
        assert_eq!(
            stack
                .eval(
                    tab,
                    "return [document.readyState, document.getElementById('out').textContent]"
                )
                .await
                .unwrap(),
            json!(["interactive", "downloading"]),
            "{name}"
        );
    }
    // A page that does load says nothing of a pending load.
    let r = stack
        .act(json!({ "action": "navigate", "tabId": last_tab, "url": stack.fixtures.url("basic.html") }))
        .await
        .expect("navigate");
    assert!(r.get("loadPending").is_none(), "{r}");
}

/// Reads taken while the page keeps navigating between two sites whose pages
/// have the same shape (a document in another process numbers its nodes afresh,
/// from the same small numbers): a uid never names two elements, whether a
/// read's answer reaches the worker before or after `Page.frameNavigated`. A
/// read that meets the navigation may fail; none may misname.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uid_never_names_two_elements_while_the_page_keeps_changing_site() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("flip/a.html", None).await.expect("open");
    let mut named: HashMap<String, String> = HashMap::new();
    let (mut sides, mut failed) = (HashSet::new(), Vec::new());
    for _ in 0..40 {
        match stack
            .act(json!({ "action": "extract", "tabId": tab }))
            .await
        {
            Ok(r) => {
                for e in r["elements"].as_array().expect("elements") {
                    let uid = e["uid"].as_str().expect("uid").to_owned();
                    let name = e["name"].as_str().unwrap_or_default().to_owned();
                    for side in ["side A", "side B"] {
                        if name.contains(side) {
                            sides.insert(side);
                        }
                    }
                    if let Some(before) = named.insert(uid.clone(), name.clone()) {
                        assert_eq!(before, name, "{uid} named two elements");
                    }
                }
            }
            Err(e) => failed.push(e.code),
        }
        tokio::time::sleep(Duration::from_millis(35)).await;
    }
    assert_eq!(sides.len(), 2, "both pages were read: {named:?}");
    assert!(failed.len() < 20, "most reads answer: {failed:?}");
}

/// A page that sends its own tab to a page no session may hold (an extension
/// URL Chrome blocks, shown as `chrome-extension://invalid/`): the next action
/// there is refused, and its advice works (`open_tab`), where `navigate` would be
/// refused by the same rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_the_page_sent_off_the_web_advises_open_tab() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let _ = stack
        .act(json!({ "action": "evaluate", "tabId": tab,
            "expression": "setTimeout(() => { location.href = 'chrome-extension://invalid/'; }, 50); return 1" }))
        .await
        .expect("evaluate");
    let mut refused = None;
    for _ in 0..50 {
        match stack
            .act(
                json!({ "action": "evaluate", "tabId": tab, "expression": "return location.href" }),
            )
            .await
        {
            Err(e) if e.code == "invalid_action" => {
                refused = Some(e);
                break;
            }
            Err(e) => assert_eq!(e.code, "session_not_found", "{e}"),
            Ok(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let refused = refused.expect("the tab left the web and its session is refused");
    assert!(refused.message.contains("open_tab"), "{refused}");
    assert!(!refused.message.contains("navigate it"), "{refused}");
    let navigate = stack
        .act(
            json!({ "action": "navigate", "tabId": tab, "url": stack.fixtures.url("second.html") }),
        )
        .await
        .unwrap_err();
    assert_eq!(navigate.code, "invalid_action", "{navigate}");
    let opened = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("second.html") }))
        .await
        .expect("the advice works");
    assert_eq!(opened["title"], "Second fixture");
}
