//! The checks run on an authenticated extension connection, in order: keep-alive,
//! request validation, a session on `about:blank`, result and event shapes, the
//! error codes an extension can be made to produce, and one answer per request.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::answers::{ACTION_MS, error_of, result_of};
use super::conn::Conn;
use super::devtools::console_and_network;
use super::downloads::downloads;
use super::page_tools::webmcp_tool;
use super::pointer;
use crate::report::{Outcome, Report, ensure};
use crate::wire::{bool_field, expect_error, short, str_field, u64_field};

/// `timeoutMs` for navigation actions (§5).
const NAVIGATION_MS: u64 = 30_000;
/// How long a pong or an event may take.
const WAIT: Duration = Duration::from_secs(5);
/// A tab id no browser hands out this early.
const BOGUS_TAB: u64 = 2_147_480_000;

/// Runs every check on `conn`, then closes it.
pub(super) async fn run(mut conn: Conn, report: &mut Report) {
    report.record(
        "handshake: ack accepted (the extension answers our ping)",
        conn.ping(1, WAIT).await,
    );
    report.record(
        "keep-alive: ping → pong with the nonce",
        conn.ping(9_007_199_254, WAIT).await,
    );
    report.record(
        "requests: unknown action → invalid_request naming it",
        unknown_action(&mut conn).await,
    );
    report.record(
        "requests: both uid and selector → invalid_request",
        both_targets(&mut conn).await,
    );
    report.record(
        "requests: pointer targets: uid with x+y, x without y, drag steps 51, a drag end with two targets → invalid_request naming the field",
        pointer::bad_targets(&mut conn).await,
    );
    report.record(
        "requests: missing timeoutMs → invalid_request for its id",
        no_timeout(&mut conn).await,
    );
    report.record(
        "requests: a batch holding a batch → invalid_request naming actions[0]",
        nested_batch(&mut conn).await,
    );
    let tab = match navigate_blank(&mut conn).await {
        Ok(tab) => {
            report.record(
                "actions: navigate about:blank → {action, tabId, url, title}",
                Ok(()),
            );
            Some(tab)
        }
        Err(why) => {
            report.record(
                "actions: navigate about:blank → {action, tabId, url, title}",
                Err(why),
            );
            None
        }
    };
    let needs_tab = || Err::<(), String>("no session: navigate failed".into());
    macro_rules! on_tab {
        ($name:expr, $check:expr) => {
            let outcome = match tab {
                Some(tab) => $check(&mut conn, tab).await,
                None => needs_tab(),
            };
            report.record($name, outcome);
        };
    }
    on_tab!(
        "events: session_started shape after the first action",
        session_started
    );
    on_tab!(
        "actions: evaluate `return 1` → {action: evaluate, type: number, value: 1}",
        evaluate_one
    );
    on_tab!("actions: list_tabs shape, our tab is a session", list_tabs);
    on_tab!(
        "actions: batch with stopOnError false → one {index, result} or {index, error} per action, in order",
        batch_entries
    );
    on_tab!(
        "actions: fill_form → {action, tabId, fields: [{index, value}]}, the value read back",
        fill_form_text
    );
    on_tab!(
        "sessions: navigate without a session opens its tab in the agent window",
        in_agent_window
    );
    on_tab!(
        "sessions: open_tab → {action, tabId, windowId, url, title}, agent window reused",
        open_tab
    );
    on_tab!(
        "sessions: open_tab for two clients (request.client) → a window each, reused, not the shared one",
        super::windows::a_window_per_client
    );
    report.record(
        "requests: a malformed client → invalid_request for its id",
        super::windows::malformed_client(&mut conn).await,
    );
    on_tab!(
        "actions: screenshot → {action, tabId, mimeType: image/png, data, width, height}",
        screenshot
    );
    on_tab!(
        "tolerance: unknown optional fields in request and action",
        unknown_fields
    );
    report.record(
        "errors: session_not_found for a bogus tabId",
        bogus_tab(&mut conn).await,
    );
    on_tab!(
        "errors: element_not_found for a selector matching nothing",
        missing_selector
    );
    on_tab!(
        "errors: element_not_found for a uid never issued",
        missing_uid
    );
    on_tab!(
        "errors: invalid_action for a throwing evaluate, with the JS error",
        throwing_evaluate
    );
    on_tab!("errors: invalid_action for a file: URL navigate", file_url);
    on_tab!(
        "dialogs: a dialog opening while an action waits ends it at once (invalid_action naming it); handle_dialog answers it",
        dialog_ends_action
    );
    on_tab!(
        "input: type with keystrokes: true sends a keydown per character, value in the result",
        keystrokes
    );
    on_tab!(
        "pointer: click at x, y presses what is there and names it (hit); outside the viewport → invalid_action",
        pointer::click_at_point
    );
    on_tab!(
        "pointer: drag between points → mousedown at from, moves with the button held, mouseup at to",
        pointer::drag_between_points
    );
    on_tab!(
        "dialogs: reload reports the beforeunload prompt of the page it leaves (dialog, loadPending); beforeUnload: accept goes on",
        beforeunload
    );
    on_tab!(
        "console and network: a logged warning listed newest last; network_requests lists; an unseen requestId → invalid_action",
        console_and_network
    );
    on_tab!(
        "downloads: list_downloads of a tab that began none is []; wait_for_download times out at its timeoutMs; another's downloadId → invalid_action; limit 51, timeoutMs 300001 → invalid_request",
        downloads
    );
    on_tab!(
        "page tools: a WebMCP tool the page registers → listed with source webmcp and called",
        webmcp_tool
    );
    on_tab!(
        "handoff: nobody answers → outcome timeout, not before timeoutMs; timeoutMs 600001 → invalid_request",
        super::handoff::times_out
    );
    on_tab!("actions: close_tab → session_ended shape", close_tab);
    conn.drain(Duration::from_millis(500)).await;
    let problems = conn.answer_problems();
    report.record(
        "one answer per request id, no response to unknown ids",
        ensure(problems.is_empty(), || problems.join("; ")),
    );
    conn.close().await;
}

