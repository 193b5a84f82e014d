//! `browser-bridge-bench`: how fast the real stack answers, beside a reference on
//! the same machine. Starts `browser-bridge serve` (the binary given by
//! `--backend`, a release build) and headless Chromium with the built extension
//! once, then times each figure and prints a Markdown table: our p50/p99 (ms) and
//! the reference's, with their ratio.
//!
//! | figure | ours | reference |
//! |---|---|---|
//! | `evaluate` `return 1` | `POST /v1/act` | `Runtime.evaluate` over Chromium's own CDP pipe, and over its DevTools WebSocket port |
//! | `evaluate` after a pause | the same, each after an untimed 0–50 ms pause | `Runtime.evaluate` over the pipe after the same pauses |
//! | `list_tabs` | `POST /v1/act` | `Target.getTargets` over the pipe |
//! | `click`, `type`, `press_key` | `POST /v1/act` on `bench/static.html` | the bare `Input.dispatch*Event` / `Input.insertText` calls over the pipe |
//! | `click` after a pause | the same, each after an untimed 0–50 ms pause | the bare calls after the same pauses |
//! | `extract` | 2 000 controls (`bench/controls-2000.html`), the corpus median | Playwright `ariaSnapshot({mode: 'ai'})` of the same pages, when `node` and `playwright-core` are installed |
//!
//! plus an HTTP round trip that stays in the backend (`GET /v1/hello`: the share of HTTP
//! above), the wasm size (raw, gzip), Chromium start → extension `ack`, and the bytes a
//! model reads to finish two tasks four ways (`browser_bridge_tests::reading`;
//! `--reading-only`: that part alone, in any build). A part whose input is absent (the
//! corpus, Playwright) is skipped with a note. Usually run through `cargo xtask bench`.
#![allow(clippy::print_stdout)] // the test tools print their reports on stdout

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use browser_bridge_tests::corpus::cdp::Cdp;
use browser_bridge_tests::fixtures::StaticServer;
use browser_bridge_tests::harness::{Built, Stack, StackOptions, workspace_root};
use browser_bridge_tests::{profile, reading};
use clap::Parser;
use serde_json::{Value, json};

mod table;
mod timing;

use table::{Row, Samples, render};
use timing::{time, time_paced};

