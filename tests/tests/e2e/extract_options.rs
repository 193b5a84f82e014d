//! `extract` options through the real stack (backend + wasm extension in headless
//! Chromium) on `tests/fixtures/extract-options/`: `part` reads a long article
//! whole, `scope` keeps a form, a dialog or a list, `query` finds a deep block
//! under its headings and elements by name; bad options get their error code.

use browser_bridge_tests::harness::{Stack, uid_named};
use serde_json::{Value, json};

/// The `name`s of an extract's elements, in order.
fn names(r: &Value) -> Vec<String> {
    r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| e["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// `uid` → `name` of an extract's elements.
fn uids(r: &Value) -> Vec<(String, String)> {
    r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| {
            (
                e["uid"].as_str().unwrap_or("").to_owned(),
                e["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn part_reads_a_long_article_whole() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("extract-options/long-article.html", None)
        .await
        .expect("open");
    let cut = stack.extract(tab).await;
    assert_eq!(
        cut["truncated"]["markdown"], true,
        "the article is over 30 kB"
    );
    let parts = cut["parts"].as_u64().expect("a cut extract says its parts");
    assert!(parts >= 4, "{parts} parts");

    let mut whole = String::new();
    for n in 1..=parts {
        let r = stack
            .act(json!({"action": "extract", "tabId": tab, "part": n}))
            .await
            .unwrap_or_else(|e| panic!("part {n}: {e}"));
        assert_eq!(
            (r["part"].as_u64(), r["parts"].as_u64()),
            (Some(n), Some(parts))
        );
        assert!(
            r.get("truncated")
                .is_none_or(|t| t.get("markdown").is_none())
        );
        let md = r["markdown"].as_str().expect("markdown");
        assert!(
            !md.is_empty() && md.len() <= 30_000,
            "part {n}: {} bytes",
            md.len()
        );
        // The elements and the obstacle are the page's, whatever the part.
        assert_eq!(uids(&r), uids(&cut), "part {n}");
        whole.push_str(md);
    }
    // The cut markdown is the whole one's start, cut where a block ends.
    let first = cut["markdown"].as_str().expect("markdown");
    assert!(whole.starts_with(first), "the cut extract leads the whole");
    assert!(
        whole.starts_with("# The long harbour chronicle\n\n"),
        "{}",
        &whole[..200]
    );
    // Every section, paragraph, item and listing line, once and in order.
    let mut at = 0;
    for s in 1..=70 {
        for needle in [
            format!("Section {s} of the chronicle\n\n"),
            format!("Paragraph {s}.0:"),
            format!("Paragraph {s}.2:"),
            format!("- Item {s}.2 😀"),
            format!("\n\nSection {s} ends here."),
        ] {
            let found = whole[at..]
                .find(&needle)
                .unwrap_or_else(|| panic!("{needle:?} missing after byte {at}"));
            at += found + needle.len();
            assert_eq!(whole.matches(&needle).count(), 1, "{needle:?}");
        }
        if s == 30 {
            for l in [1, 450, 900] {
                let line = format!("listing line {l:04} {}", "é".repeat(20));
                let found = whole[at..].find(&line).unwrap_or_else(|| panic!("{line}"));
                at += found + line.len();
            }
        }
    }
    for chrome in ["Archive", "Copyright"] {
        assert!(!whole.contains(chrome), "{chrome}");
    }

    let error = stack
        .act(json!({"action": "extract", "tabId": tab, "part": parts + 1}))
        .await
        .expect_err("past the last part");
    assert_eq!(error.code, "invalid_action");
    assert!(
        error.message.contains(&format!("has {parts} parts")),
        "{}",
        error.message
    );
    let error = stack
        .act(json!({"action": "extract", "tabId": tab, "part": 0}))
        .await
        .expect_err("part 0");
    assert_eq!(error.code, "invalid_request");
    assert!(error.message.contains("part"), "{}", error.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scope_keeps_a_form_a_dialog_or_a_list() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("extract-options/regions.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let scoped = |uid: String| {
        let stack = &stack;
        async move {
            stack
                .act(json!({"action": "extract", "tabId": tab, "scope": uid}))
                .await
                .unwrap_or_else(|e| panic!("scoped extract: {e}"))
        }
    };
    // Every scoped element keeps the uid the whole extract gave it.
    let same_uids = |r: &Value| {
        for pair in uids(r) {
            assert!(uids(&page).contains(&pair), "{pair:?} renumbered");
        }
    };

    // A field's uid scopes to its form.
    let form = scoped(uid_named(&page, "Email")).await;
    assert_eq!(names(&form), ["Boat name", "Email", "Shore power", "Book"]);
    let md = form["markdown"].as_str().expect("markdown");
    assert!(md.contains("Bookings open a week ahead."), "{md}");
    for outside in [
        "Book a berth",
        "After the form",
        "Port Alder",
        "Cancel your",
    ] {
        assert!(!md.contains(outside), "{outside} in {md}");
    }
    same_uids(&form);

    // A button of a dialog scopes to the dialog, which whole extracts leave out
    // of the markdown as chrome.
    let dialog = scoped(uid_named(&page, "Keep booking")).await;
    assert_eq!(names(&dialog), ["Cancel booking", "Keep booking"]);
    let md = dialog["markdown"].as_str().expect("markdown");
    assert!(md.starts_with("## Cancel your booking?\n\n"), "{md}");
    assert!(md.contains("This cannot be undone"), "{md}");
    assert!(!md.contains("Harbour office"), "{md}");
    same_uids(&dialog);

    // A link of a list scopes to the list.
    let list = scoped(uid_named(&page, "Port Birch")).await;
    assert_eq!(names(&list), ["Port Alder", "Port Birch", "Port Cedar"]);
    let md = list["markdown"].as_str().expect("markdown");
    let url = |p: &str| stack.fixtures.url(&format!("extract-options/{p}"));
    assert_eq!(
        md,
        format!(
            "- [Port Alder]({})\n- [Port Birch]({})\n- [Port Cedar]({})",
            url("a.html"),
            url("b.html"),
            url("c.html")
        )
    );
    same_uids(&list);

    // Bad scopes: never issued, not a uid.
    let error = stack
        .act(json!({"action": "extract", "tabId": tab, "scope": "e999"}))
        .await
        .expect_err("unknown uid");
    assert_eq!(error.code, "element_not_found");
    assert!(error.message.contains("e999"), "{}", error.message);
    let error = stack
        .act(json!({"action": "extract", "tabId": tab, "scope": "#booking"}))
        .await
        .expect_err("a selector is not a uid");
    assert_eq!(error.code, "invalid_request");
    assert!(error.message.contains("scope"), "{}", error.message);

    // After a navigation the old uids are stale.
    let email = uid_named(&page, "Email");
    stack
        .open("extract-options/regions.html", Some(tab))
        .await
        .expect("reopen");
    let error = stack
        .act(json!({"action": "extract", "tabId": tab, "scope": email}))
        .await
        .expect_err("stale uid");
    assert_eq!(error.code, "element_stale");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_finds_deep_blocks_under_their_headings_and_elements_by_name() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("extract-options/nested-headings.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let query = |q: &str| {
        let stack = &stack;
        let action = json!({"action": "extract", "tabId": tab, "query": q});
        async move {
            stack
                .act(action)
                .await
                .unwrap_or_else(|e| panic!("query: {e}"))
        }
    };

    let r = query("flowerpot").await;
    assert_eq!(
        r["markdown"],
        "# House guide\n\n## Outside\n\n### Garden\n\n#### Shed\n\n\
         The spare KEY is kept under the blue Flowerpot by the shed door."
    );
    assert_eq!(names(&r), Vec::<String>::new());

    let r = query("KEY").await;
    assert_eq!(names(&r), ["Find the key", "Key cutting service"]);
    for pair in uids(&r) {
        assert!(uids(&page).contains(&pair), "{pair:?} renumbered");
    }
    let md = r["markdown"].as_str().expect("markdown");
    assert!(md.contains("#### Shed\n\nThe spare KEY"), "{md}");
    assert!(!md.contains("tomatoes") && !md.contains("Inside"), "{md}");

    let r = query("no such words").await;
    assert_eq!((r["markdown"].as_str(), names(&r).len()), (Some(""), 0));

    for blank in ["", "   "] {
        let error = stack
            .act(json!({"action": "extract", "tabId": tab, "query": blank}))
            .await
            .expect_err("blank query");
        assert_eq!(error.code, "invalid_request");
        assert!(error.message.contains("query"), "{}", error.message);
    }
}
