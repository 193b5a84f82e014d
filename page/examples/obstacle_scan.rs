//! Prints the obstacle `extract` reports for each captured page of a directory
//! (`corpus capture --out DIR` writes one JSON of [`PageInputs`] per page):
//! `cargo run -p browser-bridge-page --example obstacle_scan -- DIR [--view]`;
//! `--view` also prints what a person sees of each page ([`page_view`]).

#![allow(clippy::print_stdout)] // a scan tool prints its findings

use browser_bridge_page::dom::Dom;
use browser_bridge_page::uids::UidCache;
use browser_bridge_page::view::page_view;
use browser_bridge_page::{PageInputs, shape_extract};
use browser_bridge_protocol::ids::TabId;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: obstacle_scan DIR");
    let show_view = std::env::args().any(|a| a == "--view");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("captures directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut flagged = 0;
    for path in &paths {
        let inputs: PageInputs =
            serde_json::from_slice(&std::fs::read(path).expect("read")).expect("capture shape");
        let result = shape_extract(TabId(1), &inputs, &mut UidCache::new());
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        match result.obstacle {
            Some(o) => {
                flagged += 1;
                println!(
                    "{name}: {} ({}) {}",
                    o.obstacle_type.as_str(),
                    o.confidence.as_str(),
                    o.message
                );
            }
            None => println!("{name}: -"),
        }
        if show_view {
            println!("  {:?}", page_view(&Dom::new(&inputs.snapshot)));
        }
    }
    println!("{flagged} of {} pages flagged", paths.len());
}
