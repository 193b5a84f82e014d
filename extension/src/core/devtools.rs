//! A session's console and network buffers (PROTOCOL.md §10.1): the last
//! [`CONSOLE_BUFFER_MESSAGES`] console messages and [`NETWORK_BUFFER_REQUESTS`]
//! requests, built from CDP events (`Runtime.consoleAPICalled`,
//! `Runtime.exceptionThrown`, `Log.entryAdded`, `Network.*`), and the lists,
//! filters and caps of `console_messages`, `network_requests` and
//! `network_response_body`. Bodies are not kept: Chrome keeps them, and
//! `Network.getResponseBody` reads them for a request still in the buffer.

use std::collections::VecDeque;

use browser_bridge_cdp::log::LogEntry;
use browser_bridge_cdp::network::{
    LoadingFailed, LoadingFinished, RequestWillBeSent, ResponseReceived,
};
use browser_bridge_cdp::runtime::{ConsoleApiCalled, ExceptionThrown, RemoteObject};
use browser_bridge_protocol::BridgeError;
use browser_bridge_protocol::devtools::{
    CONSOLE_BUFFER_MESSAGES, CONSOLE_TEXT_MAX_BYTES, CUT_MARK, ConsoleLevel, ConsoleMessage,
    ConsoleMessages, LIST_LIMIT_DEFAULT, NETWORK_BUFFER_REQUESTS, NetworkRequest, NetworkRequests,
    REQUEST_URL_MAX_BYTES, RESPONSE_BODY_MAX_BYTES,
};
use browser_bridge_protocol::text::floor_char_boundary;

/// Ids of evicted requests remembered, to tell "evicted" from "never seen".
const EVICTED_IDS_KEPT: usize = 4_096;

/// `text` cut to `max` bytes on a char boundary, the cut marked with [`CUT_MARK`]
/// (which fits within `max`).
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let end = floor_char_boundary(text, max.saturating_sub(CUT_MARK.len()));
    format!("{}{CUT_MARK}", &text[..end])
}

/// The level of a `Runtime.consoleAPICalled` `type`, as DevTools files it.
pub fn console_api_level(kind: &str) -> ConsoleLevel {
    match kind {
        "error" | "assert" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "debug" => ConsoleLevel::Debug,
        _ => ConsoleLevel::Info,
    }
}

/// The level of a `Log.LogEntry` `level` (`verbose` is DevTools' debug).
pub fn log_entry_level(level: &str) -> ConsoleLevel {
    match level {
        "error" => ConsoleLevel::Error,
        "warning" => ConsoleLevel::Warning,
        "verbose" => ConsoleLevel::Debug,
        _ => ConsoleLevel::Info,
    }
}

