//! End-to-end: `fill_form` (every kind of field in one call, the stop at the first
//! failure, submit) and `batch` (stopOnError, refused batches, its deadline) on
//! `fill/form.html` (PROTOCOL.md §5).

use std::time::Instant;

use browser_bridge_tests::harness::{Stack, uid_named, uid_of};
use serde_json::{Value, json};

/// The value `fill_form` reported for field `index`.
fn field(result: &Value, index: u64) -> Value {
    result["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["index"] == index)
        .map(|f| f["value"].clone())
        .unwrap_or_else(|| panic!("no field {index} in {result}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fill_form_sets_every_kind_of_field_and_submits() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("fill/form.html", None).await.expect("navigate");
    let page = stack.extract(tab).await;
    let name = uid_of(&page, "textbox", "Full name");
    let notes = uid_of(&page, "textbox", "Notes");
    let dark = uid_of(&page, "switch", "Dark mode");
    let send = uid_named(&page, "Send booking");

    let r = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "uid": name, "value": "Ada Lovelace" },                 // 0 text
            { "selector": "#email", "value": "ada@example.com" },     // 1 email
            { "selector": "#password", "value": "hunter2" },          // 2 password
            { "selector": "#message", "value": "Two lines\nof text" },// 3 textarea
            { "uid": notes, "value": "Window seat" },                 // 4 contenteditable
            { "selector": "#country", "value": "fr" },                // 5 select by value
            { "selector": "#plan", "value": "Premium plus" },         // 6 select by label
            { "selector": "#subscribe", "value": true },              // 7 checkbox on
            { "selector": "#remember", "value": false },              // 8 checkbox off
            { "selector": "#receipts", "value": true },               // 9 drawn checkbox
            { "selector": "#size-medium", "value": true },            // 10 radio
            { "uid": dark, "value": true },                           // 11 ARIA switch
            { "selector": "#date", "value": "2025-03-14" },           // 12 date
            { "selector": "#time", "value": "14:30" },                // 13 time
            { "selector": "#volume", "value": "9" },                  // 14 range
            { "selector": "#colour", "value": "#2a9d8f" },            // 15 color
            { "selector": "#subscribe", "value": true }               // 16 already on
        ], "submit": { "uid": send } }))
        .await
        .expect("fill_form");
    assert_eq!(r["action"], "fill_form", "{r}");
    assert_eq!(r["tabId"], tab, "{r}");
    assert_eq!(r["fields"].as_array().map(Vec::len), Some(17), "{r}");
    let expected = [
        json!("Ada Lovelace"),
        json!("ada@example.com"),
        json!("••••••••"),
        json!("Two lines\nof text"),
        json!("Window seat"),
        json!("fr"),
        json!("p2"),
        json!(true),
        json!(false),
        json!(true),
        json!(true),
        json!(true),
        json!("2025-03-14"),
        json!("14:30"),
        json!("9"),
        json!("#2a9d8f"),
        json!(true),
    ];
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(&field(&r, i as u64), want, "field {i}: {r}");
    }
    assert_eq!(r["submit"]["navigated"], false, "{r}");

    let out = stack
        .eval(tab, "return document.getElementById('out').textContent")
        .await
        .expect("out");
    assert_eq!(
        out,
        "sent | Ada Lovelace | ada@example.com | Two lines\nof text | Window seat | fr | p2 | \
         subscribe=true | remember=false | receipts=true | size=medium | dark=true | \
         2025-03-14 | 14:30 | volume=9 | #2a9d8f",
        "{r}"
    );
    // The page's own listeners saw each field change, once for the checkboxes.
    let seen = stack.eval(tab, "return window.__seen").await.expect("seen");
    for id in [
        "name", "message", "country", "plan", "date", "time", "volume", "colour",
    ] {
        let events = seen[id].as_array().cloned().unwrap_or_default();
        assert!(events.contains(&json!("input")), "{id}: {seen}");
    }
    assert_eq!(seen["subscribe"], json!(["input", "change"]), "{seen}");
    assert_eq!(
        stack.eval(tab, "return window.__sent").await.expect("sent"),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fill_form_stops_at_the_first_failure_naming_its_index() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("fill/form.html", None).await.expect("navigate");

    // A date in the wrong format: the field before it is filled, the one after not.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "selector": "#name", "value": "Ada" },
            { "selector": "#date", "value": "14/03/2025" },
            { "selector": "#message", "value": "never typed" }
        ], "submit": { "selector": "#send" } }))
        .await
        .expect_err("bad date");
    assert_eq!(e.code, "invalid_action", "{e}");
    assert!(e.message.starts_with("fields[1]: "), "{e}");
    assert!(e.message.contains("yyyy-mm-dd"), "{e}");
    assert!(e.message.contains("(fields[0] was filled)"), "{e}");
    let state = stack
        .eval(
            tab,
            "return [document.getElementById('name').value, document.getElementById('date').value, \
             document.getElementById('message').value, window.__sent]",
        )
        .await
        .expect("state");
    assert_eq!(
        state,
        json!(["Ada", "", "", 0]),
        "nothing after the failure ran"
    );

    // A disabled field: element_not_interactable at its index.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "selector": "#email", "value": "a@b.c" },
            { "selector": "#plan", "value": "Basic" },
            { "selector": "#locked", "value": "L-2" }
        ] }))
        .await
        .expect_err("disabled");
    assert_eq!(e.code, "element_not_interactable", "{e}");
    assert!(e.message.starts_with("fields[2]: "), "{e}");
    assert!(
        e.message.contains("(fields[0]..fields[1] were filled)"),
        "{e}"
    );

    // A value of the wrong kind: a boolean for a text field, text for a checkbox,
    // an option a select does not have, unchecking a radio.
    for (field, value, says) in [
        (
            json!({ "selector": "#name" }),
            json!(true),
            "takes text, not true",
        ),
        (
            json!({ "selector": "#subscribe" }),
            json!("yes"),
            "give true or false",
        ),
        (
            json!({ "selector": "#country" }),
            json!("Narnia"),
            "has no option",
        ),
        (
            json!({ "selector": "#size-small" }),
            json!(false),
            "checking another radio",
        ),
    ] {
        let mut field = field;
        field["value"] = value;
        let e = stack
            .act(json!({ "action": "fill_form", "tabId": tab, "fields": [field] }))
            .await
            .expect_err(says);
        assert_eq!(e.code, "invalid_action", "{e}");
        assert!(e.message.starts_with("fields[0]: "), "{e}");
        assert!(e.message.contains(says), "{e}");
    }

    // A target that is not there.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "selector": "#name", "value": "Grace" }, { "selector": "#nope", "value": "x" }
        ] }))
        .await
        .expect_err("missing");
    assert_eq!(e.code, "element_not_found", "{e}");
    assert!(e.message.starts_with("fields[1]: "), "{e}");

    // Bad input never reaches the page: the target rule names the field.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "selector": "#name", "uid": "e1", "value": "x" }
        ] }))
        .await
        .expect_err("both targets");
    assert_eq!((e.status, e.code.as_str()), (422, "invalid_request"), "{e}");
    assert!(e.message.starts_with("fill_form: fields[0]: "), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_runs_actions_in_order_and_stops_on_error_when_asked() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("fill/form.html", None).await.expect("navigate");
    let parts = json!([
        { "action": "type", "selector": "#name", "text": "Ada" },
        { "action": "click", "selector": "#nope" },
        { "action": "select_option", "selector": "#country", "values": ["Japan"] },
        { "action": "evaluate", "expression": "return document.getElementById('country').value" }
    ]);

    // stopOnError (the default): the entries end at the failure; nothing after it ran.
    let r = stack
        .act(json!({ "action": "batch", "tabId": tab, "actions": parts }))
        .await
        .expect("batch");
    assert_eq!(r["action"], "batch", "{r}");
    let results = r["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{r}");
    assert_eq!(results[0]["index"], 0);
    assert_eq!(results[0]["result"]["action"], "type");
    assert_eq!(results[0]["result"]["value"], "Ada");
    assert_eq!(results[1]["index"], 1);
    assert_eq!(results[1]["error"]["code"], "element_not_found", "{r}");
    assert!(results[1].get("result").is_none(), "{r}");
    let country = stack
        .eval(tab, "return document.getElementById('country').value")
        .await
        .expect("country");
    assert_eq!(country, "", "the select after the failure was not run");

    // stopOnError false: every action runs, one entry each.
    let r = stack
        .act(json!({ "action": "batch", "actions": parts, "stopOnError": false, "tabId": tab }))
        .await
        .expect("batch");
    let results = r["results"].as_array().expect("results");
    assert_eq!(results.len(), 4, "{r}");
    assert_eq!(results[1]["error"]["code"], "element_not_found", "{r}");
    assert_eq!(results[2]["result"]["selected"], json!(["jp"]), "{r}");
    assert_eq!(results[3]["result"]["value"], "jp", "{r}");

    // A fill_form and an extract in one batch, by the batch's tab.
    let r = stack
        .act(json!({ "action": "batch", "actions": [
            { "action": "fill_form", "fields": [{ "selector": "#subscribe", "value": true }] },
            { "action": "extract" }
        ] }))
        .await
        .expect("batch of fill_form and extract");
    assert_eq!(r["tabId"], tab, "{r}");
    assert_eq!(r["results"][0]["result"]["fields"][0]["value"], true, "{r}");
    assert_eq!(r["results"][1]["result"]["action"], "extract", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_refuses_bad_parts_nesting_and_two_tabs() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("fill/form.html", None).await.expect("navigate");
    let other = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("basic.html") }))
        .await
        .expect("open_tab")["tabId"]
        .as_i64()
        .expect("tabId");

    let cases = [
        (
            json!([{ "action": "extract", "tabId": tab }, { "action": "click" }]),
            "batch: actions[1]: click: give exactly one of uid or selector",
        ),
        (
            json!([{ "action": "batch", "actions": [{ "action": "extract" }] }]),
            "batch: actions[0]: a batch cannot hold another batch",
        ),
        (
            json!([{ "action": "extract", "tabId": tab }, { "action": "extract", "tabId": other }]),
            "batch: actions[1]: tabId",
        ),
        (
            json!([{ "action": "open_tab", "url": "https://a.test/" }]),
            "batch: actions[0]: open_tab cannot be part of a batch",
        ),
        (json!([]), "batch: actions must hold 1 to 10"),
    ];
    for (actions, says) in cases {
        let e = stack
            .act(json!({ "action": "batch", "tabId": tab, "actions": actions }))
            .await
            .expect_err(says);
        assert_eq!((e.status, e.code.as_str()), (422, "invalid_request"), "{e}");
        assert!(e.message.starts_with(says), "{says}: {e}");
    }
    // Nothing ran: the page is as loaded.
    let r = stack
        .act(json!({ "action": "batch", "tabId": other, "actions": [{ "action": "extract" }] }))
        .await
        .expect("batch on the other tab");
    assert_eq!(r["tabId"], other, "{r}");
}

