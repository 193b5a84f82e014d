//! `handoff` (PROTOCOL §5 "Hand-off") in real Chromium: the tab is shown to the
//! person with the agent's reason in the popup (as text), the badge and a
//! notification; the popup's Done and Give up (its runtime messages), the
//! timeout, and an obstacle that clears on a load or a same-document route
//! change end it; a worker restart, a closed tab, Stop all and a second
//! hand-off on the tab are answered, never left hanging.

use std::sync::Arc;
use std::time::{Duration, Instant};

use browser_bridge_tests::harness::{ActError, Stack};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// Sends a hand-off of `tab` in the background: the request waits on the person.
fn hand_off(
    stack: &Arc<Stack>,
    tab: i64,
    reason: &str,
    timeout_ms: u64,
) -> JoinHandle<Result<Value, ActError>> {
    let stack = stack.clone();
    let action =
        json!({"action": "handoff", "tabId": tab, "reason": reason, "timeoutMs": timeout_ms});
    tokio::spawn(async move { stack.act(action).await })
}

/// The popup's hand-off rows: `{tabId, reason, markup}` (`markup`: elements
/// inside the reason, which must stay text).
async fn listed(stack: &Stack, popup: &str) -> Value {
    let rows = "return [...document.querySelectorAll('#handoffs li')].map((li) => ({ \
        tabId: Number(li.dataset.tabId), \
        reason: li.querySelector('.handoff-reason').textContent, \
        markup: li.querySelector('.handoff-reason').children.length }))";
    stack.chromium.eval(popup, rows).await.expect("popup rows")
}

