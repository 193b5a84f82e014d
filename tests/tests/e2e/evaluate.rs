//! End-to-end: `evaluate` exactly as PROTOCOL.md §7, `navigator.webdriver`, and
//! `screenshot`; also measures the median `/v1/act` round trip of `return 1`.

use std::time::Instant;

use browser_bridge_tests::harness::Stack;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_shapes_errors_and_dialogs() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let eval =
        |expression: &str| json!({ "action": "evaluate", "tabId": tab, "expression": expression });

    let one = stack.act(eval("return 1")).await.expect("return 1");
    assert_eq!(
        (one["type"].clone(), one["value"].clone()),
        (json!("number"), json!(1))
    );
    let bare = stack.act(eval("document.title")).await.expect("no return");
    assert_eq!(
        bare["type"], "undefined",
        "the body is wrapped in an async function: {bare}"
    );
    let awaited = stack
        .act(eval(
            "return await new Promise((r) => setTimeout(() => r('late'), 50))",
        ))
        .await
        .unwrap();
    assert_eq!(awaited["value"], "late");
    let object = stack
        .act(eval("return {a: [1, 'x', null], b: {c: true}}"))
        .await
        .unwrap();
    assert_eq!(
        (object["type"].clone(), object["value"].clone()),
        (
            json!("object"),
            json!({"a": [1, "x", null], "b": {"c": true}})
        )
    );
    let array = stack.act(eval("return [1, 2]")).await.unwrap();
    assert_eq!(array["type"], "array");
    let null = stack.act(eval("return null")).await.unwrap();
    assert_eq!(null["type"], "null");
    let node = stack
        .act(eval("return document.getElementById('para')"))
        .await
        .unwrap();
    assert_eq!(node["type"], "object");
    assert_eq!(node["description"], "p#para", "{node}");
    let func = stack.act(eval("return function named() {}")).await.unwrap();
    assert_eq!(func["type"], "function");
    assert!(
        func["description"].as_str().unwrap().contains("named"),
        "{func}"
    );
    let big = stack.act(eval("return 'x'.repeat(10000)")).await.unwrap();
    assert_eq!(big["truncated"], true);
    let preview = big["preview"].as_str().unwrap();
    assert!(
        preview.starts_with("\"xxx") && preview.ends_with("…[truncated 1810 chars]"),
        "{preview}"
    );

    let thrown = stack
        .act(eval("throw new Error('boom')"))
        .await
        .unwrap_err();
    assert_eq!(thrown.code, "invalid_action", "{thrown}");
    assert!(thrown.message.contains("boom"), "{thrown}");
    let typo = stack.act(eval("return documnet.title")).await.unwrap_err();
    assert_eq!(typo.code, "invalid_action");
    assert!(typo.message.contains("documnet is not defined"), "{typo}");

    // Dialogs during evaluate are answered automatically: the call does not hang.
    let alert = stack
        .act(eval("alert('hi'); return 'after alert'"))
        .await
        .expect("alert does not hang");
    assert_eq!(alert["value"], "after alert");
    let confirm = stack
        .act(eval("return confirm('sure?')"))
        .await
        .expect("confirm");
    assert_eq!(confirm["value"], false, "confirm is dismissed");
    let prompt = stack
        .act(eval("return prompt('name?')"))
        .await
        .expect("prompt");
    assert_eq!(prompt["type"], "null", "prompt is dismissed");

    // A user gesture is active (userGesture: true).
    let gesture = stack
        .act(eval("return navigator.userActivation.isActive"))
        .await
        .unwrap();
    assert_eq!(gesture["value"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webdriver_is_false_and_screenshots() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let webdriver = "return [navigator.webdriver, 'webdriver' in navigator]";
    assert_eq!(
        stack.eval(tab, webdriver).await.unwrap(),
        json!([false, true])
    );
    stack
        .open("second.html", Some(tab))
        .await
        .expect("navigate");
    assert_eq!(
        stack.eval(tab, webdriver).await.unwrap(),
        json!([false, true]),
        "in every new document"
    );
    let in_frame = "const f = document.createElement('iframe'); f.src = 'basic.html'; document.body.append(f); \
                    await new Promise((r) => f.onload = r); return f.contentWindow.navigator.webdriver";
    assert_eq!(
        stack.eval(tab, in_frame).await.unwrap(),
        false,
        "and in frames"
    );

    let png = stack
        .act(json!({ "action": "screenshot", "tabId": tab }))
        .await
        .expect("png");
    assert_eq!(png["mimeType"], "image/png");
    let (w, h) = (
        png["width"].as_u64().unwrap(),
        png["height"].as_u64().unwrap(),
    );
    assert!(w > 100 && h > 100, "{w}x{h}");
    assert!(
        png["data"].as_str().unwrap().starts_with("iVBORw0KGgo"),
        "base64 PNG"
    );
    let jpeg = stack
        .act(json!({ "action": "screenshot", "tabId": tab, "format": "jpeg", "quality": 50 }))
        .await
        .expect("jpeg");
    assert_eq!(jpeg["mimeType"], "image/jpeg");
    assert_eq!(
        (
            jpeg["width"].as_u64().unwrap(),
            jpeg["height"].as_u64().unwrap()
        ),
        (w, h)
    );

    stack
        .open("scroll.html", Some(tab))
        .await
        .expect("tall page");
    let full = stack
        .act(json!({ "action": "screenshot", "tabId": tab, "fullPage": true }))
        .await
        .expect("full page");
    assert!(
        full["height"].as_u64().unwrap() >= 5000,
        "{}",
        full["height"]
    );
}

/// Figure for the report: median round trip of `evaluate` `return 1` through
/// `/v1/act` over 200 calls (printed, not asserted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_round_trip_figure() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let evaluate = json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" });
    let (median, p95) = round_trips(&stack, &evaluate, |r| assert_eq!(r["value"], 1)).await;
    // For comparison: an action with no CDP call (chrome.tabs.query only).
    let list = json!({ "action": "list_tabs" });
    let (list_median, _) = round_trips(&stack, &list, |r| assert!(r["tabs"].is_array())).await;
    eprintln!(
        "FIGURE evaluate `return 1` via /v1/act over 200 calls: median {median:.2} ms, p95 {p95:.2} ms \
         (list_tabs median {list_median:.2} ms); chromium start → ack {} ms",
        stack.ack_ms
    );
}

/// Median and p95 (ms) of 200 sequential calls of `action`.
async fn round_trips(
    stack: &Stack,
    action: &serde_json::Value,
    check: impl Fn(&serde_json::Value),
) -> (f64, f64) {
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        let start = Instant::now();
        let r = stack.act(action.clone()).await.expect("act");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        check(&r);
    }
    times.sort_by(f64::total_cmp);
    (times[100], times[190])
}

/// A script that never finishes is terminated at the §7 limit and answers
/// `timeout` saying what to do; the page is usable afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_script_answers_timeout() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let started = Instant::now();
    let e = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "while (true) {}" }))
        .await
        .unwrap_err();
    eprintln!(
        "endless script answered in {} ms: {e}",
        started.elapsed().as_millis()
    );
    assert_eq!(e.code, "timeout", "{e}");
    assert!(
        e.message.contains("still running after 10000 ms") && e.message.contains("wait_for"),
        "{e}"
    );
    assert_eq!(
        stack
            .eval(tab, "return document.title")
            .await
            .expect("usable after"),
        "Basic fixture"
    );
}
