//! End-to-end: a JavaScript dialog that opens at any moment never hangs an action
//! (PROTOCOL.md §5 "Loads and dialogs"): during a load (`navigate`, `open_tab`,
//! `reload`), during `extract`, `wait_for`, `screenshot` or `evaluate` (a
//! timer's dialog), and `beforeunload` on `navigate`, `reload` and `close_tab`.

use std::time::{Duration, Instant};

use browser_bridge_tests::harness::{Stack, uid_named};
use serde_json::{Value, json};

/// Most an action may take to report a dialog (ms): well under any load timeout.
const PROMPT_MS: u128 = 5_000;

/// `act`, asserting that it answered within [`PROMPT_MS`].
async fn prompt_act(
    stack: &Stack,
    action: Value,
) -> Result<Value, browser_bridge_tests::harness::ActError> {
    let start = Instant::now();
    let what = action["action"].clone();
    let r = stack.act(action).await;
    let took = start.elapsed().as_millis();
    assert!(took < PROMPT_MS, "{what} took {took} ms: {r:?}");
    r
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_during_the_load_is_reported_and_the_load_finishes_after_it() {
    let stack = Stack::start().await.expect("stack");
    let url = stack.fixtures.url("dialogs/alert-on-load.html");
    let r = prompt_act(&stack, json!({ "action": "navigate", "url": url }))
        .await
        .expect("navigate");
    let tab = r["tabId"].as_i64().expect("tabId");
    assert_eq!(
        r["dialog"],
        json!({ "type": "alert", "message": "Welcome back! Your previous session was restored." })
    );
    assert_eq!(r["loadPending"], true, "{r}");
    assert_eq!(r["url"], url, "{r}");

    // The dialog blocks the page: other actions are refused at once, not hung.
    let blocked = prompt_act(&stack, json!({ "action": "extract", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(blocked.code, "invalid_action", "{blocked}");
    assert!(blocked.message.contains("handle_dialog"), "{blocked}");

    let handled = stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    assert_eq!(handled["dialogType"], "alert");
    until(
        &stack,
        tab,
        "return window.__alertDone === true && document.readyState === 'complete'",
    )
    .await;
    let page = prompt_act(&stack, json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let refresh = uid_named(&page, "Refresh");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": refresh }))
        .await
        .expect("click Refresh");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('out').textContent")
            .await
            .unwrap(),
        "refreshed"
    );

    // reload runs the script again: the same alert, reported the same way.
    let r = prompt_act(&stack, json!({ "action": "reload", "tabId": tab }))
        .await
        .expect("reload");
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    assert_eq!(r["loadPending"], true, "{r}");

    // A plain navigate away accepts the alert and says so.
    let second = stack.fixtures.url("second.html");
    let r = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": second }),
    )
    .await
    .expect("navigate away from the alert");
    assert_eq!(r["dismissedDialog"]["type"], "alert", "{r}");
    assert_eq!(
        (r["url"].clone(), r["title"].clone()),
        (json!(second), json!("Second fixture"))
    );
    assert!(r.get("dialog").is_none(), "{r}");
    assert!(r.get("loadPending").is_none(), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirm_or_prompt_during_the_load_waits_for_its_answer() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");

    let url = stack.fixtures.url("dialogs/confirm-on-load.html");
    let r = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": url }),
    )
    .await
    .expect("navigate");
    assert_eq!(
        r["dialog"],
        json!({ "type": "confirm", "message": "Allow cookies for this site?" })
    );
    assert_eq!(r["loadPending"], true, "{r}");
    // A question is never answered for the agent: navigating away is refused.
    let refused = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": stack.fixtures.url("second.html") }),
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, "invalid_action", "{refused}");
    assert!(refused.message.contains("confirm"), "{refused}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("accept");
    until(
        &stack,
        tab,
        "return window.__answer === true && document.readyState === 'complete'",
    )
    .await;

    // open_tab reports a prompt of the new tab's page the same way.
    let url = stack.fixtures.url("dialogs/prompt-on-load.html");
    let r = prompt_act(&stack, json!({ "action": "open_tab", "url": url }))
        .await
        .expect("open_tab");
    let tab = r["tabId"].as_i64().expect("tabId");
    assert_eq!(
        r["dialog"],
        json!({ "type": "prompt", "message": "What is your name?" })
    );
    assert_eq!(r["loadPending"], true, "{r}");
    stack
        .act(
            json!({ "action": "handle_dialog", "tabId": tab, "accept": true, "promptText": "Ada" }),
        )
        .await
        .expect("answer the prompt");
    until(
        &stack,
        tab,
        "return document.getElementById('out')?.textContent === 'hello Ada'",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timer_dialog_ends_extract_wait_for_and_screenshot_at_once() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("dialogs/timer-dialog.html", None)
        .await
        .expect("navigate");
    // (delay, busy): the dialog opens while the action's CDP calls wait behind a
    // busy main thread, or in the middle of wait_for's polling.
    let cases = [
        (
            json!({ "action": "extract", "tabId": tab }),
            "alert",
            0,
            600,
        ),
        (
            json!({ "action": "wait_for", "tabId": tab, "selector": "#never", "timeoutMs": 20000 }),
            "confirm",
            300,
            0,
        ),
        (
            json!({ "action": "screenshot", "tabId": tab }),
            "prompt",
            0,
            600,
        ),
    ];
    for (action, kind, delay, busy) in cases {
        let armed = stack
            .eval(tab, &format!("return armDialog('{kind}', {delay}, {busy})"))
            .await
            .expect("arm");
        assert_eq!(armed, "armed");
        let name = action["action"].clone();
        let e = prompt_act(&stack, action).await.unwrap_err();
        assert_eq!(e.code, "invalid_action", "{name}: {e}");
        assert!(
            e.message.contains(&format!("({kind})")) && e.message.contains("handle_dialog"),
            "{name}: {e}"
        );
        stack
            .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": false }))
            .await
            .expect("handle_dialog");
    }
    assert_eq!(
        stack.eval(tab, "return window.__answers").await.unwrap(),
        json!([null, false, null])
    );

    // During evaluate the dialog is answered for it (§7): the call still returns.
    let r = prompt_act(
        &stack,
        json!({
            "action": "evaluate",
            "tabId": tab,
            "expression": "armDialog('confirm', 50, 0); await new Promise(r => setTimeout(r, 500)); return window.__answers.length"
        }),
    )
    .await
    .expect("evaluate");
    assert_eq!(r["value"], 4, "{r}");

    // The page is usable again.
    let page = prompt_act(&stack, json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    assert!(
        page["markdown"]
            .as_str()
            .unwrap()
            .contains("Your session expires soon"),
        "{page}"
    );
}

/// Clicks "Edit draft" so that the page has the user activation Chrome requires
/// for a beforeunload prompt.
async fn dirty(stack: &Stack, tab: i64) {
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#edit" }))
        .await
        .expect("click Edit draft");
    assert_eq!(
        stack.eval(tab, "return window.__dirty").await.unwrap(),
        true
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beforeunload_is_reported_on_navigate_reload_and_close_tab() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("dialogs/beforeunload.html", None)
        .await
        .expect("navigate");
    let draft = stack.fixtures.url("dialogs/beforeunload.html");
    let second = stack.fixtures.url("second.html");

    // navigate: reported; dismissing it keeps the page.
    dirty(&stack, tab).await;
    let r = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": second }),
    )
    .await
    .expect("navigate");
    assert_eq!(r["dialog"]["type"], "beforeunload", "{r}");
    assert_eq!(r["url"], draft, "{r}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": false }))
        .await
        .expect("stay");
    assert_eq!(
        stack.eval(tab, "return location.href").await.unwrap(),
        json!(draft)
    );

    // reload: reported; accepting it lets the reload go on.
    let r = prompt_act(&stack, json!({ "action": "reload", "tabId": tab }))
        .await
        .expect("reload");
    assert_eq!(r["dialog"]["type"], "beforeunload", "{r}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("leave");
    until(
        &stack,
        tab,
        "return window.__dirty === false && document.readyState === 'complete'",
    )
    .await;

    // navigate again, accepted: the new page loads.
    dirty(&stack, tab).await;
    let r = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": second }),
    )
    .await
    .expect("navigate");
    assert_eq!(r["dialog"]["type"], "beforeunload", "{r}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("leave");
    until(&stack, tab, "return document.title === 'Second fixture'").await;

    // close_tab: reported at once; dismissed, the tab stays; accepted, it closes
    // and the session ends as stopped (the agent closed it).
    stack
        .open("dialogs/beforeunload.html", Some(tab))
        .await
        .expect("back to the draft");
    dirty(&stack, tab).await;
    let e = prompt_act(&stack, json!({ "action": "close_tab", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "invalid_action", "{e}");
    assert!(e.message.contains("beforeunload"), "{e}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": false }))
        .await
        .expect("keep the tab");
    assert_eq!(
        stack.eval(tab, "return window.__dirty").await.unwrap(),
        true
    );
    let e = prompt_act(&stack, json!({ "action": "close_tab", "tabId": tab }))
        .await
        .unwrap_err();
    assert!(e.message.contains("beforeunload"), "{e}");
    let handled = stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("close the tab");
    assert_eq!(handled["dialogType"], "beforeunload");
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "stopped", "{ended}");
    let tabs = stack
        .act(json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs");
    assert!(
        !tabs["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["tabId"] == tab),
        "{tabs}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_from_a_page_handler_ends_type_hover_and_select_option_at_once() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("dialogs/input-dialog.html", None)
        .await
        .expect("navigate");
    let cases = [
        (
            json!({ "action": "type", "tabId": tab, "selector": "#coupon", "text": "SAVE10" }),
            "Coupons cannot be combined.",
        ),
        (
            json!({ "action": "hover", "tabId": tab, "selector": "#help" }),
            "Call us on 555-0100.",
        ),
        (
            json!({ "action": "select_option", "tabId": tab, "selector": "#plan", "values": ["pro"] }),
            "Switch to the pro plan?",
        ),
    ];
    for (action, message) in cases {
        let name = action["action"].clone();
        let e = prompt_act(&stack, action).await.unwrap_err();
        assert_eq!(e.code, "invalid_action", "{name}: {e}");
        assert!(
            e.message.contains(message) && e.message.contains("handle_dialog"),
            "{name}: {e}"
        );
        // type and select_option may have done their part: look before retrying.
        let changes_the_page = name != "hover";
        assert_eq!(
            e.message.contains("extract before retrying"),
            changes_the_page,
            "{name}: {e}"
        );
        let handled = stack
            .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
            .await
            .expect("handle_dialog");
        assert_eq!(handled["message"], message, "{name}");
    }
    assert_eq!(
        stack.eval(tab, "return window.__confirmed").await.unwrap(),
        true
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_unload_accept_leaves_the_page_in_one_call() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("dialogs/beforeunload.html", None)
        .await
        .expect("navigate");
    let second = stack.fixtures.url("second.html");

    dirty(&stack, tab).await;
    let r = prompt_act(
        &stack,
        json!({ "action": "navigate", "tabId": tab, "url": second, "beforeUnload": "accept" }),
    )
    .await
    .expect("navigate");
    assert_eq!(
        (r["url"].clone(), r["title"].clone()),
        (json!(second), json!("Second fixture")),
        "{r}"
    );
    assert!(r.get("dialog").is_none(), "{r}");

    stack
        .open("dialogs/beforeunload.html", Some(tab))
        .await
        .expect("back to the draft");
    dirty(&stack, tab).await;
    let r = prompt_act(
        &stack,
        json!({ "action": "reload", "tabId": tab, "beforeUnload": "accept" }),
    )
    .await
    .expect("reload");
    assert!(r.get("dialog").is_none(), "{r}");
    assert_eq!(
        stack.eval(tab, "return window.__dirty").await.unwrap(),
        false
    );

    dirty(&stack, tab).await;
    prompt_act(
        &stack,
        json!({ "action": "close_tab", "tabId": tab, "beforeUnload": "accept" }),
    )
    .await
    .expect("close_tab");
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "stopped", "{ended}");
}