/// One console argument as DevTools prints it: a string as is, other primitives
/// as their JSON or unserializable value (`NaN`, `12n`), `undefined`, objects by
/// their description (`Array(3)`, `Error: boom\n    at …`).
fn arg_text(arg: &RemoteObject) -> String {
    if let Some(value) = &arg.value {
        return match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    if let Some(v) = &arg.unserializable_value {
        return v.clone();
    }
    match (arg.kind.as_str(), &arg.description) {
        ("undefined", _) => "undefined".into(),
        (_, Some(d)) => d.clone(),
        ("object", None) if arg.subtype.as_deref() == Some("null") => "null".into(),
        (kind, None) => kind.to_owned(),
    }
}

/// 1-based line of a 0-based CDP line number.
fn line(zero_based: Option<u32>) -> Option<u32> {
    zero_based.map(|l| l.saturating_add(1))
}

/// A `Runtime.consoleAPICalled` as a message: its arguments joined by spaces,
/// where it was called (the innermost frame).
pub fn from_console_api(event: &ConsoleApiCalled) -> ConsoleMessage {
    let text: Vec<String> = event.args.iter().map(arg_text).collect();
    let frame = event
        .stack_trace
        .as_ref()
        .and_then(|s| s.call_frames.first())
        .filter(|f| !f.url.is_empty());
    let mut text = text.join(" ");
    if event.kind == "assert" {
        text = format!("Assertion failed: {text}").trim_end().to_owned();
    }
    ConsoleMessage {
        level: console_api_level(&event.kind),
        text: cut(&text, CONSOLE_TEXT_MAX_BYTES),
        url: frame.map(|f| f.url.clone()),
        line: frame.map(|f| f.line_number + 1),
        timestamp: event.timestamp,
    }
}

/// A `Runtime.exceptionThrown` as an `error` message: `Uncaught Error: boom` and
/// the stack, as DevTools prints it.
pub fn from_exception(event: &ExceptionThrown) -> ConsoleMessage {
    let details = &event.exception_details;
    let thrown = details.exception.as_ref().map(arg_text);
    let text = match thrown {
        Some(thrown) if details.text != thrown => format!("{} {thrown}", details.text),
        Some(thrown) => thrown,
        None => details.text.clone(),
    };
    ConsoleMessage {
        level: ConsoleLevel::Error,
        text: cut(text.trim(), CONSOLE_TEXT_MAX_BYTES),
        url: details.url.clone().filter(|u| !u.is_empty()),
        line: line(details.line_number),
        timestamp: event.timestamp,
    }
}

/// A `Log.entryAdded` entry (the browser's own: a failed load, an
/// intervention) as a message.
pub fn from_log_entry(entry: &LogEntry) -> ConsoleMessage {
    ConsoleMessage {
        level: log_entry_level(&entry.level),
        text: cut(&entry.text, CONSOLE_TEXT_MAX_BYTES),
        url: entry.url.clone().filter(|u| !u.is_empty()),
        line: line(entry.line_number),
        timestamp: entry.timestamp,
    }
}

/// The `limit` asked, defaulted.
fn limit(asked: Option<u32>) -> usize {
    asked.unwrap_or(LIST_LIMIT_DEFAULT) as usize
}

/// The last `n` of `items`, in their order.
fn newest<T>(mut items: Vec<T>, n: usize) -> Vec<T> {
    let skip = items.len().saturating_sub(n);
    items.drain(..skip);
    items
}

/// The last [`CONSOLE_BUFFER_MESSAGES`] console messages of a session.
#[derive(Debug, Default)]
pub struct ConsoleLog {
    messages: VecDeque<ConsoleMessage>,
}

impl ConsoleLog {
    /// Keeps `message`, evicting the oldest past the cap.
    pub fn push(&mut self, message: ConsoleMessage) {
        if self.messages.len() == CONSOLE_BUFFER_MESSAGES {
            self.messages.pop_front();
        }
        self.messages.push_back(message);
    }

    /// `console_messages`: the newest `limit` messages of the level asked, oldest
    /// first.
    pub fn list(&self, params: &ConsoleMessages) -> Vec<ConsoleMessage> {
        let matching = self
            .messages
            .iter()
            .filter(|m| params.level.is_none_or(|l| m.level == l))
            .cloned()
            .collect();
        newest(matching, limit(params.limit))
    }
}

/// One request of the buffer: its public entry and what only the extension needs.
#[derive(Debug, Clone)]
struct Entry {
    request: NetworkRequest,
    /// `Network.MonotonicTime` it was sent (s).
    sent: f64,
    /// The flat session of the out-of-process iframe it belongs to, `None` for
    /// the tab's own.
    session: Option<String>,
}

/// Where a request's body is to be read, or why it cannot be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodySource {
    /// The child session (an out-of-process iframe's) that saw it, `None` for the tab.
    pub session: Option<String>,
}

/// The last [`NETWORK_BUFFER_REQUESTS`] requests of a session.
#[derive(Debug, Default)]
pub struct NetworkLog {
    entries: VecDeque<Entry>,
    evicted: VecDeque<String>,
}

impl NetworkLog {
    fn find(&mut self, request_id: &str) -> Option<&mut Entry> {
        self.entries
            .iter_mut()
            .rev()
            .find(|e| e.request.request_id == request_id)
    }

    /// `Network.requestWillBeSent` of the tab (`session: None`) or of one of its
    /// child sessions. A redirect hop (same id) moves the entry to the new URL.
    pub fn sent(&mut self, event: &RequestWillBeSent, session: Option<&str>) {
        let url = cut(&event.request.url, REQUEST_URL_MAX_BYTES);
        if event.redirect_response.is_some()
            && let Some(entry) = self.find(&event.request_id)
        {
            entry.request.url = url;
            entry.request.method = event.request.method.clone();
            entry.request.status = None;
            entry.request.mime_type = None;
            return;
        }
        if self.entries.len() == NETWORK_BUFFER_REQUESTS
            && let Some(old) = self.entries.pop_front()
        {
            if self.evicted.len() == EVICTED_IDS_KEPT {
                self.evicted.pop_front();
            }
            self.evicted.push_back(old.request.request_id);
        }
        self.entries.push_back(Entry {
            request: NetworkRequest {
                request_id: event.request_id.clone(),
                method: event.request.method.clone(),
                url,
                status: None,
                resource_type: event
                    .resource_type
                    .clone()
                    .unwrap_or_else(|| "Other".into()),
                mime_type: None,
                bytes: None,
                ms: None,
                error: None,
            },
            sent: event.timestamp,
            session: session.map(str::to_owned),
        });
    }

