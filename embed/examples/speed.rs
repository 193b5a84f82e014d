//! Load time and embedding time of the installed model:
//! `cargo run -p browser-bridge-embed --release --example speed` (or without
//! `--release`: the dev profile builds this crate at opt-level 3 too).

use std::time::Instant;

use browser_bridge_embed::Embedder;

const TEXTS: [&str; 4] = [
    "log in to the GitHub account and star the repository",
    "登录 GitHub 账号并给仓库加星",
    "download last month's invoice from the billing page, then save it to the Documents folder",
    "Opened the billing page, found the March invoice under Past invoices, downloaded INV-2031.pdf (48 KB) and saved it to Documents; the first click hit a cookie banner, dismissed it.",
];

/// This thread's time on a CPU in ms (Linux `schedstat`), which a busy machine
/// does not inflate as it does wall time; 0 elsewhere.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace()
        .next()
        .and_then(|ns| ns.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1e6
}

/// Resident set size in MB (Linux `/proc/self/status` VmRSS); 0 elsewhere.
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

fn main() -> Result<(), browser_bridge_embed::EmbedError> {
    let (start, cpu) = (Instant::now(), cpu_ms());
    let e = Embedder::load(&Embedder::locate()?)?;
    let (load, load_cpu) = (start.elapsed(), cpu_ms() - cpu);
    let rounds = 50;
    let (start, cpu) = (Instant::now(), cpu_ms());
    let mut tokens = 0;
    for _ in 0..rounds {
        for t in TEXTS {
            tokens += e.tokenize(t).len();
            std::hint::black_box(e.embed(t));
        }
    }
    let n = (rounds * TEXTS.len()) as f64;
    let per = start.elapsed().as_secs_f64() * 1000.0 / n;
    let per_cpu = (cpu_ms() - cpu) / n;
    eprintln!(
        "load {:.0} ms (CPU {load_cpu:.0} ms), resident {:.0} MB; embed {per:.2} ms per sentence (CPU {per_cpu:.2} ms; \
         mean of {} sentences, {:.0} tokens each)",
        load.as_secs_f64() * 1000.0,
        rss_mb(),
        rounds * TEXTS.len(),
        tokens as f64 / (rounds * TEXTS.len()) as f64
    );
    Ok(())
}
