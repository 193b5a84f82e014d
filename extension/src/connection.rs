//! The WebSocket to the backend (PROTOCOL.md §2–§3): settings from
//! `chrome.storage.local`, the mutual-proof handshake (hello → challenge → auth →
//! ack/reject), reconnect with backoff, keep-alive.
//!
//! Storage keys (documented in README): `backendUrl` (default
//! [`DEFAULT_BACKEND_URL`]), `pairingToken`, `clientId` (UUID made on first run),
//! `fatalError` (set on `reject`, cleared when `pairingToken` or `backendUrl`
//! changes). The token never leaves the extension: whatever answers on the address
//! must first prove it knows it (`challenge`), else the socket is closed at once
//! with nothing more sent, and nothing it sends is obeyed. A `reject` from a backend
//! that proved itself is terminal until re-pairing; an unproven `reject` (the
//! peer's version refusal, or an impostor's) and any other close reconnect with
//! backoff 1 s doubling to 30 s with ±25 % jitter. While connected a `ping`
//! goes out every 20 s (it also keeps the MV3 worker alive); `chrome.alarms` wakes
//! the worker every 30 s and [`ensure_connected`] reconnects if needed.

use std::cell::RefCell;

use browser_bridge_protocol::version::{HELLO_TIMEOUT_MS, PING_INTERVAL_MS};
use browser_bridge_protocol::{
    BridgeError, Challenge, Event, EventMessage, Hello, Message, PROTOCOL_VERSION, Ping, Pong,
    Response, auth,
};
use gloo_timers::future::TimeoutFuture;
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

use crate::chrome;

/// Where the extension connects when `backendUrl` is not set.
pub const DEFAULT_BACKEND_URL: &str = "ws://127.0.0.1:9333/extension";
const BACKOFF_MIN_MS: f64 = 1_000.0;
const BACKOFF_MAX_MS: f64 = 30_000.0;
/// Events kept while disconnected (oldest dropped first).
const MAX_QUEUED_EVENTS: usize = 200;

/// The connection state as measured (shown by the popup).
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// No pairing token stored.
    Unpaired,
    /// Socket opening or hello sent; the backend has not proved itself yet.
    Connecting,
    /// The backend proved it knows the token (`challenge`); `auth` sent, no ack yet.
    Authenticating,
    /// `ack` received.
    Connected,
    /// Closed; a reconnect is scheduled.
    Disconnected,
    /// `reject` received (or unusable settings): no reconnect until re-paired.
    Fatal,
}

impl State {
    fn name(&self) -> &'static str {
        match self {
            State::Unpaired => "unpaired",
            State::Connecting | State::Authenticating => "connecting",
            State::Connected => "connected",
            State::Disconnected => "disconnected",
            State::Fatal => "fatal",
        }
    }
}

struct Socket {
    ws: WebSocket,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}

struct Conn {
    generation: u32,
    socket: Option<Socket>,
    state: State,
    reason: String,
    backend_url: String,
    attempts: u32,
    last_pong_at: Option<u64>,
    connected_at: Option<u64>,
    next_nonce: u64,
    queued: Vec<String>,
    /// The token and `N_E` of the handshake under way (dropped at `ack`).
    pending: Option<Pending>,
    /// When a peer on the address last failed to prove the token (ms since the
    /// epoch; cleared at `ack`), for the popup and the pairing page.
    refused_at: Option<u64>,
}

struct Pending {
    token: String,
    n_e: String,
}

thread_local! {
    static CONN: RefCell<Conn> = RefCell::new(Conn {
        generation: 0,
        socket: None,
        state: State::Disconnected,
        reason: "starting".into(),
        backend_url: DEFAULT_BACKEND_URL.into(),
        attempts: 0,
        last_pong_at: None,
        connected_at: None,
        next_nonce: 1,
        queued: Vec::new(),
        pending: None,
        refused_at: None,
    });
}

/// Connects unless a connection is up, opening, or fatally refused (called on
/// worker start, browser start and every keep-alive alarm).
pub fn ensure_connected() {
    let idle = CONN.with(|c| {
        let c = c.borrow();
        matches!(c.state, State::Disconnected | State::Unpaired) && c.socket.is_none()
    });
    if idle {
        spawn_local(connect());
    }
}