    /// `Network.responseReceived`.
    pub fn responded(&mut self, event: &ResponseReceived) {
        if let Some(entry) = self.find(&event.request_id) {
            entry.request.status = Some(event.response.status);
            entry.request.mime_type =
                Some(event.response.mime_type.clone()).filter(|m| !m.is_empty());
            if !event.resource_type.is_empty() {
                entry.request.resource_type = event.resource_type.clone();
            }
        }
    }

    /// `Network.loadingFinished`.
    pub fn finished(&mut self, event: &LoadingFinished) {
        if let Some(entry) = self.find(&event.request_id) {
            entry.request.bytes = Some(event.encoded_data_length.max(0.0) as u64);
            entry.request.ms = Some(elapsed_ms(entry.sent, event.timestamp));
        }
    }

    /// `Network.loadingFailed`: the net error (or the block reason); a request
    /// that failed after its response (its body cut off) keeps its status.
    pub fn failed(&mut self, event: &LoadingFailed) {
        if let Some(entry) = self.find(&event.request_id) {
            entry.request.ms = Some(elapsed_ms(entry.sent, event.timestamp));
            entry.request.error = Some(match &event.blocked_reason {
                Some(reason) => format!("blocked: {reason}"),
                None if event.canceled && event.error_text.is_empty() => "canceled".into(),
                None => event.error_text.clone(),
            });
        }
    }

    /// `network_requests`: the newest `limit` requests that match, in the order
    /// sent.
    pub fn list(&self, params: &NetworkRequests) -> Vec<NetworkRequest> {
        let matching = self
            .entries
            .iter()
            .map(|e| &e.request)
            .filter(|r| {
                params
                    .url_contains
                    .as_deref()
                    .is_none_or(|part| r.url.contains(part))
            })
            .filter(|r| {
                params
                    .resource_type
                    .as_deref()
                    .is_none_or(|t| r.resource_type.eq_ignore_ascii_case(t))
            })
            .cloned()
            .collect();
        newest(matching, limit(params.limit))
    }

    /// Where to read the body of `request_id` (`network_response_body`).
    ///
    /// # Errors
    /// `invalid_action`: the request was evicted, never seen in this session, is
    /// still loading, or failed.
    pub fn body_source(&self, request_id: &str) -> Result<BodySource, BridgeError> {
        let Some(entry) = self
            .entries
            .iter()
            .rev()
            .find(|e| e.request.request_id == request_id)
        else {
            return Err(BridgeError::invalid_action(
                if self.evicted.iter().any(|id| id == request_id) {
                    format!(
                        "request {request_id} was evicted: a session keeps its last \
                         {NETWORK_BUFFER_REQUESTS} requests; its body is gone"
                    )
                } else {
                    format!(
                        "no request {request_id} in this tab's session: take a requestId from \
                         network_requests (requests since the session started)"
                    )
                },
            ));
        };
        let r = &entry.request;
        if let Some(error) = &r.error {
            return Err(BridgeError::invalid_action(format!(
                "request {request_id} failed ({error}): it has no body"
            )));
        }
        if r.bytes.is_none() {
            return Err(BridgeError::invalid_action(format!(
                "request {request_id} is still loading: ask again once network_requests shows its bytes"
            )));
        }
        Ok(BodySource {
            session: entry.session.clone(),
        })
    }
}

/// ms between two `Network.MonotonicTime`s (s).
fn elapsed_ms(from: f64, to: f64) -> u64 {
    ((to - from) * 1_000.0).max(0.0).round() as u64
}

/// A body from `Network.getResponseBody` within [`RESPONSE_BODY_MAX_BYTES`]:
/// text cut on a char boundary, base64 cut on a whole group of 4 characters
/// (3 bytes); `true` when cut.
pub fn capped_body(body: String, base64: bool) -> (String, bool) {
    if base64 {
        let max_chars = RESPONSE_BODY_MAX_BYTES / 3 * 4;
        if body.len() <= max_chars {
            return (body, false);
        }
        return (body[..max_chars].to_owned(), true);
    }
    if body.len() <= RESPONSE_BODY_MAX_BYTES {
        return (body, false);
    }
    let end = floor_char_boundary(&body, RESPONSE_BODY_MAX_BYTES);
    (body[..end].to_owned(), true)
}

#[cfg(test)]
mod tests;
