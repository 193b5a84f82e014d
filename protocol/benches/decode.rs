//! Decoding cost of a hostile frame against a valid frame of the same size, in
//! the same run: a ~1 MiB `hello`, `request` and `response` padded with small
//! keys, once valid and once with one mistyped field (the error path names the
//! field, PROTOCOL.md §4). Decoding is linear, so the ratio stays a small
//! constant (the error path decodes twice); the per-key search it replaced was
//! quadratic (74 s for a 175 KiB hello).
//!
//! Run: `cargo bench -p browser-bridge-protocol --bench decode`.
#![allow(clippy::print_stdout)] // a bench binary reports on stdout

use std::time::{Duration, Instant};

use browser_bridge_protocol::Message;
use serde_json::{Map, Value, json};

const FRAME_BYTES: usize = 1 << 20;
const RUNS: usize = 7;

/// `value` padded with `"kNNNNNN":"v"` keys to about [`FRAME_BYTES`] of JSON.
fn padded(mut value: Value, padded_object: &[&str]) -> String {
    let mut target = &mut value;
    for key in padded_object {
        target = &mut target[*key];
    }
    let object: &mut Map<String, Value> = target.as_object_mut().expect("an object");
    let mut i = 0;
    while object.len() * 14 < FRAME_BYTES {
        object.insert(format!("k{i:06}"), Value::from("v"));
        i += 1;
    }
    value.to_string()
}

/// The median wall time of [`RUNS`] decodes; asserts the outcome is as expected.
fn median_decode(text: &str, valid: bool, names: &str) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let decoded = Message::decode(text);
            let elapsed = started.elapsed();
            match (&decoded, valid) {
                (Ok(_), true) => {}
                (Err(e), false) => assert!(e.error.message.contains(names), "{}", e.error.message),
                _ => panic!("unexpected outcome: {:?}", decoded.map(|_| ())),
            }
            elapsed
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() {
    let hello = |version: Value| {
        json!({"type": "hello", "protocolVersion": version, "extensionVersion": "1",
               "clientId": "c", "pairingToken": "t"})
    };
    let request = |count: Value| {
        json!({"type": "request", "id": "r1", "timeoutMs": 1000,
               "action": {"action": "click", "selector": "#go", "clickCount": count}})
    };
    let response = |tab: Value| {
        json!({"type": "response", "id": "r1",
               "result": {"action": "navigate", "tabId": tab, "url": "u", "title": "t"}})
    };
    let cases = [
        (
            "hello",
            padded(hello(json!(4)), &[]),
            padded(hello(json!("4")), &[]),
            "protocolVersion",
        ),
        (
            "request.action",
            padded(request(json!(2)), &["action"]),
            padded(request(json!("2")), &["action"]),
            "clickCount",
        ),
        (
            "response.result",
            padded(response(json!(1)), &["result"]),
            padded(response(json!("1")), &["result"]),
            "tabId",
        ),
    ];
    println!("decode of a ~1 MiB frame, median of {RUNS} runs");
    for (name, valid, hostile, field) in cases {
        let valid_time = median_decode(&valid, true, "");
        let hostile_time = median_decode(&hostile, false, field);
        println!(
            "{name:<16} valid {:>7} KiB {:>9.2?}   one mistyped field {:>7} KiB {:>9.2?}   ratio {:.2}",
            valid.len() / 1024,
            valid_time,
            hostile.len() / 1024,
            hostile_time,
            hostile_time.as_secs_f64() / valid_time.as_secs_f64()
        );
    }
}
