//! The console's routes (PROTOCOL.md §2.2 "Console"): `/` and its two assets
//! (the page shell, no data), `POST /console/api/session` (code → session),
//! the session-guarded `/console/api/…`, and `POST /v1/console/link` (behind
//! the token guard).
//!
//! Guard of `/console/api/…`, run before any body byte is read: a `Host` that
//! does not name this machine → 403 (DNS rebinding); an `Origin` other than the
//! console's own → 403, and a POST without one → 403 (CSRF); no live session in
//! the `Browser-Bridge-Console` header → 401 (a cookie is never read: cookies
//! are shared by every port of a host). Bodies are then read with a 16 KiB cap
//! (413) within 10 s (408, connection closed). The pairing token is never read
//! here, from a header or a URL.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use browser_bridge_protocol::{Action, BridgeError, ErrorCode};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::auth::{self, CODE_TTL, SESSION_HEADER};
use super::{CONSOLE_CLIENT, Console, ConsoleState};
use crate::Bridge;
use crate::server::body;
use crate::server::http_api::{self, error_response, host_allowed};
use crate::server::state::AppState;

const INDEX_HTML: &str = include_str!("assets/index.html");
const CONSOLE_JS: &str = include_str!("assets/console.js");
const CONSOLE_CSS: &str = include_str!("assets/console.css");
/// No resource from elsewhere, no inline script, never framed.
const CSP: &str = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/// Longest task text (characters).
const MAX_TASK_CHARS: usize = 4000;
/// Largest console request body (bytes): a task is at most 4000 characters.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// How long the state's `list_tabs` may take before the page goes without titles.
const TABS_WAIT: Duration = Duration::from_secs(2);

/// The console's routes that are not behind the token guard.
pub fn routes(console: ConsoleState) -> Router<AppState> {
    Router::new()
        .route("/", get(page))
        .route("/console/console.js", get(script))
        .route("/console/console.css", get(style))
        .route("/console/api/session", post(session))
        .route("/console/api/state", get(state))
        .route("/console/api/runs", post(start_run))
        .route("/console/api/runs/{id}/events", get(run_events))
        .route("/console/api/stop_all", post(stop_all))
        .with_state(console)
}

/// `POST /v1/console/link`, to merge under the token guard.
pub fn link_route(console: ConsoleState) -> Router<AppState> {
    Router::new()
        .route("/v1/console/link", post(link))
        .with_state(console)
}

/// `POST /v1/console/link` (token guard, [`link_route`]): a one-time code, as
/// `{"path":"/#code=<32 hex>","expiresInMs":60000}` (in the fragment, which
/// the browser never sends to a server); 429 when
/// [`auth::MAX_PENDING_CODES`] are pending.
async fn link(State(state): State<ConsoleState>) -> Response {
    let code = state
        .console
        .auth
        .lock()
        .expect("console auth")
        .new_code(Instant::now());
    match code {
        Some(code) => Json(json!({
            "path": format!("/#code={code}"),
            "expiresInMs": CODE_TTL.as_millis(),
        }))
        .into_response(),
        None => error_response(
            StatusCode::TOO_MANY_REQUESTS,
            BridgeError::invalid_request(format!(
                "{} console links are pending: use one or wait a minute",
                auth::MAX_PENDING_CODES
            )),
        ),
    }
}

fn forbidden(message: &str) -> Response {
    error_response(
        StatusCode::FORBIDDEN,
        BridgeError::new(ErrorCode::Unauthorized, message),
    )
}

/// 403 for a `Host` not naming this machine, or an `Origin` that is not the
/// console's own (`http://<Host>`); a POST must carry its `Origin`.
fn site_refusal(state: &ConsoleState, method: &Method, headers: &HeaderMap) -> Option<Response> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let Some(host) = host.filter(|h| host_allowed(h, state.app.config.allow_remote)) else {
        tracing::warn!(host = ?host, "console request with a non-loopback Host refused");
        return Some(forbidden(
            "the Host header must name this machine (127.0.0.1 or localhost)",
        ));
    };
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("?"));
    let own = format!("http://{host}");
    let fine = match origin {
        Some(origin) => origin.eq_ignore_ascii_case(&own),
        None => method != Method::POST,
    };
    if fine {
        None
    } else {
        tracing::warn!(origin = ?origin, "console request from another origin refused");
        Some(forbidden(
            "console requests must come from the console page",
        ))
    }
}

