//! End-to-end: downloads (PROTOCOL.md §10.2) in real Chromium: a link served
//! as an attachment and a Blob that page script saves through `<a download>`,
//! each reported by its click (or `navigate`) at once, waited for, and its
//! file checked byte for byte and by SHA-256; the session stays usable; the
//! session's list, newest first; a download that begins later; bad ids and
//! bounds; and a page on an allowed host that starts a download from a blocked
//! one, directly and through a redirect.

use std::path::Path;
use std::time::{Duration, Instant};

use browser_bridge_tests::chromium::EXTENSION_ID;
use browser_bridge_tests::harness::{Stack, uid_named};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The generated file's bytes, as the fixture's script writes them.
const NOTES: &str = "notes made by page script\nline two: \u{e9}t\u{e9}\n";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(
        browser_bridge_tests::fixtures::fixtures_dir()
            .join("downloads")
            .join(name),
    )
    .expect("fixture file")
}

/// Opens the downloads page in a new session tab.
async fn downloads_page(stack: &Stack) -> i64 {
    stack
        .act(json!({"action": "open_tab", "url": stack.fixtures.url("downloads/index.html")}))
        .await
        .expect("downloads page")["tabId"]
        .as_i64()
        .expect("tabId")
}

/// Clicks the element `selector` of `tab`; the click's result, timed.
async fn click(stack: &Stack, tab: i64, selector: &str) -> (Result<Value, String>, Duration) {
    let started = Instant::now();
    let r = stack
        .act(json!({"action": "click", "tabId": tab, "selector": selector}))
        .await
        .map_err(|e| format!("{}: {}", e.code, e.message));
    (r, started.elapsed())
}

/// `wait_for_download` with `params` on `tab`.
async fn wait_for(stack: &Stack, tab: i64, params: Value) -> Result<Value, (String, String)> {
    let mut action = json!({"action": "wait_for_download", "tabId": tab});
    action
        .as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    stack.act(action).await.map_err(|e| (e.code, e.message))
}

/// Checks a finished download against the bytes expected: complete, its path
/// in the profile's download folder, the file holding exactly those bytes,
/// `bytes` and `sha256` theirs.
fn check_saved(stack: &Stack, done: &Value, expected: &[u8], mime: &str) {
    assert_eq!(done["state"], "complete", "{done}");
    let path = done["path"].as_str().expect("path");
    assert!(Path::new(path).is_absolute(), "{done}");
    assert!(
        Path::new(path).starts_with(stack.chromium.downloads_dir()),
        "saved outside the profile's download folder: {done}"
    );
    assert_eq!(std::fs::read(path).expect("saved file"), expected);
    assert_eq!(done["bytes"], expected.len(), "{done}");
    assert_eq!(done["sha256"], sha256_hex(expected), "{done}");
    assert_eq!(done["mimeType"], mime, "{done}");
    assert!(done.get("error").is_none(), "{done}");
}

/// A link served as an attachment: the click answers at once with the
/// download (no navigation, the page stays), `wait_for_download` by its id
/// answers the saved file, whose bytes and hash are the fixture's; then the
/// same page is still usable: an extract, a click that counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attachment_link_downloads_and_the_page_stays_usable() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    let (r, took) = click(&stack, tab, "#report").await;
    let r = r.expect("click on the attachment link");
    assert!(
        took < Duration::from_secs(5),
        "the click took {took:?}: {r}"
    );
    assert_eq!(r["navigated"], false, "{r}");
    assert!(
        r["url"]
            .as_str()
            .unwrap()
            .ends_with("/downloads/index.html"),
        "{r}"
    );
    let download = &r["download"];
    assert!(download["downloadId"].is_u64(), "{r}");
    assert_eq!(
        download["url"],
        stack.fixtures.url("downloads/report.attachment.csv"),
        "{r}"
    );
    assert_eq!(download["filename"], "report.attachment.csv", "{r}");
    let id = download["downloadId"].clone();
    let done = wait_for(&stack, tab, json!({"downloadId": id}))
        .await
        .expect("wait_for_download");
    assert_eq!(done["downloadId"], id);
    assert_eq!(done["tabId"], tab);
    check_saved(
        &stack,
        &done,
        &fixture_bytes("report.attachment.csv"),
        "text/csv",
    );

    // The session goes on: the page reads and acts as before.
    let extract = stack.extract(tab).await;
    let count = uid_named(&extract, "Count");
    stack
        .act(json!({"action": "click", "tabId": tab, "uid": count}))
        .await
        .expect("click after the download");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('clicks').value")
            .await
            .unwrap(),
        "1"
    );
}

