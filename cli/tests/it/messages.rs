//! Errors that tell the user what to do: a token from another config directory,
//! `--server` without a scheme, a busy listen port (also for `mcp`), an unusable
//! config directory, a backend shutting down, no extension connected.

use std::process::Output;
use std::time::Duration;

use crate::common::*;
use browser_bridge_backend::connect::{Reached, reach};
use browser_bridge_backend::server::{ServeError, ServeOptions, start_server};
use browser_bridge_backend::{Bridge, RemoteBridge};
use browser_bridge_protocol::{Action, ErrorCode};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

async fn cli(args: &[&str]) -> Output {
    tokio::process::Command::new(BIN)
        .args(args)
        .env_remove("BROWSER_BRIDGE_URL")
        .output()
        .await
        .unwrap()
}

fn error_message(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text.lines().last().expect("an error line on stderr");
    let error: Value =
        serde_json::from_str(line).unwrap_or_else(|_| panic!("stderr is not JSON: {text}"));
    error["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_token_from_another_config_dir_names_the_dir_and_the_serve() {
    let server = start(options()).await;
    let other = temp_config_dir();
    // A well-formed token (43 characters), just not this server's.
    let another = browser_bridge_backend::config::generate_token();
    std::fs::write(other.join("pairing-token"), format!("{another}\n")).unwrap();
    let out = cli(&[
        "status",
        "--server",
        &server.base_url(),
        "--config-dir",
        other.to_str().unwrap(),
    ])
    .await;
    assert!(!out.status.success());
    let message = error_message(&out);
    assert!(message.contains(other.to_str().unwrap()), "{message}");
    assert!(message.contains(&server.base_url()), "{message}");
    assert!(message.contains("does not match"), "{message}");
    assert!(message.contains("--config-dir"), "{message}");
}

#[tokio::test]
async fn server_without_a_scheme_means_http() {
    let server = start(options()).await;
    let out = cli(&[
        "status",
        "--server",
        &server.addr.to_string(),
        "--config-dir",
        server.config_dir.to_str().unwrap(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["connected"], false);
}

#[tokio::test]
async fn a_busy_port_names_the_address_and_the_likely_serve() {
    let server = start(options()).await;
    let err = start_server(ServeOptions {
        listen: server.addr,
        ..options()
    })
    .await
    .unwrap_err();
    assert!(
        matches!(err, ServeError::AddrInUse(addr) if addr == server.addr),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.contains(&server.addr.to_string()), "{message}");
    assert!(
        message.contains("another `browser-bridge serve`"),
        "{message}"
    );
    assert!(message.contains("--listen 127.0.0.1:0"), "{message}");
}

/// The serve's proof of its token does not match the token `mcp` holds: `mcp`
/// refuses (never sending its token) and says which address and directory.
#[tokio::test]
async fn mcp_on_the_port_of_a_serve_with_another_token_says_so() {
    let server = start(options()).await;
    let other = temp_config_dir();
    let reached = reach(server.addr, Some(&other), Duration::ZERO)
        .await
        .unwrap();
    let Reached::Refused(error) = reached else {
        panic!("expected Refused, got {reached:?}")
    };
    assert_eq!(error.code, ErrorCode::Unauthorized);
    let message = error.message;
    assert!(message.contains(&server.base_url()), "{message}");
    assert!(message.contains(other.to_str().unwrap()), "{message}");
    assert!(message.contains("paired with another token"), "{message}");
    assert!(message.contains("--config-dir"), "{message}");
    assert!(!message.contains("free the port"), "{message}");
}

#[tokio::test]
async fn pair_with_an_unusable_config_dir_names_the_path_and_the_operation() {
    let out = cli(&["pair", "--config-dir", "/proc/nope"]).await;
    assert!(!out.status.success());
    let message = error_message(&out);
    assert!(message.contains("/proc/nope"), "{message}");
    assert!(
        message.contains("cannot create the config directory"),
        "{message}"
    );
}

#[tokio::test]
async fn requests_cut_off_by_shutdown_say_the_backend_is_shutting_down() {
    let server = start(ServeOptions {
        connect_wait: Duration::from_secs(30),
        ..options()
    })
    .await;
    let hub = server.hub.clone();
    let call = tokio::spawn(async move {
        hub.act(Action::from_json(r#"{"action":"list_tabs"}"#).unwrap())
            .await
    });
    for _ in 0..500 {
        if server.hub.status().await.waiting == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let hub = server.hub.clone();
    server.shutdown().await.unwrap();
    let error = call.await.unwrap().unwrap_err();
    assert_eq!(error.code, ErrorCode::NotConnected);
    assert!(error.message.contains("shutting down"), "{}", error.message);
    let later = hub
        .act(Action::from_json(r#"{"action":"list_tabs"}"#).unwrap())
        .await
        .unwrap_err();
    assert!(later.message.contains("shutting down"), "{}", later.message);
}

#[tokio::test]
async fn not_connected_mentions_the_reconnect_backoff() {
    let server = start(ServeOptions {
        connect_wait: Duration::ZERO,
        ..options()
    })
    .await;
    let remote = RemoteBridge::new(server.addr, server.token.clone());
    let error = remote
        .act(Action::from_json(r#"{"action":"list_tabs"}"#).unwrap())
        .await
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::NotConnected);
    assert!(error.message.contains("pairing"), "{}", error.message);
    assert!(error.message.contains("30 s"), "{}", error.message);
}