/// True when the request's [`SESSION_HEADER`] holds a live session. Only
/// that header counts: a session sent as a cookie is no session.
fn signed_in(console: &Console, headers: &HeaderMap) -> bool {
    let now = Instant::now();
    let auth = console.auth.lock().expect("console auth");
    headers
        .get_all(SESSION_HEADER)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|session| auth.session_valid(session.trim(), now))
}

/// The full guard of `/console/api/…`: [`site_refusal`], then 401 without a session.
fn api_refusal(state: &ConsoleState, method: &Method, headers: &HeaderMap) -> Option<Response> {
    if let Some(refused) = site_refusal(state, method, headers) {
        return Some(refused);
    }
    if signed_in(&state.console, headers) {
        return None;
    }
    Some(error_response(
        StatusCode::UNAUTHORIZED,
        BridgeError::new(
            ErrorCode::Unauthorized,
            "no console session: run `browser-bridge console` and open the link it prints",
        ),
    ))
}

/// A page or asset with the console's headers.
fn asset(kind: &'static str, body: &'static str) -> Response {
    let mut response = ([(header::CONTENT_TYPE, kind)], body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `GET /`: the page shell, the same for everyone (it holds no data; its
/// script exchanges the link's code and fetches the rest with the session).
async fn page(State(state): State<ConsoleState>, method: Method, headers: HeaderMap) -> Response {
    if let Some(refused) = site_refusal(&state, &method, &headers) {
        return refused;
    }
    asset("text/html; charset=utf-8", INDEX_HTML)
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", CONSOLE_JS)
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", CONSOLE_CSS)
}

/// The body of a console POST, read only after its guard passed
/// ([`body::read_body`]: 413 over [`MAX_BODY_BYTES`], 408 past
/// [`body::BODY_DEADLINE`], 400 when the client broke off).
async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    let too_large = format!("console request bodies are at most {MAX_BODY_BYTES} bytes");
    body::read_body(headers, body, MAX_BODY_BYTES, &too_large).await
}

/// `POST /console/api/session` `{"code"}`: a pending code → `{"session"}` (64
/// hex, for the [`SESSION_HEADER`]); any other code → 403. Guarded by
/// [`site_refusal`] only: the code is the credential.
async fn session(
    State(state): State<ConsoleState>,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Some(refused) = site_refusal(&state, &method, &headers) {
        return refused;
    }
    let body = match read_body(&headers, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let code = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get("code").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    let session = state
        .console
        .auth
        .lock()
        .expect("console auth")
        .redeem(&code, Instant::now());
    let Some(session) = session else {
        return forbidden(
            "this console link is used, expired or unknown: run `browser-bridge console` for a new one",
        );
    };
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(json!({ "session": session })),
    )
        .into_response()
}

/// `GET /console/api/state`: `{status}` (as `/v1/status`), `tabs` (`list_tabs`'
/// tabs, `null` when no browser answers), `runner` (`{enabled, reason?}`), `runs`.
async fn state(State(state): State<ConsoleState>, method: Method, headers: HeaderMap) -> Response {
    if let Some(refused) = api_refusal(&state, &method, &headers) {
        return refused;
    }
    let status = http_api::status(State(state.app.clone())).await.0;
    let tabs = if status.connected {
        list_tabs(&state).await
    } else {
        None
    };
    let runner = match state.console.runner {
        Some(_) => json!({ "enabled": true }),
        None => json!({
            "enabled": false,
            "reason": "to run tasks here, start serve with --provider (and --model, --base-url); the key is read from --api-key, BROWSER_BRIDGE_API_KEY, then OPENAI_API_KEY, ANTHROPIC_API_KEY or GITHUB_TOKEN/GH_TOKEN (copilot)",
        }),
    };
    Json(json!({
        "status": status,
        "tabs": tabs,
        "runner": runner,
        "runs": state.console.runs.summary(),
    }))
    .into_response()
}

async fn list_tabs(state: &ConsoleState) -> Option<Vec<Value>> {
    let action = Action::from_value(json!({ "action": "list_tabs" })).ok()?;
    let hub = state.app.hub.for_client(CONSOLE_CLIENT);
    let result = tokio::time::timeout(TABS_WAIT, hub.act(action))
        .await
        .ok()?
        .ok()?;
    let value = serde_json::to_value(result).ok()?;
    value.get("tabs")?.as_array().cloned()
}

/// `POST /console/api/runs` `{"task"}`: 202 `{"id"}`; 422 for a blank or long
/// task, 409 while a run is going, 503 when `serve` has no model; the body's
/// refusals of [`read_body`] (413, 408).
async fn start_run(
    State(state): State<ConsoleState>,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Some(refused) = api_refusal(&state, &method, &headers) {
        return refused;
    }
    let body = match read_body(&headers, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let task = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| {
            v.get("task")
                .and_then(Value::as_str)
                .map(str::trim)
                .map(str::to_owned)
        })
        .filter(|t| !t.is_empty() && t.chars().count() <= MAX_TASK_CHARS);
    let Some(task) = task else {
        return error_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            BridgeError::invalid_request(format!(
                "the body must be {{\"task\": \"…\"}} with 1 to {MAX_TASK_CHARS} characters"
            )),
        );
    };
    let Some(runner) = state.console.runner.clone() else {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            BridgeError::invalid_request("start serve with --provider to run tasks here"),
        );
    };
    let (run, sink) = match state.console.runs.begin(&task) {
        Ok(begun) => begun,
        Err(going) => {
            return error_response(
                StatusCode::CONFLICT,
                BridgeError::invalid_request(format!(
                    "run {going} is still going: one run at a time (Stop all ends it)"
                )),
            );
        }
    };
    let hub = state.app.hub.for_client(CONSOLE_CLIENT);
    let work = runner.run(hub, task, sink.clone());
    let task = tokio::spawn(async move {
        work.await;
        sink.error("the run ended without a report");
    });
    super::runs::Runs::set_abort(&run, task.abort_handle());
    (StatusCode::ACCEPTED, Json(json!({ "id": run.id }))).into_response()
}

