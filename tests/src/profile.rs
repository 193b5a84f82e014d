//! `browser-bridge-bench --profile`: where the time of one `evaluate` goes, stage by
//! stage, p50 over the samples. The extension's marks (`extension/src/timing.rs`)
//! are switched on over CDP in its service worker (`__bbTrace`), read back from
//! `__bbTimings`, and set beside the bench's own clock around each `POST /v1/act`.
//! Beside them: `chrome.debugger.sendCommand` timed inside the worker (the floor
//! of the extension's CDP hop) and `GET /v1/hello` (the HTTP share).
//!
//! The backend's marks come back in each answer's `Server-Timing`
//! (`browser_bridge_backend::timing`): the same clock as the bench's. The two
//! legs between the backend and the extension compare two clocks (`SystemTime`,
//! Chrome's `performance.timeOrigin + now()`): their sum is exact, the split only
//! as good as the clocks agree.

use std::fmt::Write as _;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use browser_bridge_cdp::target::AttachToTarget;
use serde_json::{Value, json};

use crate::harness::Stack;

/// The extension's marks in the order they are taken (`extension/src/timing.rs`).
const MARKS: [&str; 11] = [
    "recv",
    "decoded",
    "task",
    "resolved",
    "locked",
    "attached",
    "checked",
    "Runtime.evaluate",
    "cdp_recv",
    "done",
    "sent",
];

/// What each span between two marks is.
const STAGES: [&str; 10] = [
    "decode the frame (`Message::decode_from_backend`, connection machine)",
    "`spawn_local` hop to the request task",
    "Stop-all check, tab resolution",
    "tab lock",
    "session check (`ensure`), client mark",
    "dialog/crash checks, action count, in-flight registration",
    "action code up to `chrome.debugger.sendCommand`",
    "`chrome.debugger.sendCommand` `Runtime.evaluate` round trip",
    "result shaping",
    "response encoding and `WebSocket.send`",
];

/// Epoch ms with sub-ms digits.
fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_default()
}

/// The p50 (nearest rank) of `v`, ms.
fn p50(v: Vec<f64>) -> f64 {
    percentile(v, 50)
}

/// The `q`th percentile (nearest rank) of `v`, ms; NaN for none.
fn percentile(mut v: Vec<f64>, q: usize) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[(v.len() * q).div_ceil(100).clamp(1, v.len()) - 1]
}

/// One request's marks: `(label, epoch ms)` in order.
type Record = Vec<(String, f64)>;

/// The extension's service worker, attached (flat session id).
async fn worker_session(stack: &Stack) -> Result<String> {
    let worker = stack
        .chromium
        .extension_worker()
        .await?
        .context("the extension's service worker is not running")?;
    let attach = AttachToTarget {
        target_id: worker.target_id.clone(),
        flatten: true,
    };
    Ok(stack.chromium.send(&attach, None).await?.session_id.0)
}

/// The backend's marks and their spans, in order (`browser_bridge_backend::timing`).
const BACKEND_OUT: [(&str, &str, &str); 6] = [
    (
        "sent",
        "handler",
        "bench → handler: HTTP write, hyper read, auth, body",
    ),
    ("handler", "decoded", "decode and validate the action"),
    ("decoded", "owner", "hop: HTTP task → hub owner task"),
    ("owner", "encoded", "route, request frame encoding"),
    ("encoded", "ws_task", "hop: owner task → socket task"),
    ("ws_task", "ws_written", "WebSocket frame write"),
];

/// After the extension: its `sent` → the backend's marks → the bench.
const BACKEND_BACK: [(&str, &str, &str); 4] = [
    (
        "ws_read",
        "owner_resp",
        "response frame decoding, hop: socket task → owner task",
    ),
    ("owner_resp", "reply", "hop: owner task → HTTP task"),
    ("reply", "encoded_resp", "result to JSON"),
    (
        "encoded_resp",
        "answered",
        "HTTP write, bench's read and JSON parse",
    ),
];