#[derive(Parser)]
#[command(
    name = "browser-bridge-bench",
    version,
    about = "browser-bridge: latency of the real stack beside raw CDP and Playwright"
)]
struct Cli {
    /// The `browser-bridge` binary to serve with (a release build).
    #[arg(long)]
    backend: PathBuf,
    /// The built extension (`extension/dist`).
    #[arg(long)]
    extension: Option<PathBuf>,
    /// The corpus pages (`<name>/source.html`); skipped when absent.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Samples of each fast figure (evaluate, list_tabs, raw CDP).
    #[arg(long, default_value_t = 300)]
    samples: usize,
    /// Samples of each input action (click, type, press_key).
    #[arg(long, default_value_t = 60)]
    input_samples: usize,
    /// Only the bytes a model read (no timings), each rendered result on stderr.
    #[arg(long)]
    reading_only: bool,
    /// Only the action rows (evaluate, list_tabs, click, type, press_key).
    #[arg(long)]
    actions_only: bool,
    /// Only the extract rows (2 000 controls, the corpus).
    #[arg(long)]
    extract_only: bool,
    /// Also where `evaluate`'s, the input actions' and `extract`'s time goes, stage
    /// by stage (`browser_bridge_tests::profile`).
    #[arg(long)]
    profile: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("browser-bridge-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// How long the stack runs `evaluate`s, untimed, before the first series:
/// Chromium's own start-up work in its first seconds gave `evaluate` a p99 of
/// 11 ms (p50 2.7) measured at once, 2.6 ms (p50 1.8) after it.
const SETTLE: Duration = Duration::from_secs(3);

/// Runs `evaluate` on `tab` for [`SETTLE`], untimed.
async fn settle(stack: &Stack, tab: i64) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < SETTLE {
        act(
            stack,
            json!({"action": "evaluate", "tabId": tab, "expression": "return 1"}),
        )
        .await?;
    }
    Ok(())
}

async fn act(stack: &Stack, action: Value) -> Result<Value> {
    stack
        .act(action.clone())
        .await
        .with_context(|| format!("{action}"))
}

async fn run(cli: Cli) -> Result<()> {
    let root = &workspace_root();
    let extension_dist = cli
        .extension
        .clone()
        .unwrap_or_else(|| root.join("extension").join("dist"));
    let built = Built {
        extension_dist: extension_dist.clone(),
        backend_bin: cli.backend.clone(),
    };
    let stack = Stack::start_with(StackOptions {
        built: Some(built),
        devtools_port: true,
        ..StackOptions::default()
    })
    .await?;
    let corpus = cli
        .corpus
        .clone()
        .unwrap_or_else(|| root.join("../shared/corpus/pages"));
    if cli.reading_only {
        let tab = stack.open("bench/static.html", None).await?;
        let found = reading::measure(&stack, tab, &corpus).await?;
        eprintln!("{}", reading::transcript(&found.0));
        println!("{}", reading::report(&found));
        return Ok(());
    }
    let mut rows = Vec::new();

    let tab = stack.open("bench/static.html", None).await?;
    settle(&stack, tab).await?;
    if !cli.extract_only {
        action_rows(&stack, &cli, tab, &mut rows).await?;
        if cli.actions_only {
            println!("{}", render(&rows));
            return Ok(());
        }
    }

    // Extract: the 2 000-control page and the corpus, beside Playwright when installed.
    let playwright = playwright_available(root);
    let controls_url = stack.fixtures.url("bench/controls-2000.html");
    stack.open("bench/controls-2000.html", Some(tab)).await?;
    let extract = time(10, || async {
        act(&stack, json!({"action": "extract", "tabId": tab}))
            .await
            .map(|_| ())
    })
    .await?;
    if cli.profile {
        let (raw_target, raw) = stack.chromium.open_page(&controls_url).await?;
        println!(
            "{}",
            profile::extract_breakdown(&stack, tab, &raw, 10).await?
        );
        let _ = stack.chromium.close_target(&raw_target).await;
    }
    let reference = match &playwright {
        Ok(()) => match playwright_times(root, &[controls_url], 10) {
            Ok(ms) => Some(("Playwright ariaSnapshot ai", Samples(ms))),
            Err(e) => {
                rows.push(Row::note(
                    "Playwright, 2 000 controls",
                    format!("failed: {e:#}"),
                ));
                None
            }
        },
        Err(why) => {
            rows.push(Row::note("Playwright reference", why.clone()));
            None
        }
    };
    rows.push(Row {
        figure: "extract, 2 000 controls".into(),
        ours: Some(extract),
        reference: reference.map(|(n, s)| (n.to_owned(), s)),
        note: String::new(),
    });
    eprintln!("bench: extract of the corpus");
    match corpus_pages(&corpus) {
        Ok(pages) => {
            let server = StaticServer::start_dir(corpus.clone()).await?;
            let urls: Vec<String> = pages
                .iter()
                .map(|p| server.url(&format!("{p}/source.html")))
                .collect();
            let mut ours = Vec::new();
            for url in &urls {
                act(
                    &stack,
                    json!({"action": "navigate", "tabId": tab, "url": url}),
                )
                .await?;
                let t = Instant::now();
                act(&stack, json!({"action": "extract", "tabId": tab})).await?;
                ours.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            let reference = match &playwright {
                Ok(()) => match playwright_times(root, &urls, 1) {
                    Ok(ms) => Some(("Playwright ariaSnapshot ai".to_owned(), Samples(ms))),
                    Err(e) => {
                        rows.push(Row::note("Playwright, corpus", format!("failed: {e:#}")));
                        None
                    }
                },
                Err(_) => None,
            };
            rows.push(Row {
                figure: format!("extract, corpus ({} pages; p50 = median page)", urls.len()),
                ours: Some(Samples(ours)),
                reference,
                note: String::new(),
            });
        }
        Err(why) => rows.push(Row::note("extract, corpus", why)),
    }

    let mut table = render(&rows);
    table.push('\n');
    table.push_str(&sizes(&extension_dist, &stack));
    if !cli.extract_only {
        eprintln!("bench: bytes a model reads, four ways");
        let found = reading::measure(&stack, tab, &corpus).await?;
        table.push_str(&reading::report(&found));
    }
    println!("{table}");
    Ok(())
}

/// The action rows (evaluate, the HTTP round trip, list_tabs, click, type,
/// press_key) on `tab` (`bench/static.html`), with their profiles under `--profile`.
async fn action_rows(stack: &Stack, cli: &Cli, tab: i64, rows: &mut Vec<Row>) -> Result<()> {
    // evaluate, against Runtime.evaluate on another tab of the same page.
    eprintln!("bench: stack up; evaluate, list_tabs, input");
    let n = cli.samples;
    let (raw_target, raw) = stack
        .chromium
        .open_page(&stack.fixtures.url("bench/static.html"))
        .await?;
    let evaluate = || async {
        let r = act(
            stack,
            json!({"action": "evaluate", "tabId": tab, "expression": "return 1"}),
        )
        .await?;
        if r["value"] != 1 {
            bail!("evaluate answered {r}");
        }
        Ok(())
    };
    let raw_evaluate = || async {
        stack
            .chromium
            .cdp(
                "Runtime.evaluate",
                json!({"expression": "1", "returnByValue": true}),
                Some(&raw),
            )
            .await
            .map(|_| ())
    };
    let ours = time(n, evaluate).await?;
    let reference = time(n, raw_evaluate).await?;
    // The same call over Chromium's DevTools WebSocket port, the other raw
    // reference the issue names: a WebSocket client, as an agent's CDP tool is.
    let port = stack.chromium.devtools_port().await?;
    let page_ws = format!("ws://127.0.0.1:{port}/devtools/page/{raw_target}");
    let over_port = tokio::sync::Mutex::new(Cdp::connect(&page_ws).await?);
    let reference_port = time(n, || async {
        let expression = json!({"expression": "1", "returnByValue": true});
        let mut cdp = over_port.lock().await;
        cdp.call(None, "Runtime.evaluate", expression)
            .await
            .map(|_| ())
    })
    .await?;
    rows.push(Row::new(
        "evaluate `return 1`",
        ours.clone(),
        Some(("CDP Runtime.evaluate", reference)),
    ));
    rows.push(Row::new(
        "evaluate `return 1` (against the port)",
        ours,
        Some((
            "CDP Runtime.evaluate over the WebSocket port",
            reference_port,
        )),
    ));
    // At an agent's pace: Chrome's threads are idle when each call comes, for
    // both, where a back-to-back loop keeps them awake.
    let ours = time_paced(n, evaluate).await?;
    let reference = time_paced(n, raw_evaluate).await?;
    rows.push(Row::new(
        "evaluate `return 1` after a 0–50 ms pause",
        ours,
        Some(("the same Runtime.evaluate, same pauses", reference)),
    ));

    // The HTTP share of the figures: a round trip that never leaves the backend.
    let http = reqwest::Client::new();
    let hello = format!("{}/v1/hello?nonce={}", stack.base_url, "A".repeat(22));
    let ours = time(n, || async {
        let r = http.get(&hello).send().await?;
        if !r.status().is_success() {
            bail!("GET /v1/hello answered {}", r.status());
        }
        r.bytes().await?;
        Ok(())
    })
    .await?;
    rows.push(Row::new("HTTP round trip (`GET /v1/hello`)", ours, None));

    let ours = time(n, || async {
        act(stack, json!({"action": "list_tabs"})).await.map(|_| ())
    })
    .await?;
    let reference = time(n, || async {
        stack
            .chromium
            .cdp("Target.getTargets", json!({}), None)
            .await
            .map(|_| ())
    })
    .await?;
    rows.push(Row::new(
        "list_tabs",
        ours,
        Some(("CDP Target.getTargets", reference)),
    ));

    // Input on a static page: what the actions cost beside the bare CDP input calls.
    let m = cli.input_samples;
    let (x, y) = centre(stack, &raw, "#count").await?;
    let click_count = || async {
        act(
            stack,
            json!({"action": "click", "tabId": tab, "selector": "#count"}),
        )
        .await
        .map(|_| ())
    };
    let click = time(m, click_count).await?;
    let raw_click = time(m, || raw_press_release(stack, &raw, (x, y))).await?;
    rows.push(Row::new(
        "click (static page)",
        click,
        Some(("CDP mouse move, press, release", raw_click)),
    ));
    let click = time_paced(m, click_count).await?;
    let raw_click = time_paced(m, || raw_press_release(stack, &raw, (x, y))).await?;
    rows.push(Row::new(
        "click after a 0–50 ms pause",
        click,
        Some(("the same CDP calls, same pauses", raw_click)),
    ));
    let typed = time(m, || async {
        act(
            stack,
            json!({"action": "type", "tabId": tab, "selector": "#q", "text": "hello"}),
        )
        .await
        .map(|_| ())
    })
    .await?;
    stack
        .chromium
        .eval(&raw, "document.getElementById('q').focus(); return 1")
        .await?;
    let raw_type = time(m, || async {
        stack
            .chromium
            .cdp("Input.insertText", json!({"text": "hello"}), Some(&raw))
            .await
            .map(|_| ())
    })
    .await?;
    rows.push(Row::new(
        "type `hello` (static page)",
        typed,
        Some(("CDP Input.insertText", raw_type)),
    ));
    let pressed = time(m, || async {
        act(
            stack,
            json!({"action": "press_key", "tabId": tab, "key": "a"}),
        )
        .await
        .map(|_| ())
    })
    .await?;
    let raw_press = time(m, || async {
        for kind in ["keyDown", "keyUp"] {
            let event = json!({"type": kind, "key": "a", "code": "KeyA", "text": "a",
                "windowsVirtualKeyCode": 65});
            stack
                .chromium
                .cdp("Input.dispatchKeyEvent", event, Some(&raw))
                .await?;
        }
        Ok(())
    })
    .await?;
    rows.push(Row::new(
        "press_key `a` (static page)",
        pressed,
        Some(("CDP key down, up", raw_press)),
    ));
    let _ = stack.chromium.close_target(&raw_target).await;
    if cli.profile {
        println!("{}", profile::evaluate_breakdown(stack, tab, n).await?);
        let inputs = [
            json!({"action": "click", "tabId": tab, "selector": "#count"}),
            json!({"action": "type", "tabId": tab, "selector": "#q", "text": "hello"}),
            json!({"action": "press_key", "tabId": tab, "key": "a"}),
        ];
        println!("{}", profile::actions_breakdown(stack, &inputs, m).await?);
    }
    Ok(())
}

/// A bare left click at `(x, y)` (CSS px) in CDP session `session`: mouse move,
/// press, release, each awaited.
async fn raw_press_release(stack: &Stack, session: &str, (x, y): (f64, f64)) -> Result<()> {
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        let event = json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1});
        stack
            .chromium
            .cdp("Input.dispatchMouseEvent", event, Some(session))
            .await?;
    }
    Ok(())
}