/// `GET /console/api/runs/{id}/events`: `text/event-stream` of the run's
/// events from its first (`step`…, then `done` or `error`), then the end.
async fn run_events(
    State(state): State<ConsoleState>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(refused) = api_refusal(&state, &method, &headers) {
        return refused;
    }
    let Some(run) = state.console.runs.get(&id) else {
        return error_response(
            StatusCode::NOT_FOUND,
            BridgeError::invalid_request(format!("no run {id:?}")),
        );
    };
    let stream =
        futures_util::stream::unfold((run, 0usize, false), |(run, seen, over)| async move {
            if over {
                return None;
            }
            loop {
                let events = run.events_from(seen);
                if let Some(last) = events.last() {
                    let over = last.is_last();
                    let next = seen + events.len();
                    let frames: Vec<Result<Event, Infallible>> = events
                        .into_iter()
                        .map(|e| Ok(Event::default().event(e.kind).data(e.data.to_string())))
                        .collect();
                    return Some((futures_util::stream::iter(frames), (run, next, over)));
                }
                run.changed(seen).await;
            }
        })
        .flatten();
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// `POST /console/api/stop_all`: stops the console's runs and closes every
/// session tab in the agent window (ending those sessions, `stopped`);
/// `{"stoppedRuns", "closedTabs"}`.
async fn stop_all(
    State(state): State<ConsoleState>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = api_refusal(&state, &method, &headers) {
        return refused;
    }
    let stopped = state.console.runs.stop_all("stopped: Stop all was pressed");
    let mut closed = Vec::new();
    for tab in list_tabs(&state).await.unwrap_or_default() {
        if tab["session"] != json!(true) || tab["agentWindow"] != json!(true) {
            continue;
        }
        let Some(tab_id) = tab["tabId"].as_u64() else {
            continue;
        };
        let client = tab["client"].as_str().unwrap_or(CONSOLE_CLIENT);
        let hub = state
            .app
            .hub
            .for_client(client)
            .for_browser(tab["browser"].as_str());
        let Ok(action) = Action::from_value(json!({ "action": "close_tab", "tabId": tab_id }))
        else {
            continue;
        };
        match hub.act(action).await {
            Ok(_) => closed.push(tab_id),
            Err(error) => {
                tracing::warn!(tab_id, %error.message, "Stop all: cannot close a session tab")
            }
        }
    }
    Json(json!({ "stoppedRuns": stopped, "closedTabs": closed })).into_response()
}