/// The backend's marks of one `Server-Timing` value (`t0;desc="<epoch ms>"`, then
/// `<label>;dur=<ms since t0>`), each as epoch ms.
fn server_marks(value: &str) -> Record {
    let mut t0 = 0.0;
    let mut out = Vec::new();
    for part in value.split(',') {
        let mut fields = part.trim().split(';');
        let label = fields.next().unwrap_or_default();
        for field in fields {
            if let Some(desc) = field.strip_prefix("desc=") {
                t0 = desc.trim_matches('"').parse().unwrap_or(0.0);
            } else if let Some(dur) = field.strip_prefix("dur=") {
                out.push((label.to_owned(), t0 + dur.parse().unwrap_or(f64::NAN)));
            }
        }
    }
    out
}

/// One run as seen from outside the extension: the bench's `(sent, answered)`
/// epoch ms and the backend's marks.
type Outside = ((f64, f64), Record);

/// Runs `action` `n` times (after 3 untimed) with the marks on: each run's marks,
/// what was seen outside the extension, and total ms.
async fn traced(
    stack: &Stack,
    worker: &str,
    action: &Value,
    n: usize,
) -> Result<(Vec<Record>, Vec<Outside>, Vec<f64>)> {
    let chromium = &stack.chromium;
    chromium
        .eval(worker, "globalThis.__bbTrace = true; return 1")
        .await?;
    for _ in 0..3 {
        stack.act(action.clone()).await?;
    }
    chromium
        .eval(worker, "globalThis.__bbTimings = []; return 1")
        .await?;
    let (mut outside, mut totals) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let (sent, t) = (epoch_ms(), Instant::now());
        let (_, timing) = stack.act_timed(action.clone()).await?;
        totals.push(t.elapsed().as_secs_f64() * 1000.0);
        outside.push(((sent, epoch_ms()), server_marks(&timing)));
    }
    let marks = chromium
        .eval(
            worker,
            "globalThis.__bbTrace = false; return globalThis.__bbTimings",
        )
        .await?;
    let records: Vec<Record> = marks
        .as_array()
        .context("no __bbTimings")?
        .iter()
        .filter_map(Value::as_array)
        .map(|r| {
            r.chunks(2)
                .filter_map(|p| Some((p[0].as_str()?.to_owned(), p.get(1)?.as_f64()?)))
                .collect()
        })
        .collect();
    if records.len() != n {
        let why = chromium
            .eval(
                worker,
                "return [typeof globalThis.__bbTrace, typeof globalThis.__bbTimings, \
                 typeof globalThis.wasm_bindgen, Object.keys(globalThis).length, location.href]",
            )
            .await?;
        bail!(
            "{} records of marks for {n} runs of {action} (worker: {why})",
            records.len()
        );
    }
    Ok((records, outside, totals))
}

fn at(r: &[(String, f64)], label: &str) -> Option<f64> {
    r.iter().find(|(l, _)| l == label).map(|p| p.1)
}

/// `recv` → `sent` of one record, ms.
fn inside(r: &[(String, f64)]) -> Option<f64> {
    Some(at(r, "sent")? - at(r, "recv")?)
}

/// The CDP calls of one record (`Domain.method` → `cdp_recv`), each `(method, ms)`,
/// and the time in other `chrome.*` calls (`chrome` → `chrome_recv` outside a CDP
/// call), `(count, ms)`.
fn calls(r: &[(String, f64)]) -> (Vec<(String, f64)>, (usize, f64)) {
    let (mut cdp, mut chrome) = (Vec::new(), (0, 0.0));
    let (mut open_cdp, mut open_chrome): (Option<(&str, f64)>, Option<f64>) = (None, None);
    for (label, t) in r {
        match label.as_str() {
            "cdp_recv" => {
                if let Some((m, s)) = open_cdp.take() {
                    cdp.push((m.to_owned(), t - s));
                }
            }
            "chrome" if open_cdp.is_none() => open_chrome = Some(*t),
            "chrome_recv" if open_cdp.is_none() => {
                if let Some(s) = open_chrome.take() {
                    chrome = (chrome.0 + 1, chrome.1 + t - s);
                }
            }
            m if m.contains('.') => open_cdp = Some((m, *t)),
            _ => {}
        }
    }
    (cdp, chrome)
}

