//! Token figures for the MCP `browser` tool: the bytes a model receives for an
//! `extract`, rendered as the tool renders it (markdown + element lines + notes,
//! no `text`), against Playwright MCP's `browser_snapshot` of the same pages
//! (`../shared/corpus/peer-playwright-snapshot.json`).
//!
//! Input: the `ExtractResult` JSON files the corpus run dumps to
//! `target/corpus-extracts/<page>.json` (override with `$CORPUS_EXTRACTS`); without
//! them, the corpus CDP captures in `target/corpus-captures/` shaped here by the
//! protocol crate's `shape_extract` (the same pure code the extension runs). Content
//! recall is measured as the corpus README defines it (share of the words of
//! `expected.html` found in the rendered text), so the comparison is at equal
//! content. `$MCP_TOKENS_DUMP=<dir>` also writes each rendered page to
//! `<dir>/<page>.txt`. Run: `cargo bench -p browser-bridge-backend --bench mcp_tokens`, or unoptimised
//! with `cargo test -p browser-bridge-backend --bench mcp_tokens`.
#![allow(clippy::print_stdout)] // a benchmark prints its figures

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use browser_bridge_backend::tool::render::render_extract;
use browser_bridge_page::{PageInputs, UidCache, shape_extract};
use browser_bridge_protocol::{ExtractResult, TabId};

/// One page's figures.
struct Row {
    page: String,
    rendered: usize,
    raw_json: usize,
    playwright: Option<usize>,
    recall: Option<f64>,
    playwright_recall: Option<f64>,
}

fn main() -> ExitCode {
    // `cargo bench`/`cargo test` pass harness flags (`--bench`); there is nothing to filter.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let extracts = std::env::var_os("CORPUS_EXTRACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/corpus-extracts"));
    let corpus = std::env::var_os("CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));

    let dump = std::env::var_os("MCP_TOKENS_DUMP").map(PathBuf::from);
    let captures = root.join("target/corpus-captures");
    let (source, names) = match (list_json(&extracts), list_json(&captures)) {
        (Some(names), _) => (Source::Extracts(extracts), names),
        (None, Some(names)) => {
            eprintln!(
                "mcp_tokens: no extract dumps in {}; shaping the CDP captures in {} with the \
                 protocol crate's shape_extract (the pure half of extract)",
                extracts.display(),
                captures.display()
            );
            (Source::Captures(captures), names)
        }
        (None, None) => {
            eprintln!(
                "mcp_tokens: no extract dumps in {} and no captures in {}; run the corpus \
                 extract run first (it writes target/corpus-extracts/<page>.json)",
                extracts.display(),
                captures.display()
            );
            return ExitCode::SUCCESS;
        }
    };

    let peer = load_playwright(&corpus.join("peer-playwright-snapshot.json"));
    let mut rows = Vec::new();
    for name in names {
        let extract = match source.load(&name) {
            Ok(extract) => extract,
            Err(e) => {
                eprintln!("{name}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let rendered = render_extract(&extract, false);
        if let Some(dir) = &dump {
            let path = dir.join(format!("{name}.txt"));
            if let Err(e) =
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &rendered))
            {
                eprintln!("{}: {e}", path.display());
            }
        }
        let expected =
            std::fs::read_to_string(corpus.join("pages").join(&name).join("expected.html")).ok();
        let (playwright, playwright_recall) = peer.get(&name).copied().unzip();
        rows.push(Row {
            recall: expected.map(|html| recall(&expected_text(&html), &rendered)),
            page: name,
            rendered: rendered.len(),
            raw_json: serde_json::to_string(&extract).map_or(0, |s| s.len()),
            playwright,
            playwright_recall,
        });
    }
    print!("{}", table(&rows));
    ExitCode::SUCCESS
}

/// Where the `ExtractResult`s come from.
enum Source {
    /// `<dir>/<page>.json`: `ExtractResult` JSON dumped by the corpus run.
    Extracts(PathBuf),
    /// `<dir>/<page>.json`: CDP captures (`PageInputs`), shaped here.
    Captures(PathBuf),
}

impl Source {
    fn load(&self, name: &str) -> Result<ExtractResult, String> {
        let (dir, shape) = match self {
            Source::Extracts(dir) => (dir, false),
            Source::Captures(dir) => (dir, true),
        };
        let path = dir.join(format!("{name}.json"));
        let raw = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !shape {
            return serde_json::from_slice(&raw)
                .map_err(|e| format!("{}: not an ExtractResult: {e}", path.display()));
        }
        let inputs: PageInputs = serde_json::from_slice(&raw)
            .map_err(|e| format!("{}: not a capture: {e}", path.display()))?;
        Ok(shape_extract(TabId(1), &inputs, &mut UidCache::new()))
    }
}

/// The sorted `<name>` of every `<name>.json` in `dir`; `None` when there is none.
fn list_json(dir: &Path) -> Option<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    (!names.is_empty()).then_some(names)
}

/// page → (bytes, recall) from the Playwright snapshot file; empty when missing.
fn load_playwright(path: &Path) -> HashMap<String, (usize, f64)> {
    let Ok(raw) = std::fs::read(path) else {
        eprintln!(
            "mcp_tokens: {} missing: no Playwright comparison",
            path.display()
        );
        return HashMap::new();
    };
    let value: serde_json::Value = serde_json::from_slice(&raw).unwrap_or_default();
    value["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let page = row["page"].as_str()?.to_owned();
            // 0 bytes: Playwright failed on the page (recall 0); no comparison.
            let bytes = usize::try_from(row["bytes"].as_u64()?)
                .ok()
                .filter(|b| *b > 0)?;
            Some((page, (bytes, row["recall"].as_f64().unwrap_or(f64::NAN))))
        })
        .collect()
}

