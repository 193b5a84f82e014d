//! End-to-end: a click that opens tabs reports each new tab with its URL
//! (`openedTabs`, PROTOCOL.md §5): `target=_blank` links with and without
//! `noopener`, `window.open`, a form with `target=_blank`.

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

async fn opened_by(stack: &Stack, tab: i64, selector: &str) -> (i64, String) {
    let r = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": selector }))
        .await
        .unwrap_or_else(|e| panic!("click {selector}: {e}"));
    let opened = r["openedTabs"].as_array().cloned().unwrap_or_default();
    let out = stack
        .eval(tab, "return document.getElementById('out').textContent")
        .await;
    let tabs = stack.act(json!({ "action": "list_tabs" })).await;
    assert_eq!(opened.len(), 1, "{selector}: {r} {out:?} {tabs:?}");
    (
        opened[0]["tabId"].as_i64().unwrap(),
        opened[0]["url"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opened_tabs_carry_their_urls() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("tabs/new-tab-url.html", None)
        .await
        .expect("open");
    let popup = |code: &str| {
        stack
            .fixtures
            .url(&format!("tabs/new-tab-url-popup.html?code={code}"))
    };

    let (receipt, url) = opened_by(&stack, tab, "a[rel=noopener]").await;
    assert_eq!(url, popup("PAY-7310"));
    let extract: Value = stack
        .act(json!({ "action": "extract", "tabId": receipt }))
        .await
        .expect("extract the new tab");
    assert!(
        extract["text"]
            .as_str()
            .unwrap_or_default()
            .contains("PAY-7310")
            || extract["markdown"]
                .as_str()
                .unwrap_or_default()
                .contains("PAY-7310"),
        "{extract}"
    );

    let (_, url) = opened_by(&stack, tab, "#plain").await;
    assert_eq!(url, popup("LNK-1001"));
    let (_, url) = opened_by(&stack, tab, "#form-submit").await;
    assert_eq!(url, popup("FRM-2002"));
    let (_, url) = opened_by(&stack, tab, "#print").await;
    assert_eq!(url, popup("PRN-5521"));
}