/// Drops the current socket and connects again with fresh settings (storage
/// change of `backendUrl` / `pairingToken`: clears a fatal state).
pub fn reconnect_now() {
    CONN.with(|c| {
        let mut c = c.borrow_mut();
        c.generation += 1;
        retire(c.socket.take());
        c.attempts = 0;
        c.state = State::Disconnected;
    });
    spawn_local(connect());
}

async fn connect() {
    let generation = CONN.with(|c| {
        let mut c = c.borrow_mut();
        c.generation += 1;
        retire(c.socket.take());
        c.state = State::Connecting;
        c.generation
    });
    let settings = match chrome::storage_get(&[
        "backendUrl",
        "pairingToken",
        "clientId",
        "fatalError",
    ])
    .await
    {
        Ok(s) => s,
        Err(e) => {
            return set_state(
                generation,
                State::Disconnected,
                format!("storage: {e}"),
                true,
            );
        }
    };
    let url = settings["backendUrl"]
        .as_str()
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_BACKEND_URL)
        .to_owned();
    CONN.with(|c| c.borrow_mut().backend_url = url.clone());
    if let Some(message) = settings["fatalError"]["message"].as_str() {
        return set_state(generation, State::Fatal, message.to_owned(), false);
    }
    let Some(token) = settings["pairingToken"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
    else {
        return set_state(
            generation,
            State::Unpaired,
            "enter the pairing token (browser-bridge pair)".into(),
            false,
        );
    };
    let client_id = match settings["clientId"].as_str() {
        Some(id) => id.to_owned(),
        None => {
            let id = chrome::random_uuid();
            let _ = chrome::storage_set(&json!({ "clientId": id })).await;
            id
        }
    };
    let ws = match WebSocket::new(&url) {
        Ok(ws) => ws,
        Err(e) => {
            let message = format!(
                "invalid backend URL {url:?}: {}",
                chrome::js_error_message(&e)
            );
            return set_state(generation, State::Fatal, message, false);
        }
    };
    let n_e = auth::encode_nonce(&chrome::random_bytes());
    let hello = Message::Hello(Hello {
        protocol_version: PROTOCOL_VERSION,
        extension_version: chrome::extension_version(),
        client_id,
        nonce: n_e.clone(),
        user_agent: chrome::user_agent(),
    })
    .encode();
    let ws_open = ws.clone();
    let on_open = Closure::<dyn FnMut()>::new(move || {
        let _ = ws_open.send_with_str(&hello);
    });
    let on_message =
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            match event.data().as_string() {
                Some(text) => on_text(generation, &text),
                None => chrome::log("binary frame from the backend ignored"),
            }
        });
    let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |event: CloseEvent| {
        on_closed(generation, event.code(), event.reason());
    });
    ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    spawn_local(handshake_deadline(generation, url.clone()));
    CONN.with(|c| {
        let mut c = c.borrow_mut();
        if c.generation == generation {
            c.socket = Some(Socket {
                ws,
                _on_open: on_open,
                _on_message: on_message,
                _on_close: on_close,
            });
            c.pending = Some(Pending { token, n_e });
            c.reason = format!("connecting to {url}");
        }
    });
}

/// Drops a socket later, never inside one of its own callbacks: wasm-bindgen
/// refuses a closure freed while it runs ("closure invoked recursively or after
/// being dropped").
fn retire(socket: Option<Socket>) {
    if let Some(socket) = socket {
        socket.ws.set_onopen(None);
        socket.ws.set_onmessage(None);
        socket.ws.set_onclose(None);
        let _ = socket.ws.close();
        spawn_local(async move { drop(socket) });
    }
}

fn set_state(generation: u32, state: State, reason: String, retry: bool) {
    let current = CONN.with(|c| {
        let mut c = c.borrow_mut();
        if c.generation != generation {
            return false;
        }
        c.state = state;
        c.reason = reason;
        retire(c.socket.take());
        c.connected_at = None;
        c.pending = None;
        true
    });
    if current && retry {
        schedule_reconnect(generation);
    }
}

