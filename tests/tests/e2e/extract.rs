//! `extract` through the real stack (backend + wasm extension in
//! headless Chromium) on the fixture pages of `tests/fixtures/extract/`.

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_rules_on_fixture_pages() {
    let stack = Stack::start().await.expect("stack");

    let tab = stack.open("extract/cookie.html", None).await.expect("open");
    let r = stack.extract(tab).await;
    let md = r["markdown"].as_str().expect("markdown");
    assert!(md.starts_with("# Tide tables explained\n\n"), "{md}");
    let guide = stack.fixtures.url("extract/guide.html");
    assert!(md.contains(&format!("[harbour guide]({guide})")), "{md}");
    assert!(
        md.contains("- Spring tides have the largest range."),
        "{md}"
    );
    assert!(md.contains("> Time and tide wait for no man."), "{md}");
    assert!(md.contains("```\nhigh_water = 06:12"), "{md}");
    assert!(md.contains("![A breaking wave]"), "{md}");
    for overlay in ["cookies", "newsletter", "Subscribe now", "Copyright"] {
        assert!(!md.contains(overlay), "{overlay} in {md}");
    }
    // The overlay's button is still an element: the agent may need to dismiss it.
    uid_of(&r, "button", "Accept all cookies");
    assert_eq!(r["title"], "Tide tables explained");
    assert!(r["text"].as_str().expect("text").contains("We use cookies"));

    // A huge page: Markdown and elements cut at their caps.
    stack
        .open("extract/huge.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    assert_eq!(r["truncated"]["markdown"], true);
    assert_eq!(r["truncated"]["elements"], true);
    assert!(r["markdown"].as_str().expect("md").len() <= 30_000);
    let first: Vec<(&str, &str)> = r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .take(3)
        .map(|e| {
            (
                e["role"].as_str().unwrap_or(""),
                e["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        first,
        [
            ("searchbox", "Harbour search"),
            ("checkbox", "Only ferries"),
            ("link", "details")
        ]
    );
    assert_eq!(r["elements"][1]["checked"], "true");

    // 1 500 nested divs: shaping leaves the wrappers out at its depth cap, keeping
    // the deep text, instead of overflowing the wasm stack.
    stack
        .open("extract/deep.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    let md = r["markdown"].as_str().expect("markdown");
    assert!(md.contains("Shallow text about anchors."), "{md}");
    assert!(md.contains("Text at depth fifteen hundred."), "{md}");

    stack
        .open("extract/hidden.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    let md = r["markdown"].as_str().expect("markdown");
    assert!(!md.contains("Secret"), "{md}");
    assert!(md.contains("Visible paragraph two about harbours."), "{md}");
    let names: Vec<&str> = r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["Visible button"]);

    stack
        .open("extract/table.html", Some(tab))
        .await
        .expect("open");
    let md = stack.extract(tab).await["markdown"]
        .as_str()
        .expect("md")
        .to_owned();
    assert!(
        md.contains("| Port | Country | Depth (m) |\n| --- | --- | --- |\n| Brest | France | 12 |"),
        "{md}"
    );

    stack
        .open("extract/shadow.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    let md = r["markdown"].as_str().expect("markdown");
    for text in [
        "## Slotted harbour title",
        "Shadow paragraph about moorings.",
        "Frame paragraph about buoys.",
    ] {
        assert!(md.contains(text), "{text} missing from {md}");
    }
    uid_of(&r, "button", "Shadow button");
    let frame_box = r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|e| e["name"] == "Frame checkbox")
        .cloned()
        .expect("frame checkbox");
    assert_eq!(frame_box["checked"], "true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elements_cap_and_uid_lifecycle() {
    let stack = Stack::start().await.expect("stack");

    let tab = stack.open("extract/many.html", None).await.expect("open");
    let r = stack.extract(tab).await;
    assert_eq!(r["elements"].as_array().expect("elements").len(), 200);
    assert_eq!(r["truncated"]["elements"], true);
    assert_eq!(r["elements"][0]["uid"], "e0");
    assert_eq!(r["elements"][0]["name"], "Button 0");

    // A new document: numbering continues, the old uids are stale.
    stack
        .open("extract/spa.html", Some(tab))
        .await
        .expect("open");
    let first = stack.extract(tab).await;
    let show = uid_of(&first, "button", "Show details");
    let search = uid_of(&first, "searchbox", "Search ports");
    assert_eq!(show, "e200");
    let stale = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": "e5" }))
        .await
        .expect_err("old document's uid");
    assert_eq!(stale.code, "element_stale", "{stale}");
    let never = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": "e90000" }))
        .await
        .expect_err("never issued");
    assert_eq!(never.code, "element_not_found", "{never}");

    // Re-extract keeps uids; pushState (SPA route change) keeps them too.
    let again = stack.extract(tab).await;
    assert_eq!(again["elements"], first["elements"]);
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": show }))
        .await
        .expect("click by uid");
    let routed = stack.extract(tab).await;
    assert!(
        routed["url"]
            .as_str()
            .expect("url")
            .ends_with("/extract/spa/details")
    );
    assert!(
        routed["markdown"]
            .as_str()
            .expect("md")
            .contains("# Details view")
    );
    assert_eq!(uid_of(&routed, "button", "Show details"), show);
    assert_eq!(uid_of(&routed, "searchbox", "Search ports"), search);
    let added = uid_of(&routed, "button", "Added later");
    let highest = first["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|e| e["uid"].as_str()?.strip_prefix('e')?.parse::<u64>().ok())
        .max()
        .expect("uids");
    assert_eq!(added, format!("e{}", highest + 1));
    stack
        .act(json!({ "action": "type", "tabId": tab, "uid": search, "text": "Brest" }))
        .await
        .expect("uid still valid after pushState");

    // Real navigation: uids of the previous document are stale.
    let link = uid_of(&routed, "link", "Second page");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": link }))
        .await
        .expect("click link");
    let mut second = stack.extract(tab).await;
    for _ in 0..50 {
        if second["title"] == "Second page" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        second = stack.extract(tab).await;
    }
    assert_eq!(second["title"], "Second page");
    let gone = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": show }))
        .await
        .expect_err("stale after navigation");
    assert_eq!(gone.code, "element_stale", "{gone}");
    let fresh = uid_of(&second, "button", "Second button");
    assert!(fresh.trim_start_matches('e').parse::<u64>().expect("uid") > highest + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_wall_flagged_and_nav_login_link_not() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/login.html", None).await.expect("open");
    let r = stack.extract(tab).await;
    assert_eq!(r["obstacle"]["type"], "auth_wall", "{r}");
    assert_eq!(r["obstacle"]["confidence"], "high", "{r}");

    stack
        .open("extract/navlogin.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    assert!(
        r.get("obstacle").is_none(),
        "false obstacle: {}",
        r["obstacle"]
    );
    uid_of(&r, "link", "Log in");
    assert!(!r["markdown"].as_str().expect("md").contains("Log in"));
}

/// The §8 inputs only the live page has, through the real extension: the main
/// document's HTTP status (a vague page served as 403), a sign-in modal that opens
/// after load over an article and locks scrolling, and the look-alikes that must
/// stay clear (a signed-in settings page with a change-password form, an article
/// quoting challenge phrases).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn obstacles_from_status_overlay_and_signed_in_signals() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open(
            "obstacles/denied-forbidden-status-only.status-403.html",
            None,
        )
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    assert_eq!(r["obstacle"]["type"], "access_denied", "{r}");
    assert_eq!(r["obstacle"]["confidence"], "high", "{r}");
    assert!(
        r["obstacle"]["message"]
            .as_str()
            .expect("message")
            .contains("403"),
        "{r}"
    );

    stack
        .open("obstacles/auth-keep-reading-delayed.html", Some(tab))
        .await
        .expect("open");
    let mut r = stack.extract(tab).await;
    for _ in 0..30 {
        if r.get("obstacle").is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        r = stack.extract(tab).await;
    }
    assert_eq!(r["obstacle"]["type"], "auth_wall", "{r}");
    assert_eq!(r["obstacle"]["confidence"], "medium", "{r}");

    for clear in [
        "obstacles/neg-settings-change-password.html",
        "obstacles/neg-article-captcha-quote.html",
        "obstacles/neg-news-header-signin-box.html",
    ] {
        stack.open(clear, Some(tab)).await.expect("open");
        let r = stack.extract(tab).await;
        assert!(r.get("obstacle").is_none(), "{clear}: {}", r["obstacle"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_modal_dialog_leads_the_markdown() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/modal.html", None).await.expect("open");
    let page = stack.extract(tab).await;
    let md = page["markdown"].as_str().unwrap();
    assert!(
        !md.contains("Are you sure") && !md.contains("inert"),
        "{md}"
    );

    // A `<dialog>` opened with showModal(): its question first, then the page.
    let delete = uid_of(&page, "button", "Delete report.pdf");
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": delete}))
        .await
        .expect("click");
    let page = stack.extract(tab).await;
    let md = page["markdown"].as_str().unwrap();
    let question = md.find("Are you sure you want to delete report.pdf?");
    let note = md.find("the page below is inert");
    let behind = md.find("Your project files");
    assert!(md.contains("Confirm delete"), "{md}");
    assert!(
        question.is_some() && question < note && note < behind,
        "dialog, note, page: {md}"
    );
    let cancel = uid_of(&page, "button", "Cancel");
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": cancel}))
        .await
        .expect("cancel");
    let md = stack.extract(tab).await["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        !md.contains("Are you sure") && !md.contains("inert"),
        "{md}"
    );

    // A visible role=dialog with aria-modal="true".
    let page = stack.extract(tab).await;
    let logout = uid_of(&page, "button", "Log out");
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": logout}))
        .await
        .expect("click");
    let md = stack.extract(tab).await["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    let warning = md.find("Unsaved changes will be lost.");
    assert!(
        warning.is_some() && warning < md.find("the page below is inert"),
        "{md}"
    );
}

/// `role name=value` of each element of an extract result.
fn named(r: &serde_json::Value) -> Vec<String> {
    r["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| {
            format!(
                "{} {}={}",
                e["role"].as_str().unwrap_or(""),
                e["name"].as_str().unwrap_or(""),
                e["value"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elements_are_named_as_chromium_names_them_without_its_tree() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/names.html", None).await.expect("open");
    let got = named(&stack.extract(tab).await);
    for want in [
        "button SIGN IN=",
        "link STRASSE=",
        "button loud button=",
        "link Don't Stop-Now 2day=",
        "link shop Now=",
        "button kept as written=",
        "button inherited case=",
        "button Choose File=No file chosen",
        "button Choose Files=No file chosen",
        "button Photos=No file chosen",
        "button Upload a scan=No file chosen",
        "link Attach Choose File: No file chosen here=",
    ] {
        assert!(got.iter().any(|l| l == want), "{want} in {got:#?}");
    }
    assert!(!got.iter().any(|l| l.contains("nert")), "{got:#?}");

    // Behind a modal <dialog> nothing else is listed: not the page, not a
    // non-modal dialog, not a manual popover; closed, the page is back.
    stack
        .open("extract/names-modal.html", Some(tab))
        .await
        .expect("open");
    let r = stack.extract(tab).await;
    assert_eq!(
        named(&r),
        ["button Keep=", "link Discard=", "textbox Reason="]
    );
    stack
        .act(json!({"action": "evaluate", "tabId": tab,
            "expression": "document.getElementById('ask').close(); return 1"}))
        .await
        .expect("close");
    let got = named(&stack.extract(tab).await);
    for want in [
        "button Behind=",
        "button Non-modal=",
        "button In a popover=",
    ] {
        assert!(got.iter().any(|l| l == want), "{want} in {got:#?}");
    }
    assert!(!got.iter().any(|l| l == "button Keep="), "{got:#?}");
}