/// Runs `n` `evaluate` `return 1` on `tab` with the marks on; the breakdown as a
/// Markdown table (ms, p50 and p99).
///
/// # Errors
/// No extension worker, a failed action, or marks that do not come back.
pub async fn evaluate_breakdown(stack: &Stack, tab: i64, n: usize) -> Result<String> {
    let worker = worker_session(stack).await?;
    let action = json!({"action": "evaluate", "tabId": tab, "expression": "return 1"});
    let (records, outside, totals) = traced(stack, &worker, &action, n).await?;
    let mut out = String::from(
        "| stage (evaluate `return 1`) | p50 ms | p99 ms (under 100 samples: the max) |\n|---|---:|---:|\n",
    );
    // p99 per stage: where the tail of the total comes from.
    let row = |out: &mut String, name: &str, v: Vec<f64>| {
        let _ = writeln!(
            out,
            "| {name} | {:.3} | {:.3} |",
            p50(v.clone()),
            percentile(v, 99)
        );
    };
    // The bench's and the backend's marks of each run, then the extension's.
    let joined: Vec<Record> = records
        .iter()
        .zip(&outside)
        .map(|(ext, ((sent, answered), backend))| {
            let mut all = vec![("sent".to_owned(), *sent)];
            all.extend(backend.iter().cloned());
            all.push(("answered".to_owned(), *answered));
            all.push(("ext_recv".to_owned(), at(ext, "recv").unwrap_or(f64::NAN)));
            all.push(("ext_sent".to_owned(), at(ext, "sent").unwrap_or(f64::NAN)));
            all
        })
        .collect();
    let span = |from: &str, to: &str| -> Vec<f64> {
        joined
            .iter()
            .filter_map(|r| Some(at(r, to)? - at(r, from)?))
            .collect()
    };
    for (from, to, name) in BACKEND_OUT {
        row(&mut out, name, span(from, to));
    }
    row(
        &mut out,
        "WS: backend write → extension `recv` (two clocks)",
        span("ws_written", "ext_recv"),
    );
    for (i, stage) in STAGES.iter().enumerate() {
        let v = records
            .iter()
            .filter_map(|r| Some(at(r, MARKS[i + 1])? - at(r, MARKS[i])?))
            .collect();
        row(&mut out, stage, v);
    }
    row(
        &mut out,
        "WS: extension `sent` → backend read (two clocks)",
        span("ext_sent", "ws_read"),
    );
    for (from, to, name) in BACKEND_BACK {
        row(&mut out, name, span(from, to));
    }
    row(
        &mut out,
        "**in the backend** (`handler` → `ws_written`, `ws_read` → `encoded_resp`)",
        joined
            .iter()
            .filter_map(|r| {
                Some(
                    at(r, "ws_written")? - at(r, "handler")? + at(r, "encoded_resp")?
                        - at(r, "ws_read")?,
                )
            })
            .collect(),
    );
    let inside: Vec<f64> = records.iter().filter_map(|r| inside(r)).collect();
    row(
        &mut out,
        "**outside the extension** (both legs: total − inside, one clock)",
        totals.iter().zip(&inside).map(|(t, i)| t - i).collect(),
    );
    row(
        &mut out,
        "**inside the extension** (`recv` → `sent`)",
        inside,
    );
    row(&mut out, "**total** (`POST /v1/act`)", totals);
    // In the worker, `n` bare `chrome.debugger.sendCommand`s timed one by one:
    // back to back; with `evaluate`'s own parameters (§7: an async function body,
    // its promise awaited); and each 2 ms after the last, when Chrome's threads
    // have gone idle between, as they have for an action that comes over HTTP and
    // WebSocket.
    let references = [
        (
            "reference: bare `chrome.debugger.sendCommand` in the worker",
            "",
            "{expression: '1', returnByValue: true}",
        ),
        (
            "reference: the same, with `evaluate`'s parameters",
            "",
            "{expression: '(async () => {\\nreturn 1\\n})()', awaitPromise: true, userGesture: true, \
             returnByValue: false, objectGroup: 'browser-bridge-evaluate', timeout: 10000}",
        ),
        (
            "reference: bare, each call 2 ms after the last",
            "await new Promise(r => setTimeout(r, 2));",
            "{expression: '1', returnByValue: true}",
        ),
    ];
    for (name, pause, params) in references {
        let series = format!(
            "const t = []; for (let i = 0; i < {n}; i++) {{ {pause} const s = performance.now(); \
             await chrome.debugger.sendCommand({{tabId: {tab}}}, 'Runtime.evaluate', {params}); \
             t.push(performance.now() - s); }} return t;"
        );
        let times: Vec<f64> = stack
            .chromium
            .eval(&worker, &series)
            .await?
            .as_array()
            .context("no sendCommand timings")?
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        row(&mut out, name, times);
    }
    Ok(out)
}

