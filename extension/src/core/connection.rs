//! The connection to the backend (PROTOCOL.md §2–§3) as a pure state machine:
//! [`step`] takes the state and one [`Input`] and answers the next state and the
//! [`Effect`]s to perform; `crate::connection` performs them (socket, timers,
//! storage) and feeds back what happens. No I/O here: time and randomness come in
//! with the input ([`Clock`]), so every branch is unit-tested.
//!
//! The handshake: `hello` (`N_E`) → `challenge` (`N_B`, `P_B`) → `auth` (`P_E`) →
//! `ack` / `reject`. The token never leaves the extension: whatever answers on the
//! address must first prove it knows it, else the socket is closed at once with
//! nothing more sent, and nothing it sent is obeyed. A `reject` from a backend
//! that proved itself is terminal until re-pairing; an unproven `reject` (the
//! peer's version refusal, or an impostor's) and any other close reconnect with
//! the [`backoff`]. The whole handshake has 10 s. While connected
//! a `ping` goes out every 20 s. Every attempt has a `generation`: inputs of an
//! older attempt (its socket's late callbacks, its timers) are ignored.

use std::collections::VecDeque;

use browser_bridge_protocol::version::{HELLO_TIMEOUT_MS, PING_INTERVAL_MS};
use browser_bridge_protocol::{
    BridgeError, ErrorCode, Event, EventMessage, Hello, Message, PROTOCOL_VERSION, Ping, Pong,
    Request, Response,
};
use serde::Serialize;

use super::backoff;
use super::messages::short;
use super::settings::{ConnectionSettings, DEFAULT_BACKEND_URL};

/// Events kept while disconnected, sent after the next `ack` (oldest dropped
/// first).
pub const MAX_QUEUED_EVENTS: usize = 200;

/// Where the connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No pairing token stored.
    Unpaired,
    /// Settings being read, socket opening or `hello` sent; the backend has not
    /// proved itself yet.
    Connecting,
    /// The backend proved it knows the token (`challenge`); `auth` sent, no `ack`
    /// yet.
    Authenticating,
    /// `ack` received: requests are served.
    Connected,
    /// Closed; a reconnect is scheduled (or waits for the keep-alive alarm).
    Disconnected,
    /// `reject` from a proven backend, or unusable settings: no reconnect until
    /// re-paired.
    Fatal,
}

impl Phase {
    /// The popup's name of the phase (`connecting` covers the handshake).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Unpaired => "unpaired",
            Phase::Connecting | Phase::Authenticating => "connecting",
            Phase::Connected => "connected",
            Phase::Disconnected => "disconnected",
            Phase::Fatal => "fatal",
        }
    }
}

/// The handshake under way: the token and our nonce (dropped at `ack`).
#[derive(Clone, PartialEq, Eq)]
struct Pending {
    token: String,
    n_e: String,
    hello: String,
}

/// The connection's state.
#[derive(Clone, PartialEq)]
pub struct Conn {
    /// Where it stands.
    pub phase: Phase,
    /// The current attempt.
    pub generation: u32,
    /// Failed attempts since the last `ack` (the backoff's exponent).
    pub attempts: u32,
    /// Why it is in this phase, for the popup.
    pub reason: String,
    /// The backend address of the current attempt.
    pub backend_url: String,
    /// When the last `pong` arrived (ms since the epoch).
    pub last_pong_at: Option<u64>,
    /// When the current connection got its `ack` (ms since the epoch).
    pub connected_at: Option<u64>,
    /// When a peer on the address last failed to prove the token (ms since the
    /// epoch; cleared at `ack`).
    pub refused_at: Option<u64>,
    /// A socket is open (or opening) for the current attempt.
    pub socket_open: bool,
    extension_version: String,
    user_agent: Option<String>,
    /// `hello.browserName` when `browserName` is not set ([`Conn::with_default_name`]).
    default_name: Option<String>,
    /// `hello.browserVersion`, read from the user agent.
    browser_version: Option<String>,
    next_nonce: u64,
    queued: VecDeque<String>,
    pending: Option<Pending>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No token in a log line, not even through Debug.
        f.debug_struct("Conn")
            .field("phase", &self.phase)
            .field("generation", &self.generation)
            .field("attempts", &self.attempts)
            .field("reason", &self.reason)
            .field("queued", &self.queued.len())
            .finish_non_exhaustive()
    }
}

