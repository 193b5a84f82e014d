//! End-to-end: the extension survives Chrome's service-worker lifecycle
//! (docs/DESIGN.md, Extension: lifecycle). The worker is stopped for real (its
//! target closed through the browser endpoint, as Chrome stops an idle worker)
//! while idle and while a request is in flight; a Rust panic is triggered for real
//! through the recovery self-tests (in a task, inside a call from JS, inside an
//! event handler).
//!
//! What must hold: the extension is back (`ack`) within 5 s on its own; a request
//! sent in the gap waits for it (the backend's connect-wait) and succeeds; the one
//! in flight gets exactly one answer (`not_connected`, never a second one from the
//! new worker); sessions come back with their uids ([`sessions`]); a panic is
//! reported and the extension works again.
//!
//! `worker_stop_to_ack_figures` prints the figure of the closing note (worker stop →
//! `ack` again, 10 runs) and, for comparison, the same without the waker (the
//! keep-alive alarm alone, the behaviour before): run it with `-- --nocapture`.
//! `worker_start_to_ack_figures` prints the cold start (a new worker's start →
//! its `ack`, 10 runs); its goal (300 ms) is a figure to read, not a bound a
//! loaded machine could break.

mod restart;
mod sessions;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use browser_bridge_tests::harness::{Stack, uid_named};
use serde_json::{Value, json};

fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

/// The `extension` object of `/v1/status` (`connectionId`, `connectedAt` ms since
/// the epoch), `Null` while no extension is connected.
async fn extension(stack: &Stack) -> Value {
    stack.status().await.expect("status")["extension"].clone()
}

