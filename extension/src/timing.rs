//! Where an action's time goes inside the worker, for `browser-bridge-bench
//! --profile` only: off unless the worker's global `__bbTrace` is `true` (set over
//! CDP by the bench), then each request's marks go to the global `__bbTimings` as
//! `[label, epochMs, …]` arrays (epoch ms with µs digits:
//! `performance.timeOrigin + performance.now()`, comparable with the bench's clock).
//! Off, a mark is one `Cell` read.

use std::cell::{Cell, RefCell};

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    /// Tracing is on (read from `__bbTrace` when a frame arrives).
    static ON: Cell<bool> = const { Cell::new(false) };
    /// The marks of the request being traced (one at a time: the bench's are sequential).
    static MARKS: RefCell<Vec<(&'static str, f64)>> = const { RefCell::new(Vec::new()) };
}

/// A frame arrived from the backend: reads `__bbTrace` and, when on, starts a
/// new record with the mark `recv`.
pub fn frame_arrived() {
    let global = js_sys::global();
    let on = Reflect::get(&global, &"__bbTrace".into())
        .map(|v| v.is_truthy())
        .unwrap_or(false);
    ON.with(|c| c.set(on));
    if on {
        MARKS.with(|m| m.borrow_mut().clear());
        mark("recv");
    }
}

/// Records `label` now in the current record (nothing when off).
pub fn mark(label: &'static str) {
    if ON.with(Cell::get) {
        let t = now();
        MARKS.with(|m| m.borrow_mut().push((label, t)));
    }
}

/// Ends the current record with `label` and appends it to `__bbTimings`.
pub fn finish(label: &'static str) {
    if !ON.with(Cell::get) {
        return;
    }
    mark(label);
    ON.with(|c| c.set(false));
    let record = Array::new();
    MARKS.with(|m| {
        for (label, t) in m.borrow_mut().drain(..) {
            record.push(&JsValue::from_str(label));
            record.push(&JsValue::from_f64(t));
        }
    });
    let global = js_sys::global();
    let all = match Reflect::get(&global, &"__bbTimings".into()) {
        Ok(v) if Array::is_array(&v) => v.unchecked_into::<Array>(),
        _ => {
            let all = Array::new();
            let _ = Reflect::set(&global, &"__bbTimings".into(), &all);
            all
        }
    };
    all.push(&record);
}

/// Epoch ms with sub-ms digits (`performance.timeOrigin + performance.now()`).
fn now() -> f64 {
    let global = js_sys::global();
    let Ok(perf) = Reflect::get(&global, &"performance".into()) else {
        return js_sys::Date::now();
    };
    let origin = Reflect::get(&perf, &"timeOrigin".into())
        .ok()
        .and_then(|v| v.as_f64());
    let now = Reflect::get(&perf, &"now".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call0(&perf).ok())
        .and_then(|v| v.as_f64());
    match (origin, now) {
        (Some(o), Some(n)) => o + n,
        _ => js_sys::Date::now(),
    }
}
