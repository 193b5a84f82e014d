//! End-to-end: trusted input (PROTOCOL.md §5) on fixture pages: click with hit
//! testing, shadow DOM, hover, press_key, type (plain, contenteditable,
//! React-style controlled), select_option, scroll, upload_file.

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn click_hover_and_keys_are_trusted() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("input.html", None).await.expect("navigate");

    let r = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#btn" }))
        .await
        .expect("click");
    assert_eq!(
        (r["action"].clone(), r["navigated"].clone()),
        (json!("click"), json!(false))
    );
    assert_eq!(r["url"], stack.fixtures.url("input.html"));
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('clicks').textContent")
            .await
            .unwrap(),
        "1"
    );
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('trusted').textContent")
            .await
            .unwrap(),
        "true"
    );

    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#btn", "clickCount": 2 }))
        .await
        .expect("double click");
    assert_eq!(
        stack
            .eval(
                tab,
                "return document.getElementById('dblclicks').textContent"
            )
            .await
            .unwrap(),
        "1"
    );

    // A button inside an open shadow root, found by the shadow fallback.
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#shadow-btn" }))
        .await
        .expect("shadow click");
    assert_eq!(
        stack
            .eval(
                tab,
                "return document.getElementById('shadow-clicks').textContent"
            )
            .await
            .unwrap(),
        "1 trusted"
    );

    let missing = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#nope" }))
        .await
        .unwrap_err();
    assert_eq!(missing.code, "element_not_found", "{missing}");

    let covered = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#covered" }))
        .await
        .unwrap_err();
    assert_eq!(covered.code, "element_not_interactable", "{covered}");
    assert!(
        covered.message.contains("div#overlay"),
        "names the cover: {covered}"
    );
    assert_ne!(
        stack.eval(tab, "return document.title").await.unwrap(),
        "covered clicked"
    );

    let hidden = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#hidden-btn" }))
        .await
        .unwrap_err();
    assert_eq!(hidden.code, "element_not_interactable", "{hidden}");
    let disabled = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#disabled-btn" }))
        .await
        .unwrap_err();
    assert_eq!(disabled.code, "element_not_interactable", "{disabled}");
    assert!(disabled.message.contains("disabled"), "{disabled}");

    let bad = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#a[" }))
        .await
        .unwrap_err();
    assert_eq!(bad.code, "invalid_request", "{bad}");

    let hover = stack
        .act(json!({ "action": "hover", "tabId": tab, "selector": "#hover-target" }))
        .await
        .expect("hover");
    assert_eq!(hover["tabId"], tab);
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('hovered').textContent")
            .await
            .unwrap(),
        "yes true"
    );

    for key in ["a", "Escape", "ArrowDown", "Enter"] {
        stack
            .act(json!({ "action": "press_key", "tabId": tab, "key": key }))
            .await
            .expect("press_key");
    }
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('keys').textContent")
            .await
            .unwrap(),
        "a,Escape,ArrowDown,Enter,"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_replaces_appends_and_drives_controlled_inputs() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("forms.html", None).await.expect("navigate");
    let typed = |selector: &str, text: &str, clear: Option<bool>| {
        let mut a = json!({ "action": "type", "tabId": tab, "selector": selector, "text": text });
        if let Some(c) = clear {
            a["clear"] = c.into();
        }
        a
    };
    let r = stack.act(typed("#name", "Ada", None)).await.expect("type");
    assert_eq!(r["value"], "Ada", "replaces `initial` by default");
    let r = stack
        .act(typed("#name", " Lovelace", Some(false)))
        .await
        .expect("append");
    assert_eq!(r["value"], "Ada Lovelace");
    let r = stack.act(typed("#name", "", None)).await.expect("clear");
    assert_eq!(r["value"], "");

    let r = stack
        .act(typed("#notes", "line one", None))
        .await
        .expect("textarea");
    assert_eq!(r["value"], "line one");
    let r = stack
        .act(typed("#editor", "new text", None))
        .await
        .expect("contenteditable");
    assert_eq!(r["value"], "new text");

    // React-style: state only follows trusted input events; the DOM is re-rendered from it.
    let r = stack
        .act(typed("#controlled", "hello react", None))
        .await
        .expect("controlled");
    assert_eq!(r["value"], "hello react");
    let mirror = stack
        .eval(
            tab,
            "await new Promise((r) => setTimeout(r, 120)); \
             return [document.getElementById('mirror').textContent, document.getElementById('controlled').value]",
        )
        .await
        .unwrap();
    assert_eq!(mirror, json!(["hello react", "hello react"]));

    let not_editable = stack.act(typed("#plain", "x", None)).await.unwrap_err();
    assert_eq!(not_editable.code, "invalid_action", "{not_editable}");
    let readonly = stack.act(typed("#readonly", "x", None)).await.unwrap_err();
    assert_eq!(readonly.code, "invalid_action", "{readonly}");

    // submit presses Enter: the form is submitted and the page changes.
    let mut submit = typed("#search", "rust wasm", None);
    submit["submit"] = true.into();
    stack.act(submit).await.expect("type + submit");
    let query = stack
        .eval(
            tab,
            "for (let i = 0; i < 50 && location.pathname !== '/submitted.html'; i++) \
             await new Promise((r) => setTimeout(r, 100)); return location.search",
        )
        .await
        .unwrap();
    assert!(query.as_str().unwrap().contains("q=rust+wasm"), "{query}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_scroll_and_upload() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("forms.html", None).await.expect("navigate");
    let select = |selector: &str, values: &[&str]| json!({ "action": "select_option", "tabId": tab, "selector": selector, "values": values });

    let by_value = stack.act(select("#color", &["g"])).await.expect("by value");
    assert_eq!(by_value["selected"], json!(["g"]));
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('changed').textContent")
            .await
            .unwrap(),
        "change:g"
    );
    let by_label = stack
        .act(select("#color", &["Blue"]))
        .await
        .expect("by label");
    assert_eq!(by_label["selected"], json!(["b"]));
    let multi = stack
        .act(select("#many", &["1", "Three"]))
        .await
        .expect("multiple");
    assert_eq!(multi["selected"], json!(["1", "3"]));
    let missing = stack.act(select("#color", &["Purple"])).await.unwrap_err();
    assert_eq!(missing.code, "invalid_action", "{missing}");
    assert!(missing.message.contains("Purple"), "{missing}");
    let not_select = stack.act(select("#name", &["x"])).await.unwrap_err();
    assert_eq!(not_select.code, "invalid_action", "{not_select}");

    let dir = browser_bridge_tests::chromium::TempDir::new("upload").unwrap();
    let (a, b) = (dir.path().join("report.txt"), dir.path().join("data.csv"));
    std::fs::write(&a, "hello").unwrap();
    std::fs::write(&b, "1,2").unwrap();
    let paths = [a.to_str().unwrap(), b.to_str().unwrap()];
    let up = stack
        .act(json!({ "action": "upload_file", "tabId": tab, "selector": "#file", "paths": paths }))
        .await
        .expect("upload_file");
    assert_eq!(up["files"], json!(["report.txt", "data.csv"]));
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('file').files[0].size")
            .await
            .unwrap(),
        5
    );
    let not_file = stack
        .act(json!({ "action": "upload_file", "tabId": tab, "selector": "#name", "paths": ["/tmp/x"] }))
        .await
        .unwrap_err();
    assert_eq!(not_file.code, "invalid_action", "{not_file}");
    let missing_path = dir.path().join("does-not-exist.txt");
    let missing = stack
        .act(json!({ "action": "upload_file", "tabId": tab, "selector": "#file", "paths": [missing_path.to_str().unwrap()] }))
        .await
        .unwrap_err();
    assert_eq!(missing.code, "invalid_action", "{missing}");
    assert!(missing.message.contains("does-not-exist.txt"), "{missing}");

    let tab = stack
        .open("scroll.html", Some(tab))
        .await
        .expect("navigate scroll");
    let scroll = |direction: &str, amount: Option<f64>| {
        let mut a = json!({ "action": "scroll", "tabId": tab, "direction": direction });
        if let Some(px) = amount {
            a["amount"] = px.into();
        }
        a
    };
    let down = stack
        .act(scroll("down", Some(700.0)))
        .await
        .expect("scroll");
    assert_eq!(
        (down["scrollX"].as_f64(), down["scrollY"].as_f64()),
        (Some(0.0), Some(700.0))
    );
    let page = stack.act(scroll("down", None)).await.expect("one viewport");
    let inner_height = stack
        .eval(tab, "return innerHeight")
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert_eq!(page["scrollY"].as_f64().unwrap(), 700.0 + inner_height);
    let right = stack.act(scroll("right", Some(50.0))).await.expect("right");
    assert_eq!(right["scrollX"].as_f64(), Some(50.0));
    let mut boxed = scroll("down", Some(120.0));
    boxed["selector"] = "#box".into();
    let boxed = stack.act(boxed).await.expect("container");
    assert_eq!(boxed["scrollY"].as_f64(), Some(120.0));
    let page_y = stack
        .eval(tab, "return scrollY")
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    assert_eq!(page_y, 700.0 + inner_height, "the page did not move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uids_from_extract_resolve_then_go_stale() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("input.html", None).await.expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let uid = uid_of(&page, "button", "Click me");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .expect("click by uid");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('clicks').textContent")
            .await
            .unwrap(),
        "1"
    );

    let never = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": "e9999" }))
        .await
        .unwrap_err();
    assert_eq!(never.code, "element_not_found", "{never}");
    stack
        .act(json!({ "action": "reload", "tabId": tab }))
        .await
        .expect("reload");
    let stale = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .unwrap_err();
    assert_eq!(stale.code, "element_stale", "{stale}");
}

