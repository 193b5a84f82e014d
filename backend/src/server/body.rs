//! Request bodies read by hand, with a size limit and a deadline (`/v1/act`, the
//! console's POSTs): a body that never finishes must not hold its connection,
//! and the bytes read so far, for as long as the client likes.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use browser_bridge_protocol::{BridgeError, MAX_MESSAGE_BYTES};
use futures_util::StreamExt;

use crate::server::errors::error_response;

/// How long a request body may take to arrive, from the end of its head: past
/// it the answer is 408 and the connection is closed.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// Reads `body` whole: 413 `invalid_request` with the message `too_large` when
/// it is over `max` bytes (told by `Content-Length`, then at once, or counted),
/// 408 with `Connection: close` when it has not all arrived within
/// [`BODY_DEADLINE`], 400 when the client broke off.
pub async fn read_body(
    headers: &HeaderMap,
    body: Body,
    max: usize,
    too_large: &str,
) -> Result<Bytes, Response> {
    let refuse = || {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            BridgeError::invalid_request(too_large),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max as u64) {
        return Err(refuse());
    }
    let mut stream = body.into_data_stream();
    let read = async {
        // What the head declares is not reserved ahead: it costs the client nothing.
        let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(64 * 1024) as usize);
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                error_response(
                    StatusCode::BAD_REQUEST,
                    BridgeError::invalid_request(format!("cannot read the request body: {e}")),
                )
            })?;
            if bytes.len() + chunk.len() > max {
                return Err(refuse());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(bytes))
    };
    match tokio::time::timeout(BODY_DEADLINE, read).await {
        Ok(read) => read,
        Err(_) => {
            let mut response = error_response(
                StatusCode::REQUEST_TIMEOUT,
                BridgeError::invalid_request(format!(
                    "the request body did not arrive within {} s",
                    BODY_DEADLINE.as_secs()
                )),
            );
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}

/// Middleware: reads a request's body whole ([`read_body`], at most
/// `MAX_MESSAGE_BYTES`) before the service behind it, for services that read
/// their own body without a deadline (`/mcp`).
pub async fn buffered(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let too_large = format!("request body over {MAX_MESSAGE_BYTES} bytes");
    match read_body(&parts.headers, body, MAX_MESSAGE_BYTES, &too_large).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(refused) => refused,
    }
}
