//! The local HTTP JSON API (`/v1/act`, `/v1/status`) and the guard every
//! agent-facing HTTP route sits behind (docs/DESIGN.md "Backend").
//!
//! Guard: a web `Origin` or a non-loopback `Host` → 403 (CSRF and DNS rebinding
//! from web pages), then `Authorization: Bearer <pairing token>` → 401 when missing
//! or wrong. Status codes of `/v1/act`: 200 with the result object; 422
//! `{"error":{"code","message"}}` for a protocol error, including invalid action
//! JSON (`invalid_request`, nothing sent); 503 for `not_connected`; 504 for `timeout`.
//!
//! The caller's client (PROTOCOL.md §5 "Clients") is the `Browser-Bridge-Client`
//! header ([`client_name`]), else the shared `http` client. A `Browser-Bridge-Timing`
//! header adds the backend's marks as `Server-Timing` ([`crate::timing`]).

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use browser_bridge_protocol::{
    Action, BridgeError, ErrorCode, MAX_MESSAGE_BYTES, PROTOCOL_VERSION,
};
use serde::Serialize;

use crate::bridge::Bridge;
use crate::hub::HubStatus;
use crate::hub::clients::{CLIENT_HEADER, HTTP_CLIENT, check_client_name};
use crate::server::body::read_body;
use crate::server::handshake::token_matches;
use crate::server::state::AppState;
use crate::timing::{TIMING_HEADER, Trace};

/// The HTTP status for an error code on `/v1/act`. A code from a newer extension
/// that this version does not know is passed through unchanged, as 422 (PROTOCOL.md §4).
pub fn status_for(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotConnected => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Timeout => StatusCode::GATEWAY_TIMEOUT,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

pub use crate::server::errors::error_response;

/// True when `host` (a `Host` header value, with or without port) names the local
/// machine: `localhost`, `*.localhost`, `127.0.0.0/8`, `::1`. With `allow_remote`,
/// any IP literal is accepted too, but still no other DNS name: DNS rebinding needs one.
pub fn host_allowed(host: &str, allow_remote: bool) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        // [v6]:port
        match rest.split_once(']') {
            Some((v6, _)) => v6,
            None => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    match name.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback() || allow_remote,
        Err(_) => false,
    }
}

/// True when an `Origin` value may call the API: absent (native clients) or a
/// `chrome-extension://` origin. Web origins, including `null`, may not.
pub fn origin_allowed(origin: Option<&str>) -> bool {
    origin.is_none_or(|o| o.starts_with("chrome-extension://"))
}

/// Axum middleware guarding agent-facing routes: 403 for a web `Origin` or a
/// non-loopback `Host`, 401 without the right `Authorization: Bearer <token>`.
/// Apply with `axum::middleware::from_fn_with_state(state.clone(), require_auth)`
/// (e.g. on `/mcp`).
pub async fn require_auth(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Some(refusal) = refusal(&state, request.headers()) {
        return refusal;
    }
    next.run(request).await
}

/// The 403/401 response for a request the guard refuses; `None` lets it through.
fn refusal(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    if let Some(refused) = local_refusal(state, headers) {
        return Some(refused);
    }
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token);
    if !bearer.is_some_and(|t| token_matches(t, &state.token)) {
        return Some(error_response(
            StatusCode::UNAUTHORIZED,
            BridgeError::new(
                ErrorCode::Unauthorized,
                "missing or wrong `Authorization: Bearer <pairing token>`; `browser-bridge pair` prints the token",
            ),
        ));
    }
    None
}

