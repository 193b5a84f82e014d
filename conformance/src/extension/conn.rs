//! One accepted extension connection, read by the harness acting as a backend:
//! requests out, responses matched by id, events and pongs kept, pings answered.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::wire::{JsonSocket, Received, short, str_field};

/// The harness's side of an authenticated extension connection.
#[derive(Debug)]
pub(crate) struct Conn {
    socket: JsonSocket<TcpStream>,
    /// Responses seen per request id we sent.
    answers: HashMap<String, u32>,
    /// Responses whose id we never sent, and frames that were not valid messages.
    strays: Vec<String>,
    /// Every event received, in order.
    events: Vec<Value>,
    /// Nonces of pongs received and not yet consumed.
    pongs: Vec<u64>,
    closed: bool,
}

impl Conn {
    pub(crate) fn new(socket: JsonSocket<TcpStream>) -> Self {
        Conn {
            socket,
            answers: HashMap::new(),
            strays: Vec::new(),
            events: Vec::new(),
            pongs: Vec::new(),
            closed: false,
        }
    }

    /// Sends a raw frame.
    pub(crate) async fn send(&mut self, frame: &Value) -> Result<(), String> {
        self.socket.send(frame).await
    }

    /// Sends `action` as a request with a fresh UUIDv4 id; returns the id.
    pub(crate) async fn request(
        &mut self,
        action: Value,
        timeout_ms: u64,
    ) -> Result<String, String> {
        let id = uuid::Uuid::new_v4().to_string();
        let frame = json!({"type": "request", "id": id, "action": action, "timeoutMs": timeout_ms});
        self.send_request_frame(&id, &frame).await?;
        Ok(id)
    }

    /// Sends a hand-made request frame whose id is `id`.
    pub(crate) async fn send_request_frame(
        &mut self,
        id: &str,
        frame: &Value,
    ) -> Result<(), String> {
        self.answers.insert(id.to_owned(), 0);
        self.send(frame).await
    }

    /// Sends `action` and waits for its response (up to `timeout_ms` + 3 s).
    pub(crate) async fn call(&mut self, action: Value, timeout_ms: u64) -> Result<Value, String> {
        let id = self.request(action, timeout_ms).await?;
        self.response(&id, Duration::from_millis(timeout_ms + 3_000))
            .await
    }

    /// Waits for the response to `id`, keeping everything else that arrives.
    pub(crate) async fn response(&mut self, id: &str, wait: Duration) -> Result<Value, String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let frame = self.next(deadline).await?;
            if frame.get("type") == Some(&json!("response")) && frame.get("id") == Some(&json!(id))
            {
                return Ok(frame);
            }
        }
    }

    /// Sends a ping and waits for the pong carrying its nonce.
    pub(crate) async fn ping(&mut self, nonce: u64, wait: Duration) -> Result<(), String> {
        self.send(&json!({"type": "ping", "nonce": nonce})).await?;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(at) = self.pongs.iter().position(|n| *n == nonce) {
                self.pongs.remove(at);
                return Ok(());
            }
            self.next(deadline).await?;
        }
    }

    /// The first event (already received or arriving within `wait`) that `matches`.
    pub(crate) async fn event(
        &mut self,
        matches: impl Fn(&Value) -> bool,
        wait: Duration,
    ) -> Result<Value, String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(event) = self.events.iter().find(|e| matches(e)) {
                return Ok(event.clone());
            }
            self.next(deadline).await?;
        }
    }

    /// Reads (and files) whatever arrives for `wait`.
    pub(crate) async fn drain(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        while self.next(deadline).await.is_ok() {}
    }

    /// Request ids answered other than exactly once, and stray frames.
    pub(crate) fn answer_problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = self
            .answers
            .iter()
            .filter(|(_, n)| **n != 1)
            .map(|(id, n)| format!("request {id} answered {n} times"))
            .collect();
        problems.sort();
        problems.extend(self.strays.iter().cloned());
        problems
    }

    /// The next frame before `deadline`, filed: responses counted, events and
    /// pongs kept, pings answered.
    async fn next(&mut self, deadline: tokio::time::Instant) -> Result<Value, String> {
        if self.closed {
            return Err("the extension closed the connection".into());
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let frame = match self.socket.recv(left).await {
            Received::Json(frame) => frame,
            Received::Garbage(why) => {
                self.strays.push(format!("invalid frame: {why}"));
                return Err(format!("invalid frame: {why}"));
            }
            Received::Closed(_) => {
                self.closed = true;
                return Err("the extension closed the connection".into());
            }
            Received::Silent => {
                return Err(format!("nothing arrived within {} ms", left.as_millis()));
            }
        };
        match frame.get("type").and_then(Value::as_str) {
            Some("response") => match str_field(&frame, "id") {
                Ok(id) => match self.answers.get_mut(id) {
                    Some(count) => *count += 1,
                    None => self
                        .strays
                        .push(format!("response to an id never sent: {}", short(&frame))),
                },
                Err(e) => self.strays.push(format!("response without id ({e})")),
            },
            Some("event") => self.events.push(frame["event"].clone()),
            Some("pong") => {
                if let Some(nonce) = frame.get("nonce").and_then(Value::as_u64) {
                    self.pongs.push(nonce);
                }
            }
            Some("ping") => {
                let nonce = frame.get("nonce").cloned().unwrap_or(Value::Null);
                self.send(&json!({"type": "pong", "nonce": nonce})).await?;
            }
            _ => self
                .strays
                .push(format!("unexpected frame: {}", short(&frame))),
        }
        Ok(frame)
    }

    /// Closes the connection.
    pub(crate) async fn close(self) {
        self.socket.close().await;
    }
}