/// Runs each of `actions` `n` times with the marks on; per action, p50 ms of: the
/// total, outside the extension, inside, in CDP calls, in other `chrome.*` calls,
/// and the CDP calls of the median run in order with their ms.
///
/// # Errors
/// As [`evaluate_breakdown`].
pub async fn actions_breakdown(stack: &Stack, actions: &[Value], n: usize) -> Result<String> {
    let worker = worker_session(stack).await?;
    let mut out = String::from(
        "| action | total | outside ext. | inside ext. | CDP (calls) | other chrome.* (calls) | rest inside |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut sequences = String::new();
    for action in actions {
        let (records, _, totals) = traced(stack, &worker, action, n).await?;
        let ins: Vec<f64> = records.iter().filter_map(|r| inside(r)).collect();
        let split: Vec<_> = records.iter().map(|r| calls(r)).collect();
        let cdp_ms: Vec<f64> = split
            .iter()
            .map(|(c, _)| c.iter().map(|p| p.1).sum())
            .collect();
        let chrome_ms: Vec<f64> = split.iter().map(|(_, c)| c.1).collect();
        let rest: Vec<f64> = ins
            .iter()
            .zip(&cdp_ms)
            .zip(&chrome_ms)
            .map(|((i, c), h)| i - c - h)
            .collect();
        let median = {
            let mut order: Vec<usize> = (0..ins.len()).collect();
            order.sort_by(|a, b| ins[*a].total_cmp(&ins[*b]));
            order.get(order.len() / 2).copied().unwrap_or(0)
        };
        let (seq, chrome) = &split[median];
        let _ = writeln!(
            out,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} ({}) | {:.2} ({}) | {:.2} |",
            action["action"].as_str().unwrap_or("?"),
            p50(totals.clone()),
            p50(totals.iter().zip(&ins).map(|(t, i)| t - i).collect()),
            p50(ins.clone()),
            p50(cdp_ms),
            seq.len(),
            p50(chrome_ms),
            chrome.0,
            p50(rest),
        );
        let calls: Vec<String> = seq.iter().map(|(m, ms)| format!("{m} {ms:.2}")).collect();
        let _ = writeln!(
            sequences,
            "- {} (median run, ms): {}",
            action["action"].as_str().unwrap_or("?"),
            calls.join(", ")
        );
    }
    Ok(format!("{out}\n{sequences}"))
}

