//! End-to-end: what a person clicks is an element (PROTOCOL.md §6): pointer-cursor
//! spans, rows with click listeners, tree nodes, suggestion lists, cards, table
//! cells and icon-only controls are listed with a name or a hint, and their uids
//! work with `click`.

use browser_bridge_backend::tool::render::render_extract;
use browser_bridge_protocol::ExtractResult;
use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

/// Pages with thousands of controls and clickables fill the 200-element cap and
/// say the list was cut (their speed is `cargo xtask bench`'s figure, not a test's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_pages_fill_the_cap() {
    let stack = Stack::start().await.expect("stack");
    let mut tab = None;
    for page in [
        "clickables/many-rows.html",
        "extract/many.html",
        "extract/huge.html",
    ] {
        let opened = stack.open(page, tab).await.expect("open");
        tab = Some(opened);
        let r = stack.extract(opened).await;
        let count = r["elements"].as_array().map_or(0, Vec::len);
        assert_eq!(count, 200, "{page}: {count} elements");
        assert_eq!(
            r["truncated"]["elements"], true,
            "{page}: {}",
            r["truncated"]
        );
    }
}

/// The element whose name is `name`, or a panic listing the elements.
fn named<'a>(page: &'a Value, name: &str) -> &'a Value {
    page["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no element {name:?} in {}", page["elements"]))
}

/// `(role, name or hint, clickable)` of every element.
fn summary(page: &Value) -> Vec<(String, String, bool)> {
    page["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| {
            (
                e["role"].as_str().unwrap_or_default().to_owned(),
                e["name"]
                    .as_str()
                    .or_else(|| e["hint"].as_str())
                    .unwrap_or_default()
                    .to_owned(),
                e["clickable"] == true,
            )
        })
        .collect()
}

async fn click(stack: &Stack, tab: i64, uid: &Value) {
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .unwrap_or_else(|e| panic!("click {uid}: {e}"));
}

async fn eval(stack: &Stack, tab: i64, expression: &str) -> Value {
    stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": format!("return {expression}") }))
        .await
        .expect("evaluate")["value"]
        .clone()
}

