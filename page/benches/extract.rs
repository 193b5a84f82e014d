//! What the pure half of `extract` costs on captured pages (PROTOCOL.md §6): decoding
//! the CDP answers (`serde_json` into [`PageInputs`], as the extension does from the
//! browser's `JSON.stringify`), shaping ([`shape_extract_with`], first call with an
//! empty uid cache, then again with the warm cache) and encoding the reply. Captures
//! come from `corpus capture` (tests/src/bin/corpus.rs); the paths are the
//! arguments. Prints ms per page (median of the runs) and the input size, and how
//! much of the result the snapshot alone (`page::fallback`, no accessibility tree)
//! gives the same: elements equal in every field, in order, and whether the
//! Markdown is the same.
//! Run: `cargo bench -p browser-bridge-page --bench extract -- CAPTURE.json…`; with
//! `EXTRACT_DIFF=1` set, also prints each element pair that differs (AX path first).
#![allow(clippy::print_stdout)] // a benchmark prints its figures

use std::hint::black_box;
use std::time::Instant;

use browser_bridge_page::dom::Dom;
use browser_bridge_page::elements::{Candidate, interactive_elements};
use browser_bridge_page::fallback::snapshot_elements;
use browser_bridge_page::{PageInputs, UidCache, shape_extract_with};
use browser_bridge_protocol::TabId;
use browser_bridge_protocol::action::Extract;

/// Runs per page; the median is its figure.
const RUNS: usize = 9;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut ms: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[RUNS / 2]
}

/// The candidates of both paths that differ, matched by DOM node: only in one, or
/// with different fields.
fn print_diff(inputs: &PageInputs) {
    let dom = Dom::new(&inputs.snapshot);
    let ax = interactive_elements(&dom, inputs.ax_trees.iter().flat_map(|t| t.nodes.iter()));
    let snap = snapshot_elements(&dom, inputs.modal_dialog);
    let tag = |c: &Candidate| dom.nodes[c.node].tag.clone();
    for a in &ax {
        match snap.iter().find(|b| b.node == a.node) {
            None => println!("  only ax   <{}> {:?} {:?}", tag(a), a.role, a.name),
            Some(b) if a != b => {
                let mut d = Vec::new();
                if a.role != b.role {
                    d.push(format!("role {:?} / {:?}", a.role, b.role));
                }
                if a.name != b.name {
                    d.push(format!("name {:?} / {:?}", a.name, b.name));
                }
                if a.value != b.value {
                    d.push(format!("value {:?} / {:?}", a.value, b.value));
                }
                if (a.visible, a.disabled, a.checked, a.multiline, a.readonly)
                    != (b.visible, b.disabled, b.checked, b.multiline, b.readonly)
                {
                    d.push(format!("states {a:?} / {b:?}"));
                }
                if d.is_empty() {
                    d.push(format!("other {a:?} / {b:?}"));
                }
                println!(
                    "  diff <{}> #{} {}",
                    tag(a),
                    a.backend_node_id,
                    d.join("; ")
                );
            }
            Some(_) => {}
        }
    }
    for b in snap.iter().filter(|b| !ax.iter().any(|a| a.node == b.node)) {
        println!("  only snap <{}> {:?} {:?}", tag(b), b.role, b.name);
    }
}

fn main() {
    println!(
        "page                      MB   decode  shape(cold)  shape(warm)  encode  elements  no-AX same  md same"
    );
    for path in std::env::args().skip(1).filter(|a| a.ends_with(".json")) {
        let raw = std::fs::read_to_string(&path).expect("read");
        let inputs: PageInputs = serde_json::from_str(&raw).expect("shape");
        let decode = median_ms(|| {
            black_box(serde_json::from_str::<PageInputs>(&raw).expect("shape"));
        });
        let options = Extract::default();
        let cold = median_ms(|| {
            let mut uids = UidCache::new();
            black_box(shape_extract_with(TabId(1), &inputs, &mut uids, &options).expect("shape"));
        });
        let mut uids = UidCache::new();
        let result = shape_extract_with(TabId(1), &inputs, &mut uids, &options).expect("shape");
        let warm = median_ms(|| {
            black_box(shape_extract_with(TabId(1), &inputs, &mut uids, &options).expect("shape"));
        });
        let encode = median_ms(|| {
            black_box(serde_json::to_vec(&result).expect("encode"));
        });
        let mut snapshot_only = inputs.clone();
        snapshot_only.ax_trees.clear();
        let alone = shape_extract_with(TabId(1), &snapshot_only, &mut UidCache::new(), &options)
            .expect("shape");
        let same = result
            .elements
            .iter()
            .zip(&alone.elements)
            .filter(|(a, b)| a == b)
            .count();
        if std::env::var_os("EXTRACT_DIFF").is_some() {
            print_diff(&inputs);
        }
        let name = std::path::Path::new(&path)
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        println!(
            "{name:<24} {:>4.1} {decode:>8.1} {cold:>12.1} {warm:>12.1} {encode:>7.1} {:>9} {same:>6}/{:<4} {:>8}",
            raw.len() as f64 / 1e6,
            result.elements.len(),
            alone.elements.len(),
            result.markdown == alone.markdown
        );
    }
}
