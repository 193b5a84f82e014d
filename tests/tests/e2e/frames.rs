//! End-to-end: out-of-process iframes (cross-site frames: a payment form, an
//! embedded sign-in) are read by `extract` in document position, each element
//! marked with its frame's origin, and are acted on by uid like the main frame's
//! (PROTOCOL.md §6). The fixtures under `tests/fixtures/frames/` load their frames
//! from `localhost` / `sub.localhost`, other sites than the page's `127.0.0.1`.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::{Value, json};

/// Extracts until the markdown holds `text` (a frame loads after its page), at
/// most 10 s.
async fn extract_until(stack: &Stack, tab: i64, text: &str) -> Value {
    for _ in 0..50 {
        let r = stack.extract(tab).await;
        if r["markdown"].as_str().unwrap_or_default().contains(text) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("{text:?} never showed in {}", stack.extract(tab).await);
}

/// The element with this uid in an extract result.
fn element<'a>(r: &'a Value, uid: &str) -> &'a Value {
    r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|e| e["uid"] == uid)
        .unwrap_or_else(|| panic!("no {uid} in {}", r["elements"]))
}

/// Position of `text` in `haystack` (panics when absent).
fn at(haystack: &str, text: &str) -> usize {
    haystack
        .find(text)
        .unwrap_or_else(|| panic!("{text:?} not in {haystack}"))
}