fn on_closed(generation: u32, code: u16, reason: String) {
    let fatal = CONN.with(|c| c.borrow().state == State::Fatal);
    if fatal {
        return;
    }
    let why = if reason.is_empty() {
        format!("socket closed (code {code})")
    } else {
        format!("socket closed (code {code}: {reason})")
    };
    set_state(generation, State::Disconnected, why, true);
}

fn schedule_reconnect(generation: u32) {
    let delay = CONN.with(|c| {
        let mut c = c.borrow_mut();
        let base = (BACKOFF_MIN_MS * 2f64.powi(c.attempts.min(5) as i32)).min(BACKOFF_MAX_MS);
        c.attempts += 1;
        base * (0.75 + 0.5 * js_sys::Math::random())
    });
    spawn_local(async move {
        TimeoutFuture::new(delay as u32).await;
        let still = CONN.with(|c| {
            let c = c.borrow();
            c.generation == generation && c.state == State::Disconnected
        });
        if still {
            connect().await;
        }
    });
}

fn on_text(generation: u32, text: &str) {
    let state = CONN.with(|c| c.borrow().state.clone());
    match Message::decode(text) {
        Ok(Message::Challenge(challenge)) if state == State::Connecting => {
            on_challenge(generation, &challenge);
        }
        Ok(Message::Ack(_)) if state == State::Authenticating => on_ack(generation),
        Ok(Message::Reject(reject)) if state == State::Authenticating => {
            on_reject(generation, reject.error);
        }
        Ok(Message::Reject(reject)) if state == State::Connecting => {
            on_unproven_reject(generation, reject.error);
        }
        // Anything else before the backend proved itself is an impostor's (or a
        // broken peer's): obey nothing, send nothing more, and try again later.
        _ if state == State::Connecting => impostor(generation),
        Ok(_) if state != State::Connected => chrome::log("message before ack ignored"),
        Ok(Message::Request(request)) => crate::dispatch::spawn_request(request),
        Ok(Message::Ping(Ping { nonce })) => send_text(&Message::Pong(Pong { nonce }).encode()),
        Ok(Message::Pong(_)) => CONN.with(|c| c.borrow_mut().last_pong_at = Some(chrome::now_ms())),
        Ok(other) => chrome::log(&format!(
            "unexpected message ignored: {}",
            short(&other.encode())
        )),
        Err(e) => match e.id {
            Some(id) => send_response(Response::err(id, e.error)),
            None => chrome::log(&format!("undecodable frame ignored: {}", e.error.message)),
        },
    }
}

/// §2 step 3: answers `auth` when `P_B` proves the backend knows the token, else
/// closes at once without sending anything.
fn on_challenge(generation: u32, challenge: &Challenge) {
    let answer = CONN.with(|c| {
        let c = c.borrow();
        let pending = c.pending.as_ref()?;
        challenge.answer(&pending.token, &pending.n_e)
    });
    let Some(answer) = answer else {
        return impostor(generation);
    };
    CONN.with(|c| {
        let mut c = c.borrow_mut();
        if c.generation == generation {
            c.state = State::Authenticating;
        }
    });
    send_text(&Message::Auth(answer).encode());
}

/// §2's 10 s for the whole handshake, on the extension's side too: a peer that
/// accepts the socket and then stays silent (or never acks) must not hold the
/// extension away from the real backend.
async fn handshake_deadline(generation: u32, url: String) {
    TimeoutFuture::new(HELLO_TIMEOUT_MS as u32).await;
    let stalled = CONN.with(|c| {
        let c = c.borrow();
        c.generation == generation && matches!(c.state, State::Connecting | State::Authenticating)
    });
    if stalled {
        chrome::log(&format!("{url}: no complete handshake within 10 s"));
        set_state(
            generation,
            State::Disconnected,
            format!("the program on {url} did not complete the handshake within 10 s; retrying"),
            true,
        );
    }
}

/// The peer on the backend address did not prove it knows the pairing token.
fn impostor(generation: u32) {
    let url = CONN.with(|c| {
        let mut c = c.borrow_mut();
        c.refused_at = Some(chrome::now_ms());
        c.backend_url.clone()
    });
    chrome::log(&format!(
        "{url} did not prove it knows the pairing token; closed without sending it"
    ));
    set_state(
        generation,
        State::Disconnected,
        format!(
            "the program on {url} does not know the pairing token (another program, or a \
             backend paired with another token): nothing was sent to it; retrying"
        ),
        true,
    );
}