/// Time and randomness for one [`step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// Now (ms since the epoch).
    pub now_ms: u64,
    /// A uniform random number in `[0, 1)` (the backoff's jitter).
    pub random: f64,
}

/// What a frame to the backend carries (from `crate::outbox`).
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// An event (§11): sent when connected, else queued until the next `ack`.
    Event(Event),
    /// A response (§3): sent on the open socket, else dropped (the backend
    /// answered the request `not_connected` when the socket dropped).
    Response(Response),
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Worker start, browser start, keep-alive alarm: connect unless a connection
    /// is up, opening, or fatally refused.
    Ensure,
    /// `backendUrl` or `pairingToken` changed, or the popup asked: drop the
    /// socket, connect at once (this also leaves a fatal state).
    Reconnect,
    /// The settings of attempt `generation` were read (or why they were not), with
    /// a fresh `N_E` for it ([`auth::encode_nonce`](browser_bridge_protocol::auth::encode_nonce) of 32 random bytes) and the
    /// `clientId` (made and stored by the caller on first run).
    Settings {
        /// The attempt.
        generation: u32,
        /// The settings, or the storage error.
        settings: Result<ConnectionSettings, String>,
        /// `N_E`.
        nonce: String,
        /// `clientId` to send in `hello`.
        client_id: String,
        /// `browserRunId` to send in `hello` (§2), when the session storage
        /// could be read.
        browser_run_id: Option<String>,
    },
    /// `new WebSocket(url)` threw (an unusable URL).
    SocketFailed {
        /// The attempt.
        generation: u32,
        /// The JS error's message.
        error: String,
    },
    /// The socket opened.
    Opened {
        /// The attempt.
        generation: u32,
    },
    /// A text frame arrived.
    Text {
        /// The attempt.
        generation: u32,
        /// The frame.
        text: String,
    },
    /// A binary frame arrived (not part of the protocol).
    Binary {
        /// The attempt.
        generation: u32,
    },
    /// The socket closed.
    Closed {
        /// The attempt.
        generation: u32,
        /// The close code.
        code: u16,
        /// The close reason.
        reason: String,
    },
    /// [`HELLO_TIMEOUT_MS`] passed since the attempt's socket was opened.
    HandshakeDeadline {
        /// The attempt.
        generation: u32,
    },
    /// The backoff delay of attempt `generation` passed.
    RetryDue {
        /// The attempt.
        generation: u32,
    },
    /// [`PING_INTERVAL_MS`] passed since the last `ping` of attempt `generation`.
    PingDue {
        /// The attempt.
        generation: u32,
    },
    /// Something to send (from the outbox).
    Outgoing(Outgoing),
}

/// What the caller does after a [`step`], in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Read [`ConnectionSettings::KEYS`], then feed [`Input::Settings`].
    LoadSettings {
        /// The attempt.
        generation: u32,
    },
    /// Open a WebSocket to `url`; feed its callbacks tagged with `generation`
    /// ([`Input::SocketFailed`] when the constructor throws).
    Open {
        /// The attempt.
        generation: u32,
        /// The backend address.
        url: String,
    },
    /// Close the current socket and drop it (its callbacks go inert).
    Close,
    /// Send a text frame on the current socket.
    Send(String),
    /// Feed `input` after `ms`.
    Timer {
        /// Delay (ms).
        ms: u32,
        /// What to feed then.
        input: Input,
    },
    /// Store the proven `reject` under `fatalError` (`{code, message}`).
    StoreFatal {
        /// The reject's code.
        code: ErrorCode,
        /// `code: message`, shown by the popup.
        message: String,
    },
    /// Run a request (§3); it answers through the outbox.
    Dispatch(Request),
    /// A line for the console.
    Log(String),
}

/// The popup's view of the connection (`status` message, `connection` field;
/// times in ms since the epoch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// `unpaired`, `connecting`, `connected`, `disconnected`, `fatal`.
    pub state: &'static str,
    /// Why, in words.
    pub reason: String,
    /// The backend address.
    pub backend_url: String,
    /// Last `pong`.
    pub last_pong_at: Option<u64>,
    /// Last `ack`.
    pub connected_at: Option<u64>,
    /// When a peer on the address last failed to prove the pairing token.
    pub refused_at: Option<u64>,
}