/// A batch's deadline is the sum of its parts': two evaluates of 8 s each take
/// longer than one action's 15 s, and both answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_deadline_is_the_sum_of_its_parts() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("fill/form.html", None).await.expect("navigate");
    let sleep = json!({ "action": "evaluate",
        "expression": "await new Promise((r) => setTimeout(r, 8000)); return 'slept'" });
    let started = Instant::now();
    let r = stack
        .act(json!({ "action": "batch", "tabId": tab, "actions": [sleep, sleep] }))
        .await
        .expect("batch of two slow evaluates");
    assert!(started.elapsed().as_secs() >= 16, "{:?}", started.elapsed());
    let results = r["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{r}");
    for entry in results {
        assert_eq!(entry["result"]["value"], "slept", "{r}");
    }
}

/// A submit that navigates reports it as `click` does; a custom combobox takes an
/// option's label, and an autocomplete combobox input takes text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fill_form_submits_across_a_navigation_and_fills_custom_comboboxes() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("fill/effects.html", None)
        .await
        .expect("navigate");
    let r = stack
        .act(json!({ "action": "fill_form", "tabId": tab,
            "fields": [{ "selector": "#q", "value": "rust wasm" }],
            "submit": { "selector": "#search" } }))
        .await
        .expect("fill_form with a navigating submit");
    assert_eq!(field(&r, 0), "rust wasm", "{r}");
    assert_eq!(r["submit"]["navigated"], true, "{r}");
    let url = r["submit"]["url"].as_str().expect("url");
    assert!(url.ends_with("/submitted.html?q=rust+wasm"), "{r}");

    stack
        .open("controls/aria-combobox.html", Some(tab))
        .await
        .expect("navigate");
    let page = stack.extract(tab).await;
    let prio = uid_of(&page, "combobox", "Priority");
    let assignee = uid_of(&page, "combobox", "Assignee");
    let r = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "uid": prio, "value": "High" },
            { "uid": assignee, "value": "Grace" }
        ] }))
        .await
        .expect("fill_form on comboboxes");
    assert_eq!(field(&r, 0), "High", "{r}");
    assert_eq!(field(&r, 1), "Grace", "{r}");
    let state = stack
        .eval(tab, "return window.__state")
        .await
        .expect("state");
    assert_eq!(state["prio"], "high", "{state}");
}