/// The iframe targets Chromium runs out of process, by URL.
async fn oopif_urls(stack: &Stack) -> Vec<String> {
    stack
        .chromium
        .targets()
        .await
        .expect("targets")
        .iter()
        .filter(|t| t["type"] == "iframe")
        .filter_map(|t| t["url"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_payment_frame_is_read_in_place_with_its_origin() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/checkout.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let card = stack.fixtures.url_on("localhost", "frames/card.html");
    assert!(
        oopif_urls(&stack).await.contains(&card),
        "the card frame is no out-of-process iframe: {:?}",
        stack.chromium.targets().await
    );

    // The frame's text sits where the frame is, between the page's paragraphs.
    let md = r["markdown"].as_str().expect("markdown");
    assert!(at(md, "Order total") < at(md, "Card details"), "{md}");
    assert!(at(md, "Card details") < at(md, "Not paid yet"), "{md}");
    assert!(at(md, "Not paid yet") < at(md, "charged only when"), "{md}");

    // Its elements too, in document order, marked with the frame's origin.
    let origin = stack
        .fixtures
        .url_on("localhost", "")
        .trim_end_matches('/')
        .to_owned();
    let number = uid_of(&r, "textbox", "Card number");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    let place = uid_of(&r, "button", "Place order");
    assert_eq!(element(&r, &number)["frameOrigin"], origin, "{r}");
    assert_eq!(element(&r, &pay)["frameOrigin"], origin, "{r}");
    assert_eq!(element(&r, &place).get("frameOrigin"), None, "{r}");
    let order: Vec<&str> = r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|e| e["uid"].as_str())
        .collect();
    let pos = |uid: &str| order.iter().position(|u| *u == uid).expect("listed");
    assert!(
        pos(&number) < pos(&pay) && pos(&pay) < pos(&place),
        "{order:?}"
    );

    // uids stay the same on the next extract and are unique across frames.
    let again = stack.extract(tab).await;
    assert_eq!(uid_of(&again, "textbox", "Card number"), number);
    assert_eq!(uid_of(&again, "button", "Place order"), place);
    let mut uids = order.clone();
    uids.sort_unstable();
    uids.dedup();
    assert_eq!(uids.len(), order.len(), "{order:?}");
}

/// The markdown of an extract result.
fn markdown(r: &Value) -> &str {
    r["markdown"].as_str().expect("markdown")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_and_clicking_in_a_cross_site_frame_change_its_state() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/checkout.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let number = uid_of(&r, "textbox", "Card number");
    let typed = stack
        .act(
            json!({ "action": "type", "tabId": tab, "uid": number, "text": "4000 0000 0000 4242" }),
        )
        .await
        .expect("type");
    assert_eq!(typed["value"], "4000 0000 0000 4242", "{typed}");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    let after = stack.extract(tab).await;
    assert!(
        markdown(&after).contains("Paid with card ending 4242"),
        "{}",
        markdown(&after)
    );
    let field = element(&after, &number);
    assert_eq!(field["value"], "4000 0000 0000 4242", "{after}");

    // hover and a key press reach the frame too; the main frame still works.
    stack
        .act(json!({ "action": "hover", "tabId": tab, "uid": pay }))
        .await
        .expect("hover");
    let place = uid_of(&after, "button", "Place order");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": place }))
        .await
        .expect("click in the main frame");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_opened_by_a_cross_site_frame_is_reported_and_answered() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/checkout.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let verify = uid_of(&r, "button", "Verify card");
    let start = std::time::Instant::now();
    let clicked = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": verify }))
        .await
        .expect("click");
    assert!(start.elapsed() < Duration::from_secs(5), "{clicked}");
    assert_eq!(
        clicked["dialog"],
        json!({ "type": "confirm", "message": "Verify this card with your bank?" }),
        "{clicked}"
    );
    // Other actions are refused while it is open, at once.
    let refused = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .unwrap_err();
    assert_eq!(refused.code, "invalid_action", "{refused}");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    let after = extract_until(&stack, tab, "Card verified").await;
    assert!(!markdown(&after).contains("Verification refused"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_inside_a_cross_site_frame_is_read_and_acted_on() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("frames/nested.html", None).await.expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let md = markdown(&r);
    assert!(
        at(md, "embeds the card form") < at(md, "Secure checkout by PayCo"),
        "{md}"
    );
    assert!(
        at(md, "Secure checkout by PayCo") < at(md, "Card details"),
        "{md}"
    );
    assert!(at(md, "Card details") < at(md, "End of the nested"), "{md}");
    let inner = stack.fixtures.url_on("sub.localhost", "frames/card.html");
    assert!(
        oopif_urls(&stack).await.contains(&inner),
        "{:?}",
        oopif_urls(&stack).await
    );

    let number = uid_of(&r, "textbox", "Card number");
    let cancel = uid_of(&r, "button", "Cancel payment");
    let origin = |host: &str| {
        stack
            .fixtures
            .url_on(host, "")
            .trim_end_matches('/')
            .to_owned()
    };
    assert_eq!(element(&r, &number)["frameOrigin"], origin("sub.localhost"));
    assert_eq!(element(&r, &cancel)["frameOrigin"], origin("localhost"));

    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": number, "text": "5555 4444" }))
        .await
        .expect("type");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": cancel }))
        .await
        .expect("click");
    let after = stack.extract(tab).await;
    assert!(
        markdown(&after).contains("Paid with card ending 4444"),
        "{}",
        markdown(&after)
    );
    uid_of(&after, "button", "Cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_navigates_to_another_site_gets_new_uids_and_the_old_are_stale() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/switching.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let number = uid_of(&r, "textbox", "Card number");
    let switch = uid_of(&r, "button", "Use a wallet instead");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": switch }))
        .await
        .expect("click");
    // The wallet's last line: a read while the frame's document is still being
    // parsed (a loaded machine) would miss its button.
    let after = extract_until(&stack, tab, "Not signed in").await;
    assert!(
        !markdown(&after).contains("Card details"),
        "{}",
        markdown(&after)
    );
    let stale = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": number, "text": "1" }))
        .await
        .unwrap_err();
    assert_eq!(stale.code, "element_stale", "{stale}");

    let email = uid_of(&after, "textbox", "Wallet email");
    assert_ne!(email, number);
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": email, "text": "ada@example.com" }))
        .await
        .expect("type");
    let go = uid_of(&after, "button", "Continue with wallet");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": go }))
        .await
        .expect("click");
    extract_until(&stack, tab, "Signed in as ada@example.com").await;
}

/// Reads taken while a frame keeps committing documents of the same shape in
/// other processes (whose nodes are numbered afresh, from the same small
/// numbers): a uid never names two elements, whether a read's answer reaches
/// the worker before or after the frame's `Page.frameNavigated`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uid_never_names_two_elements_while_a_frame_keeps_changing_site() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/flipping.html", None)
        .await
        .expect("open");
    let mut named: HashMap<String, String> = HashMap::new();
    let mut sides = HashSet::new();
    // At least 40 reads, and on until both documents were read (a loaded
    // machine can miss one side for a while), at most 160.
    for read in 0..160 {
        if read >= 40 && sides.len() == 2 {
            break;
        }
        let r = stack.extract(tab).await;
        for e in r["elements"].as_array().expect("elements") {
            let (uid, name) = (e["uid"].as_str().expect("uid"), e["name"].as_str());
            let name = name.unwrap_or_default().to_owned();
            for side in ["side A", "side B"] {
                if name.contains(side) {
                    sides.insert(side);
                }
            }
            if let Some(before) = named.insert(uid.to_owned(), name.clone()) {
                assert_eq!(before, name, "{uid} named two elements");
            }
        }
        tokio::time::sleep(Duration::from_millis(35)).await;
    }
    assert_eq!(sides.len(), 2, "both documents were read: {named:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_added_after_load_is_read_and_acted_on() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("frames/lazy.html", None).await.expect("open");
    let r = stack.extract(tab).await;
    assert!(!markdown(&r).contains("Card details"));
    let load = uid_of(&r, "button", "Pay by card");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": load }))
        .await
        .expect("click");
    let r = extract_until(&stack, tab, "Card details").await;
    let number = uid_of(&r, "textbox", "Card number");
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": number, "text": "4242" }))
        .await
        .expect("type");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    extract_until(&stack, tab, "Paid with card ending 4242").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_partly_out_of_view_is_scrolled_to_its_element() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/scrolled.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let number = uid_of(&r, "textbox", "Card number");
    let pay = uid_of(&r, "button", "Pay now");
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": number, "text": "9999 1234" }))
        .await
        .expect("type");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    extract_until(&stack, tab, "Paid with card ending 1234").await;
    let scrolled = stack
        .eval(tab, "return window.scrollY > 0")
        .await
        .expect("eval");
    assert_eq!(scrolled, json!(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_controls_and_keys_in_a_cross_site_frame() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/checkout.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let country = uid_of(&r, "combobox", "Country");
    let picked = stack
        .act(
            json!({ "action": "select_option", "tabId": tab, "uid": country, "values": ["Spain"] }),
        )
        .await
        .expect("select_option");
    assert_eq!(picked["selected"], json!(["Spain"]), "{picked}");
    let save = uid_of(&r, "checkbox", "Save this card");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": save }))
        .await
        .expect("click");
    let expiry = uid_of(&r, "textbox", "Expiry date");
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": expiry, "text": "12/301" }))
        .await
        .expect("type");
    // The keyboard goes where the focus is: the frame's field.
    stack
        .act(json!({ "action": "press_key", "tabId": tab, "key": "Backspace" }))
        .await
        .expect("press_key");
    // wait_for reads the frame's element in its own session.
    let waited = stack
        .act(json!({ "action": "wait_for", "tabId": tab, "uid": save, "state": "visible", "timeoutMs": 3000 }))
        .await
        .expect("wait_for");
    assert_eq!(waited["action"], "wait_for", "{waited}");
    let after = stack.extract(tab).await;
    assert_eq!(element(&after, &country)["value"], "Spain", "{after}");
    assert_eq!(element(&after, &save)["checked"], "true", "{after}");
    assert_eq!(element(&after, &expiry)["value"], "12/30", "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_same_origin_frame_is_read_and_acted_on_as_before() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/same-origin.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let md = markdown(&r);
    assert!(
        at(md, "comes from this site") < at(md, "Card details"),
        "{md}"
    );
    assert!(
        at(md, "Card details") < at(md, "After the same-origin frame"),
        "{md}"
    );
    let number = uid_of(&r, "textbox", "Card number");
    let origin = stack.fixtures.url("").trim_end_matches('/').to_owned();
    assert_eq!(element(&r, &number)["frameOrigin"], origin, "{r}");
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": number, "text": "4111 1111" }))
        .await
        .expect("type");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    extract_until(&stack, tab, "Paid with card ending 1111").await;
}

/// A cross-site frame's `window.open` is the click's side effect like the main
/// frame's: reported in `openedTabs` with its URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_a_cross_site_frame_opens_is_reported() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("frames/opener.html", None).await.expect("open");
    let r = extract_until(&stack, tab, "INV-204").await;
    let print = uid_of(&r, "button", "Open printable invoice");
    let click = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": print }))
        .await
        .expect("click");
    let url = stack
        .fixtures
        .url_on("localhost", "second.html?invoice=INV-204");
    assert_eq!(click["openedTabs"][0]["url"], url, "{click}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_into_a_covered_cross_site_frame_names_the_cover() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("frames/covered.html", None).await.expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    let refused = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .unwrap_err();
    assert_eq!(refused.code, "element_not_interactable", "{refused}");
    assert!(refused.message.contains("div#cover"), "{refused}");
    let after = stack.extract(tab).await;
    assert!(
        markdown(&after).contains("Not paid yet"),
        "{}",
        markdown(&after)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_of_a_cross_site_frame_during_the_load_is_reported() {
    let stack = Stack::start().await.expect("stack");
    let url = stack.fixtures.url("frames/alerting.html");
    let start = std::time::Instant::now();
    let r = stack
        .act(json!({ "action": "navigate", "url": url }))
        .await
        .expect("navigate");
    assert!(start.elapsed() < Duration::from_secs(5), "{r}");
    assert_eq!(
        r["dialog"],
        json!({ "type": "alert", "message": "Hello from the embedded frame" }),
        "{r}"
    );
    let tab = r["tabId"].as_i64().expect("tabId");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    extract_until(&stack, tab, "Greeting shown").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_worker_still_reads_and_acts_in_cross_site_frames() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("frames/checkout.html", None)
        .await
        .expect("open");
    let r = extract_until(&stack, tab, "Card details").await;
    let number = uid_of(&r, "textbox", "Card number");
    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    // The request waits for the new worker, which takes the session back.
    let r = extract_until(&stack, tab, "Card details").await;
    let again = uid_of(&r, "textbox", "Card number");
    assert_ne!(again, number, "the new worker's frame slots are new");
    let stale = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": number }))
        .await
        .unwrap_err();
    assert_eq!(stale.code, "element_stale", "{stale}");
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": again, "text": "4242" }))
        .await
        .expect("type");
    let pay = uid_of(&r, "button", "Pay 42.00 EUR");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": pay }))
        .await
        .expect("click");
    extract_until(&stack, tab, "Paid with card ending 4242").await;
}
