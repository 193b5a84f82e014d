//! A flood of unproven extension sockets cannot lock out the extension
//! (PROTOCOL.md §2 "Unproven sockets"): the attacker holds no token, only the
//! extension's `Origin`, and keeps 128 upgrades to `/extension` open that send
//! nothing, each reopened as soon as it ends. The extension with the token still
//! connects, an action is answered, and the log folds the warnings.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use browser_bridge_conformance::fake::{FakeExtension, answer_requests, echo_evaluate};
use futures_util::StreamExt;
use serde_json::Value;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::common::EXT_ORIGIN;
use crate::hardening::{Serve, get_status};

/// Flood tasks, each with one socket open or opening at any time.
const FLOOD: usize = 128;

/// A generous bound on how long the extension may take to connect under the flood
/// (about 2 s), below the 10 s after which the flood's silent sockets would time
/// out by themselves and let it in anyway.
const CONNECT_BOUND: Duration = Duration::from_secs(8);

/// A generous bound on how long the flood may take to get going.
const FLOOD_BOUND: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Tally {
    /// Upgrades the server accepted.
    opened: AtomicU64,
    /// Sockets the server closed (evicted) or refused (HTTP 503).
    turned_away: AtomicU64,
    refused_503: AtomicU64,
    /// Sockets closed with 1013 "try again later" (PROTOCOL.md §2).
    closed_1013: AtomicU64,
    stop: AtomicBool,
}

/// One attacker task: open an upgrade with the extension's `Origin`, send nothing,
/// wait until the server ends it, reopen.
async fn flood_one(url: String, tally: Arc<Tally>) {
    while !tally.stop.load(Ordering::Relaxed) {
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Origin", HeaderValue::from_static(EXT_ORIGIN));
        match tokio_tungstenite::connect_async(request).await {
            Ok((mut ws, _)) => {
                tally.opened.fetch_add(1, Ordering::Relaxed);
                loop {
                    tokio::select! {
                        frame = ws.next() => match frame {
                            Some(Ok(tungstenite::Message::Close(Some(close)))) => {
                                if u16::from(close.code) == 1013 {
                                    tally.closed_1013.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            None | Some(Err(_)) => break,
                            Some(Ok(_)) => {}
                        },
                        () = tokio::time::sleep(Duration::from_millis(100)) => {
                            if tally.stop.load(Ordering::Relaxed) { return; }
                        }
                    }
                }
                tally.turned_away.fetch_add(1, Ordering::Relaxed);
            }
            Err(tungstenite::Error::Http(response)) => {
                assert_eq!(response.status().as_u16(), 503, "{response:?}");
                tally.refused_503.fetch_add(1, Ordering::Relaxed);
                tally.turned_away.fetch_add(1, Ordering::Relaxed);
            }
            // Reset while connecting: the server is busy; try again.
            Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

/// Waits until the server has turned away `at_least` flood sockets.
async fn wait_for(what: &str, tally: &Tally, at_least: u64) {
    let started = Instant::now();
    while tally.turned_away.load(Ordering::Relaxed) < at_least {
        assert!(
            started.elapsed() < FLOOD_BOUND,
            "the server turned away only {} flood sockets, waiting for {what}",
            tally.turned_away.load(Ordering::Relaxed)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_unproven_sockets_cannot_keep_the_extension_out() {
    let dir = crate::common::temp_config_dir();
    let serve = Serve::spawn(&dir, None);
    let tally = Arc::new(Tally::default());
    let flood: Vec<_> = (0..FLOOD)
        .map(|_| tokio::spawn(flood_one(serve.ws_url(), tally.clone())))
        .collect();
    // Every slot taken and the flood turned away, twice over.
    wait_for("the flood to fill every slot", &tally, 2 * 64).await;

    // One attempt, as a real extension's: it waits its turn behind the flood's
    // queued upgrades (128 / 16 × 250 ms = 2 s), then proves within its grace.
    let started = Instant::now();
    let fake = FakeExtension::new(serve.ws_url(), serve.token.clone())
        .client_id("c-under-flood")
        .origin(EXT_ORIGIN);
    let (ws, ack) = fake
        .connect()
        .await
        .unwrap_or_else(|e| panic!("the extension was kept out by the flood: {e}"));
    assert_eq!(ack["type"], "ack", "{ack}");
    assert!(
        started.elapsed() < CONNECT_BOUND,
        "connected only after {:?}",
        started.elapsed()
    );
    let connect_ms = started.elapsed().as_millis();
    let _extension = answer_requests(ws, echo_evaluate);
    let turned_away_at_ack = tally.turned_away.load(Ordering::Relaxed);

    let client = crate::common::http();
    let asked = Instant::now();
    let (code, body) = get_status(&client, &serve.base, &serve.token).await;
    let status_ms = asked.elapsed().as_millis();
    let status: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["connected"], true, "{status}");
    let response = client
        .post(format!("{}/v1/act", serve.base))
        .bearer_auth(&serve.token)
        .header("content-type", "application/json")
        .body(r#"{"action":"evaluate","expression":"return 41"}"#)
        .timeout(FLOOD_BOUND)
        .send()
        .await
        .expect("/v1/act answers under the flood");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["value"], 41, "{body}");
    // The flood went on meanwhile.
    wait_for("the flood to go on", &tally, turned_away_at_ack + 64).await;
    let (_, body) = get_status(&client, &serve.base, &serve.token).await;
    let status: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status["connected"], true, "still connected: {status}");

    tally.stop.store(true, Ordering::Relaxed);
    for task in flood {
        task.await.unwrap();
    }
    let stderr = serve.finish();
    let warnings = stderr.iter().filter(|l| l.contains("WARN")).count() as u64;
    let turned_away = tally.turned_away.load(Ordering::Relaxed);
    eprintln!(
        "flood: {} upgrades, {turned_away} turned away ({} with 503), {warnings} warning \
         lines; the extension connected in {connect_ms} ms, status answered in {status_ms} ms",
        tally.opened.load(Ordering::Relaxed),
        tally.refused_503.load(Ordering::Relaxed),
    );
    assert_eq!(
        tally.refused_503.load(Ordering::Relaxed),
        0,
        "flood sockets are closed for newer ones, never refused"
    );
    assert!(
        tally.closed_1013.load(Ordering::Relaxed) * 2 > turned_away,
        "evicted sockets are told to try again later: {} of {turned_away}",
        tally.closed_1013.load(Ordering::Relaxed)
    );
    assert!(
        turned_away >= 3 * 64 && warnings * 10 < turned_away,
        "{warnings} warning lines for {turned_away} sockets turned away: {:?}",
        stderr
            .iter()
            .filter(|l| l.contains("WARN"))
            .take(5)
            .collect::<Vec<_>>()
    );
    assert!(
        stderr.iter().any(|l| l.contains("folded")),
        "the folded count is logged"
    );
}