/// The guard's first two steps, shared with `GET /v1/hello` (which takes no
/// token): a web `Origin` or a non-loopback `Host` is 403 (CSRF and DNS
/// rebinding); `None` lets the request through.
pub(crate) fn local_refusal(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    let forbidden = |message: &str| {
        error_response(
            StatusCode::FORBIDDEN,
            BridgeError::new(ErrorCode::Unauthorized, message),
        )
    };
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("?"));
    if !origin_allowed(origin) {
        tracing::warn!(origin = ?origin, "HTTP request from a web origin refused");
        return Some(forbidden("requests from web pages are refused"));
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if !host.is_some_and(|h| host_allowed(h, state.config.allow_remote)) {
        tracing::warn!(host = ?host, "HTTP request with a non-loopback Host refused");
        return Some(forbidden(
            "the Host header must name this machine (127.0.0.1 or localhost)",
        ));
    }
    None
}

/// The token of an `Authorization: Bearer <token>` value. The scheme is
/// case-insensitive (RFC 9110 §11.1: `bearer`, `BEARER` work too).
pub fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim_start().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// True for a `Content-Type` `/v1/act` reads as JSON: `application/json` or any
/// `…+json` type (parameters such as `charset` ignored).
fn is_json_content_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or("").trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("application")
        && (subtype.eq_ignore_ascii_case("json") || subtype.to_ascii_lowercase().ends_with("+json"))
}

/// The client a request acts for: its `Browser-Bridge-Client` header, else
/// `fallback` (PROTOCOL.md §5 "Clients").
///
/// # Errors
/// `invalid_request` for a header that is not 1 to 128 visible ASCII characters.
pub fn client_name<'h>(headers: &'h HeaderMap, fallback: &'h str) -> Result<&'h str, BridgeError> {
    let Some(value) = headers.get(CLIENT_HEADER) else {
        return Ok(fallback);
    };
    let name = value.to_str().unwrap_or("\u{0}");
    check_client_name(name)?;
    Ok(name)
}

/// A method an API route does not take (`GET /v1/act`): 405 in the API's error
/// shape (`invalid_request`), with `Allow: allowed`.
pub fn wrong_method(allowed: &'static str, method: &Method, uri: &Uri) -> Response {
    let error = BridgeError::invalid_request(format!(
        "{method} {}: this route takes {allowed} only",
        uri.path()
    ));
    let mut response = error_response(StatusCode::METHOD_NOT_ALLOWED, error);
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allowed));
    response
}

/// `POST /v1/act`: body is one action object; answers its result or error.
///
/// Refusals are in the API's error shape too (`invalid_request`): a body over
/// `MAX_MESSAGE_BYTES` (32 MiB) → 413, one not all there
/// [`BODY_DEADLINE`](crate::server::body::BODY_DEADLINE) (10 s) after the head
/// → 408 and the connection closed, a `Content-Type` other than JSON → 415 (no
/// `Content-Type` is read as JSON), a bad `Browser-Bridge-Client` → 422.
pub async fn act(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let trace = match headers.contains_key(TIMING_HEADER) {
        true => Trace::on(),
        false => Trace::default(),
    };
    trace.mark("handler");
    let client = match client_name(&headers, HTTP_CLIENT) {
        Ok(client) => client,
        Err(error) => return error_response(StatusCode::UNPROCESSABLE_ENTITY, error),
    };
    if let Some(kind) = headers.get(header::CONTENT_TYPE) {
        let kind = kind.to_str().unwrap_or("?");
        if !is_json_content_type(kind) {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                BridgeError::invalid_request(format!(
                    "Content-Type {kind:?} is not JSON: send the action object with \
                     `Content-Type: application/json`"
                )),
            );
        }
    }
    let too_large = format!(
        "request body over {} MiB ({MAX_MESSAGE_BYTES} bytes), the limit for one action; send \
         less (e.g. a shorter expression or text)",
        MAX_MESSAGE_BYTES / (1024 * 1024)
    );
    let body = match read_body(&headers, body, MAX_MESSAGE_BYTES, &too_large).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let decoded = serde_json::from_slice(&body)
        .map_err(|e| BridgeError::invalid_request(format!("not valid JSON: {e}")))
        .and_then(decode_call);
    // The body can be 32 MiB: not kept while the action waits for its answer.
    drop(body);
    let (action, browser) = match decoded {
        Ok(decoded) => decoded,
        Err(error) => return error_response(StatusCode::UNPROCESSABLE_ENTITY, error),
    };
    trace.mark("decoded");
    let hub = state.hub.for_client(client).for_browser(browser.as_deref());
    let outcome = trace.clone().scope(hub.act(action)).await;
    trace.mark("reply");
    let mut response = match outcome {
        Ok(result) => Json(result).into_response(),
        Err(error) => error_response(status_for(error.code.clone()), error),
    };
    trace.mark("encoded_resp");
    if let Some(value) = trace.server_timing().and_then(|v| v.try_into().ok()) {
        response.headers_mut().insert("server-timing", value);
    }
    response
}

