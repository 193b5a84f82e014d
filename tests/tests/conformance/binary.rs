//! Both conformance modes against our own pieces, through the
//! `browser-bridge-conformance` binary itself (its output format and exit code
//! are part of what is tested): backend mode against a real `browser-bridge
//! serve` (no browser), extension mode against the real wasm extension in
//! headless Chromium.

use std::path::PathBuf;
use std::process::Output;

use browser_bridge_conformance::child::spawn_listening;
use browser_bridge_tests::build::build_backend;
use browser_bridge_tests::harness::ensure_built;

const CONFORMANCE: &str = env!("CARGO_BIN_EXE_browser-bridge-conformance");

/// Builds the backend binary alone (no extension, no browser) and returns its path.
fn backend_binary() -> PathBuf {
    build_backend().expect("building the backend")
}

/// Checks the report printed by the conformance binary: one `ok`/`FAIL` line per
/// check, then exactly `N passed, 0 failed`, and exit code 0.
fn assert_all_passed(output: &Output, at_least: usize) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    let Some((summary, checks)) = lines.split_last() else {
        panic!("no report on stdout (exit {}):\n{stderr}", output.status);
    };
    let failed: Vec<&&str> = checks.iter().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(failed.is_empty(), "failed checks:\n{stdout}\n{stderr}");
    assert!(checks.iter().all(|l| l.starts_with("ok  ")), "{stdout}");
    assert_eq!(
        *summary,
        format!("{} passed, 0 failed", checks.len()),
        "{stdout}"
    );
    assert!(
        checks.len() >= at_least,
        "only {} checks ran:\n{stdout}",
        checks.len()
    );
    assert!(
        output.status.success(),
        "exit {}:\n{stdout}\n{stderr}",
        output.status
    );
}

#[tokio::test]
async fn backend_mode_passes_against_our_backend() {
    let binary = tokio::task::spawn_blocking(backend_binary).await.unwrap();
    let config = std::env::temp_dir().join(format!("bb-conformance-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&config).unwrap();
    let mut command = tokio::process::Command::new(&binary);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--config-dir"])
        .arg(&config);
    let mut serve = spawn_listening(command, "serve").await;
    let ws_url = format!("ws://{}/extension", serve.addr);

    let output = tokio::process::Command::new(CONFORMANCE)
        .args(["backend", &ws_url, "--config-dir"])
        .arg(&config)
        .output()
        .await
        .unwrap();
    serve.child.kill().await.ok();
    let _ = std::fs::remove_dir_all(&config);
    assert_all_passed(&output, 36);
}

#[tokio::test]
async fn extension_mode_passes_against_our_extension_in_chromium() {
    let built = tokio::task::spawn_blocking(ensure_built)
        .await
        .unwrap()
        .expect("extension and backend build");
    let output = tokio::process::Command::new(CONFORMANCE)
        .args([
            "extension",
            "--listen",
            "127.0.0.1:0",
            "--wait",
            "60",
            "--launch-chromium",
        ])
        .arg(&built.extension_dist)
        .output()
        .await
        .unwrap();
    assert_all_passed(&output, 34);
}