/// Waits until the popup lists `tab`'s hand-off (it refreshes every second)
/// and returns its row.
async fn wait_listed(stack: &Stack, popup: &str, tab: i64) -> Value {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let rows = listed(stack, popup).await;
        if let Some(row) = rows
            .as_array()
            .and_then(|r| r.iter().find(|r| r["tabId"] == tab))
        {
            return row.clone();
        }
        assert!(
            Instant::now() < until,
            "the popup never listed tab {tab}: {rows}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs `body` in the popup page (an extension page: chrome.* at hand).
async fn in_popup(stack: &Stack, popup: &str, body: &str) -> Value {
    stack.chromium.eval(popup, body).await.expect(body)
}

async fn badge(stack: &Stack, popup: &str) -> Value {
    in_popup(stack, popup, "return await chrome.action.getBadgeText({})").await
}

/// The answer of a background request, within `within`.
async fn answer(
    request: JoinHandle<Result<Value, ActError>>,
    within: Duration,
) -> Result<Value, ActError> {
    tokio::time::timeout(within, request)
        .await
        .expect("the hand-off was answered in time")
        .expect("the request task")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_in_the_popup_answers_done_after_showing_the_tab_and_the_reason_as_text() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("handoff/page.html", None).await.expect("open");
    let (_target, popup) = stack.popup().await.expect("popup");
    assert_eq!(badge(&stack, &popup).await, "");

    // The reason is the agent's words, shown as text even when it looks like markup.
    let reason = "Pay <b>42.00 EUR</b> with your card, then press Done";
    let request = hand_off(&stack, tab, reason, 60_000);
    let row = wait_listed(&stack, &popup, tab).await;
    assert_eq!(row["reason"], reason);
    assert_eq!(row["markup"], 0, "the reason was parsed as markup: {row}");
    assert_eq!(badge(&stack, &popup).await, "!");
    let shown = in_popup(
        &stack,
        &popup,
        &format!(
            "const t = await chrome.tabs.get({tab}); const w = await chrome.windows.get(t.windowId); \
             return {{ active: t.active, state: w.state }}"
        ),
    )
    .await;
    assert_eq!(shown["active"], true, "{shown}");
    assert_ne!(
        shown["state"], "minimized",
        "the agent window stayed minimized: {shown}"
    );

    // A second hand-off of that tab is refused at once; the first goes on.
    let second = stack
        .act(json!({"action": "handoff", "tabId": tab, "reason": "again", "timeoutMs": 5000}))
        .await
        .expect_err("a second hand-off of one tab");
    assert_eq!(second.code, "invalid_action", "{second}");
    assert!(
        second.message.contains("already has a hand-off"),
        "{second}"
    );
    assert!(
        !request.is_finished(),
        "the first hand-off ended with the second"
    );

    // The agent's other actions on the tab run meanwhile.
    assert_eq!(
        stack
            .eval(tab, "return document.title")
            .await
            .expect("evaluate"),
        "Checkout"
    );

    let press = "document.querySelector('#handoffs li .handoff-done').click(); return true";
    in_popup(&stack, &popup, press).await;
    let result = answer(request, Duration::from_secs(10))
        .await
        .expect("handoff");
    assert_eq!(result["action"], "handoff");
    assert_eq!(result["tabId"], tab);
    assert_eq!(result["outcome"], "done");
    assert!(result.get("cleared").is_none(), "{result}");
    assert!(
        result["elapsedMs"].as_u64().is_some_and(|ms| ms < 60_000),
        "{result}"
    );

    // Answered: the popup no longer lists it and the badge is gone.
    let until = Instant::now() + Duration::from_secs(5);
    while listed(&stack, &popup).await != json!([]) || badge(&stack, &popup).await != "" {
        assert!(Instant::now() < until, "the hand-off stayed on show");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A new one may begin on the tab once the first ended.
    let again = hand_off(&stack, tab, "once more", 800);
    let result = answer(again, Duration::from_secs(10))
        .await
        .expect("handoff");
    assert_eq!(result["outcome"], "timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn give_up_timeout_a_closed_tab_and_stop_all_each_answer_once() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("handoff/page.html", None).await.expect("open");
    let (_target, popup) = stack.popup().await.expect("popup");

    // Give up, as the popup's button sends it.
    let request = hand_off(&stack, tab, "Approve the payment in your bank app", 60_000);
    wait_listed(&stack, &popup, tab).await;
    let give_up = format!(
        "return await chrome.runtime.sendMessage({{ cmd: 'handoffGiveUp', tabId: {tab} }})"
    );
    let status = in_popup(&stack, &popup, &give_up).await;
    assert!(
        status["handoffs"].as_array().is_some_and(Vec::is_empty),
        "{status}"
    );
    let result = answer(request, Duration::from_secs(10))
        .await
        .expect("handoff");
    assert_eq!(result["outcome"], "cancelled");
    // A Done for a hand-off already answered changes nothing.
    let done =
        format!("return await chrome.runtime.sendMessage({{ cmd: 'handoffDone', tabId: {tab} }})");
    in_popup(&stack, &popup, &done).await;

    // Nobody comes: timeout at the limit, not before.
    let started = Instant::now();
    let result = answer(
        hand_off(&stack, tab, "Solve the captcha", 1_500),
        Duration::from_secs(15),
    )
    .await
    .expect("handoff");
    assert_eq!(result["outcome"], "timeout");
    assert!(
        started.elapsed() >= Duration::from_millis(1_500),
        "{result}"
    );
    assert!(
        result["elapsedMs"].as_u64().is_some_and(|ms| ms >= 1_500),
        "{result}"
    );
    assert_eq!(badge(&stack, &popup).await, "");

    // Stop all during a hand-off: cancelled, as every request of a stopped session.
    let request = hand_off(&stack, tab, "Log in", 60_000);
    wait_listed(&stack, &popup, tab).await;
    in_popup(
        &stack,
        &popup,
        "return await chrome.runtime.sendMessage({ cmd: 'stopAll' })",
    )
    .await;
    let error = answer(request, Duration::from_secs(10))
        .await
        .expect_err("stopped");
    assert_eq!(error.code, "cancelled", "{error}");
    in_popup(
        &stack,
        &popup,
        "return await chrome.runtime.sendMessage({ cmd: 'resume' })",
    )
    .await;

    // The person closes the tab: session_not_found, and the hand-off is gone.
    let tab = stack
        .open("handoff/page.html", None)
        .await
        .expect("open again");
    let request = hand_off(&stack, tab, "Enter the code we sent you", 60_000);
    wait_listed(&stack, &popup, tab).await;
    let target = stack
        .chromium
        .targets()
        .await
        .expect("targets")
        .into_iter()
        .find(|t| {
            t["type"] == "page"
                && t["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with("handoff/page.html"))
        })
        .expect("the tab's target");
    stack
        .chromium
        .close_target(target["targetId"].as_str().expect("targetId"))
        .await
        .expect("close the tab");
    let error = answer(request, Duration::from_secs(10))
        .await
        .expect_err("tab closed");
    assert_eq!(error.code, "session_not_found", "{error}");
    let until = Instant::now() + Duration::from_secs(5);
    while listed(&stack, &popup).await != json!([]) || badge(&stack, &popup).await != "" {
        assert!(
            Instant::now() < until,
            "the closed tab's hand-off stayed on show"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_wall_that_goes_after_a_navigation_answers_done_cleared() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("handoff/login.html", None).await.expect("open");
    let wall = stack.extract(tab).await;
    assert_eq!(wall["obstacle"]["type"], "auth_wall", "{wall}");
    let (_target, popup) = stack.popup().await.expect("popup");

    let request = hand_off(&stack, tab, "Sign in to your account", 60_000);
    wait_listed(&stack, &popup, tab).await;
    // The hand-off's first look at the page (its extract) has had its time.
    tokio::time::sleep(Duration::from_millis(1_500)).await;

    // A wrong password: another login page loads, the wall stands, it waits on.
    let go = |page: &str| {
        format!(
            "location.href = '{}'; return true",
            stack.fixtures.url(page)
        )
    };
    stack
        .eval(tab, &go("handoff/login-again.html"))
        .await
        .expect("navigate");
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    assert!(
        !request.is_finished(),
        "a page that still shows the wall ended the hand-off"
    );
    let still = stack.extract(tab).await;
    assert_eq!(still["url"], stack.fixtures.url("handoff/login-again.html"));

    // Signed in: the next load shows no wall, and the hand-off is done by itself.
    stack
        .eval(tab, &go("handoff/signed-in.html?user=marta"))
        .await
        .expect("navigate");
    let result = answer(request, Duration::from_secs(15))
        .await
        .expect("handoff");
    assert_eq!(result["outcome"], "done", "{result}");
    assert_eq!(result["cleared"], true, "{result}");
    let page = stack.extract(tab).await;
    assert!(page.get("obstacle").is_none(), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hand_offs_are_refused_before_anything_shows() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("handoff/page.html", None).await.expect("open");
    for (action, field) in [
        (
            json!({"action": "handoff", "tabId": tab, "reason": "x", "timeoutMs": 600_001}),
            "timeoutMs",
        ),
        (
            json!({"action": "handoff", "tabId": tab, "reason": " ", "timeoutMs": 1000}),
            "reason",
        ),
        (
            json!({"action": "handoff", "tabId": tab, "timeoutMs": 1000}),
            "reason",
        ),
        (
            json!({"action": "handoff", "tabId": tab, "reason": "x"}),
            "timeoutMs",
        ),
        (
            json!({"action": "batch", "actions": [{"action": "handoff", "reason": "x", "timeoutMs": 10}]}),
            "handoff",
        ),
    ] {
        let error = stack.act(action.clone()).await.expect_err("refused");
        assert_eq!(error.code, "invalid_request", "{action}: {error}");
        assert!(error.message.contains(field), "{action}: {error}");
    }
    let (_target, popup) = stack.popup().await.expect("popup");
    assert_eq!(listed(&stack, &popup).await, json!([]));
    assert_eq!(badge(&stack, &popup).await, "");
}

/// The ids of the extension's notifications (`chrome.notifications.getAll`).
async fn notifications(stack: &Stack, popup: &str) -> Value {
    in_popup(
        stack,
        popup,
        "return Object.keys(await chrome.notifications.getAll())",
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_restart_answers_the_hand_off_not_connected_and_clears_what_it_showed() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("handoff/page.html", None).await.expect("open");
    let (_target, popup) = stack.popup().await.expect("popup");
    let request = hand_off(&stack, tab, "Confirm the payment", 60_000);
    wait_listed(&stack, &popup, tab).await;
    let id = format!("browser-bridge-handoff-{tab}");
    assert_eq!(notifications(&stack, &popup).await, json!([id]));
    assert_eq!(badge(&stack, &popup).await, "!");

    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    let error = answer(request, Duration::from_secs(15))
        .await
        .expect_err("worker gone");
    assert_eq!(error.code, "not_connected", "{error}");
    // The new worker clears the old one's notification and badge.
    let until = Instant::now() + Duration::from_secs(10);
    while notifications(&stack, &popup).await != json!([]) || badge(&stack, &popup).await != "" {
        assert!(Instant::now() < until, "the old hand-off stayed on show");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The new worker hands the tab over again.
    let again = hand_off(&stack, tab, "Confirm the payment", 700);
    let result = answer(again, Duration::from_secs(15))
        .await
        .expect("handoff");
    assert_eq!(result["outcome"], "timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_page_app_whose_sign_in_swaps_the_view_answers_done_cleared() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack
        .open("handoff/spa-login.html", None)
        .await
        .expect("open");
    let wall = stack.extract(tab).await;
    assert_eq!(wall["obstacle"]["type"], "auth_wall", "{wall}");
    let (_target, popup) = stack.popup().await.expect("popup");

    let request = hand_off(&stack, tab, "Sign in to your account", 60_000);
    wait_listed(&stack, &popup, tab).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(!request.is_finished(), "the wall still stands: {wall}");

    // Signing in pushes a route in the same document (no load).
    let sign_in = "document.getElementById('login').requestSubmit(); return location.search";
    assert_eq!(
        stack.eval(tab, sign_in).await.expect("sign in"),
        "?view=orders"
    );
    let result = answer(request, Duration::from_secs(15))
        .await
        .expect("handoff");
    assert_eq!(result["outcome"], "done", "{result}");
    assert_eq!(result["cleared"], true, "{result}");
}