/// A Blob made by page script and saved through `<a download>`: the click
/// reports it, and the file holds the script's bytes (UTF-8) under the name
/// the page gave; no id waits for the session's latest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_blob_downloads_with_the_page_s_bytes() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    let (r, took) = click(&stack, tab, "#blob").await;
    let r = r.expect("click on the blob button");
    assert!(
        took < Duration::from_secs(5),
        "the click took {took:?}: {r}"
    );
    let download = &r["download"];
    assert!(
        download["url"]
            .as_str()
            .unwrap_or_default()
            .starts_with("blob:"),
        "{r}"
    );
    assert_eq!(download["filename"], "generated-notes.txt", "{r}");
    let done = wait_for(&stack, tab, json!({}))
        .await
        .expect("wait_for_download");
    assert_eq!(done["downloadId"], download["downloadId"]);
    check_saved(&stack, &done, NOTES.as_bytes(), "text/plain");
    assert!(
        done["path"]
            .as_str()
            .unwrap()
            .ends_with("generated-notes.txt")
    );
}

/// `navigate` to a URL served as an attachment answers at once with the
/// download instead of waiting for a load that never comes; the tab keeps
/// its page and the file is the fixture's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_to_an_attachment_answers_with_its_download() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    let started = Instant::now();
    let r = stack
        .act(json!({
            "action": "navigate",
            "tabId": tab,
            "url": stack.fixtures.url("downloads/report.attachment.csv"),
        }))
        .await
        .expect("navigate to the attachment");
    assert!(started.elapsed() < Duration::from_secs(5), "{r}");
    assert!(
        r["url"]
            .as_str()
            .unwrap()
            .ends_with("/downloads/index.html"),
        "{r}"
    );
    assert_eq!(r["title"], "Downloads", "{r}");
    assert_eq!(r["download"]["filename"], "report.attachment.csv", "{r}");
    let done = wait_for(
        &stack,
        tab,
        json!({"downloadId": r["download"]["downloadId"]}),
    )
    .await
    .expect("wait_for_download");
    check_saved(
        &stack,
        &done,
        &fixture_bytes("report.attachment.csv"),
        "text/csv",
    );
    assert_eq!(
        stack.eval(tab, "return document.title").await.unwrap(),
        "Downloads"
    );
}

/// `list_downloads` lists the session's downloads newest first, `limit`
/// keeps the newest; another tab's session lists none of them, and
/// `wait_for_download` there refuses their ids.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_lists_its_own_downloads_newest_first() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    let first = click(&stack, tab, "#report").await.0.expect("first");
    let second = click(&stack, tab, "#blob").await.0.expect("second");
    let (first_id, second_id) = (
        first["download"]["downloadId"].clone(),
        second["download"]["downloadId"].clone(),
    );
    assert_ne!(first_id, second_id);
    for id in [&first_id, &second_id] {
        wait_for(&stack, tab, json!({"downloadId": id}))
            .await
            .expect("both end");
    }
    let list = stack
        .act(json!({"action": "list_downloads", "tabId": tab}))
        .await
        .expect("list_downloads");
    let downloads = list["downloads"].as_array().expect("downloads");
    let ids: Vec<&Value> = downloads.iter().map(|d| &d["downloadId"]).collect();
    assert_eq!(ids, [&second_id, &first_id], "{list}");
    assert_eq!(downloads[0]["filename"], "generated-notes.txt");
    assert_eq!(downloads[0]["state"], "complete");
    assert_eq!(downloads[0]["bytes"], NOTES.len());
    assert_eq!(downloads[1]["filename"], "report.attachment.csv");
    let newest = stack
        .act(json!({"action": "list_downloads", "tabId": tab, "limit": 1}))
        .await
        .expect("list_downloads limit 1");
    assert_eq!(newest["downloads"].as_array().unwrap().len(), 1);
    assert_eq!(newest["downloads"][0]["downloadId"], second_id);

    let other = downloads_page(&stack).await;
    let none = stack
        .act(json!({"action": "list_downloads", "tabId": other}))
        .await
        .expect("other tab's list");
    assert_eq!(none["downloads"], json!([]), "{none}");
    let (code, message) = wait_for(&stack, other, json!({"downloadId": first_id}))
        .await
        .expect_err("another session's download");
    assert_eq!(code, "invalid_action", "{message}");
}

