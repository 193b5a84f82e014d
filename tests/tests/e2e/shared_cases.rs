//! End-to-end: the failing example pages beside the repository
//! (`../shared/cases/`, or `$BROWSER_BRIDGE_CASES`), driven as their README says,
//! through the real stack, with the outcomes it expects. Each page stands for a
//! kind that has its own fixtures and tests in the other modules; this module
//! checks the original pages themselves. A clone without them skips it, except
//! under CI, where it must run.

use std::path::PathBuf;

use browser_bridge_tests::harness::{Stack, StackOptions, uid_named, workspace_root};
use serde_json::{Value, json};

/// The cases folder, or `None` (skip) outside CI when it is absent.
fn cases_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("BROWSER_BRIDGE_CASES")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/cases"));
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "cases not found at {} (set BROWSER_BRIDGE_CASES)",
        dir.display()
    );
    eprintln!("cases not found at {}: skipped", dir.display());
    None
}

/// A stack serving the cases folder, or `None` when it is absent.
async fn stack() -> Option<Stack> {
    let dir = cases_dir()?;
    let options = StackOptions {
        fixtures_dir: Some(dir),
        ..StackOptions::default()
    };
    Some(Stack::start_with(options).await.expect("stack"))
}

async fn click(stack: &Stack, tab: i64, uid: &str) -> Value {
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .unwrap_or_else(|e| panic!("click {uid}: {e}"))
}

