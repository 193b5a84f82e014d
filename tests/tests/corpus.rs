//! Extract quality on the real-page corpus (`../shared/corpus/pages/`), through the
//! real stack: each `source.html` is served on 127.0.0.1, loaded in headless Chromium
//! and extracted by the wasm extension. Prints recall against Readability's
//! `expected.html`, markdown bytes, elements and extract time per page and in total;
//! writes each `ExtractResult` to `target/corpus-extracts/<page>.json`. Every page
//! is content, so any obstacle (§8, at any level) is a false one and fails the test.
#![allow(clippy::print_stdout)] // the corpus figures are printed for --nocapture runs

use std::time::Instant;

use browser_bridge_tests::corpus::{measure, recall};
use browser_bridge_tests::fixtures::StaticServer;
use browser_bridge_tests::harness::{Stack, workspace_root};
use serde_json::json;

/// Mean recall the corpus must keep.
const MIN_MEAN_RECALL: f64 = 0.90;
/// Recall no page may fall under.
const MIN_PAGE_RECALL: f64 = 0.60;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_recall_size_and_time() {
    // The corpus lives beside the repository; CI always has it, a plain clone may not.
    let pages = std::env::var_os("BROWSER_BRIDGE_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/corpus/pages"));
    if !pages.is_dir() && std::env::var_os("CI").is_none() {
        eprintln!(
            "corpus not found at {}: skipped (set BROWSER_BRIDGE_CORPUS to its pages/ folder)",
            pages.display()
        );
        return;
    }
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .expect("corpus pages")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| pages.join(n).join("source.html").is_file())
        .collect();
    names.sort();
    assert!(names.len() >= 30, "corpus has only {} pages", names.len());
    let out = workspace_root().join("target/corpus-extracts");
    std::fs::create_dir_all(&out).expect("output dir");

    // Served with a same-origin-only CSP: the network is closed, and external loads
    // must fail at once rather than hold the load event on DNS.
    let server = StaticServer::start_with(pages.clone(), true)
        .await
        .expect("server");
    let stack = Stack::start().await.expect("stack");
    let mut tab = None;
    let mut rows = Vec::new();
    let mut obstacles = Vec::new();
    for name in &names {
        let mut navigate =
            json!({ "action": "navigate", "url": format!("{}/{name}/source.html", server.base) });
        if let Some(t) = tab {
            navigate["tabId"] = json!(t);
        }
        let nav = stack
            .act(navigate)
            .await
            .unwrap_or_else(|e| panic!("{name}: navigate: {e}"));
        let opened = nav["tabId"].as_i64().expect("tabId");
        tab = Some(opened);
        let start = Instant::now();
        let result = stack
            .act(json!({ "action": "extract", "tabId": opened }))
            .await
            .unwrap_or_else(|e| panic!("{name}: extract: {e}"));
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        std::fs::write(
            out.join(format!("{name}.json")),
            serde_json::to_vec(&result).expect("json"),
        )
        .expect("write extract");
        if let Some(o) = result.get("obstacle") {
            obstacles.push(format!("{name}: {o}"));
        }
        let markdown = result["markdown"].as_str().unwrap_or_default();
        let expected =
            std::fs::read_to_string(pages.join(name).join("expected.html")).expect("expected.html");
        rows.push(measure::Row {
            page: name.clone(),
            recall: recall::recall(&recall::expected_text(&expected), markdown),
            markdown_bytes: markdown.len(),
            json_bytes: serde_json::to_vec(&result).map_or(0, |v| v.len()),
            elements: result["elements"].as_array().map_or(0, Vec::len),
            ms,
        });
    }
    println!("{}", measure::table(&rows));
    println!(
        "false obstacles (any level): {} of {} pages",
        obstacles.len(),
        rows.len()
    );
    assert!(obstacles.is_empty(), "false obstacles: {obstacles:#?}");
    let mean = rows.iter().map(|r| r.recall).sum::<f64>() / rows.len() as f64;
    let worst = rows
        .iter()
        .min_by(|a, b| a.recall.total_cmp(&b.recall))
        .expect("rows");
    assert!(mean >= MIN_MEAN_RECALL, "mean recall {mean:.3}");
    assert!(
        worst.recall >= MIN_PAGE_RECALL,
        "{} recall {:.3}",
        worst.page,
        worst.recall
    );
}