impl Conn {
    /// The state of a new worker: disconnected, nothing under way. `hello` will
    /// carry `extension_version` and `user_agent`.
    pub fn new(extension_version: String, user_agent: Option<String>) -> Conn {
        Conn {
            phase: Phase::Disconnected,
            generation: 0,
            attempts: 0,
            reason: "starting".into(),
            backend_url: DEFAULT_BACKEND_URL.into(),
            last_pong_at: None,
            connected_at: None,
            refused_at: None,
            socket_open: false,
            extension_version,
            browser_version: user_agent
                .as_deref()
                .and_then(super::browser::version_from_user_agent),
            user_agent,
            default_name: None,
            next_nonce: 1,
            queued: VecDeque::new(),
            pending: None,
        }
    }

    /// The name `hello` gives the browser when the options set none
    /// ([`super::browser::default_name`]).
    pub fn with_default_name(mut self, name: Option<String>) -> Conn {
        self.default_name = name;
        self
    }

    /// The popup's view.
    pub fn status(&self) -> Status {
        Status {
            state: self.phase.name(),
            reason: self.reason.clone(),
            backend_url: self.backend_url.clone(),
            last_pong_at: self.last_pong_at,
            connected_at: self.connected_at,
            refused_at: self.refused_at,
        }
    }

    /// Events waiting for the next `ack`.
    pub fn queued(&self) -> usize {
        self.queued.len()
    }
}

/// Applies one input: the next state and what to do.
pub fn step(mut conn: Conn, input: Input, clock: Clock) -> (Conn, Vec<Effect>) {
    let mut fx = Vec::new();
    match input {
        Input::Ensure
            if matches!(conn.phase, Phase::Disconnected | Phase::Unpaired) && !conn.socket_open =>
        {
            connect(&mut conn, &mut fx);
        }
        Input::Reconnect => {
            conn.attempts = 0;
            connect(&mut conn, &mut fx);
        }
        Input::Settings {
            generation,
            settings,
            nonce,
            client_id,
            browser_run_id,
        } if generation == conn.generation && conn.phase == Phase::Connecting => {
            let ids = (client_id, browser_run_id);
            on_settings(&mut conn, settings, nonce, ids, clock, &mut fx);
        }
        Input::SocketFailed { generation, error } if generation == conn.generation => {
            let message = format!("invalid backend URL {:?}: {error}", conn.backend_url);
            settle(&mut conn, Phase::Fatal, message, false, clock, &mut fx);
        }
        Input::Opened { generation } if live(&conn, generation) => {
            if let Some(p) = &conn.pending {
                fx.push(Effect::Send(p.hello.clone()));
            }
        }
        Input::Text { generation, text } if live(&conn, generation) => {
            on_text(&mut conn, &text, clock, &mut fx);
        }
        Input::Binary { generation } if live(&conn, generation) => {
            fx.push(Effect::Log("binary frame from the backend ignored".into()));
        }
        Input::Closed {
            generation,
            code,
            reason,
        } if live(&conn, generation) && conn.phase != Phase::Fatal => {
            let why = if reason.is_empty() {
                format!("socket closed (code {code})")
            } else {
                format!("socket closed (code {code}: {reason})")
            };
            settle(&mut conn, Phase::Disconnected, why, true, clock, &mut fx);
        }
        Input::HandshakeDeadline { generation }
            if generation == conn.generation
                && matches!(conn.phase, Phase::Connecting | Phase::Authenticating) =>
        {
            let url = conn.backend_url.clone();
            fx.push(Effect::Log(format!(
                "{url}: no complete handshake within 10 s"
            )));
            let why = format!(
                "the program on {url} did not complete the handshake within 10 s; retrying"
            );
            settle(&mut conn, Phase::Disconnected, why, true, clock, &mut fx);
        }
        Input::RetryDue { generation }
            if generation == conn.generation && conn.phase == Phase::Disconnected =>
        {
            connect(&mut conn, &mut fx);
        }
        Input::PingDue { generation }
            if generation == conn.generation && conn.phase == Phase::Connected =>
        {
            ping(&mut conn, &mut fx);
        }
        Input::Outgoing(Outgoing::Event(event)) => {
            let text = Message::Event(EventMessage { event }).encode();
            if conn.phase == Phase::Connected {
                fx.push(Effect::Send(text));
            } else {
                if conn.queued.len() >= MAX_QUEUED_EVENTS {
                    conn.queued.pop_front();
                }
                conn.queued.push_back(text);
            }
        }
        Input::Outgoing(Outgoing::Response(response)) if conn.socket_open => {
            fx.push(Effect::Send(Message::Response(response).encode()));
        }
        // Inputs of an older attempt, or that do not apply in this phase.
        _ => {}
    }
    (conn, fx)
}