async fn unknown_action(conn: &mut Conn) -> Outcome {
    let response = conn
        .call(json!({"action": "conformance_no_such_action"}), ACTION_MS)
        .await?;
    let error = error_of(&response)?;
    expect_error(error, "invalid_request")?;
    let message = str_field(error, "message")?;
    ensure(message.contains("conformance_no_such_action"), || {
        format!("the message does not name the action: `{message}`")
    })
}

async fn both_targets(conn: &mut Conn) -> Outcome {
    let action = json!({"action": "click", "uid": "e1", "selector": "#both"});
    let response = conn.call(action, ACTION_MS).await?;
    expect_error(error_of(&response)?, "invalid_request")
}

async fn no_timeout(conn: &mut Conn) -> Outcome {
    let id = uuid::Uuid::new_v4().to_string();
    let frame = json!({"type": "request", "id": id, "action": {"action": "list_tabs"}});
    conn.send_request_frame(&id, &frame).await?;
    let response = conn.response(&id, WAIT).await?;
    expect_error(error_of(&response)?, "invalid_request")
}

async fn nested_batch(conn: &mut Conn) -> Outcome {
    let inner = json!({"action": "batch", "actions": [{"action": "list_page_tools"}]});
    let action = json!({"action": "batch", "actions": [inner]});
    let response = conn.call(action, ACTION_MS).await?;
    let error = error_of(&response)?;
    expect_error(error, "invalid_request")?;
    let message = str_field(error, "message")?;
    ensure(message.contains("actions[0]"), || {
        format!("the message does not name actions[0]: `{message}`")
    })
}