/// The centre of `selector` in the page of CDP session `session` (CSS px).
async fn centre(stack: &Stack, session: &str, selector: &str) -> Result<(f64, f64)> {
    let js = format!(
        "const r = document.querySelector({}).getBoundingClientRect(); \
         return [r.x + r.width / 2, r.y + r.height / 2]",
        json!(selector)
    );
    let v = stack.chromium.eval(session, &js).await?;
    Ok((
        v[0].as_f64().context("x")?.floor(),
        v[1].as_f64().context("y")?.floor(),
    ))
}

/// The corpus page names (directories with a `source.html`), sorted; `Err` with
/// a note when there are none.
fn corpus_pages(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("skipped: no corpus at {} ({e})", dir.display()))?;
    let mut pages: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("source.html").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    if pages.is_empty() {
        return Err(format!(
            "skipped: no <page>/source.html under {}",
            dir.display()
        ));
    }
    Ok(pages)
}

/// The Playwright script: opens each URL (argv) in headless Chromium
/// (`/usr/bin/chromium`, or `$CHROMIUM`) and times `ariaSnapshot({mode: 'ai'})`
/// `repeat` times; prints one JSON array of ms.
const PLAYWRIGHT_JS: &str = r#"
const { chromium } = require('playwright-core');
(async () => {
  const [repeat, ...urls] = process.argv.slice(1);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const page = await browser.newPage();
  const out = [];
  for (const url of urls) {
    await page.goto(url, { waitUntil: 'load', timeout: 15000 }).catch(() => {});
    for (let i = 0; i < Number(repeat) + 1; i++) {
      const t = performance.now();
      if (page.ariaSnapshot) await page.ariaSnapshot({ mode: 'ai', timeout: 15000 });
      else await page.locator('body').ariaSnapshot({ mode: 'ai', timeout: 15000 });
      if (i > 0 || Number(repeat) === 1) out.push(performance.now() - t);
      if (Number(repeat) === 1) break;
    }
  }
  await browser.close();
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
"#;

/// `Ok` when `node` runs and resolves `playwright-core` (from the workspace root
/// or `$NODE_PATH`); else the note saying what is missing.
fn playwright_available(root: &Path) -> Result<(), String> {
    let probe = std::process::Command::new("node")
        .current_dir(root)
        .args(["-e", "require.resolve('playwright-core')"])
        .output();
    match probe {
        Err(_) => Err("skipped: `node` is not installed".into()),
        Ok(o) if !o.status.success() => {
            Err("skipped: playwright-core is not installed (npm i playwright-core)".into())
        }
        Ok(_) => Ok(()),
    }
}

/// Longest run of the Playwright script (s, coreutils `timeout`).
const PLAYWRIGHT_LIMIT_S: &str = "240";

/// Runs [`PLAYWRIGHT_JS`] on `urls` (at most [`PLAYWRIGHT_LIMIT_S`]): ms per
/// snapshot.
fn playwright_times(root: &Path, urls: &[String], repeat: usize) -> Result<Vec<f64>> {
    eprintln!("bench: Playwright on {} page(s)", urls.len());
    let out = std::process::Command::new("timeout")
        .current_dir(root)
        .args([PLAYWRIGHT_LIMIT_S, "node", "-e", PLAYWRIGHT_JS, "--"])
        .arg(repeat.to_string())
        .args(urls)
        .output()
        .context("running node")?;
    if !out.status.success() {
        bail!(
            "the Playwright script failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout).context("the Playwright script's output")
}

/// The wasm's raw and gzip size, and Chromium start → extension `ack`.
fn sizes(dist: &Path, stack: &Stack) -> String {
    let mut s = String::from("| other | value |\n|---|---:|\n");
    match wasm_file(&dist.join("pkg")).or_else(|| wasm_file(dist)) {
        Some(wasm) => {
            let raw = std::fs::metadata(&wasm).map(|m| m.len()).unwrap_or(0);
            let gz = gzip_len(&wasm)
                .map(|n| format!("{:.1} KiB", n as f64 / 1024.0))
                .unwrap_or_else(|e| format!("(gzip: {e})"));
            s.push_str(&format!(
                "| wasm raw ({}) | {:.1} KiB |\n| wasm gzip -9 | {gz} |\n",
                wasm.file_name().unwrap_or_default().to_string_lossy(),
                raw as f64 / 1024.0
            ));
        }
        None => s.push_str(&format!("| wasm | none under {} |\n", dist.display())),
    }
    s.push_str(&format!(
        "| Chromium start → extension ack | {} ms |\n",
        stack.ack_ms
    ));
    s
}

fn wasm_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
}

/// Bytes of `gzip -9` of `file` (the system's gzip).
fn gzip_len(file: &Path) -> Result<usize> {
    let out = std::process::Command::new("gzip")
        .arg("-9c")
        .arg(file)
        .output()
        .context("running gzip")?;
    if !out.status.success() {
        bail!("gzip failed");
    }
    Ok(out.stdout.len())
}
