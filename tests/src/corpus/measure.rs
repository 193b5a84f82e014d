//! Shapes captures with the pure page logic and measures recall and size.

use std::path::Path;

use anyhow::Result;
use browser_bridge_page::{PageInputs, UidCache, shape_extract};
use browser_bridge_protocol::TabId;

use super::capture::Capture;
use super::recall;

/// One page's figures.
#[derive(Debug, Clone)]
pub struct Row {
    /// Page name.
    pub page: String,
    /// Content recall against expected.html.
    pub recall: f64,
    /// Markdown bytes.
    pub markdown_bytes: usize,
    /// The whole `ExtractResult` as JSON, bytes.
    pub json_bytes: usize,
    /// Elements returned.
    pub elements: usize,
    /// Milliseconds (capture or extract).
    pub ms: f64,
}

/// Shapes every `<captures>/<name>.json` with [`shape_extract`] and measures it
/// against `<pages>/<name>/expected.html` (`ms` is the shaping time alone).
pub fn measure_dir(pages: &Path, captures: &Path, dump: Option<&Path>) -> Result<Vec<Row>> {
    let mut names: Vec<String> = std::fs::read_dir(captures)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    if let Some(d) = dump {
        std::fs::create_dir_all(d)?;
    }
    let mut rows = Vec::new();
    for name in names {
        let capture: Capture =
            serde_json::from_slice(&std::fs::read(captures.join(format!("{name}.json")))?)?;
        let expected =
            std::fs::read_to_string(pages.join(&name).join("expected.html")).unwrap_or_default();
        let start = std::time::Instant::now();
        let inputs = PageInputs {
            snapshot: capture.snapshot,
            ax_trees: capture.ax_trees,
            text: capture.text,
            status: capture.status,
            modal_dialog: capture.modal_dialog,
        };
        let result = shape_extract(TabId(0), &inputs, &mut UidCache::new());
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        if let Some(d) = dump {
            std::fs::write(d.join(format!("{name}.md")), &result.markdown)?;
        }
        rows.push(Row {
            page: name,
            recall: recall::recall(&recall::expected_text(&expected), &result.markdown),
            markdown_bytes: result.markdown.len(),
            json_bytes: serde_json::to_vec(&result).map_or(0, |v| v.len()),
            elements: result.elements.len(),
            ms,
        });
    }
    Ok(rows)
}

/// The printed table with totals.
pub fn table(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<32} {:>7} {:>9} {:>10} {:>5} {:>8}",
        "page", "recall", "md bytes", "json bytes", "elts", "ms"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<32} {:>7.3} {:>9} {:>10} {:>5} {:>8.1}",
            r.page, r.recall, r.markdown_bytes, r.json_bytes, r.elements, r.ms
        );
    }
    if !rows.is_empty() {
        let n = rows.len() as f64;
        let mean = rows.iter().map(|r| r.recall).sum::<f64>() / n;
        let min = rows.iter().map(|r| r.recall).fold(1.0, f64::min);
        let mut bytes: Vec<usize> = rows.iter().map(|r| r.markdown_bytes).collect();
        bytes.sort_unstable();
        let mut ms: Vec<f64> = rows.iter().map(|r| r.ms).collect();
        ms.sort_by(f64::total_cmp);
        let mut json: Vec<usize> = rows.iter().map(|r| r.json_bytes).collect();
        json.sort_unstable();
        let _ = writeln!(
            out,
            "pages {} mean recall {:.3} min {:.3} median md bytes {} total md bytes {} \
             median json bytes {} median ms {:.1}",
            rows.len(),
            mean,
            min,
            bytes[bytes.len() / 2],
            bytes.iter().sum::<usize>(),
            json[json.len() / 2],
            ms[ms.len() / 2]
        );
    }
    out
}