async fn batch_entries(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "batch", "tabId": tab, "stopOnError": false, "actions": [
        {"action": "evaluate", "expression": "return 1"},
        {"action": "click", "selector": "#conformance-missing"},
        {"action": "evaluate", "expression": "return 3"}
    ]});
    let response = conn.call(action, 3 * ACTION_MS).await?;
    let result = result_of(&response, "batch")?;
    let entries = result
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("no results array: {}", short(result)))?;
    ensure(entries.len() == 3, || {
        format!("{} entries for 3 actions: {}", entries.len(), short(result))
    })?;
    for (i, entry) in entries.iter().enumerate() {
        ensure(u64_field(entry, "index")? == i as u64, || {
            format!("entry {i} has index {}", short(entry))
        })?;
    }
    // An entry holds `result` or `error` as a response does.
    let first = result_of(&entries[0], "evaluate")?;
    ensure(first.get("value") == Some(&json!(1)), || {
        format!("first entry {}", short(first))
    })?;
    expect_error(error_of(&entries[1])?, "element_not_found")?;
    let third = result_of(&entries[2], "evaluate")?;
    ensure(third.get("value") == Some(&json!(3)), || {
        format!("third entry {}", short(third))
    })
}

async fn fill_form_text(conn: &mut Conn, tab: u64) -> Outcome {
    let setup = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.body.insertAdjacentHTML('beforeend', '<input id=\"conformance-field\"><input id=\"conformance-box\" type=\"checkbox\">'); return 1"});
    result_of(&conn.call(setup, ACTION_MS).await?, "evaluate")?;
    let action = json!({"action": "fill_form", "tabId": tab, "fields": [
        {"selector": "#conformance-field", "value": "conformance"},
        {"selector": "#conformance-box", "value": true}
    ]});
    let response = conn.call(action, 2 * ACTION_MS).await?;
    let result = result_of(&response, "fill_form")?;
    let fields = result.get("fields").cloned().unwrap_or(Value::Null);
    ensure(
        fields == json!([{"index": 0, "value": "conformance"}, {"index": 1, "value": true}]),
        || format!("fill_form result {}", short(result)),
    )
}

async fn navigate_blank(conn: &mut Conn) -> Result<u64, String> {
    let response = conn
        .call(
            json!({"action": "navigate", "url": "about:blank"}),
            NAVIGATION_MS,
        )
        .await?;
    let result = result_of(&response, "navigate")?;
    str_field(result, "url")?;
    str_field(result, "title")?;
    u64_field(result, "tabId")
}

async fn session_started(conn: &mut Conn, tab: u64) -> Outcome {
    let event = conn
        .event(
            |e| e["event"] == json!("session_started") && e["tabId"] == json!(tab),
            WAIT,
        )
        .await
        .map_err(|e| format!("no session_started for tab {tab}: {e}"))?;
    str_field(&event, "url")?;
    bool_field(&event, "agentWindow")?;
    plausible_time(u64_field(&event, "startedAt")?, "startedAt")
}

/// A time in ms since the Unix epoch within a day of now.
fn plausible_time(at: u64, name: &str) -> Outcome {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    ensure(at.abs_diff(now) < 86_400_000, || {
        format!("{name} {at} is not ms since the Unix epoch near now ({now})")
    })
}

async fn evaluate_one(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "evaluate", "expression": "return 1", "tabId": tab});
    let response = conn.call(action, ACTION_MS).await?;
    let result = result_of(&response, "evaluate")?;
    ensure(
        result.get("type") == Some(&json!("number")) && result.get("value") == Some(&json!(1)),
        || format!("evaluate result {}", short(result)),
    )?;
    let tab_id = u64_field(result, "tabId")?;
    ensure(tab_id == tab, || format!("tabId {tab_id}, expected {tab}"))
}

