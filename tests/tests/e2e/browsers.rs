//! End-to-end: several browsers on one backend (PROTOCOL.md §5 "Browsers").
//! Two real headless Chromium processes, each with its own fresh profile and
//! the extension loaded, paired and named in its options page, connected to
//! one `serve`: an action naming `browser` (a name or a clientId) acts in that
//! browser only; a client's actions without it follow its last-used browser;
//! a client that used none is told to choose; `list_tabs` lists both with
//! their browser; the same clientId reconnecting replaces its connection; one
//! browser leaving fails only its own requests and leaves the other serving.

use std::time::{Duration, Instant};

use browser_bridge_tests::chromium::Chromium;
use browser_bridge_tests::harness::{ActError, Stack};
use serde_json::{Value, json};

/// Whether a page whose URL contains `needle` is open in `chromium` (CDP
/// `Target.getTargets` of that process: the truth of which browser acted).
async fn shows(chromium: &Chromium, needle: &str) -> bool {
    chromium
        .target_infos()
        .await
        .expect("targets")
        .iter()
        .any(|t| t.kind == "page" && t.url.contains(needle))
}

/// `location.search` of the tab `client`'s action without `tabId` reaches,
/// in the browser the backend picks for it.
async fn where_is(stack: &Stack, client: &str) -> Result<Value, ActError> {
    let r = stack
        .act_as(
            client,
            json!({"action": "evaluate", "expression": "return location.search"}),
        )
        .await?;
    Ok(r["value"].clone())
}