/// Runs `n` `extract` of `tab` with the marks on; the median run's marks in order,
/// each with ms since `recv` and since the mark before, then references on the
/// same page with the same parameters (`page::snapshot::COMPUTED_STYLES`, the
/// `innerText` read of `browser_bridge_cdp::gather`): over the bench's own CDP
/// connection (`raw_session`, a second tab of the page: the renderer's time), and
/// `chrome.debugger.sendCommand` in the worker (the transfer into a JS object),
/// with `JSON.stringify` of its answer. p50 of `n` each.
///
/// # Errors
/// As [`evaluate_breakdown`]; a failed reference call.
pub async fn extract_breakdown(
    stack: &Stack,
    tab: i64,
    raw_session: &str,
    n: usize,
) -> Result<String> {
    let worker = worker_session(stack).await?;
    let action = json!({"action": "extract", "tabId": tab});
    let (records, _, totals) = traced(stack, &worker, &action, n).await?;
    let ins: Vec<f64> = records.iter().filter_map(|r| inside(r)).collect();
    let median = {
        let mut order: Vec<usize> = (0..ins.len()).collect();
        order.sort_by(|a, b| ins[*a].total_cmp(&ins[*b]));
        order.get(order.len() / 2).copied().unwrap_or(0)
    };
    let mut out = String::from(
        "| extract: median run's mark | ms since `recv` | ms since the mark before |\n|---|---:|---:|\n",
    );
    let run = &records[median];
    let t0 = at(run, "recv").unwrap_or(f64::NAN);
    let mut before = t0;
    for (label, t) in run {
        let _ = writeln!(out, "| {label} | {:.1} | {:.1} |", t - t0, t - before);
        before = *t;
    }
    let _ = writeln!(
        out,
        "\n| extract (p50 of {n}) | ms |\n|---|---:|\n| total (`POST /v1/act`) | {:.1} |\n| inside the extension | {:.1} |",
        p50(totals.clone()),
        p50(ins)
    );
    let styles = json!(browser_bridge_page::snapshot::COMPUTED_STYLES);
    let text = serde_json::to_value(browser_bridge_cdp::gather::inner_text())?;
    let mut raw = |name: &str, v: Vec<f64>| {
        let _ = writeln!(out, "| {name} | {:.1} |", p50(v));
    };
    let mut snap = Vec::with_capacity(n);
    let mut inner = Vec::with_capacity(n);
    let mut both = Vec::with_capacity(n);
    let mut bare = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        stack
            .chromium
            .cdp(
                "DOMSnapshot.captureSnapshot",
                json!({"computedStyles": []}),
                Some(raw_session),
            )
            .await?;
        bare.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        stack
            .chromium
            .cdp(
                "DOMSnapshot.captureSnapshot",
                json!({"computedStyles": styles}),
                Some(raw_session),
            )
            .await?;
        snap.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        stack
            .chromium
            .cdp("Runtime.evaluate", text.clone(), Some(raw_session))
            .await?;
        inner.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let s = stack.chromium.cdp(
            "DOMSnapshot.captureSnapshot",
            json!({"computedStyles": styles}),
            Some(raw_session),
        );
        let i = stack
            .chromium
            .cdp("Runtime.evaluate", text.clone(), Some(raw_session));
        let (s, i) = futures_util::join!(s, i);
        s?;
        i?;
        both.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    raw(
        "reference: raw CDP `DOMSnapshot.captureSnapshot` (bench's pipe)",
        snap,
    );
    raw(
        "reference: raw CDP `innerText` evaluate (bench's pipe)",
        inner,
    );
    raw("reference: both together (bench's pipe)", both);
    raw(
        "reference: raw CDP captureSnapshot without `computedStyles` (bench's pipe)",
        bare,
    );
    // Without styles too: what 8 fewer numbers per layout object save in the transfer.
    let in_worker = format!(
        "const send = [], str = [], bare = []; for (let i = 0; i < {n}; i++) {{ let t = performance.now(); \
         const r = await chrome.debugger.sendCommand({{tabId: {tab}}}, 'DOMSnapshot.captureSnapshot', \
         {{computedStyles: {styles}}}); send.push(performance.now() - t); t = performance.now(); \
         const s = JSON.stringify(r); str.push(performance.now() - t); globalThis.__bbLen = s.length; \
         t = performance.now(); await chrome.debugger.sendCommand({{tabId: {tab}}}, \
         'DOMSnapshot.captureSnapshot', {{computedStyles: []}}); bare.push(performance.now() - t); }} \
         return [send, str, globalThis.__bbLen, bare];"
    );
    let v = stack.chromium.eval(&worker, &in_worker).await?;
    let nums = |v: &Value| -> Vec<f64> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    raw(
        "reference: `chrome.debugger.sendCommand` captureSnapshot in the worker",
        nums(&v[0]),
    );
    raw(
        "reference: `JSON.stringify` of its answer in the worker",
        nums(&v[1]),
    );
    raw(
        "reference: the same without `computedStyles` in the worker",
        nums(&v[3]),
    );
    let _ = writeln!(out, "| snapshot JSON length (chars) | {} |", v[2]);
    Ok(out)
}