async fn list_tabs(conn: &mut Conn, tab: u64) -> Outcome {
    let response = conn.call(json!({"action": "list_tabs"}), ACTION_MS).await?;
    let result = result_of(&response, "list_tabs")?;
    let tabs = result
        .get("tabs")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("no tabs array: {}", short(result)))?;
    for entry in tabs {
        u64_field(entry, "tabId")?;
        u64_field(entry, "windowId")?;
        str_field(entry, "url")?;
        str_field(entry, "title")?;
        bool_field(entry, "active")?;
        bool_field(entry, "agentWindow")?;
        bool_field(entry, "session")?;
        // `client` is the backend's to add (§5 "Clients"), never the extension's.
        ensure(entry.get("client").is_none(), || {
            format!("the extension sent a tab's client: {}", short(entry))
        })?;
    }
    let ours = tabs
        .iter()
        .find(|t| t["tabId"] == json!(tab))
        .ok_or_else(|| format!("tab {tab} is not listed"))?;
    ensure(ours["session"] == json!(true), || {
        format!("tab {tab} is not marked as a session: {}", short(ours))
    })
}

/// The `list_tabs` entry of `tab`.
async fn tab_info(conn: &mut Conn, tab: u64) -> Result<Value, String> {
    let response = conn.call(json!({"action": "list_tabs"}), ACTION_MS).await?;
    let result = result_of(&response, "list_tabs")?;
    result["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|t| t["tabId"] == json!(tab)))
        .cloned()
        .ok_or_else(|| format!("tab {tab} is not listed"))
}

async fn in_agent_window(conn: &mut Conn, tab: u64) -> Outcome {
    let info = tab_info(conn, tab).await?;
    ensure(info["agentWindow"] == json!(true), || {
        format!("tab {tab} is not in the agent window: {}", short(&info))
    })
}

async fn open_tab(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "open_tab", "url": "about:blank"});
    let response = conn.call(action, NAVIGATION_MS).await?;
    let result = result_of(&response, "open_tab")?;
    let opened = u64_field(result, "tabId")?;
    let window = u64_field(result, "windowId")?;
    str_field(result, "url")?;
    str_field(result, "title")?;
    let first = tab_info(conn, tab).await?;
    let closed = conn
        .call(json!({"action": "close_tab", "tabId": opened}), ACTION_MS)
        .await?;
    result_of(&closed, "close_tab")?;
    ensure(opened != tab, || format!("open_tab reused tab {tab}"))?;
    ensure(first["windowId"] == json!(window), || {
        format!(
            "the new tab is in window {window}, the agent window is {}",
            first["windowId"]
        )
    })
}

async fn screenshot(conn: &mut Conn, tab: u64) -> Outcome {
    let response = conn
        .call(json!({"action": "screenshot", "tabId": tab}), 20_000)
        .await?;
    let result = result_of(&response, "screenshot")?;
    let mime = str_field(result, "mimeType")?;
    ensure(mime == "image/png", || {
        format!("mimeType `{mime}`, expected image/png")
    })?;
    // Base64 of the PNG signature \x89PNG\r\n\x1a\n.
    let data = str_field(result, "data")?;
    ensure(data.starts_with("iVBORw0KGgo"), || {
        "data is not a base64 PNG".into()
    })?;
    let (width, height) = (u64_field(result, "width")?, u64_field(result, "height")?);
    ensure(width > 0 && height > 0, || format!("size {width}x{height}"))
}

async fn unknown_fields(conn: &mut Conn, tab: u64) -> Outcome {
    let id = uuid::Uuid::new_v4().to_string();
    let frame = json!({"type": "request", "id": id, "timeoutMs": ACTION_MS,
                       "conformanceExtra": {"nested": [1, 2]},
                       "action": {"action": "evaluate", "expression": "return 2", "tabId": tab,
                                  "conformanceHint": "ignore me"}});
    conn.send_request_frame(&id, &frame).await?;
    let response = conn
        .response(&id, Duration::from_millis(ACTION_MS + 3_000))
        .await?;
    let result = result_of(&response, "evaluate")?;
    ensure(result.get("value") == Some(&json!(2)), || {
        format!("evaluate result {}", short(result))
    })
}