/// A download a timer starts after the click: the click answers without one,
/// `wait_for_download` without an id waits for it to begin and end; with no
/// download coming it answers `timeout` at its own `timeoutMs`, never hangs;
/// a `timeoutMs` past five minutes and a bad limit are refused before sending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_for_a_download_that_begins_later_and_for_none() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    let r = click(&stack, tab, "#later").await.0.expect("click");
    assert!(r.get("download").is_none(), "began within the click: {r}");
    let done = wait_for(&stack, tab, json!({"timeoutMs": 10_000}))
        .await
        .expect("the later download");
    check_saved(&stack, &done, NOTES.as_bytes(), "text/plain");

    let quiet = downloads_page(&stack).await;
    let started = Instant::now();
    let (code, message) = wait_for(&stack, quiet, json!({"timeoutMs": 400}))
        .await
        .expect_err("no download");
    assert_eq!(code, "timeout", "{message}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(5),
        "{took:?}"
    );

    let (code, message) = wait_for(&stack, quiet, json!({"timeoutMs": 300_001}))
        .await
        .expect_err("past five minutes");
    assert_eq!(code, "invalid_request", "{message}");
    assert!(message.contains("timeoutMs"), "{message}");
    let (code, _) = wait_for(&stack, quiet, json!({"downloadId": 999_999}))
        .await
        .expect_err("never issued");
    assert_eq!(code, "invalid_action");
    let bad = stack
        .act(json!({"action": "list_downloads", "tabId": quiet, "limit": 51}))
        .await
        .expect_err("limit 51");
    assert_eq!(bad.code, "invalid_request", "{}", bad.message);
}

/// Writes `blocklist` to `chrome.storage.local` from the options page, then
/// waits until the worker applied it (a tab on a closed port of that domain
/// is refused, so nothing is contacted).
async fn block(stack: &Stack, domain: &str) {
    let (target, session) = stack
        .chromium
        .open_page(&format!("chrome-extension://{EXTENSION_ID}/options.html"))
        .await
        .expect("options page");
    stack
        .chromium
        .eval(
            &session,
            &format!("await chrome.storage.local.set({{ blocklist: [{domain:?}] }}); return 1"),
        )
        .await
        .expect("storage.set");
    let _ = stack.chromium.close_target(&target).await;
    let probe = format!("http://probe.{domain}:1/");
    for _ in 0..50 {
        let r = stack.act(json!({"action": "open_tab", "url": probe})).await;
        if r.as_ref().is_err_and(|e| e.code == "domain_blocked") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the blocklist never applied");
}

/// The files saved so far in the profile's download folder.
fn saved_files(stack: &Stack) -> Vec<String> {
    std::fs::read_dir(stack.chromium.downloads_dir())
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The attacker: a page on an allowed host links a download on a blocked host,
/// directly and through a redirect on its own host. Each click answers
/// `domain_blocked`, and no file from the blocked host is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_from_a_blocked_host_is_refused() {
    let stack = Stack::start().await.expect("stack");
    block(&stack, "blocked.localhost").await;
    for link in ["#blocked-direct", "#blocked-redirect"] {
        let tab = downloads_page(&stack).await;
        let (r, took) = click(&stack, tab, link).await;
        let error = r.expect_err(&format!("{link}: the download was not refused"));
        assert!(error.starts_with("domain_blocked"), "{link}: {error}");
        assert!(error.contains("blocked.localhost"), "{link}: {error}");
        assert!(took < Duration::from_secs(5), "{link}: took {took:?}");
        // Whatever Chrome had begun is gone: no secret file, complete or partial.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let files = saved_files(&stack);
        assert!(
            !files.iter().any(|f| f.contains("secret")),
            "{link}: saved {files:?}"
        );
    }
}

/// The other inputs that start a download report it too: Enter on the focused
/// attachment link (`press_key`), and a click at the link's point (`x`, `y`);
/// each is a download of its own, and the page stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_press_and_a_click_at_a_point_report_their_downloads() {
    let stack = Stack::start().await.expect("stack");
    let tab = downloads_page(&stack).await;
    stack
        .eval(tab, "document.getElementById('report').focus(); return 1")
        .await
        .expect("focus the link");
    let started = Instant::now();
    let pressed = stack
        .act(json!({"action": "press_key", "tabId": tab, "key": "Enter"}))
        .await
        .expect("Enter on the link");
    assert!(started.elapsed() < Duration::from_secs(5), "{pressed}");
    assert_eq!(
        pressed["download"]["filename"], "report.attachment.csv",
        "{pressed}"
    );
    let point = stack
        .eval(
            tab,
            "const r = document.getElementById('report').getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]",
        )
        .await
        .expect("the link's point");
    let clicked = stack
        .act(json!({"action": "click", "tabId": tab, "x": point[0], "y": point[1]}))
        .await
        .expect("click at the link's point");
    assert_eq!(clicked["navigated"], false, "{clicked}");
    assert_eq!(clicked["hit"]["role"], "link", "{clicked}");
    let download = &clicked["download"];
    assert_ne!(download["downloadId"], pressed["download"]["downloadId"]);
    let done = wait_for(&stack, tab, json!({"downloadId": download["downloadId"]}))
        .await
        .expect("wait_for_download");
    check_saved(
        &stack,
        &done,
        &fixture_bytes("report.attachment.csv"),
        "text/csv",
    );
    assert!(
        clicked["url"]
            .as_str()
            .unwrap()
            .ends_with("/downloads/index.html"),
        "{clicked}"
    );
}