/// An input of the current attempt whose socket is still open.
fn live(conn: &Conn, generation: u32) -> bool {
    generation == conn.generation && conn.socket_open
}

/// A new attempt: drop the socket, read the settings.
fn connect(conn: &mut Conn, fx: &mut Vec<Effect>) {
    conn.generation = conn.generation.wrapping_add(1);
    close(conn, fx);
    conn.pending = None;
    conn.phase = Phase::Connecting;
    fx.push(Effect::LoadSettings {
        generation: conn.generation,
    });
}

fn close(conn: &mut Conn, fx: &mut Vec<Effect>) {
    if conn.socket_open {
        conn.socket_open = false;
        fx.push(Effect::Close);
    }
}

/// Leaves the attempt in `phase` with `reason`: socket closed, handshake dropped,
/// and with `retry` the next attempt scheduled after the backoff delay.
fn settle(
    conn: &mut Conn,
    phase: Phase,
    reason: String,
    retry: bool,
    clock: Clock,
    fx: &mut Vec<Effect>,
) {
    conn.phase = phase;
    conn.reason = reason;
    close(conn, fx);
    conn.connected_at = None;
    conn.pending = None;
    if retry {
        let ms = backoff::delay_ms(conn.attempts, clock.random);
        conn.attempts = conn.attempts.saturating_add(1);
        fx.push(Effect::Timer {
            ms,
            input: Input::RetryDue {
                generation: conn.generation,
            },
        });
    }
}

fn on_settings(
    conn: &mut Conn,
    settings: Result<ConnectionSettings, String>,
    nonce: String,
    (client_id, browser_run_id): (String, Option<String>),
    clock: Clock,
    fx: &mut Vec<Effect>,
) {
    let settings = match settings {
        Ok(s) => s,
        Err(e) => {
            return settle(
                conn,
                Phase::Disconnected,
                format!("storage: {e}"),
                true,
                clock,
                fx,
            );
        }
    };
    conn.backend_url = settings.backend_url;
    if let Some(message) = settings.fatal {
        return settle(conn, Phase::Fatal, message, false, clock, fx);
    }
    let Some(token) = settings.pairing_token else {
        let why = "enter the pairing token (browser-bridge pair)".to_owned();
        return settle(conn, Phase::Unpaired, why, false, clock, fx);
    };
    let hello = Message::Hello(Hello {
        protocol_version: PROTOCOL_VERSION,
        extension_version: conn.extension_version.clone(),
        client_id,
        nonce: nonce.clone(),
        user_agent: conn.user_agent.clone(),
        browser_name: settings.browser_name.or_else(|| conn.default_name.clone()),
        browser_version: conn.browser_version.clone(),
        browser_run_id,
    })
    .encode();
    conn.pending = Some(Pending {
        token,
        n_e: nonce,
        hello,
    });
    conn.socket_open = true;
    conn.reason = format!("connecting to {}", conn.backend_url);
    fx.push(Effect::Open {
        generation: conn.generation,
        url: conn.backend_url.clone(),
    });
    fx.push(Effect::Timer {
        ms: HELLO_TIMEOUT_MS as u32,
        input: Input::HandshakeDeadline {
            generation: conn.generation,
        },
    });
}