/// PROTOCOL.md §5 "Loads and dialogs": under an open dialog the page answers no
/// CDP call, so a waiting action must end when `Page.javascriptDialogOpening`
/// arrives, not at its own timeout.
async fn dialog_ends_action(conn: &mut Conn, tab: u64) -> Outcome {
    let arm = json!({"action": "evaluate", "tabId": tab,
                     "expression": "setTimeout(() => alert('conformance dialog'), 300); return 1"});
    result_of(&conn.call(arm, ACTION_MS).await?, "evaluate")?;
    let wait = json!({"action": "wait_for", "tabId": tab, "selector": "#conformance-never",
                      "timeoutMs": 20_000});
    let start = Instant::now();
    let message = expect_code(conn, wait, 25_000, "invalid_action").await?;
    ensure(start.elapsed() < Duration::from_secs(10), || {
        format!(
            "wait_for ended after {:?}, not when the dialog opened",
            start.elapsed()
        )
    })?;
    ensure(
        message.contains("conformance dialog") || message.contains("alert"),
        || format!("the message does not name the dialog: `{message}`"),
    )?;
    let answer = json!({"action": "handle_dialog", "tabId": tab, "accept": true});
    let response = conn.call(answer, ACTION_MS).await?;
    let result = result_of(&response, "handle_dialog")?;
    ensure(
        str_field(result, "message")? == "conformance dialog",
        || format!("handle_dialog answered {}", short(result)),
    )
}

/// PROTOCOL.md §5 `type`: `keystrokes: true` is one `keyDown`/`char`/`keyUp` per
/// character, so a page listening to `keydown` sees every character.
async fn keystrokes(conn: &mut Conn, tab: u64) -> Outcome {
    let setup = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.body.innerHTML = '<input id=\"conformance-keys\" aria-label=\"Keys\">'; \
         window.__conformanceKeys = 0; \
         document.getElementById('conformance-keys') \
           .addEventListener('keydown', () => window.__conformanceKeys++); return 1"});
    result_of(&conn.call(setup, ACTION_MS).await?, "evaluate")?;
    let typed = json!({"action": "type", "tabId": tab, "selector": "#conformance-keys",
                       "text": "abc", "keystrokes": true});
    let response = conn.call(typed, ACTION_MS).await?;
    let result = result_of(&response, "type")?;
    let value = str_field(result, "value")?;
    ensure(value == "abc", || format!("type answered value `{value}`"))?;
    let count = json!({"action": "evaluate", "tabId": tab,
                       "expression": "return window.__conformanceKeys"});
    let response = conn.call(count, ACTION_MS).await?;
    let result = result_of(&response, "evaluate")?;
    ensure(result.get("value") == Some(&json!(3)), || {
        format!("the page saw {} keydowns for 3 characters", short(result))
    })
}

