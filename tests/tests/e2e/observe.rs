//! End-to-end: observed actions and `extract {since: "last"}` (PROTOCOL.md §5
//! "Observed actions", §6 "Changes") through `POST /v1/act`, the real extension,
//! real pages: what appeared, disappeared and changed since the tab's last extract.

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::{Value, json};

/// The uids of a `changes` part (`added`, `changed`: elements; `removed`: uids).
fn uids(changes: &Value, part: &str) -> Vec<String> {
    changes[part]
        .as_array()
        .unwrap_or_else(|| panic!("changes.{part} is a list: {changes}"))
        .iter()
        .map(|e| e["uid"].as_str().or(e.as_str()).unwrap().to_owned())
        .collect()
}

/// The element of a `changes` part whose name starts with `name` (a control
/// inside its `<label>` may add its own text to it).
fn named<'a>(changes: &'a Value, part: &str, name: &str) -> &'a Value {
    changes[part]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no {name:?} in changes.{part}: {changes}"))
}

/// The uid of the element of `page` with `role` whose name starts with `name`.
fn uid_starting(page: &Value, role: &str, name: &str) -> String {
    page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["role"] == role && e["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .and_then(|e| e["uid"].as_str())
        .unwrap_or_else(|| panic!("no {role} {name:?}: {}", page["elements"]))
        .to_owned()
}

fn texts(changes: &Value) -> Vec<String> {
    changes["text"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_that_shows_an_error_answers_the_message_the_new_link_and_the_disabled_button() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("observe/error.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let submit = uid_of(&page, "button", "Sign in");

    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": submit, "observe": true}))
        .await
        .expect("click");
    assert_eq!(clicked["navigated"], false, "{clicked}");
    let changes = &clicked["changes"];
    assert_eq!(changes["navigated"], false, "{changes}");
    assert!(
        texts(changes).contains(&"Enter the email address of your account.".to_owned()),
        "{changes}"
    );
    assert_eq!(
        named(changes, "added", "Reset your password")["role"],
        "link"
    );
    assert_eq!(named(changes, "changed", "Sign in")["disabled"], true);
    assert!(
        changes["removed"].as_array().unwrap().is_empty(),
        "{changes}"
    );
    assert!(changes.get("url").is_none() && changes.get("title").is_none());

    // The observation is the new baseline: nothing changed since.
    let since = stack
        .act(json!({"action": "extract", "tabId": tab, "since": "last"}))
        .await
        .expect("extract since");
    let changes = &since["changes"];
    assert!(uids(changes, "added").is_empty(), "{since}");
    assert!(texts(changes).is_empty(), "{since}");
    assert_eq!(since["markdown"], "", "{since}");

    // Without `observe` (the HTTP default) the result is as before.
    let email = uid_of(&page, "textbox", "Email");
    let plain = stack
        .act(json!({"action": "type", "tabId": tab, "uid": email, "text": "ada@example.test"}))
        .await
        .expect("plain type");
    assert!(plain.get("changes").is_none(), "{plain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_replaced_by_a_confirmation_answers_the_removed_controls_and_the_new_text() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("observe/confirm.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let message = uid_starting(&page, "textbox", "Your message");
    let send = uid_of(&page, "button", "Send message");

    let typed = stack
        .act(json!({"action": "type", "tabId": tab, "uid": message, "text": "Hello", "observe": true}))
        .await
        .expect("type");
    assert_eq!(
        named(&typed["changes"], "changed", "Your message")["value"],
        "Hello"
    );

    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": send, "observe": true}))
        .await
        .expect("click");
    let changes = &clicked["changes"];
    assert!(changes.is_object(), "{clicked}");
    let mut removed = uids(changes, "removed");
    removed.sort();
    let mut expected = vec![message.clone(), send.clone()];
    expected.sort();
    assert_eq!(removed, expected, "{changes}");
    assert!(
        texts(changes)
            .iter()
            .any(|t| t.contains("your message was sent. Reference: MSG-4821")),
        "{changes}"
    );
    assert_eq!(
        named(changes, "added", "Write another message")["role"],
        "button"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_select_and_check_answer_the_changed_values_and_the_control_they_enable() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("observe/controls.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let name = uid_starting(&page, "textbox", "Display name");
    let language = uid_starting(&page, "combobox", "Language");
    let news = uid_starting(&page, "checkbox", "Send me the newsletter");

    let typed = stack
        .act(json!({"action": "type", "tabId": tab, "uid": name, "text": "Grace", "observe": true}))
        .await
        .expect("type");
    let changes = &typed["changes"];
    assert_eq!(uids(changes, "changed"), [name], "{changes}");
    assert_eq!(named(changes, "changed", "Display name")["value"], "Grace");

    let selected = stack
        .act(json!({"action": "select_option", "tabId": tab, "uid": language, "values": ["Deutsch"], "observe": true}))
        .await
        .expect("select");
    let changes = &selected["changes"];
    assert_eq!(uids(changes, "changed"), [language], "{changes}");
    assert_eq!(named(changes, "changed", "Language")["value"], "Deutsch");

    let checked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": news, "observe": true}))
        .await
        .expect("check");
    let changes = &checked["changes"];
    assert_eq!(
        named(changes, "changed", "Send me the newsletter")["checked"],
        "true"
    );
    // The dependent select was enabled: `disabled` is gone from it.
    let frequency = named(changes, "changed", "Frequency");
    assert!(frequency.get("disabled").is_none(), "{changes}");
    assert!(uids(changes, "added").is_empty() && texts(changes).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_after_a_pushstate_route_change_answers_the_new_view_not_the_whole_page() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("observe/route.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let orders = uid_of(&page, "link", "Orders");
    let start = uid_of(&page, "button", "Start a new order");

    // A plain click (no observe): the baseline stays the extract above.
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": orders}))
        .await
        .expect("click");
    let since = stack
        .act(json!({"action": "extract", "tabId": tab, "since": "last"}))
        .await
        .expect("extract since");
    let changes = &since["changes"];
    assert_eq!(changes["navigated"], false, "{since}");
    assert!(
        changes["url"]
            .as_str()
            .unwrap()
            .ends_with("route.html?view=orders"),
        "{changes}"
    );
    assert_eq!(changes["title"], "Shop · Orders");
    let new_text = texts(changes);
    for line in [
        "# Orders",
        "Order 1042 ships on Friday.",
        "Order 1043 is waiting for payment.",
    ] {
        assert!(new_text.iter().any(|t| t == line), "{line:?}: {changes}");
    }
    assert!(
        !new_text.iter().any(|t| t.contains("Welcome back")),
        "only what is new: {changes}"
    );
    assert_eq!(uids(changes, "removed"), [start], "{changes}");
    named(changes, "added", "Pay order 1043");
    assert!(
        changes["added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["role"] == "textbox"),
        "the filter field: {changes}"
    );
    // The nav links kept their uids: not listed at all.
    assert!(!uids(changes, "added").contains(&orders), "{changes}");
    assert_eq!(since["markdown"], "");
    assert!(since["elements"].as_array().unwrap().is_empty());

    // Back through the same document: an observed go_back is a diff too.
    let back = stack
        .act(json!({"action": "go_back", "tabId": tab, "observe": true}))
        .await
        .expect("go_back");
    let changes = &back["changes"];
    assert_eq!(changes["navigated"], false, "{back}");
    assert_eq!(changes["title"], "Shop · Overview");
    named(changes, "added", "Start a new order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_navigation_answers_navigated_and_since_then_reads_the_page_in_full() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let link = uid_of(&page, "link", "Second page");

    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": link, "observe": true}))
        .await
        .expect("click");
    assert_eq!(clicked["navigated"], true, "{clicked}");
    let changes = &clicked["changes"];
    assert_eq!(changes["navigated"], true, "{clicked}");
    assert!(
        changes["url"].as_str().unwrap().ends_with("second.html"),
        "{changes}"
    );
    assert!(
        uids(changes, "added").is_empty(),
        "no element diff: {changes}"
    );

    let since = stack
        .act(json!({"action": "extract", "tabId": tab, "since": "last"}))
        .await
        .expect("extract since");
    assert!(since.get("changes").is_none(), "a full extract: {since}");
    assert!(!since["markdown"].as_str().unwrap().is_empty(), "{since}");

    let reloaded = stack
        .act(json!({"action": "navigate", "tabId": tab, "url": stack.fixtures.url("basic.html"), "observe": true}))
        .await
        .expect("navigate");
    let changes = &reloaded["changes"];
    assert_eq!(changes["navigated"], true, "{reloaded}");
    assert_eq!(changes["title"], reloaded["title"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_past_4_kb_are_cut_and_say_what_they_left_out() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("observe/many.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let load = uid_of(&page, "button", "Load all products");

    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": load, "observe": true}))
        .await
        .expect("click");
    let changes = &clicked["changes"];
    let size = serde_json::to_string(changes).unwrap().len();
    assert!(size <= 4096, "{size} bytes: {changes}");
    let omitted = &changes["omitted"];
    assert!(omitted.is_object(), "{changes}");
    let added = uids(changes, "added").len() as u64 + omitted["added"].as_u64().unwrap_or(0);
    // 150 buttons appeared; the extract lists at most 200 elements in all.
    assert!(added >= 149, "{changes}");
    let first = named(changes, "added", "Add product 1 to the cart");
    assert_eq!(first["role"], "button");
    assert!(omitted["text"].as_u64().unwrap_or(0) > 0, "{changes}");
    let text = texts(changes);
    assert!(
        text.first()
            .is_some_and(|t| t.contains("Product number 1:")),
        "the first blocks are kept: {changes}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elements_past_the_cap_are_not_reported_removed() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("observe/cap.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let add = uid_of(&page, "button", "Add 300 rows");
    let save = uid_of(&page, "button", "Save");
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": add}))
        .await
        .expect("click add");
    let full = stack.extract(tab).await;
    assert_eq!(full["truncated"]["elements"], true, "{}", full["truncated"]);

    // Five buttons are inserted before the rows: the rows at the end of the list
    // fall past the cap, but every one of them is still on the page.
    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": save, "observe": true}))
        .await
        .expect("click save");
    let changes = &clicked["changes"];
    assert_eq!(changes["navigated"], false, "{changes}");
    assert!(uids(changes, "removed").is_empty(), "{changes}");
    assert!(changes["omitted"]["removed"].is_null(), "{changes}");
    named(changes, "added", "Extra 1");
    assert!(
        texts(changes).iter().any(|t| t.contains("Saved 300 rows.")),
        "{changes}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_that_opens_a_modal_dialog_answers_its_question() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/modal.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let delete = uid_of(&page, "button", "Delete report.pdf");
    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "uid": delete, "observe": true}))
        .await
        .expect("click");
    let changes = &clicked["changes"];
    let text = texts(changes);
    assert!(
        text.iter()
            .any(|t| t.contains("Are you sure you want to delete report.pdf?")),
        "{changes}"
    );
    assert!(text.iter().any(|t| t.contains("inert")), "{changes}");
    named(changes, "added", "Cancel");
}

/// A field's value is in the markdown (fenced, where the field is) and on its
/// element line: the changes say it once, on the element, unless the element's
/// copy is cut; text the page itself shows stays new text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_value_is_said_once_on_its_element_unless_cut_there() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("observe/fields.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let message = uid_starting(&page, "textbox", "Message");
    let address = uid_starting(&page, "textbox", "Address");
    let echo = uid_starting(&page, "textbox", "Echo");
    let add = uid_of(&page, "button", "Add a note");
    let stack = &stack;
    let act = move |action: Value| async move { stack.act(action).await.expect("act") };

    let text = "Leave it at the door, ring twice";
    let typed =
        act(json!({"action": "type", "tabId": tab, "uid": message, "text": text, "observe": true}))
            .await;
    let changes = &typed["changes"];
    assert_eq!(uids(changes, "changed"), [message], "{changes}");
    assert_eq!(named(changes, "changed", "Message")["value"], text);
    assert!(texts(changes).is_empty(), "{changes}");

    // Past 200 chars the element's value is cut: the markdown's is the whole one.
    let long = format!("Flat 4, {}", "Long Street ".repeat(20))
        .trim_end()
        .to_owned();
    let typed =
        act(json!({"action": "type", "tabId": tab, "uid": address, "text": long, "observe": true}))
            .await;
    let changes = &typed["changes"];
    let field = named(changes, "changed", "Address");
    assert_eq!(field["valueLength"], long.chars().count(), "{changes}");
    assert!(texts(changes).contains(&long), "{changes}");

    // The page shows the typed words as its own text: that is new text.
    let typed = act(json!({"action": "type", "tabId": tab, "uid": echo, "text": "Hello there", "observe": true})).await;
    let changes = &typed["changes"];
    assert_eq!(texts(changes), ["Hello there"], "{changes}");

    // A field that appears with a value: on its `added` line, not in the text.
    let clicked = act(json!({"action": "click", "tabId": tab, "uid": add, "observe": true})).await;
    let changes = &clicked["changes"];
    let note = named(changes, "added", "Note");
    assert_eq!(note["value"], "Parcel goes to the neighbour", "{changes}");
    let new = texts(changes);
    assert!(new.iter().any(|t| t == "A note was added."), "{changes}");
    assert!(
        !new.iter()
            .any(|t| t.contains("Parcel") || t.starts_with("```")),
        "{changes}"
    );
}