fn on_text(conn: &mut Conn, text: &str, clock: Clock, fx: &mut Vec<Effect>) {
    let phase = conn.phase;
    match Message::decode_from_backend(text) {
        Ok(Message::Challenge(challenge)) if phase == Phase::Connecting => {
            let answer = conn
                .pending
                .as_ref()
                .and_then(|p| challenge.answer(&p.token, &p.n_e));
            match answer {
                Some(answer) => {
                    conn.phase = Phase::Authenticating;
                    fx.push(Effect::Send(Message::Auth(answer).encode()));
                }
                None => impostor(conn, clock, fx),
            }
        }
        Ok(Message::Ack(_)) if phase == Phase::Authenticating => on_ack(conn, clock, fx),
        Ok(Message::Reject(reject)) if phase == Phase::Authenticating => {
            let error = reject.error;
            fx.push(Effect::Log(format!("rejected by the backend: {error}")));
            let message = format!("{}: {}", error.code, error.message);
            settle(conn, Phase::Fatal, message.clone(), false, clock, fx);
            fx.push(Effect::StoreFatal {
                code: error.code,
                message,
            });
        }
        Ok(Message::Reject(reject)) if phase == Phase::Connecting => {
            unproven_reject(conn, reject.error, clock, fx);
        }
        // Anything else before the backend proved itself is an impostor's (or a
        // broken peer's): obey nothing, send nothing more, try again later.
        _ if phase == Phase::Connecting => impostor(conn, clock, fx),
        Ok(_) if phase != Phase::Connected => {
            fx.push(Effect::Log("message before ack ignored".into()));
        }
        Ok(Message::Request(request)) => fx.push(Effect::Dispatch(request)),
        Ok(Message::Ping(Ping { nonce })) => {
            fx.push(Effect::Send(Message::Pong(Pong { nonce }).encode()));
        }
        Ok(Message::Pong(_)) => conn.last_pong_at = Some(clock.now_ms),
        Ok(other) => fx.push(Effect::Log(format!(
            "unexpected message ignored: {}",
            short(&other.encode())
        ))),
        Err(e) => match e.id {
            Some(id) => fx.push(Effect::Send(
                Message::Response(Response::err(id, e.error)).encode(),
            )),
            None => fx.push(Effect::Log(format!(
                "undecodable frame ignored: {}",
                e.error.message
            ))),
        },
    }
}

fn on_ack(conn: &mut Conn, clock: Clock, fx: &mut Vec<Effect>) {
    conn.phase = Phase::Connected;
    conn.pending = None;
    conn.refused_at = None;
    conn.attempts = 0;
    conn.connected_at = Some(clock.now_ms);
    conn.reason = format!("connected to {}", conn.backend_url);
    fx.push(Effect::Log("connected (ack)".into()));
    fx.extend(conn.queued.drain(..).map(Effect::Send));
    ping(conn, fx);
}

fn ping(conn: &mut Conn, fx: &mut Vec<Effect>) {
    conn.next_nonce += 1;
    fx.push(Effect::Send(
        Message::Ping(Ping {
            nonce: conn.next_nonce,
        })
        .encode(),
    ));
    fx.push(Effect::Timer {
        ms: PING_INTERVAL_MS as u32,
        input: Input::PingDue {
            generation: conn.generation,
        },
    });
}

/// The peer on the backend address did not prove it knows the pairing token.
fn impostor(conn: &mut Conn, clock: Clock, fx: &mut Vec<Effect>) {
    conn.refused_at = Some(clock.now_ms);
    let url = conn.backend_url.clone();
    fx.push(Effect::Log(format!(
        "{url} did not prove it knows the pairing token; closed without sending it"
    )));
    let why = format!(
        "the program on {url} does not know the pairing token (another program, or a \
         backend paired with another token): nothing was sent to it; retrying"
    );
    settle(conn, Phase::Disconnected, why, true, clock, fx);
}

/// A `reject` before the backend proved itself (a version refusal, or anyone on
/// the address): not terminal, since an impostor could send it, and its text is
/// not shown (an impostor's words do not belong in the popup); only its code.
fn unproven_reject(conn: &mut Conn, error: BridgeError, clock: Clock, fx: &mut Vec<Effect>) {
    fx.push(Effect::Log(format!(
        "refused before the backend proved itself: {error}"
    )));
    conn.refused_at = Some(clock.now_ms);
    // Only a version refusal comes before the proof from a real backend.
    let hint = if error.code == ErrorCode::ProtocolMismatch {
        format!(
            "if it is your backend, update the older of the two (protocol v{PROTOCOL_VERSION} here)"
        )
    } else {
        "a backend proves itself first, so it may be another program on that address".to_owned()
    };
    // An unknown code is the stranger's own text too.
    let code = match &error.code {
        ErrorCode::Unknown(_) => "an unknown code".to_owned(),
        known => known.to_string(),
    };
    let why = format!(
        "the program on {} refused the connection ({code}) before proving it knows \
         the pairing token: {hint}; retrying",
        conn.backend_url
    );
    settle(conn, Phase::Disconnected, why, true, clock, fx);
}

#[cfg(test)]
mod tests;
