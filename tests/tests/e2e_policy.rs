//! End-to-end: the user's controls (PROTOCOL.md §10), driven through the
//! extension's own pages as a user would: the blocklist (options page) and Stop
//! all / Resume / Stop (popup).

use std::time::Duration;

use browser_bridge_tests::chromium::EXTENSION_ID;
use browser_bridge_tests::harness::Stack;
use serde_json::json;

/// Saves `domains` as the blocklist in the options page, then waits until the
/// worker applied it (a navigation to the first domain answers `domain_blocked`).
async fn set_blocklist(stack: &Stack, domains: &[&str]) {
    let (target, session) = stack
        .chromium
        .open_page(&format!("chrome-extension://{EXTENSION_ID}/options.html"))
        .await
        .expect("options page");
    let script = format!(
        "for (let i = 0; i < 50 && !document.getElementById('blocklist'); i++) await new Promise((r) => setTimeout(r, 50)); \
         await new Promise((r) => setTimeout(r, 200)); \
         document.getElementById('blocklist').value = {}; \
         document.querySelector('#options button[type=submit]').click(); \
         for (let i = 0; i < 50 && document.body.dataset.saved !== 'true'; i++) await new Promise((r) => setTimeout(r, 50)); \
         return document.body.dataset.saved",
        serde_json::to_string(&domains.join("\n")).unwrap()
    );
    assert_eq!(
        stack
            .chromium
            .eval(&session, &script)
            .await
            .expect("save options"),
        "true"
    );
    stack
        .chromium
        .close_target(&target)
        .await
        .expect("close options");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocklist_blocks_domains_and_subdomains() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    set_blocklist(&stack, &["localhost"]).await;

    let blocked_url = stack.fixtures.url_on("localhost", "basic.html");
    let mut refused = None;
    for _ in 0..20 {
        match stack
            .act(json!({ "action": "navigate", "tabId": tab, "url": blocked_url }))
            .await
        {
            Err(e) => {
                refused = Some(e);
                break;
            }
            // The storage change may not have reached the worker yet: go back and retry.
            Ok(_) => {
                stack
                    .open("basic.html", Some(tab))
                    .await
                    .expect("back to 127.0.0.1");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    let refused = refused.expect("navigation to a blocked domain was refused");
    assert_eq!(refused.code, "domain_blocked", "{refused}");
    assert!(refused.message.contains("localhost"), "{refused}");
    let sub = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url_on("sub.localhost", "basic.html") }))
        .await
        .unwrap_err();
    assert_eq!(
        sub.code, "domain_blocked",
        "subdomains are blocked too: {sub}"
    );
    let event = stack
        .wait_event(Duration::from_secs(5), |e| e["event"] == "domain_blocked")
        .await
        .expect("domain_blocked event");
    assert_eq!(event["domain"], "localhost");

    // The page itself navigates onto a blocked domain: the session ends.
    let script = format!(
        "setTimeout(() => location.href = {:?}, 10); return 1",
        stack.fixtures.url_on("sub.localhost", "second.html")
    );
    stack
        .eval(tab, &script)
        .await
        .expect("page navigates itself");
    let ended = stack
        .wait_event(Duration::from_secs(10), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "domain_blocked");
    let after = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(after.code, "domain_blocked", "{after}");

    // Other domains still work.
    stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("second.html") }))
        .await
        .expect("127.0.0.1 is fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_all_cancels_until_resume_and_stop_ends_one_session() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let (popup_target, popup) = stack.popup().await.expect("popup");
    let listed = stack
        .chromium
        .eval(
            &popup,
            "return document.querySelectorAll('#sessions li').length",
        )
        .await;
    assert_eq!(
        listed.expect("popup sessions"),
        1,
        "the popup lists the live session"
    );
    let state = stack
        .chromium
        .eval(
            &popup,
            "return document.getElementById('state').textContent",
        )
        .await
        .unwrap();
    assert!(state.as_str().unwrap().starts_with("connected"), "{state}");

    let pressed = "document.getElementById('stop-all').click(); \
                   for (let i = 0; i < 50 && document.body.dataset.globalStop !== 'true'; i++) await new Promise((r) => setTimeout(r, 50)); \
                   return document.body.dataset.globalStop";
    assert_eq!(
        stack
            .chromium
            .eval(&popup, pressed)
            .await
            .expect("Stop all"),
        "true"
    );
    let stop = stack
        .wait_event(Duration::from_secs(5), |e| e["event"] == "global_stop")
        .await
        .expect("global_stop");
    assert_eq!(stop["sessionCount"], 1);
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    assert_eq!(
        (ended["reason"].clone(), ended["actionCount"].clone()),
        (json!("global_stop"), json!(1))
    );
    for action in [
        json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" }),
        json!({ "action": "list_tabs" }),
        json!({ "action": "open_tab", "url": stack.fixtures.url("basic.html") }),
    ] {
        let e = stack.act(action).await.unwrap_err();
        assert_eq!(e.code, "cancelled", "{e}");
    }

    let resumed = "document.getElementById('resume').click(); \
                   for (let i = 0; i < 50 && document.body.dataset.globalStop !== 'false'; i++) await new Promise((r) => setTimeout(r, 50)); \
                   return document.body.dataset.globalStop";
    assert_eq!(
        stack.chromium.eval(&popup, resumed).await.expect("Resume"),
        "false"
    );
    let r = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return 2" }))
        .await
        .expect("after resume");
    assert_eq!(r["value"], 2);

    // The agent may not take over the extension's own pages (it could press Resume).
    let list = stack
        .act(json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs");
    let popup_tab = list["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["url"]
                .as_str()
                .is_some_and(|u| u.starts_with("chrome-extension://"))
        })
        .unwrap_or_else(|| panic!("the popup tab is listed: {list}"))["tabId"]
        .clone();
    let refused = stack
        .act(json!({ "action": "evaluate", "tabId": popup_tab, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(refused.code, "invalid_action", "{refused}");

    // Stop one session from the popup: session_ended `stopped`.
    let stop_one = format!(
        "for (let i = 0; i < 50 && !document.querySelector('button[data-tab-id=\"{tab}\"]'); i++) await new Promise((r) => setTimeout(r, 50)); \
         document.querySelector('button[data-tab-id=\"{tab}\"]').click(); return true"
    );
    stack.chromium.eval(&popup, &stop_one).await.expect("Stop");
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["reason"] == "stopped"
        })
        .await
        .expect("stopped");
    assert_eq!(ended["tabId"], tab);
    stack
        .chromium
        .close_target(&popup_target)
        .await
        .expect("close popup");
}

/// Another spelling of a blocked IP address is the same host (WHATWG URL parsing):
/// `open_tab` answers `domain_blocked` at once, before anything loads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_ip_in_any_spelling_is_refused_at_once() {
    let stack = Stack::start().await.expect("stack");
    set_blocklist(&stack, &["127.0.0.1"]).await;
    let canonical = stack.fixtures.url("basic.html");
    // Wait until the worker applied the list.
    let mut applied = false;
    for _ in 0..50 {
        let e = stack
            .act(json!({ "action": "open_tab", "url": canonical }))
            .await;
        if e.as_ref().is_err_and(|e| e.code == "domain_blocked") {
            applied = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(applied, "the blocklist never applied");
    for host in [
        "127.1",
        "0x7f000001",
        "2130706433",
        "0177.0.0.1",
        "[::ffff:127.0.0.1]",
    ] {
        let url = canonical.replace("127.0.0.1", host);
        let started = std::time::Instant::now();
        let e = stack
            .act(json!({ "action": "open_tab", "url": url }))
            .await
            .expect_err(&url);
        assert_eq!(e.code, "domain_blocked", "{url}: {e}");
        assert!(e.message.contains("127.0.0.1"), "{url}: {e}");
        eprintln!(
            "{url}: domain_blocked in {} ms",
            started.elapsed().as_millis()
        );
    }
    // localhost is another name, not another spelling: not blocked.
    stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url_on("localhost", "basic.html") }))
        .await
        .expect("localhost is not on the list");
}