fn browsers_of(status: &Value) -> Vec<Value> {
    status["browsers"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn two_browsers_on_one_serve() {
    let stack = Stack::start().await.expect("stack");
    let page = |who: &str| {
        stack
            .fixtures
            .url(&format!("clients/counter.html?who={who}"))
    };
    let work = stack
        .name_browser(&stack.chromium, "Work")
        .await
        .expect("the first browser named Work");
    let home_browser = stack.add_browser("Home").await.expect("a second browser");
    let home = stack
        .wait_browser("Home", Duration::from_secs(20))
        .await
        .expect("Home listed");
    let status = stack.status().await.expect("status");
    assert_eq!(browsers_of(&status).len(), 2, "{status}");
    assert_ne!(work["clientId"], home["clientId"]);
    for browser in [&work, &home] {
        let version = browser["browserVersion"].as_str().unwrap_or_default();
        assert!(version.split('.').count() >= 3, "a full version: {browser}");
        assert!(
            browser["connectedAt"].as_u64().unwrap_or(0) > 0,
            "{browser}"
        );
    }

    // Named: the tab opens in Home's process, not in Work's.
    let opened = stack
        .act_as(
            "agent-a",
            json!({"action": "open_tab", "url": page("a1"), "browser": "Home"}),
        )
        .await
        .expect("open_tab in Home");
    let a_tab = opened["tabId"].as_i64().expect("tabId");
    assert!(shows(&home_browser.chromium, "who=a1").await);
    assert!(!shows(&stack.chromium, "who=a1").await);

    // Not named: agent-a's last-used browser, Home, and its current tab there.
    let moved = stack
        .act_as("agent-a", json!({"action": "navigate", "url": page("a2")}))
        .await
        .expect("navigate without browser");
    assert_eq!(moved["tabId"].as_i64(), Some(a_tab));
    assert!(shows(&home_browser.chromium, "who=a2").await);
    assert!(!shows(&stack.chromium, "who=a2").await);

    // By clientId: agent-b works in Work, then follows it without naming it.
    let work_id = work["clientId"].as_str().expect("clientId");
    let b_tab = stack
        .act_as(
            "agent-b",
            json!({"action": "open_tab", "url": page("b1"), "browser": work_id}),
        )
        .await
        .expect("open_tab in Work by clientId")["tabId"]
        .clone();
    assert!(shows(&stack.chromium, "who=b1").await);
    assert!(!shows(&home_browser.chromium, "who=b1").await);
    assert_eq!(where_is(&stack, "agent-b").await.expect("b"), "?who=b1");
    assert_eq!(where_is(&stack, "agent-a").await.expect("a"), "?who=a2");

    // A client that used neither is told to choose, nothing runs.
    let refused = where_is(&stack, "agent-c")
        .await
        .expect_err("no browser chosen");
    assert_eq!(refused.code, "session_not_found", "{refused}");
    assert!(
        refused.message.contains("\"Work\"") && refused.message.contains("\"Home\""),
        "{refused}"
    );

    // list_tabs without browser: both browsers' tabs, each with its browser.
    let list = stack
        .act_as("agent-c", json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let tab_in = |list: &Value, who: &str| {
        list["tabs"]
            .as_array()
            .expect("tabs")
            .iter()
            .find(|t| t["url"].as_str().unwrap_or_default().contains(who))
            .map(|t| t["browser"].clone())
    };
    assert_eq!(tab_in(&list, "who=a2"), Some(json!("Home")), "{list}");
    assert_eq!(tab_in(&list, "who=b1"), Some(json!("Work")), "{list}");
    let names: Vec<&str> = list["browsers"]
        .as_array()
        .expect("browsers")
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert_eq!(names, ["Work", "Home"], "{list}");
    // Named, only that browser's tabs.
    let only = stack
        .act_as("agent-c", json!({"action": "list_tabs", "browser": "work"}))
        .await
        .expect("list_tabs of Work");
    assert_eq!(tab_in(&only, "who=a2"), None, "{only}");
    assert_eq!(tab_in(&only, "who=b1"), Some(json!("Work")), "{only}");

    // The same clientId reconnecting replaces: Home's worker stops and comes
    // back on a new connection, still one Home, agent-a still at home.
    let before = home["connectionId"].clone();
    home_browser
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop Home's worker");
    let until = Instant::now() + Duration::from_secs(20);
    let again = loop {
        let entry = stack
            .wait_browser("Home", Duration::from_secs(20))
            .await
            .expect("Home");
        if entry["connectionId"] != before {
            break entry;
        }
        assert!(Instant::now() < until, "Home did not reconnect: {entry}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(again["clientId"], home["clientId"]);
    let status = stack.status().await.expect("status");
    assert_eq!(browsers_of(&status).len(), 2, "{status}");
    assert_eq!(where_is(&stack, "agent-a").await.expect("a"), "?who=a2");

    // Home leaves mid-request: only its request fails; Work's runs to its end.
    let waiting = |client: &'static str, ms: u64| {
        let stack = &stack;
        async move {
            stack
                .act_as(
                    client,
                    json!({"action": "wait_for", "selector": "#never", "timeoutMs": ms}),
                )
                .await
        }
    };
    let started = Instant::now();
    let (at_home, at_work, ()) = tokio::join!(
        waiting("agent-a", 20_000),
        waiting("agent-b", 3_000),
        async {
            tokio::time::sleep(Duration::from_millis(800)).await;
            drop(home_browser);
        }
    );
    let at_home = at_home.expect_err("Home's request fails");
    assert_eq!(at_home.code, "not_connected", "{at_home}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "failed at once, not at its deadline"
    );
    let at_work = at_work.expect_err("nothing appears in Work");
    assert_eq!(
        at_work.code, "timeout",
        "Work's own deadline, not the disconnect: {at_work}"
    );
    let until = Instant::now() + Duration::from_secs(10);
    while browsers_of(&stack.status().await.expect("status")).len() != 1 {
        assert!(Instant::now() < until, "Home still listed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // agent-a's last browser is gone: the only one left serves it, in a tab
    // of its own (agent-b's tab is not handed over).
    let moved = stack
        .act_as("agent-a", json!({"action": "navigate", "url": page("a3")}))
        .await
        .expect("navigate in Work");
    assert!(shows(&stack.chromium, "who=a3").await);
    assert_ne!(moved["tabId"], b_tab);
    assert_eq!(where_is(&stack, "agent-b").await.expect("b"), "?who=b1");
}
