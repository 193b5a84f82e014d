//! Raw JSON over a WebSocket, for both modes: what crosses the wire is read as
//! `serde_json::Value` and checked field by field, independently of the protocol
//! crate's decoder, so a decoder bug cannot hide a wire bug.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message as Frame;

/// What the next frame was.
#[derive(Debug)]
pub enum Received {
    /// A text frame holding a JSON value.
    Json(Value),
    /// A text frame that is not JSON, or a binary frame (both protocol errors).
    Garbage(String),
    /// The peer closed: the close frame's code, `None` for a bare end of stream.
    Closed(Option<u16>),
    /// Nothing arrived within the wait.
    Silent,
}

/// A WebSocket that speaks JSON text frames, on any transport.
#[derive(Debug)]
pub struct JsonSocket<S> {
    ws: WebSocketStream<S>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> JsonSocket<S> {
    /// Wraps an open WebSocket.
    pub fn new(ws: WebSocketStream<S>) -> Self {
        JsonSocket { ws }
    }

    /// Sends one JSON value as a text frame.
    ///
    /// # Errors
    /// The socket is closed or broken.
    pub async fn send(&mut self, value: &Value) -> Result<(), String> {
        self.send_text(value.to_string()).await
    }

    /// Sends one text frame as is.
    ///
    /// # Errors
    /// The socket is closed or broken.
    pub async fn send_text(&mut self, text: String) -> Result<(), String> {
        self.ws
            .send(Frame::text(text))
            .await
            .map_err(|e| format!("send failed: {e}"))
    }

    /// The next data frame within `wait` (control frames are handled by tungstenite).
    pub async fn recv(&mut self, wait: Duration) -> Received {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let next = match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return Received::Silent,
                Ok(next) => next,
            };
            match next {
                None | Some(Err(_)) => return Received::Closed(None),
                Some(Ok(Frame::Close(frame))) => {
                    return Received::Closed(frame.map(|f| u16::from(f.code)));
                }
                Some(Ok(Frame::Text(text))) => {
                    return match serde_json::from_str(text.as_str()) {
                        Ok(value) => Received::Json(value),
                        Err(e) => Received::Garbage(format!("not JSON ({e}): {}", text.as_str())),
                    };
                }
                Some(Ok(Frame::Binary(_))) => return Received::Garbage("binary frame".into()),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next JSON frame within `wait`, or why there is none.
    ///
    /// # Errors
    /// Closed, silent or garbage, as a reason.
    pub async fn recv_json(&mut self, wait: Duration) -> Result<Value, String> {
        match self.recv(wait).await {
            Received::Json(value) => Ok(value),
            Received::Garbage(why) => Err(why),
            Received::Closed(_) => Err("the peer closed the socket".into()),
            Received::Silent => Err(format!("nothing arrived within {} ms", wait.as_millis())),
        }
    }

    /// Waits until the peer closes, skipping data frames.
    ///
    /// # Errors
    /// The socket is still open after `wait`.
    pub async fn expect_close(&mut self, wait: Duration) -> Result<(), String> {
        self.close_code(wait).await.map(drop)
    }

    /// Waits until the peer closes, skipping data frames; the close code, if any.
    ///
    /// # Errors
    /// The socket is still open after `wait`.
    pub async fn close_code(&mut self, wait: Duration) -> Result<Option<u16>, String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.recv(left).await {
                Received::Closed(code) => return Ok(code),
                Received::Silent => {
                    return Err(format!("socket still open {} ms later", wait.as_millis()));
                }
                Received::Json(_) | Received::Garbage(_) => continue,
            }
        }
    }

    /// Closes our side (best effort).
    pub async fn close(mut self) {
        self.close_in_place().await;
    }

    /// Closes our side (best effort), keeping the value for later reads.
    pub async fn close_in_place(&mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// True for a lower- or upper-case hyphenated UUID of version 4, variant RFC 4122.
pub fn is_uuid_v4(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 36 {
        return false;
    }
    for (i, b) in bytes.iter().enumerate() {
        let hyphen = matches!(i, 8 | 13 | 18 | 23);
        if hyphen != (*b == b'-') || (!hyphen && !b.is_ascii_hexdigit()) {
            return false;
        }
    }
    bytes[14] == b'4' && matches!(bytes[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
}

/// `value[key]` as a string, or why not.
///
/// # Errors
/// Missing or not a string.
pub fn str_field<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("`{key}` is not a string: {other}")),
        None => Err(format!("`{key}` is missing in {}", short(value))),
    }
}

/// `value[key]` as an unsigned integer, or why not.
///
/// # Errors
/// Missing or not a non-negative integer.
pub fn u64_field(value: &Value, key: &str) -> Result<u64, String> {
    match value.get(key) {
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("`{key}` is not a non-negative integer: {v}")),
        None => Err(format!("`{key}` is missing in {}", short(value))),
    }
}

/// `value[key]` as a bool, or why not.
///
/// # Errors
/// Missing or not a bool.
pub fn bool_field(value: &Value, key: &str) -> Result<bool, String> {
    match value.get(key) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("`{key}` is not a bool: {other}")),
        None => Err(format!("`{key}` is missing in {}", short(value))),
    }
}

/// Checks a `{code, message}` error body: the code is `code`, the message is not empty.
///
/// # Errors
/// Another shape or code.
pub fn expect_error(error: &Value, code: &str) -> Result<(), String> {
    let got = str_field(error, "code")?;
    if got != code {
        return Err(format!(
            "error code `{got}`, expected `{code}` ({})",
            short(error)
        ));
    }
    if str_field(error, "message")?.trim().is_empty() {
        return Err("error message is empty".into());
    }
    Ok(())
}

/// A JSON value cut to 300 bytes for a failure reason.
pub fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 300 {
        return text;
    }
    let cut = browser_bridge_protocol::text::floor_char_boundary(&text, 300);
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_v4_shape() {
        assert!(is_uuid_v4("6f1c2a3e-9b7d-4c1e-8a2b-0123456789ab"));
        assert!(
            !is_uuid_v4("6f1c2a3e-9b7d-1c1e-8a2b-0123456789ab"),
            "version 1"
        );
        assert!(
            !is_uuid_v4("6f1c2a3e-9b7d-4c1e-7a2b-0123456789ab"),
            "bad variant"
        );
        assert!(
            !is_uuid_v4("6f1c2a3e9b7d4c1e8a2b0123456789ab"),
            "no hyphens"
        );
        assert!(!is_uuid_v4("req-1"));
    }
}