/// A uid whose node the page removed is `element_stale` (§6), even while page JS
/// still holds the node, and `wait_for {state: "detached"}` holds at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removed_element_is_stale_and_detached() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("input.html", None).await.expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let uid = uid_of(&page, "button", "Click me");
    // Kept alive by page JS, as a framework's node cache would.
    stack
        .eval(
            tab,
            "window.kept = document.getElementById('btn'); window.kept.remove(); return 1",
        )
        .await
        .expect("remove the button");
    for action in ["click", "hover"] {
        let e = stack
            .act(json!({ "action": action, "tabId": tab, "uid": uid }))
            .await
            .unwrap_err();
        assert_eq!(e.code, "element_stale", "{action}: {e}");
        assert!(e.message.contains("removed from the page"), "{e}");
    }
    let waited = stack
        .act(json!({ "action": "wait_for", "tabId": tab, "uid": uid, "state": "detached", "timeoutMs": 3000 }))
        .await
        .expect("a removed node is detached");
    assert!(waited["elapsedMs"].as_u64().is_some(), "{waited}");
    // Put back, the same node is usable again.
    stack
        .eval(tab, "document.body.prepend(window.kept); return 1")
        .await
        .expect("re-insert");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .expect("click after re-insertion");
}

/// A full-page screenshot of a tab in the (minimized) agent window, then clicks:
/// the capture's window handling must leave input working (it used to leave the
/// page hidden, every `Input.dispatchMouseEvent` then taking ~5 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn click_after_full_page_screenshot() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("input.html", None).await.expect("navigate");
    let started = std::time::Instant::now();
    let shot = stack
        .act(json!({ "action": "screenshot", "tabId": tab, "fullPage": true }))
        .await
        .expect("screenshot");
    eprintln!("full-page screenshot: {} ms", started.elapsed().as_millis());
    assert!(shot["width"].as_u64().unwrap_or(0) > 0, "{}", shot["width"]);
    for n in 1..=3 {
        let started = std::time::Instant::now();
        stack
            .act(json!({ "action": "click", "tabId": tab, "selector": "#btn" }))
            .await
            .expect("click after screenshot");
        eprintln!(
            "click {n} after a full-page screenshot: {} ms",
            started.elapsed().as_millis()
        );
        assert_eq!(
            stack
                .eval(tab, "return document.getElementById('clicks').textContent")
                .await
                .unwrap(),
            n.to_string()
        );
    }
    let visibility = stack
        .eval(tab, "return document.visibilityState")
        .await
        .unwrap();
    eprintln!("visibilityState after the screenshot: {visibility}");
}

