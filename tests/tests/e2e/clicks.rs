//! End-to-end: a click lands where a person's would (PROTOCOL.md §5): layers with
//! `pointer-events:none` never cover, sticky and fixed bars over the target are
//! scrolled clear of (and never clicked), hover changes are hit-tested again and
//! a press that landed elsewhere is an error, an element across the viewport's
//! edge is clicked every time, a page busy after the press is still checked.

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

async fn click(stack: &Stack, tab: i64, selector: &str) -> Result<Value, String> {
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": selector }))
        .await
        .map_err(|e| format!("{}: {}", e.code, e.message))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sticky_header_and_watermark() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("click/sticky-header-watermark.html", None)
        .await
        .expect("open");
    // The 2.3.0 row sits under the sticky header.
    let placed = stack
        .eval(tab, "return window.__placeUnderHeader()")
        .await
        .unwrap();
    assert!(placed["top"].as_f64().unwrap() < 96.0, "{placed}");
    click(&stack, tab, "#row-2-3-0 button")
        .await
        .expect("the row is scrolled clear of the header");
    // 0.9.0 lies under the pointer-events:none watermark only.
    click(&stack, tab, "#row-0-9-0 button")
        .await
        .expect("the watermark does not cover");
    assert_eq!(
        stack.eval(tab, "return window.__acks").await.unwrap(),
        json!(["2.3.0", "0.9.0"])
    );
    assert_eq!(
        stack.eval(tab, "return window.__headerHits").await.unwrap(),
        json!(0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layers_that_pass_clicks_through_and_bars_that_do_not() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("click/layers.html", None).await.expect("open");
    // Under a full-page pointer-events:none toast region, and under a card's shine.
    click(&stack, tab, "#under-toasts")
        .await
        .expect("toast layer");
    click(&stack, tab, "#under-shine")
        .await
        .expect("shine layer");
    // The toast's own button takes clicks (pointer-events:auto inside the layer).
    click(&stack, tab, "#undo").await.expect("undo");
    // A button under the fixed bottom bar: scrolled clear of it, the bar not clicked.
    let top = stack
        .eval(tab, "return window.__placeUnderFooter()")
        .await
        .unwrap();
    let height = stack.eval(tab, "return innerHeight").await.unwrap();
    assert!(
        top.as_f64().unwrap() > height.as_f64().unwrap() - 80.0,
        "{top}"
    );
    click(&stack, tab, "#far-down").await.expect("far down");
    assert_eq!(
        stack.eval(tab, "return window.__hits").await.unwrap(),
        json!(["under-toasts", "under-shine", "undo", "far-down"])
    );
    // At the end of the document it cannot be scrolled clear: the bar is named.
    let e = click(&stack, tab, "#last").await.unwrap_err();
    assert!(e.starts_with("element_not_interactable"), "{e}");
    assert!(e.contains("cookie"), "{e}");
    // A cover that does not move away with scrolling is still named.
    stack
        .eval(
            tab,
            "const b = document.getElementById('cookie-bar'); b.style.top = '0'; b.style.height = '100%'; return true",
        )
        .await
        .unwrap();
    let e = click(&stack, tab, "#under-toasts").await.unwrap_err();
    assert!(e.starts_with("element_not_interactable"), "{e}");
    assert!(e.contains("div#cookie-bar"), "{e}");
    assert_eq!(
        stack
            .eval(tab, "return window.__hits.length")
            .await
            .unwrap(),
        json!(4)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_changes_are_tested_again() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("click/hover-swap.html", None)
        .await
        .expect("open");
    click(&stack, tab, "#css-swap").await.expect("css swap");
    click(&stack, tab, "#js-swap").await.expect("js swap");
    click(&stack, tab, "#grow").await.expect("grow");
    assert_eq!(
        stack.eval(tab, "return window.__clicked").await.unwrap(),
        json!(["css-swap", "js-swap", "grow"])
    );
    // A layer opens over the button when the mouse arrives: nothing is pressed.
    let e = click(&stack, tab, "#promo-trigger").await.unwrap_err();
    assert!(e.starts_with("element_not_interactable"), "{e}");
    assert!(e.contains("div#promo"), "{e}");
    assert!(e.contains("mouse moved"), "{e}");
    assert_eq!(
        stack
            .eval(tab, "return window.__promoClicks || 0")
            .await
            .unwrap(),
        json!(0)
    );
    stack
        .eval(
            tab,
            "document.getElementById('promo').classList.remove('open'); return true",
        )
        .await
        .unwrap();
    // The button hides on mousedown: the release lands elsewhere, never a success.
    let e = click(&stack, tab, "#runaway").await.unwrap_err();
    assert!(e.starts_with("element_not_interactable"), "{e}");
    assert!(e.contains("landed on div#catch"), "{e}");
    assert_eq!(
        stack.eval(tab, "return window.__clicked").await.unwrap(),
        json!(["css-swap", "js-swap", "grow"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn element_across_the_bottom_edge_is_clicked_every_time() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("click/straddle.html", None).await.expect("open");
    let mut n = 0;
    for visible in [1, 5, 12, 30, 59, 12, 5, 1] {
        let at = stack
            .eval(tab, &format!("return window.__straddle({visible})"))
            .await
            .unwrap();
        click(&stack, tab, "#edge")
            .await
            .unwrap_or_else(|e| panic!("{visible} px visible {at}: {e}"));
        n += 1;
        assert_eq!(
            stack.eval(tab, "return window.__clicks").await.unwrap(),
            json!(n),
            "{visible} px visible"
        );
    }
}

/// A page busy for longer than the side-effects barrier after the press still
/// has where the press landed checked and its effects reported; a hover that
/// scrolls the page is measured again where it scrolled to (the scroll offset is
/// read after the mouse moved, not reused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_page_after_the_press_and_a_hover_that_scrolls() {
    let stack = Stack::start().await.expect("stack");
    let page = "click/busy-after.html";
    let tab = stack.open(page, None).await.expect("open");
    let r = click(&stack, tab, "#slow").await.expect("slow");
    assert_eq!(
        (r["navigated"].clone(), r["url"].clone()),
        (json!(false), json!(stack.fixtures.url(page))),
        "{r}"
    );
    // The button hides on mousedown, then the page is busy: the release landed
    // elsewhere all the same.
    let e = click(&stack, tab, "#runaway").await.unwrap_err();
    assert!(e.starts_with("element_not_interactable"), "{e}");
    assert!(e.contains("landed on div#catch"), "{e}");
    // Scrolled by its first mouseover: pressed where it moved to.
    click(&stack, tab, "#scroller")
        .await
        .expect("the button that scrolls the page");
    assert_eq!(
        stack
            .eval(tab, "return [window.__clicked, scrollY > 1000]")
            .await
            .unwrap(),
        json!([["slow", "scroller"], true])
    );
    // Busy, then a navigation: awaited and reported.
    let r = click(&stack, tab, "#slow-nav").await.expect("slow nav");
    assert_eq!(
        (r["navigated"].clone(), r["url"].clone()),
        (json!(true), json!(stack.fixtures.url("second.html"))),
        "{r}"
    );
}