fn table(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<34} {:>9} {:>9} {:>6} {:>9} {:>7} {:>7}",
        "page", "rendered", "pw bytes", "ratio", "raw json", "recall", "pw rec"
    );
    for r in rows {
        let ratio = r.playwright.map(|pw| r.rendered as f64 / pw as f64);
        let _ = writeln!(
            out,
            "{:<34} {:>9} {:>9} {:>6} {:>9} {:>7} {:>7}",
            r.page,
            r.rendered,
            r.playwright.map_or("-".into(), |b| b.to_string()),
            ratio.map_or("-".into(), |x| format!("{x:.2}")),
            r.raw_json,
            r.recall.map_or("-".into(), |x| format!("{x:.3}")),
            r.playwright_recall
                .map_or("-".into(), |x| format!("{x:.3}")),
        );
    }
    let both: Vec<&Row> = rows.iter().filter(|r| r.playwright.is_some()).collect();
    let _ = writeln!(
        out,
        "\npages {}; rendered: median {} B, total {} B; raw ExtractResult JSON: median {} B, total {} B",
        rows.len(),
        median(rows.iter().map(|r| r.rendered)),
        rows.iter().map(|r| r.rendered).sum::<usize>(),
        median(rows.iter().map(|r| r.raw_json)),
        rows.iter().map(|r| r.raw_json).sum::<usize>(),
    );
    if !both.is_empty() {
        let ours: usize = both.iter().map(|r| r.rendered).sum();
        let theirs: usize = both.iter().filter_map(|r| r.playwright).sum();
        let mut ratios: Vec<f64> = both
            .iter()
            .filter_map(|r| Some(r.rendered as f64 / r.playwright? as f64))
            .collect();
        ratios.sort_by(f64::total_cmp);
        let under_half = ratios.iter().filter(|x| **x < 0.5).count();
        let _ = writeln!(
            out,
            "vs Playwright MCP on the {} shared pages: median {} B vs {} B, total {} B vs {} B \
             ({:.1}% of Playwright), median per-page ratio {:.2}, {} of {} pages below half",
            both.len(),
            median(both.iter().map(|r| r.rendered)),
            median(both.iter().filter_map(|r| r.playwright)),
            ours,
            theirs,
            100.0 * ours as f64 / theirs.max(1) as f64,
            ratios[ratios.len() / 2],
            under_half,
            ratios.len(),
        );
    }
    // Recall over the pages both sides measured, so the means compare.
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.recall?, r.playwright_recall?)))
        .collect();
    if !pairs.is_empty() {
        let n = pairs.len() as f64;
        let _ = writeln!(
            out,
            "content recall on those pages: ours mean {:.3} (min {:.3}); Playwright mean {:.3} (min {:.3})",
            pairs.iter().map(|p| p.0).sum::<f64>() / n,
            pairs.iter().map(|p| p.0).fold(1.0, f64::min),
            pairs.iter().map(|p| p.1).sum::<f64>() / n,
            pairs.iter().map(|p| p.1).fold(1.0, f64::min),
        );
    }
    out
}

fn median(values: impl Iterator<Item = usize>) -> usize {
    let mut values: Vec<usize> = values.collect();
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

// Content recall, as `../shared/corpus/README.md` defines it: the share of the
// words of expected.html's text (its first 20 000 bytes when the text exceeds
// 25 000 bytes) found among the words of the rendered output.

fn expected_text(html: &str) -> String {
    let text = html_text(html);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.len() > 25_000 {
        let end = browser_bridge_protocol::text::floor_char_boundary(&text, 20_000);
        text[..end].to_owned()
    } else {
        text
    }
}

/// Visible text of an HTML fragment: tags, comments, script and style dropped;
/// the common entities decoded.
fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        rest = &rest[lt..];
        let head = rest.get(..8).unwrap_or(rest).to_ascii_lowercase();
        let close = if head.starts_with("<script") {
            "</script>"
        } else if head.starts_with("<style") {
            "</style>"
        } else if head.starts_with("<!--") {
            "-->"
        } else {
            ">"
        };
        let found = if close == ">" {
            rest.find('>')
        } else {
            rest.to_ascii_lowercase().find(close)
        };
        rest = match found {
            Some(end) => &rest[end + close.len()..],
            None => "",
        };
        out.push(' ');
    }
    out.push_str(rest);
    for (entity, c) in [
        ("&nbsp;", " "),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&amp;", "&"),
    ] {
        out = out.replace(entity, c);
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn recall(expected: &str, got: &str) -> f64 {
    let want: Vec<String> = words(expected).collect();
    if want.is_empty() {
        return 1.0;
    }
    let have: HashSet<String> = words(got).collect();
    want.iter().filter(|w| have.contains(*w)).count() as f64 / want.len() as f64
}