/// A dialog a field's handler opens ends fill_form naming the field and the
/// dialog; a batch can answer the dialog its click opened and go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_end_fill_form_and_a_batch_can_answer_them() {
    let stack = Stack::start().await.expect("stack");
    // With no session, a batch that starts with navigate opens its tab.
    let r = stack
        .act(json!({ "action": "batch", "actions": [
            { "action": "navigate", "url": stack.fixtures.url("fill/effects.html") },
            { "action": "evaluate", "expression": "return document.title" }
        ] }))
        .await
        .expect("batch opening its tab");
    let tab = r["tabId"].as_i64().expect("tabId");
    assert_eq!(
        r["results"][1]["result"]["value"], "Form side effects",
        "{r}"
    );

    // The checkbox's change handler alerts: the click happened, the form stops there.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab, "fields": [
            { "selector": "#nick", "value": "ada" },
            { "selector": "#agree", "value": true },
            { "selector": "#nick", "value": "never" }
        ] }))
        .await
        .expect_err("alert from the checkbox");
    assert_eq!(e.code, "invalid_action", "{e}");
    assert!(e.message.starts_with("fields[1]: "), "{e}");
    assert!(e.message.contains("Terms accepted"), "{e}");
    assert!(e.message.contains("handle_dialog"), "{e}");
    assert!(e.message.contains("extract before retrying"), "{e}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    let nick = stack
        .eval(tab, "return document.getElementById('nick').value")
        .await
        .expect("nick");
    assert_eq!(nick, "ada", "the field after the dialog was not filled");

    // The text field's input handler alerts while it is typed into.
    let e = stack
        .act(json!({ "action": "fill_form", "tabId": tab,
            "fields": [{ "selector": "#nick", "value": "boom" }] }))
        .await
        .expect_err("alert from the text field");
    assert_eq!(e.code, "invalid_action", "{e}");
    assert!(e.message.starts_with("fields[0]: "), "{e}");
    assert!(e.message.contains("Nickname taken"), "{e}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");

    // In a batch: the click reports its alert, handle_dialog answers it, the
    // page goes on, all under the batch's one lock.
    let r = stack
        .act(json!({ "action": "batch", "tabId": tab, "actions": [
            { "action": "click", "selector": "#ping" },
            { "action": "handle_dialog", "accept": true },
            { "action": "evaluate", "expression": "return window.__after" }
        ] }))
        .await
        .expect("batch with a dialog");
    let results = r["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{r}");
    assert_eq!(results[0]["result"]["dialog"]["message"], "Pong", "{r}");
    assert_eq!(results[1]["result"]["dialogType"], "alert", "{r}");
    assert_eq!(results[2]["result"]["value"], 1, "{r}");
}
