//! End-to-end: `scroll` without a target (PROTOCOL.md §5): the document when it
//! moves, else the full-page container of an app shell; the result says what
//! scrolled and by how much, and that nothing moved when nothing could.

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

async fn scroll(stack: &Stack, tab: i64, direction: &str) -> Value {
    stack
        .act(json!({ "action": "scroll", "tabId": tab, "direction": direction }))
        .await
        .unwrap_or_else(|e| panic!("scroll {direction}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_shell_scrolls_its_container() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("scroll/app-shell.html", None)
        .await
        .expect("open");
    let mut last = 0.0;
    for _ in 0..3 {
        let r = scroll(&stack, tab, "down").await;
        assert_eq!(r["scrolled"], json!("div#scroller"), "{r}");
        let dy = r["deltaY"].as_f64().unwrap();
        assert!(dy > 0.0, "{r}");
        assert_eq!(r["scrollY"].as_f64().unwrap(), last + dy, "{r}");
        last += dy;
    }
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('scroller').scrollTop")
            .await
            .unwrap()
            .as_f64(),
        Some(last)
    );
    stack
        .act(json!({ "action": "type", "tabId": tab, "selector": "input[name=q38]", "text": "blue" }))
        .await
        .expect("type");
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#submit" }))
        .await
        .expect("submit");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('out').textContent")
            .await
            .unwrap(),
        "submitted q38=blue"
    );
    // On to the end of the list, scroll after scroll with no pause: each one
    // answers after the observer has loaded more, so the end is the real end.
    for _ in 0..30 {
        if scroll(&stack, tab, "down").await["deltaY"] == json!(0.0) {
            break;
        }
    }
    let loaded = stack
        .eval(tab, "return window.__loadedComments()")
        .await
        .unwrap();
    assert_eq!(loaded, json!(60));
    // Back up to the top, then nothing is left above.
    let up = scroll(&stack, tab, "up").await;
    assert_eq!(up["scrolled"], json!("div#scroller"), "{up}");
    assert!(up["deltaY"].as_f64().unwrap() < 0.0, "{up}");
    for _ in 0..20 {
        if scroll(&stack, tab, "up").await["deltaY"] == json!(0.0) {
            break;
        }
    }
    let top = scroll(&stack, tab, "up").await;
    assert_eq!(
        (top["deltaX"].as_f64(), top["deltaY"].as_f64()),
        (Some(0.0), Some(0.0)),
        "{top}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn horizontal_board_and_pages_that_do_not_scroll() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("scroll/board.html", None).await.expect("open");
    // Right: the board (the side panel only scrolls vertically).
    let right = scroll(&stack, tab, "right").await;
    assert_eq!(right["scrolled"], json!("div#board \"Board\""), "{right}");
    assert!(right["deltaX"].as_f64().unwrap() > 0.0, "{right}");
    assert_eq!(right["deltaY"].as_f64(), Some(0.0), "{right}");
    // Down: only the side panel can, and it is the largest that can.
    let down = scroll(&stack, tab, "down").await;
    assert_eq!(down["scrolled"], json!("div#side"), "{down}");

    let tab = stack
        .open("scroll/short.html", Some(tab))
        .await
        .expect("open");
    let none = scroll(&stack, tab, "down").await;
    assert_eq!(none["scrolled"], json!("document"), "{none}");
    assert_eq!(
        (none["deltaX"].as_f64(), none["deltaY"].as_f64()),
        (Some(0.0), Some(0.0)),
        "{none}"
    );

    // An ordinary page: the document, by one viewport.
    let tab = stack.open("scroll.html", Some(tab)).await.expect("open");
    let page = scroll(&stack, tab, "down").await;
    let inner_height = stack.eval(tab, "return innerHeight").await.unwrap();
    assert_eq!(page["scrolled"], json!("document"), "{page}");
    assert_eq!(page["deltaY"].as_f64(), inner_height.as_f64(), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_that_grows_on_scroll_is_read_to_its_end() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("scroll/feed.html", None).await.expect("open");
    let mut scrolls = 0;
    while scroll(&stack, tab, "down").await["deltaY"] != json!(0.0) {
        scrolls += 1;
        assert!(scrolls < 100, "the feed never ended");
    }
    // The scroll listener loads in an animation frame: every page of it came
    // before a scroll answered that nothing moved.
    let loaded = stack
        .eval(tab, "return window.__loadedPosts()")
        .await
        .unwrap();
    assert_eq!(loaded, json!(40));
}

/// An infinite list on a page whose main thread works ~10 ms in every frame
/// (an animation): each scroll answers once the list's observer has loaded
/// more and seen its sentinel leave, so scrolling until nothing moves reaches
/// the list's real end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_page_grows_its_list_before_the_scroll_answers() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("scroll/busy-feed.html", None)
        .await
        .expect("open");
    let mut scrolls = 0;
    while scroll(&stack, tab, "down").await["deltaY"] != json!(0.0) {
        scrolls += 1;
        assert!(scrolls < 60, "the feed ends");
    }
    let loaded = stack.eval(tab, "return window.__loaded()").await.unwrap();
    assert_eq!(loaded, json!(100), "after {scrolls} scrolls");
}