async fn eval(stack: &Stack, tab: i64, expression: &str) -> Value {
    stack.eval(tab, expression).await.expect("evaluate")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialog_on_load() {
    let Some(stack) = stack().await else { return };
    let url = stack.fixtures.url("dialog-on-load.html");
    let r = stack
        .act(json!({ "action": "navigate", "url": url }))
        .await
        .expect("navigate");
    let tab = r["tabId"].as_i64().expect("tabId");
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    assert!(
        r["dialog"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Welcome back!")),
        "{r}"
    );
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    let page = stack.extract(tab).await;
    click(&stack, tab, &uid_named(&page, "Refresh")).await;
    assert_eq!(
        eval(
            &stack,
            tab,
            "return document.getElementById('out').textContent"
        )
        .await,
        "refreshed"
    );
    assert_eq!(
        eval(
            &stack,
            tab,
            "return window.__alertDone === true && document.readyState === 'complete'"
        )
        .await,
        true
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_inputs() {
    let Some(stack) = stack().await else { return };
    let tab = stack.open("native-inputs.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let fields = [
        ("Meeting date", "2025-03-14"),
        ("Start time", "14:30"),
        ("Duration (hours)", "3"),
        ("Attendees", "9"),
        ("Calendar colour", "#2a9d8f"),
    ];
    for (name, value) in fields {
        let uid = uid_named(&page, name);
        let r = stack
            .act(json!({ "action": "type", "tabId": tab, "uid": uid, "text": value }))
            .await
            .unwrap_or_else(|e| panic!("type into {name}: {e}"));
        assert_eq!(r["value"], value, "{name}: {r}");
    }
    let wrong = stack
        .act(
            json!({ "action": "type", "tabId": tab, "uid": uid_named(&page, "Meeting date"),
                     "text": "14/03/2025" }),
        )
        .await
        .unwrap_err();
    assert_eq!(wrong.code, "invalid_action", "{wrong}");
    assert!(wrong.message.contains("yyyy-mm-dd"), "{wrong}");
    click(&stack, tab, &uid_named(&page, "Book room")).await;
    let out = eval(
        &stack,
        tab,
        "return document.getElementById('out').textContent",
    )
    .await;
    assert!(
        out.as_str()
            .is_some_and(|o| o.starts_with("booked 2025-03-14 14:30 for 3h, 9 people")),
        "{out}"
    );
    assert_eq!(
        eval(&stack, tab, "return window.__state.tag").await,
        "#2a9d8f"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_checkbox() {
    let Some(stack) = stack().await else { return };
    let tab = stack
        .open("custom-checkbox.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let names = [
        "Email me receipts",
        "Weekly",
        "Rotate the API keys",
        "Dark mode",
    ];
    for name in names {
        let element = page["elements"]
            .as_array()
            .expect("elements")
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed: {}", page["elements"]));
        assert_ne!(element["visible"], false, "{element}");
        click(&stack, tab, &uid_named(&page, name)).await;
    }
    let after = stack.extract(tab).await;
    for name in names {
        let element = after["elements"]
            .as_array()
            .expect("elements")
            .iter()
            .find(|e| e["name"] == name)
            .expect("listed");
        assert_eq!(element["checked"], "true", "{element}");
    }
    click(&stack, tab, &uid_named(&after, "Save preferences")).await;
    assert_eq!(
        eval(
            &stack,
            tab,
            "return document.getElementById('out').textContent"
        )
        .await,
        "receipts=on digest=weekly todo2=done dark=true"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pointer_events_layer() {
    let Some(stack) = stack().await else { return };
    let tab = stack
        .open("pointer-events-layer.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    // Under the sticky header: scrolled clear and clicked, or the header named.
    let first = stack
        .act(json!({ "action": "click", "tabId": tab,
                     "uid": uid_named(&page, "Acknowledge build 2.3.0") }))
        .await;
    match first {
        Ok(_) => assert_eq!(
            eval(&stack, tab, "return window.__acks.includes('2.3.0')").await,
            true
        ),
        Err(e) => assert!(e.message.contains("header"), "{e}"),
    }
    click(&stack, tab, &uid_named(&page, "Acknowledge build 0.9.0")).await;
    assert_eq!(
        eval(&stack, tab, "return window.__acks.includes('0.9.0')").await,
        true
    );
    assert_eq!(eval(&stack, tab, "return window.__headerHits").await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_scroller() {
    let Some(stack) = stack().await else { return };
    let tab = stack
        .open("nested-scroller.html", None)
        .await
        .expect("open");
    // Three scrolls in the README's window; this viewport is smaller, so scroll
    // on (each one must move the container) until the lazy list grows.
    let mut loaded = 10;
    for _ in 0..10 {
        let r = stack
            .act(json!({ "action": "scroll", "tabId": tab, "direction": "down" }))
            .await
            .expect("scroll");
        assert!(r["deltaY"].as_f64().is_some_and(|d| d > 0.0), "{r}");
        loaded = eval(&stack, tab, "return window.__loadedComments()")
            .await
            .as_i64()
            .unwrap_or_default();
        if loaded > 10 {
            break;
        }
    }
    assert!(loaded > 10, "the lazy list never grew: {loaded} comments");
    assert_eq!(
        eval(
            &stack,
            tab,
            "return document.getElementById('scroller').scrollTop > 0"
        )
        .await,
        true
    );
    let page = stack.extract(tab).await;
    stack
        .act(
            json!({ "action": "type", "tabId": tab, "uid": uid_named(&page, "Question 38"),
                     "text": "blue" }),
        )
        .await
        .expect("type");
    click(&stack, tab, &uid_named(&page, "Submit responses")).await;
    assert_eq!(
        eval(
            &stack,
            tab,
            "return document.getElementById('out').textContent"
        )
        .await,
        "submitted q38=blue"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_tab_url() {
    let Some(stack) = stack().await else { return };
    let tab = stack.open("new-tab-url.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let r = click(&stack, tab, &uid_named(&page, "Open receipt")).await;
    let opened = &r["openedTabs"][0];
    assert!(
        opened["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("new-tab-url-popup.html?code=PAY-7310")),
        "{r}"
    );
    let receipt = stack
        .extract(opened["tabId"].as_i64().expect("tabId"))
        .await;
    assert!(
        receipt["markdown"]
            .as_str()
            .is_some_and(|m| m.contains("PAY-7310")),
        "{receipt}"
    );
    let r = click(&stack, tab, &uid_named(&page, "Printable view")).await;
    assert!(
        r["openedTabs"][0]["url"]
            .as_str()
            .is_some_and(|u| u.contains("PRN-5521")),
        "{r}"
    );
}
