//! The protocol and page crates are pure (docs/ARCHITECTURE.md, invariants): no
//! I/O, no clock, no threads, no runtime, so that the extension's wasm build and the
//! backend share one decoder and one extract pipeline. The wasm32 build itself is
//! checked by the extension's build; this test keeps I/O from creeping into the
//! sources of either crate.

use std::path::Path;

/// Paths and macros that mean I/O, a clock, threads or a runtime.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::net",
    "std::io",
    "std::process",
    "std::env",
    "std::thread",
    "SystemTime",
    "Instant::now",
    "tokio",
    "println!",
    "eprintln!",
    "dbg!",
];

fn scan(dir: &Path, hits: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read src dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            scan(&path, hits);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read source");
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for f in FORBIDDEN.iter().filter(|f| code.contains(*f)) {
                    hits.push(format!("{}:{}: {f}", path.display(), n + 1));
                }
            }
        }
    }
}

#[test]
fn sources_do_no_io() {
    let mut hits = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    scan(&root.join("src"), &mut hits);
    scan(&root.join("../page/src"), &mut hits);
    assert!(
        hits.is_empty(),
        "I/O in the protocol or page crate:\n{}",
        hits.join("\n")
    );
}
