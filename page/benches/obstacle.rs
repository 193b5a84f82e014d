//! The obstacle detector's cost per page (PROTOCOL.md §8), against the whole pure
//! `shape_extract` it is part of, measured in the same run on the labelled set's
//! captures (`tests/fixtures/obstacles/*.json`, real pages recorded in Chromium).
//!
//! The detector's part is what `shape_extract` spends on it beyond the shared DOM:
//! reading what a person sees ([`page_view`]), the challenge frames and
//! [`detect_obstacle`] itself. Prints µs per page (median and mean) and the share
//! of `shape_extract`. Run: `cargo bench -p browser-bridge-page --bench obstacle`.
#![allow(clippy::print_stdout)] // a benchmark prints its figures

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use browser_bridge_page::dom::Dom;
use browser_bridge_page::obstacle::{ObstacleInput, detect_obstacle};
use browser_bridge_page::shape::has_captcha_frame;
use browser_bridge_page::view::page_view;
use browser_bridge_page::{PageInputs, UidCache, shape_extract};
use browser_bridge_protocol::TabId;

/// Runs per page; the median of each page's runs is its figure.
const RUNS: usize = 30;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/obstacles");
    let mut pages: Vec<(String, PageInputs)> = std::fs::read_dir(&dir)
        .expect("captures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let inputs = serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("shape");
            (
                p.file_stem().unwrap_or_default().to_string_lossy().into(),
                inputs,
            )
        })
        .collect();
    pages.sort_by(|a, b| a.0.cmp(&b.0));

    let (mut detector, mut whole) = (Vec::new(), Vec::new());
    for (_, inputs) in &pages {
        let shaped = shape_extract(TabId(1), inputs, &mut UidCache::new());
        let dom = Dom::new(&inputs.snapshot);
        let mut d = Vec::with_capacity(RUNS);
        let mut w = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let start = Instant::now();
            let found = detect_obstacle(&ObstacleInput {
                url: &shaped.url,
                title: &shaped.title,
                markdown: &shaped.markdown,
                elements: &shaped.elements,
                captcha_frame: has_captcha_frame(&dom),
                status: inputs.status,
                view: &page_view(&dom),
            });
            black_box(found);
            d.push(start.elapsed().as_secs_f64() * 1e6);
            let start = Instant::now();
            black_box(shape_extract(TabId(1), inputs, &mut UidCache::new()));
            w.push(start.elapsed().as_secs_f64() * 1e6);
        }
        detector.push(median(&mut d));
        whole.push(median(&mut w));
    }
    let (d_med, w_med) = (median(&mut detector.clone()), median(&mut whole.clone()));
    let d_mean = detector.iter().sum::<f64>() / detector.len() as f64;
    let w_mean = whole.iter().sum::<f64>() / whole.len() as f64;
    let d_max = detector.iter().copied().fold(0.0, f64::max);
    println!(
        "obstacle detector on {} labelled pages ({RUNS} runs each)",
        pages.len()
    );
    println!("detector µs/page: median {d_med:.1}, mean {d_mean:.1}, max {d_max:.1}");
    println!("shape_extract µs/page: median {w_med:.1}, mean {w_mean:.1}");
    println!(
        "detector / shape_extract: {:.3} (median), {:.3} (mean)",
        d_med / w_med,
        d_mean / w_mean
    );
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
