//! `corpus`: capture extract inputs from headless Chromium and measure markdown quality.
//!
//! - `corpus capture --out DIR [--only NAME]`: serve each `pages/<name>/source.html`,
//!   load it in headless Chromium, store DOMSnapshot + AX trees + innerText as
//!   `DIR/<name>.json`.
//! - `corpus capture-file --root DIR --path REL --out FILE`: the same for one file
//!   (used to record the small fixtures of the protocol crate's page tests).
//! - `corpus capture-set --root DIR --out DIR [--settle-ms N]`: the same for every
//!   `*.html` under `root` (its labelled obstacle set: `tests/fixtures/obstacles` →
//!   `page/tests/fixtures/obstacles`), each after `settle-ms` more milliseconds so
//!   that overlays that appear after load are there; `DIR/<stem>.json`.
//! - `corpus measure --captures DIR`: shape every capture with the pure page logic and
//!   print recall, markdown bytes, elements per page.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

use std::path::PathBuf;

use anyhow::Result;
use browser_bridge_tests::corpus::{capture, cdp, measure};
use browser_bridge_tests::fixtures::StaticServer;
use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Capture every corpus page.
    Capture {
        /// Corpus pages directory.
        #[arg(long, default_value = "../shared/corpus/pages")]
        pages: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Only this page.
        #[arg(long)]
        only: Option<String>,
    },
    /// Capture one served file.
    CaptureFile {
        /// Directory to serve.
        #[arg(long)]
        root: PathBuf,
        /// Path under it to load.
        #[arg(long)]
        path: String,
        /// Output JSON file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Capture every `*.html` of a directory (one level, sorted).
    CaptureSet {
        /// Directory to serve.
        #[arg(long)]
        root: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Wait this long after the load event before capturing (ms).
        #[arg(long, default_value_t = 800)]
        settle_ms: u64,
    },
    /// Time each CDP call of extract on one corpus page.
    Time {
        /// Corpus pages directory.
        #[arg(long, default_value = "../shared/corpus/pages")]
        pages: PathBuf,
        /// The page.
        #[arg(long)]
        only: String,
    },
    /// Shape captures and print the table.
    Measure {
        /// Corpus pages directory (for expected.html).
        #[arg(long, default_value = "../shared/corpus/pages")]
        pages: PathBuf,
        /// Captures directory.
        #[arg(long)]
        captures: PathBuf,
        /// Also write each page's markdown to this directory.
        #[arg(long)]
        dump: Option<PathBuf>,
    },
}

#[tokio::main]
async fn main() -> Result<()> {
    match Cli::parse().cmd {
        Cmd::Capture { pages, out, only } => {
            std::fs::create_dir_all(&out)?;
            let server = StaticServer::start_dir(pages.clone()).await?;
            let browser = cdp::Browser::launch().await?;
            let mut names: Vec<String> = std::fs::read_dir(&pages)?
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| only.as_ref().is_none_or(|o| o == n))
                .collect();
            names.sort();
            for name in names {
                let mut tab = cdp::Tab::open(&browser).await?;
                let url = format!("{}/{name}/source.html", server.base);
                if let Err(e) = tab.goto(&url).await {
                    eprintln!("{name}: load: {e}");
                }
                match capture::capture(&mut tab).await {
                    Ok(c) => {
                        std::fs::write(out.join(format!("{name}.json")), serde_json::to_vec(&c)?)?;
                        eprintln!("{name}: {:.0} ms", c.ms);
                    }
                    Err(e) => eprintln!("{name}: capture: {e}"),
                }
                let _ = tab.call("Page.close", serde_json::json!({})).await;
            }
        }
        Cmd::CaptureFile { root, path, out } => {
            let server = StaticServer::start_dir(root).await?;
            let browser = cdp::Browser::launch().await?;
            let mut tab = cdp::Tab::open(&browser).await?;
            tab.goto(&format!("{}/{path}", server.base)).await?;
            let c = capture::trimmed(capture::capture(&mut tab).await?);
            std::fs::write(&out, serde_json::to_vec(&c)?)?;
        }
        Cmd::CaptureSet {
            root,
            out,
            settle_ms,
        } => {
            std::fs::create_dir_all(&out)?;
            let mut names: Vec<String> = std::fs::read_dir(&root)?
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".html"))
                .collect();
            names.sort();
            let server = StaticServer::start_dir(root).await?;
            let browser = cdp::Browser::launch().await?;
            for name in names {
                let mut tab = cdp::Tab::open(&browser).await?;
                if let Err(e) = tab.goto(&format!("{}/{name}", server.base)).await {
                    eprintln!("{name}: load: {e}");
                }
                tokio::time::sleep(std::time::Duration::from_millis(settle_ms)).await;
                let c = capture::trimmed(capture::capture(&mut tab).await?);
                // `x.status-403.html` → `x`: the label names the page, not its status.
                let stem = name.trim_end_matches(".html");
                let stem = stem.split(".status-").next().unwrap_or(stem);
                std::fs::write(out.join(format!("{stem}.json")), serde_json::to_vec(&c)?)?;
                let _ = tab.call("Page.close", serde_json::json!({})).await;
            }
        }
        Cmd::Time { pages, only } => {
            let server = StaticServer::start_dir(pages).await?;
            let browser = cdp::Browser::launch().await?;
            let mut tab = cdp::Tab::open(&browser).await?;
            tab.goto(&format!("{}/{only}/source.html", server.base))
                .await?;
            for (method, params) in [
                (
                    "DOMSnapshot.captureSnapshot",
                    serde_json::json!({"computedStyles": browser_bridge_page::snapshot::COMPUTED_STYLES}),
                ),
                ("Accessibility.getFullAXTree", serde_json::json!({})),
                (
                    "Runtime.evaluate",
                    serde_json::json!({"expression": "document.body.innerText", "returnByValue": true}),
                ),
            ] {
                for _ in 0..2 {
                    let start = std::time::Instant::now();
                    let v = tab.call(method, params.clone()).await?;
                    let bytes = v.to_string().len();
                    println!(
                        "{method}: {:.1} ms, {bytes} bytes",
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                }
            }
            let doc = tab
                .call("DOM.getDocument", serde_json::json!({"depth": 0}))
                .await?;
            let root = doc["root"]["backendNodeId"].clone();
            let start = std::time::Instant::now();
            let mut total = 0;
            for role in browser_bridge_page::elements::INTERACTIVE_ROLES {
                let v = tab
                    .call(
                        "Accessibility.queryAXTree",
                        serde_json::json!({"backendNodeId": root, "role": role}),
                    )
                    .await?;
                let n = v["nodes"].as_array().map_or(0, Vec::len);
                total += n;
                if *role == "link" {
                    println!("first link: {}", v["nodes"][0]);
                }
            }
            println!(
                "queryAXTree x{}: {:.1} ms, {total} nodes",
                browser_bridge_page::elements::INTERACTIVE_ROLES.len(),
                start.elapsed().as_secs_f64() * 1000.0
            );
        }
        Cmd::Measure {
            pages,
            captures,
            dump,
        } => {
            let rows = measure::measure_dir(&pages, &captures, dump.as_deref())?;
            print!("{}", measure::table(&rows));
        }
    }
    Ok(())
}