/// A `/v1/act` body: the action, and the `browser` it goes to (PROTOCOL.md §5
/// "Browsers"), taken off before the action is decoded.
fn decode_call(mut body: serde_json::Value) -> Result<(Action, Option<String>), BridgeError> {
    let browser = match &mut body {
        serde_json::Value::Object(map) => browser_bridge_protocol::browser::take_browser(map)?,
        _ => None,
    };
    Ok((Action::from_value(body)?, browser))
}

/// The body of `GET /v1/status`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusBody {
    /// This backend's version.
    pub backend_version: &'static str,
    /// The protocol version it speaks.
    pub protocol_version: u32,
    /// The lowest extension protocol version it accepts.
    pub min_protocol_version: u32,
    /// True when an extension is connected.
    pub connected: bool,
    /// The connected extension, its pool and recent events.
    #[serde(flatten)]
    pub hub: HubStatus,
}

/// `GET /v1/status`.
pub async fn status(State(state): State<AppState>) -> Json<StatusBody> {
    let hub = state.hub.status().await;
    Json(StatusBody {
        backend_version: env!("CARGO_PKG_VERSION"),
        protocol_version: PROTOCOL_VERSION,
        min_protocol_version: state.config.min_protocol_version,
        connected: hub.extension.is_some(),
        hub,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        for ok in [
            "127.0.0.1:9333",
            "127.0.0.1",
            "localhost:1",
            "LOCALHOST",
            "[::1]:80",
            "127.1.2.3:5",
            "a.localhost:2",
        ] {
            assert!(host_allowed(ok, false), "{ok}");
        }
        for bad in [
            "evil.test:9333",
            "192.168.1.2:9333",
            "[fe80::1]:1",
            "localhost.evil.test",
            "",
            "[::1",
        ] {
            assert!(!host_allowed(bad, false), "{bad}");
        }
        assert!(host_allowed("192.168.1.2:9333", true));
        assert!(!host_allowed("rebind.evil.test:9333", true));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token("BEARER  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearerabc"), None);
    }

    #[test]
    fn json_content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("Application/JSON; charset=utf-8"));
        assert!(is_json_content_type("application/vnd.api+json"));
        assert!(!is_json_content_type("text/plain"));
        assert!(!is_json_content_type("application/x-www-form-urlencoded"));
    }

    #[test]
    fn origins() {
        assert!(origin_allowed(None));
        assert!(origin_allowed(Some("chrome-extension://abc")));
        assert!(!origin_allowed(Some("https://evil.test")));
        assert!(!origin_allowed(Some("null")));
    }

    #[test]
    fn statuses() {
        assert_eq!(
            status_for(ErrorCode::NotConnected),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(status_for(ErrorCode::Timeout), StatusCode::GATEWAY_TIMEOUT);
        assert_eq!(
            status_for(ErrorCode::ElementStale),
            StatusCode::UNPROCESSABLE_ENTITY
        );
        let newer = ErrorCode::from_wire("rate_limited").expect("well-formed code");
        assert_eq!(status_for(newer), StatusCode::UNPROCESSABLE_ENTITY);
    }
}