fn s(role: &str, name: &str, clickable: bool) -> (String, String, bool) {
    (role.to_owned(), name.to_owned(), clickable)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inbox_rows_stars_and_link_styled_spans_are_elements() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/inbox.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let mut expected = vec![s("generic", "terms of service", true)];
    for (n, from, subject, snippet) in [
        (
            1,
            "Alice Martin",
            "Lunch on Friday?",
            "— shall we try the new place",
        ),
        (
            2,
            "Build bot",
            "Nightly build failed",
            "— 3 tests failed on main",
        ),
        (
            3,
            "Carol Diaz",
            "Invoice 2291",
            "— attached, due in 30 days",
        ),
    ] {
        // The row's name is its own text; the star and the checkbox inside it are
        // elements of their own, the row's text spans are not.
        expected.push(s("generic", &format!("{from} {subject} {snippet}"), true));
        expected.push(s("checkbox", &format!("Select message {n}"), false));
        expected.push(s("generic", &format!("Star message {n}"), true));
    }
    assert_eq!(summary(&page), expected, "{}", page["elements"]);
    assert_eq!(named(&page, "terms of service")["visible"], true);

    let row = &named(
        &page,
        "Build bot Nightly build failed — 3 tests failed on main",
    )["uid"];
    click(&stack, tab, row).await;
    let star = &named(&page, "Star message 3")["uid"];
    click(&stack, tab, star).await;
    assert_eq!(
        eval(&stack, tab, "[window.__opened, window.__starred]").await,
        json!([["2"], ["3"]])
    );
    click(&stack, tab, &named(&page, "terms of service")["uid"]).await;
    assert_eq!(
        eval(&stack, tab, "document.getElementById('out').textContent").await,
        "terms shown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_tree_nodes_cards_cells_tiles_and_suggestions_are_elements() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/widgets.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let got = summary(&page);
    for want in [
        s("generic", "Shipping options ▾", true),
        s("generic", "Documents", true),
        s("generic", "report.pdf", true),
        s("generic", "notes.txt", true),
        s("generic", "Music", true),
        s(
            "generic",
            "Pro plan Unlimited projects, 50 GB storage. €12 / month",
            true,
        ),
        s("cell", "North", true),
        s("cell", "South", true),
        s("generic", "Keyboard tile", true),
        s("row", "Quarterly figures", true),
        s("image", "Open photo gallery", true),
        s("listitem", "red shoes", true),
        s("listitem", "blue scarf", true),
        s("row", "A-101 packed", true),
    ] {
        assert!(got.contains(&want), "{want:?} not in {got:#?}");
    }
    // Children of a pointer header inherit its cursor but are not elements; the
    // tree's delegating list is not one either, nor plain cells.
    for name in ["Shipping options", "▾", "12", "Pro plan", "Region"] {
        assert!(
            !got.iter().any(|(_, n, _)| n == name),
            "{name:?} in {got:#?}"
        );
    }
    assert!(
        !got.iter()
            .any(|(_, n, _)| n.starts_with("Documents report.pdf")),
        "{got:#?}"
    );

    let out = "document.getElementById('out').textContent";
    for (name, result) in [
        ("Shipping options ▾", "shipping open"),
        ("report.pdf", "selected /docs/report.pdf"),
        (
            "Pro plan Unlimited projects, 50 GB storage. €12 / month",
            "plan pro",
        ),
        ("South", "region South"),
        ("Keyboard tile", "tile"),
        ("Quarterly figures", "role row"),
        ("Open photo gallery", "gallery"),
        ("blue scarf", "recent blue scarf"),
        ("A-101 packed", "order A-101"),
    ] {
        click(&stack, tab, &named(&page, name)["uid"]).await;
        assert_eq!(eval(&stack, tab, out).await, result, "{name}");
    }

    // An autocomplete list that appears while typing: its suggestions are elements.
    let city = &named(&page, "City")["uid"];
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": city, "text": "Li" }))
        .await
        .expect("type");
    let page = stack.extract(tab).await;
    let got = summary(&page);
    for city in ["Lisbon", "Lima", "Lille", "Linz"] {
        assert!(got.contains(&s("listitem", city, true)), "{city}: {got:#?}");
    }
    click(&stack, tab, &named(&page, "Lille")["uid"]).await;
    assert_eq!(eval(&stack, tab, out).await, "city Lille");
    assert_eq!(
        eval(&stack, tab, "document.getElementById('city').value").await,
        "Lille"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn icon_only_controls_have_a_name_or_a_hint_and_click() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/icons.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    assert_eq!(
        summary(&page),
        [
            s("generic", "span.icon-heart", true),
            s("generic", "i.fa-share", true),
            s("generic", "span.bookmark-btn", true),
            s("generic", "span#report-post", true),
            s("generic", "Close post", true),
            s("generic", "More actions", true),
            s("generic", "Delete post", true),
            s("button", "button.copy-link", false),
            s("button", "svg.icon-pin", false),
            s("link", "Home", false),
        ],
        "{}",
        page["elements"]
    );
    // A hint is not a name: the accessible name stays absent.
    assert_eq!(page["elements"][0]["name"], Value::Null);
    assert_eq!(page["elements"][0]["hint"], "span.icon-heart");
    for e in page["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .take(9)
    {
        click(&stack, tab, &e["uid"]).await;
    }
    assert_eq!(
        eval(&stack, tab, "window.__acts").await,
        json!([
            "like", "share", "bookmark", "report", "close", "more", "delete", "copy", "pin"
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrappers_inherited_pointers_and_delegating_roots_are_not_extra_elements() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/nesting.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    assert_eq!(
        summary(&page),
        [
            s("generic", "Spring sale up to 40 % off garden tools", true),
            s("button", "Save draft", false),
            s("link", "Read the docs", false),
            s("generic", "urgent", true),
            s("button", "Bold", false),
            s("button", "Italic", false),
            s("button", "Underline", false),
        ],
        "{}",
        page["elements"]
    );
    click(&stack, tab, &named(&page, "urgent")["uid"]).await;
    click(&stack, tab, &named(&page, "Save draft")["uid"]).await;
    click(
        &stack,
        tab,
        &named(&page, "Spring sale up to 40 % off garden tools")["uid"],
    )
    .await;
    assert_eq!(
        eval(&stack, tab, "window.__hits").await,
        json!(["tag", "save", "offer"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_values_are_whole_in_the_markdown_and_exact_in_the_model_line() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/long-values.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    let notes = eval(&stack, tab, "window.__notes").await;
    let notes = notes.as_str().expect("notes");
    let field = named(&page, "Notes");
    let value = field["value"].as_str().expect("value");
    assert_eq!(value.chars().count(), 200);
    assert!(value.ends_with('…'), "{value:?}");
    assert!(notes.starts_with(value.trim_end_matches('…')));
    assert_eq!(field["valueLength"], json!(notes.chars().count()));
    // The whole value, exactly, where the field is in the markdown.
    let markdown = page["markdown"].as_str().expect("markdown");
    assert!(
        markdown.contains(&format!("```text\n{notes}\n```")),
        "{markdown}"
    );
    let token = named(&page, "Token");
    assert_eq!(token["valueLength"], 308);
    assert!(markdown.contains(&format!("tok_{}_end", "x".repeat(300))));
    assert_eq!(named(&page, "Spaced")["value"], "a   b    c");
    assert_eq!(named(&page, "Spaced").get("valueLength"), None);
    // A password is a fixed mask: neither its text nor its length.
    let secret = named(&page, "Secret");
    assert_eq!(secret["value"], "••••••••", "{secret}");
    assert_eq!(secret.get("valueLength"), None, "{secret}");
    assert!(!markdown.contains("pw_ppp"), "{markdown}");
    // A field over the budget is cut inside its fence; what follows stays.
    assert_eq!(named(&page, "Log")["valueLength"], 45_000);
    assert!(
        markdown.contains(" more bytes not shown)\n```"),
        "{markdown}"
    );
    assert!(markdown.contains("After the fields."), "{markdown}");

    // What a model reads: values exact, on one line, with the whole length.
    let result: ExtractResult = serde_json::from_value(page.clone()).expect("extract");
    let text = render_extract(&result, false);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("\"{name}\"")))
            .unwrap_or_else(|| panic!("no line for {name} in {text}"))
            .to_owned()
    };
    assert!(line("Spaced").ends_with("value=\"a   b    c\""), "{text}");
    let notes_line = line("Notes");
    assert!(
        notes_line.contains("value=\"Line one:   three spaces.\\n\\tTabbed line.\\nEntry 0"),
        "{notes_line}"
    );
    assert!(
        notes_line.contains(&format!("valueLength={}", notes.chars().count())),
        "{notes_line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clickables_inside_shadow_roots_and_same_origin_frames() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("clickables/composed.html", None)
        .await
        .expect("open");
    let page = stack.extract(tab).await;
    assert_eq!(
        summary(&page),
        [
            s("generic", "1 stars", true),
            s("generic", "2 stars", true),
            s("generic", "3 stars", true),
            s("generic", "Morning 8–12", true),
            s("generic", "Evening 18–22", true),
        ],
        "{}",
        page["elements"]
    );
    let out = "document.getElementById('out').textContent";
    click(&stack, tab, &named(&page, "2 stars")["uid"]).await;
    assert_eq!(eval(&stack, tab, out).await, "rated 2");
    click(&stack, tab, &named(&page, "Evening 18–22")["uid"]).await;
    assert_eq!(eval(&stack, tab, out).await, "slot Evening 18–22");
}
