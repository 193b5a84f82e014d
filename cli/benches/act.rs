//! `/v1/act` round trip through a real `browser-bridge serve` child process to a
//! fake extension on loopback: p50/p99 latency (sequential calls), throughput
//! (concurrent calls) and the serve process's RSS idle and after load.
//!
//! Run: `cargo bench -p browser-bridge --bench act`.
#![allow(clippy::print_stdout, unreachable_pub)] // a bench binary reports on stdout

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use browser_bridge_conformance::child::spawn_listening;
use browser_bridge_conformance::fake::{FakeExtension, answer_requests, echo_evaluate};
use serde_json::{Value, json};

const SEQUENTIAL: usize = 2_000;
const CONCURRENCY: usize = 64;
const THROUGHPUT_WINDOW: Duration = Duration::from_secs(3);

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

#[tokio::main]
async fn main() {
    let config_dir = std::env::temp_dir().join(format!("bb-bench-{}", std::process::id()));
    std::fs::create_dir_all(&config_dir).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_browser-bridge"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--config-dir"])
        .arg(&config_dir)
        .env("BROWSER_BRIDGE_LOG", "warn");
    let serve = spawn_listening(command, "serve").await; // killed on drop
    let (addr, pid) = (serve.addr.clone(), serve.child.id().expect("serve runs"));
    let token = std::fs::read_to_string(config_dir.join("pairing-token"))
        .unwrap()
        .trim()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_rss = rss_kib(pid);

    // The workspace's fake extension: answers every evaluate "return N" with N.
    let (ws, _ack) = FakeExtension::new(format!("ws://{addr}/extension"), &token)
        .client_id("bench")
        .connect()
        .await
        .expect("the fake extension connects");
    let connected_rss = rss_kib(pid);
    let _extension = answer_requests(ws, echo_evaluate);

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("http://{addr}/v1/act");
    let call = |client: reqwest::Client, url: String, token: String, n: u64| async move {
        let response = client
            .post(url)
            .bearer_auth(token)
            .body(format!(
                r#"{{"action":"evaluate","expression":"return {n}"}}"#
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["value"], json!(n));
    };
    // Warm-up: connections, allocator.
    for n in 0..200 {
        call(client.clone(), url.clone(), token.clone(), n).await;
    }

    let mut latencies = Vec::with_capacity(SEQUENTIAL);
    for n in 0..SEQUENTIAL as u64 {
        let start = Instant::now();
        call(client.clone(), url.clone(), token.clone(), n).await;
        latencies.push(start.elapsed());
    }
    latencies.sort();

    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..CONCURRENCY as u64)
        .map(|w| {
            let (client, url, token, done) =
                (client.clone(), url.clone(), token.clone(), done.clone());
            tokio::spawn(async move {
                let mut n = w * 1_000_000;
                while start.elapsed() < THROUGHPUT_WINDOW {
                    call(client.clone(), url.clone(), token.clone(), n).await;
                    n += 1;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.unwrap();
    }
    let elapsed = start.elapsed();
    let total = done.load(Ordering::Relaxed);
    let loaded_rss = rss_kib(pid);

    println!(
        "browser-bridge /v1/act round trip (HTTP → serve → WebSocket → fake extension → back), loopback"
    );
    println!(
        "latency, {SEQUENTIAL} sequential calls: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        percentile(&latencies, 0.50).as_secs_f64() * 1e6,
        percentile(&latencies, 0.99).as_secs_f64() * 1e6,
        latencies.last().unwrap().as_secs_f64() * 1e6,
    );
    println!(
        "throughput, {CONCURRENCY} concurrent callers for {:.1} s: {total} calls, {:.0} calls/s",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
    println!(
        "serve RSS: idle {idle_rss} KiB, with extension connected {connected_rss} KiB, after load {loaded_rss} KiB"
    );
    drop(serve);
    let _ = std::fs::remove_dir_all(&config_dir);
}