/// Error messages read as English (`an input`) and echo a user's selector capped
/// at 200 chars with `…`, not in full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_messages_are_grammatical_and_capped() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("forms.html", None).await.expect("navigate");
    let e = stack
        .act(json!({ "action": "select_option", "tabId": tab, "selector": "#name", "values": ["x"] }))
        .await
        .unwrap_err();
    assert!(e.message.contains("#name is an input"), "{e}");

    let long = format!("#{}", "a".repeat(5_000));
    let e = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": long }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "element_not_found", "{e}");
    assert!(
        e.message.contains(&format!("\"#{}…\"", "a".repeat(199))),
        "{e}"
    );
    assert!(e.message.len() < 400, "{} chars: {e}", e.message.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn press_key_rejects_unknown_key_names() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("input.html", None).await.expect("navigate");
    let unknown = stack
        .act(json!({ "action": "press_key", "tabId": tab, "key": "NotAKey" }))
        .await
        .unwrap_err();
    assert_eq!(unknown.code, "invalid_action", "{unknown}");
    assert!(unknown.message.contains("\"NotAKey\""), "{unknown}");
    assert!(unknown.message.contains("KeyboardEvent.key"), "{unknown}");

    // Single characters (letters, digits, punctuation) and named keys still go through.
    // Lone modifiers, locks and other key values too.
    for key in [
        "Z", "7", "?", "Tab", "Home", "Shift", "Control", "Alt", "Meta", "CapsLock", "Insert",
        "F13",
    ] {
        stack
            .act(json!({ "action": "press_key", "tabId": tab, "key": key }))
            .await
            .unwrap_or_else(|e| panic!("press_key {key}: {e}"));
    }
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('keys').textContent")
            .await
            .unwrap(),
        "Z,7,?,Tab,Home,Shift,Control,Alt,Meta,CapsLock,Insert,F13,",
        "the unknown key dispatched nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_that_types_nothing_is_an_error() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("typing-refused.html", None).await.expect("open");
    let type_into = |selector: &str| json!({ "action": "type", "tabId": tab, "selector": selector, "text": "hello" });
    for (selector, why) in [
        ("#disables", "became disabled"),
        ("#readonly", "became read-only"),
        ("#moves", "focus moved to input#elsewhere"),
        ("#editor", "became read-only"),
        ("#refuses", "stayed \"fixed\""),
    ] {
        let e = stack.act(type_into(selector)).await.unwrap_err();
        assert_eq!(e.code, "element_not_interactable", "{selector}: {e}");
        assert!(e.message.contains("nothing was typed"), "{selector}: {e}");
        assert!(e.message.contains(why), "{selector}: {e}");
    }
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('elsewhere').value")
            .await
            .unwrap(),
        ""
    );
    let ok = stack.act(type_into("#plain")).await.expect("plain field");
    assert_eq!(ok["value"], "hello");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keystrokes_type_key_by_key() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("keystrokes.html", None).await.expect("open");
    // Not a text control: key presses by themselves, Enter for the line break.
    stack
        .act(json!({ "action": "type", "tabId": tab, "selector": "#term", "text": "ls -la\nwhoami" }))
        .await
        .expect("type into the terminal");
    assert_eq!(
        stack
            .eval(tab, "return [document.getElementById('ran').textContent, document.getElementById('line').textContent]")
            .await
            .unwrap(),
        json!(["$ ls -la\n", "whoami"])
    );
    // keystrokes:true in a text field: a keyup per character, the same value.
    let r = stack
        .act(json!({ "action": "type", "tabId": tab, "selector": "#search", "text": "Oslo", "keystrokes": true }))
        .await
        .expect("type key by key");
    assert_eq!(r["value"], "Oslo");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('keyups').textContent")
            .await
            .unwrap(),
        "4"
    );
    // Without it, one insertion and no key events.
    let r = stack
        .act(json!({ "action": "type", "tabId": tab, "selector": "#search", "text": "Bergen" }))
        .await
        .expect("type");
    assert_eq!(r["value"], "Bergen");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('keyups').textContent")
            .await
            .unwrap(),
        "4"
    );
    let e = stack
        .act(json!({ "action": "type", "tabId": tab, "selector": "#static", "text": "x" }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "invalid_action", "{e}");
    assert!(e.message.contains("keyboard focus"), "{e}");
    assert_eq!(
        stack
            .eval(tab, "return document.activeElement.id")
            .await
            .unwrap(),
        "search"
    );
}