/// Waits (at most `within`) for a connection other than `previous`; returns its
/// `extension` object.
async fn reconnected(stack: &Stack, previous: &Value, within: Duration) -> Value {
    let until = Instant::now() + within;
    loop {
        let now = extension(stack).await;
        if now["connectionId"].is_string() && now["connectionId"] != previous["connectionId"] {
            return now;
        }
        assert!(
            Instant::now() < until,
            "no new connection within {within:?}; backend log:\n{}",
            stack.backend_log()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Stops the worker and returns (ms from the stop to the new `ack`, the new
/// connection), failing past `within`.
async fn stop_and_time(stack: &Stack, within: Duration) -> (u64, Value) {
    let before = extension(stack).await;
    assert!(before["connectionId"].is_string(), "connected: {before}");
    let stopped_at = epoch_ms();
    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    let after = reconnected(stack, &before, within).await;
    let acked_at = after["connectedAt"].as_u64().expect("connectedAt");
    (acked_at.saturating_sub(stopped_at), after)
}

/// Asks the worker through one of the extension's own pages (as the popup does).
async fn worker_message(stack: &Stack, session: &str, message: Value) -> Value {
    stack
        .chromium
        .eval(
            session,
            &format!("return await chrome.runtime.sendMessage({message})"),
        )
        .await
        .expect("runtime.sendMessage")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_worker_stop_reconnects_within_5s_and_acts() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let (ms, _) = stop_and_time(&stack, Duration::from_secs(5)).await;
    eprintln!("worker stop → ack: {ms} ms");
    assert_eq!(
        stack.eval(tab, "return document.title").await.expect("act"),
        "Basic fixture"
    );
    let tabs = stack.act(json!({ "action": "list_tabs" })).await.unwrap();
    assert!(tabs["tabs"].as_array().is_some_and(|t| !t.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_in_flight_at_stop_gets_exactly_one_answer() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let slow =
        "window.started = true; await new Promise((r) => setTimeout(r, 4000)); return 'finished'";
    let in_flight = {
        let stack = stack.clone();
        tokio::spawn(async move {
            stack
                .act(json!({ "action": "evaluate", "tabId": tab, "expression": slow }))
                .await
        })
    };
    let until = Instant::now() + Duration::from_secs(10);
    while stack.status().await.expect("status")["inFlight"] != 1 {
        assert!(Instant::now() < until, "the evaluate never went out");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = extension(&stack).await;
    stack.chromium.stop_extension_worker().await.expect("stop");
    let answer = in_flight.await.expect("task").unwrap_err();
    assert_eq!(answer.code, "not_connected", "{answer}");
    reconnected(&stack, &before, Duration::from_secs(5)).await;
    // The old evaluate would have finished by now (4 s): a second answer from a
    // worker that remembered it would reach the backend as a response that is not
    // in flight, which the backend logs.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let log = stack.backend_log();
    assert!(
        log.contains("request lost with its connection"),
        "the backend answered it when the socket dropped:\n{log}"
    );
    assert!(
        !log.contains("not in flight") && !log.contains("sent on another connection"),
        "a second answer reached the backend:\n{log}"
    );
    assert_eq!(
        stack.eval(tab, "return window.started").await.expect("act"),
        true,
        "the page kept its state"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_sent_in_the_gap_waits_for_the_new_worker() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let before = extension(&stack).await;
    stack.chromium.stop_extension_worker().await.expect("stop");
    // No extension is connected now (or the dying socket is about to close): the
    // request waits up to the backend's connect-wait (5 s) for the new worker.
    let sent = Instant::now();
    let title = stack
        .eval(tab, "return document.title")
        .await
        .expect("answered after the reconnect");
    assert_eq!(title, "Basic fixture");
    let after = extension(&stack).await;
    assert_ne!(
        after["connectionId"], before["connectionId"],
        "a new worker answered"
    );
    eprintln!(
        "request sent in the gap answered after {:?}",
        sent.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_is_reported_and_the_extension_recovers() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("second.html", None).await.expect("navigate");
    let extract = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let back = uid_named(&extract, "Back to basic");
    // A request in flight in the instance that panics.
    let in_flight = {
        let stack = stack.clone();
        let slow = "await new Promise((r) => setTimeout(r, 3000)); return 'finished'";
        tokio::spawn(async move {
            stack
                .act(json!({ "action": "evaluate", "tabId": tab, "expression": slow }))
                .await
        })
    };
    let until = Instant::now() + Duration::from_secs(10);
    while stack.status().await.expect("status")["inFlight"] != 1 {
        assert!(Instant::now() < until, "the evaluate never went out");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = extension(&stack).await;
    let (_target, page) = stack.popup().await.expect("an extension page");
    // Fire and forget: the panicking instance never answers this message.
    stack
        .chromium
        .eval(
            &page,
            "chrome.runtime.sendMessage({ cmd: 'panic' }).catch(() => {}); return true",
        )
        .await
        .expect("send the self-test");
    // Sent while the instance dies: one answer either way — its result when the old
    // instance answered first, `not_connected` when it reached the dead instance
    // (the loader closes that socket at once), or the new instance's result when it
    // came after the close (connect-wait).
    match stack.act(json!({ "action": "list_tabs" })).await {
        Ok(tabs) => assert!(tabs["tabs"].is_array()),
        Err(e) => assert_eq!(e.code, "not_connected", "{e}"),
    }
    let after = reconnected(&stack, &before, Duration::from_secs(5)).await;
    assert!(after["connectedAt"].is_u64());
    let report = stack
        .chromium
        .eval(
            &page,
            "return (await chrome.storage.local.get('lastPanic')).lastPanic",
        )
        .await
        .expect("lastPanic");
    assert!(
        report["message"]
            .as_str()
            .is_some_and(|m| m.contains("panic requested")),
        "the panic message is reported: {report}"
    );
    assert!(
        report["trap"]
            .as_str()
            .is_some_and(|m| m.contains("unreachable")),
        "{report}"
    );
    let shown = stack
        .chromium
        .eval(
            &page,
            "for (let i = 0; i < 100 && document.getElementById('panic').hidden; i++) \
             await new Promise((r) => setTimeout(r, 50)); \
             return document.getElementById('panic').textContent",
        )
        .await
        .expect("popup");
    assert!(
        shown
            .as_str()
            .is_some_and(|t| t.contains("panic requested")),
        "the popup shows it: {shown}"
    );
    // The re-instantiated module serves requests, with the session and its uids.
    let hovered = stack
        .act(json!({ "action": "hover", "uid": back }))
        .await
        .expect("act after the panic");
    assert_eq!(hovered["tabId"], tab);
    let status = worker_message(&stack, &page, json!({ "cmd": "status" })).await;
    assert_eq!(status["connection"]["state"], "connected", "{status}");
    assert_eq!(status["sessions"][0]["tabId"], tab, "{status}");

    // A panic inside a call from JS (not in a task) recovers the same way.
    let before = extension(&stack).await;
    stack
        .chromium
        .eval(
            &page,
            "chrome.runtime.sendMessage({ cmd: 'panic', sync: true }).catch(() => {}); return true",
        )
        .await
        .expect("send the self-test");
    reconnected(&stack, &before, Duration::from_secs(5)).await;
    let hovered = stack
        .act(json!({ "action": "hover", "uid": back }))
        .await
        .expect("act after the second panic");
    assert_eq!(hovered["tabId"], tab);

    // A panic inside an event handler (chrome.storage.onChanged → handle_event)
    // recovers the same way, and the popup's report names it.
    let before = extension(&stack).await;
    stack
        .chromium
        .eval(
            &page,
            "await chrome.storage.local.remove('lastPanic'); \
             await chrome.storage.local.set({ panicSelfTest: Date.now() }); return true",
        )
        .await
        .expect("trigger the event-handler self-test");
    reconnected(&stack, &before, Duration::from_secs(5)).await;
    let report = stack
        .chromium
        .eval(
            &page,
            "for (let i = 0; i < 100; i++) { \
               const { lastPanic } = await chrome.storage.local.get('lastPanic'); \
               if (lastPanic) return lastPanic; \
               await new Promise((r) => setTimeout(r, 50)); } return null",
        )
        .await
        .expect("lastPanic");
    assert!(
        report["message"]
            .as_str()
            .is_some_and(|m| m.contains("panic requested")),
        "the event-handler panic is reported: {report}"
    );
    let hovered = stack
        .act(json!({ "action": "hover", "uid": back }))
        .await
        .expect("act after the event-handler panic");
    assert_eq!(hovered["tabId"], tab);
    // The request of the dead instance: one answer, from the backend, when the new
    // connection replaced the old one; the dead instance's late result goes nowhere.
    let lost = in_flight.await.expect("task").unwrap_err();
    assert_eq!(lost.code, "not_connected", "{lost}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    let log = stack.backend_log();
    assert!(
        !log.contains("not in flight") && !log.contains("sent on another connection"),
        "a second answer reached the backend:\n{log}"
    );
    assert!(
        !log.contains("connection replaced by a newer one"),
        "the loader closed the dead instance's socket itself:\n{log}"
    );
}

fn summary(runs: &mut [u64]) -> String {
    runs.sort_unstable();
    format!(
        "min {} ms, median {} ms, max {} ms (n = {})",
        runs[0],
        runs[runs.len() / 2],
        runs[runs.len() - 1],
        runs.len()
    )
}

/// The figure: worker stop → `ack` again, 10 runs (with a session open), then the
/// same with the waker closed, i.e. relying on the 30 s keep-alive alarm as before.
/// Prints; the only bounds are the 5 s and the alarm's period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_stop_to_ack_figures() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let mut runs = Vec::new();
    for _ in 0..10 {
        let (ms, _) = stop_and_time(&stack, Duration::from_secs(5)).await;
        runs.push(ms);
        stack.eval(tab, "return 1").await.expect("act between runs");
    }
    eprintln!("worker stop → ack, with the waker: {}", summary(&mut runs));

    let mut without = Vec::new();
    for _ in 0..2 {
        let targets = stack.chromium.targets().await.expect("targets");
        for t in targets.iter().filter(|t| {
            t["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/waker.html"))
        }) {
            stack
                .chromium
                .close_target(t["targetId"].as_str().unwrap())
                .await
                .expect("close the waker");
        }
        let before = extension(&stack).await;
        let stopped_at = epoch_ms();
        stack.chromium.stop_extension_worker().await.expect("stop");
        // While no worker runs: is the extension's debugger still attached to the
        // session's tab? (`attached` = the target has a client; ours is the only one.)
        let page = stack
            .chromium
            .targets()
            .await
            .expect("targets")
            .into_iter()
            .find(|t| t["type"] == "page" && t["url"] == stack.fixtures.url("basic.html"))
            .expect("the session's page");
        eprintln!(
            "no worker running: session tab attached = {}",
            page["attached"]
        );
        let after = reconnected(&stack, &before, Duration::from_secs(40)).await;
        without.push(
            after["connectedAt"]
                .as_u64()
                .unwrap()
                .saturating_sub(stopped_at),
        );
    }
    eprintln!(
        "worker stop → ack, alarm only (before this change): {}",
        summary(&mut without)
    );
}

/// Attaches to the extension's running service worker; its `performance` figures:
/// `timeOrigin` (ms since the epoch: when the worker started) and the loader's
/// marks (`name`, `startTime` ms after `timeOrigin`).
async fn worker_timeline(stack: &Stack) -> (f64, Vec<(String, f64)>) {
    let worker = stack
        .chromium
        .extension_worker()
        .await
        .expect("targets")
        .expect("a running worker");
    let attached = stack
        .chromium
        .cdp(
            "Target.attachToTarget",
            json!({ "targetId": worker.target_id.0, "flatten": true }),
            None,
        )
        .await
        .expect("attach to the worker");
    let session = attached["sessionId"].as_str().expect("sessionId");
    let figures = stack
        .chromium
        .eval(
            session,
            "return { origin: performance.timeOrigin, \
             marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]) }",
        )
        .await
        .expect("the worker's performance figures");
    let _ = stack
        .chromium
        .cdp(
            "Target.detachFromTarget",
            json!({ "sessionId": session }),
            None,
        )
        .await;
    let marks = figures["marks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m[0].as_str().unwrap_or("").to_owned(),
                m[1].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    (figures["origin"].as_f64().expect("timeOrigin"), marks)
}

/// Cold start: from the moment a new worker starts (its `performance.timeOrigin`)
/// to the backend's `ack` of its connection (`connectedAt`), 10 restarts with a
/// session open, each back within 5 s. Prints the figure and the loader's marks
/// of the last run (run with `-- --nocapture`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_start_to_ack_figures() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let mut runs = Vec::new();
    let mut last_marks = Vec::new();
    for _ in 0..10 {
        let (_, after) = stop_and_time(&stack, Duration::from_secs(5)).await;
        let acked_at = after["connectedAt"].as_u64().expect("connectedAt");
        let (started_at, marks) = worker_timeline(&stack).await;
        runs.push((acked_at as f64 - started_at).max(0.0) as u64);
        last_marks = marks;
        stack.eval(tab, "return 1").await.expect("act between runs");
    }
    let line = summary(&mut runs);
    eprintln!("worker start → ack: {line}; loader marks of the last run (ms): {last_marks:?}");
}