/// A `reject` before the backend proved itself (a version refusal, or anyone on
/// the address): not terminal, since an impostor could send it, and its text is
/// not shown (an impostor's words do not belong in the popup); only its code.
fn on_unproven_reject(generation: u32, error: BridgeError) {
    chrome::log(&format!(
        "refused before the backend proved itself: {error}"
    ));
    let url = CONN.with(|c| {
        let mut c = c.borrow_mut();
        c.refused_at = Some(chrome::now_ms());
        c.backend_url.clone()
    });
    set_state(
        generation,
        State::Disconnected,
        format!(
            "the program on {url} refused the connection ({}) before proving it knows \
             the pairing token: if it is your backend, update the older of the two \
             (protocol v{PROTOCOL_VERSION} here); retrying",
            error.code
        ),
        true,
    );
}

fn short(text: &str) -> &str {
    &text[..browser_bridge_protocol::text::floor_char_boundary(text, 200)]
}

fn on_ack(generation: u32) {
    let queued = CONN.with(|c| {
        let mut c = c.borrow_mut();
        c.state = State::Connected;
        c.pending = None;
        c.refused_at = None;
        c.attempts = 0;
        c.connected_at = Some(chrome::now_ms());
        c.reason = format!("connected to {}", c.backend_url);
        std::mem::take(&mut c.queued)
    });
    chrome::log("connected (ack)");
    for text in queued {
        send_text(&text);
    }
    spawn_local(async move {
        loop {
            let alive = CONN.with(|c| {
                let c = c.borrow();
                c.generation == generation && c.state == State::Connected
            });
            if !alive {
                break;
            }
            let nonce = CONN.with(|c| {
                let mut c = c.borrow_mut();
                c.next_nonce += 1;
                c.next_nonce
            });
            send_text(&Message::Ping(Ping { nonce }).encode());
            TimeoutFuture::new(PING_INTERVAL_MS as u32).await;
        }
    });
}

fn on_reject(generation: u32, error: BridgeError) {
    chrome::log(&format!("rejected by the backend: {error}"));
    let message = format!("{}: {}", error.code, error.message);
    set_state(generation, State::Fatal, message.clone(), false);
    spawn_local(async move {
        let _ = chrome::storage_set(
            &json!({ "fatalError": { "code": error.code, "message": message } }),
        )
        .await;
    });
}

fn send_text(text: &str) {
    CONN.with(|c| {
        if let Some(socket) = &c.borrow().socket
            && let Err(e) = socket.ws.send_with_str(text)
        {
            chrome::log(&format!("send failed: {}", chrome::js_error_message(&e)));
        }
    });
}

/// Sends one `response` (dropped when the socket is gone: the backend has then
/// answered the request `not_connected` already).
pub fn send_response(response: Response) {
    send_text(&Message::Response(response).encode());
}

/// Sends one `event`, or queues it until the next `ack`.
pub fn send_event(event: Event) {
    let text = Message::Event(EventMessage { event }).encode();
    let connected = CONN.with(|c| {
        let mut c = c.borrow_mut();
        if c.state == State::Connected {
            return true;
        }
        if c.queued.len() >= MAX_QUEUED_EVENTS {
            c.queued.remove(0);
        }
        c.queued.push(text.clone());
        false
    });
    if connected {
        send_text(&text);
    }
}

/// The measured state for the popup: `{state, reason, backendUrl, lastPongAt,
/// connectedAt, refusedAt}` (ms since the epoch; `refusedAt`: when a peer on the
/// address last failed to prove the pairing token).
pub fn status() -> Value {
    CONN.with(|c| {
        let c = c.borrow();
        json!({
            "state": c.state.name(),
            "reason": c.reason,
            "backendUrl": c.backend_url,
            "lastPongAt": c.last_pong_at,
            "connectedAt": c.connected_at,
            "refusedAt": c.refused_at,
        })
    })
}