/// PROTOCOL.md §5 "Loads and dialogs": a `beforeunload` prompt of the page being
/// left is reported at once (`report`, the default), or accepted by
/// `beforeUnload: "accept"`. Chrome prompts only after a user activation, hence
/// the click.
async fn beforeunload(conn: &mut Conn, tab: u64) -> Outcome {
    let setup = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.body.innerHTML = '<button id=\"conformance-edit\">Edit</button>'; \
         window.addEventListener('beforeunload', (e) => { e.preventDefault(); \
           e.returnValue = 'unsaved'; }); return 1"});
    result_of(&conn.call(setup, ACTION_MS).await?, "evaluate")?;
    let click = json!({"action": "click", "tabId": tab, "selector": "#conformance-edit"});
    result_of(&conn.call(click, ACTION_MS).await?, "click")?;
    let reload = json!({"action": "reload", "tabId": tab});
    let start = Instant::now();
    let response = conn.call(reload, NAVIGATION_MS).await?;
    let result = result_of(&response, "reload")?;
    ensure(start.elapsed() < Duration::from_secs(10), || {
        format!(
            "reload answered after {:?}, not when the prompt opened",
            start.elapsed()
        )
    })?;
    let dialog = result.get("dialog").cloned().unwrap_or(Value::Null);
    ensure(
        str_field(&dialog, "type").ok() == Some("beforeunload"),
        || {
            format!(
                "reload answered {} without the beforeunload dialog",
                short(result)
            )
        },
    )?;
    ensure(result.get("loadPending") == Some(&json!(true)), || {
        format!("reload answered {} without loadPending", short(result))
    })?;
    let stay = json!({"action": "handle_dialog", "tabId": tab, "accept": false});
    result_of(&conn.call(stay, ACTION_MS).await?, "handle_dialog")?;
    let reload = json!({"action": "reload", "tabId": tab, "beforeUnload": "accept"});
    let response = conn.call(reload, NAVIGATION_MS).await?;
    let result = result_of(&response, "reload")?;
    ensure(result.get("dialog").is_none(), || {
        format!(
            "reload with beforeUnload: accept answered {}",
            short(result)
        )
    })
}

async fn expect_code(
    conn: &mut Conn,
    action: Value,
    timeout_ms: u64,
    code: &str,
) -> Result<String, String> {
    let response = conn.call(action, timeout_ms).await?;
    let error = error_of(&response)?;
    expect_error(error, code)?;
    Ok(str_field(error, "message")?.to_owned())
}

async fn bogus_tab(conn: &mut Conn) -> Outcome {
    let action = json!({"action": "evaluate", "expression": "return 1", "tabId": BOGUS_TAB});
    expect_code(conn, action, ACTION_MS, "session_not_found")
        .await
        .map(drop)
}

async fn missing_selector(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "click", "selector": "#conformance-missing", "tabId": tab});
    expect_code(conn, action, ACTION_MS, "element_not_found")
        .await
        .map(drop)
}

async fn missing_uid(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "click", "uid": "e999999", "tabId": tab});
    expect_code(conn, action, ACTION_MS, "element_not_found")
        .await
        .map(drop)
}

async fn throwing_evaluate(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "evaluate", "expression": "throw new Error('conformance boom')", "tabId": tab});
    let message = expect_code(conn, action, ACTION_MS, "invalid_action").await?;
    ensure(message.contains("conformance boom"), || {
        format!("the message does not carry the JS error: `{message}`")
    })
}

async fn file_url(conn: &mut Conn, tab: u64) -> Outcome {
    let action = json!({"action": "navigate", "url": "file:///etc/passwd", "tabId": tab});
    expect_code(conn, action, NAVIGATION_MS, "invalid_action")
        .await
        .map(drop)
}

async fn close_tab(conn: &mut Conn, tab: u64) -> Outcome {
    let response = conn
        .call(json!({"action": "close_tab", "tabId": tab}), ACTION_MS)
        .await?;
    let result = result_of(&response, "close_tab")?;
    let closed = u64_field(result, "tabId")?;
    ensure(closed == tab, || {
        format!("closed tab {closed}, expected {tab}")
    })?;
    let event = conn
        .event(
            |e| e["event"] == json!("session_ended") && e["tabId"] == json!(tab),
            WAIT,
        )
        .await
        .map_err(|e| format!("no session_ended for tab {tab}: {e}"))?;
    let reason = str_field(&event, "reason")?;
    // §10 names `stopped` for an agent closing the tab and `tab_closed` for a
    // closed tab; both describe close_tab.
    ensure(matches!(reason, "tab_closed" | "stopped"), || {
        format!("reason `{reason}`, expected tab_closed or stopped")
    })?;
    let count = u64_field(&event, "actionCount")?;
    ensure(count >= 1, || {
        format!("actionCount {count} after several actions")
    })?;
    plausible_time(u64_field(&event, "endedAt")?, "endedAt")
}
