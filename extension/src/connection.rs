//! The WebSocket to the backend (PROTOCOL.md §2–§3): performs what the pure
//! machine in [`crate::core::connection`] decides — reads the settings, opens and
//! closes the socket, sends frames, arms timers, stores a fatal reject — and feeds
//! it what happens. `chrome.alarms` wakes the worker every 30 s and
//! [`Connection::ensure`] reconnects if needed.

use std::cell::RefCell;
use std::rc::Rc;

use browser_bridge_protocol::{Request, auth};
use gloo_timers::future::TimeoutFuture;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

use crate::chrome;
use crate::core::connection::{Clock, Conn, Effect, Input, Status, step};
use crate::core::settings::{BROWSER_RUN_ID_KEY, ConnectionSettings, keys};
use crate::outbox::Outbox;

/// A socket and the callbacks it holds.
struct Socket {
    ws: WebSocket,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl Socket {
    /// Unhooks and closes the socket now, drops it later: never inside one of its
    /// own callbacks, which wasm-bindgen refuses ("closure invoked recursively or
    /// after being dropped").
    fn retire(self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
        spawn_local(async move { drop(self) });
    }
}

struct Inner {
    /// `None` only while [`step`] runs.
    state: RefCell<Option<Conn>>,
    socket: RefCell<Option<Socket>>,
    on_request: Box<dyn Fn(Request)>,
}

/// The connection: a cheap handle (clones share it).
#[derive(Clone)]
pub struct Connection {
    inner: Rc<Inner>,
}

impl Connection {
    /// A disconnected connection that drains `outbox` and hands each request to
    /// `on_request`.
    pub fn new(outbox: &Outbox, on_request: impl Fn(Request) + 'static) -> Connection {
        let conn = Conn::new(chrome::extension_version(), chrome::user_agent()).with_default_name(
            crate::core::browser::default_name(&chrome::user_agent_brands()),
        );
        let connection = Connection {
            inner: Rc::new(Inner {
                state: RefCell::new(Some(conn)),
                socket: RefCell::new(None),
                on_request: Box::new(on_request),
            }),
        };
        let sink = connection.clone();
        outbox.set_sink(move |outgoing| sink.feed(Input::Outgoing(outgoing)));
        connection
    }

    /// Connects unless a connection is up, opening, or fatally refused (worker
    /// start, browser start, every keep-alive alarm).
    pub fn ensure(&self) {
        self.feed(Input::Ensure);
    }

    /// Drops the current socket and connects again with fresh settings (a change
    /// of `backendUrl` / `pairingToken`: also leaves a fatal state).
    pub fn reconnect(&self) {
        self.feed(Input::Reconnect);
    }

    /// The popup's view.
    pub fn status(&self) -> Option<Status> {
        self.inner.state.borrow().as_ref().map(Conn::status)
    }

    /// Feeds one input to the machine, then performs its effects in order.
    fn feed(&self, input: Input) {
        let Some(state) = self.inner.state.borrow_mut().take() else {
            return chrome::log("connection input while the machine runs: dropped");
        };
        let clock = Clock {
            now_ms: chrome::now_ms(),
            random: js_sys::Math::random(),
        };
        let (state, effects) = step(state, input, clock);
        *self.inner.state.borrow_mut() = Some(state);
        for effect in effects {
            self.perform(effect);
        }
    }

    fn perform(&self, effect: Effect) {
        match effect {
            Effect::LoadSettings { generation } => {
                let this = self.clone();
                spawn_local(async move {
                    let input = load_settings(generation).await;
                    this.feed(input);
                });
            }
            Effect::Open { generation, url } => self.open(generation, &url),
            Effect::Close => {
                let socket = self.inner.socket.borrow_mut().take();
                if let Some(socket) = socket {
                    socket.retire();
                }
            }
            Effect::Send(text) => {
                if let Some(socket) = &*self.inner.socket.borrow()
                    && let Err(e) = socket.ws.send_with_str(&text)
                {
                    chrome::log(&format!("send failed: {}", chrome::js_error_message(&e)));
                }
            }
            Effect::Timer { ms, input } => {
                let this = self.clone();
                spawn_local(async move {
                    TimeoutFuture::new(ms).await;
                    this.feed(input);
                });
            }
            Effect::StoreFatal { code, message } => spawn_local(async move {
                let fatal = json!({ keys::FATAL_ERROR: { "code": code, "message": message } });
                let _ = chrome::storage_set(&fatal).await;
            }),
            Effect::Dispatch(request) => (self.inner.on_request)(request),
            Effect::Log(line) => chrome::log(&line),
        }
    }

    /// Opens the socket of attempt `generation`; its callbacks feed the machine.
    fn open(&self, generation: u32, url: &str) {
        let ws = match WebSocket::new(url) {
            Ok(ws) => ws,
            Err(e) => {
                let error = chrome::js_error_message(&e);
                return self.feed(Input::SocketFailed { generation, error });
            }
        };
        let this = self.clone();
        let on_open = Closure::<dyn FnMut()>::new(move || this.feed(Input::Opened { generation }));
        let this = self.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            crate::timing::frame_arrived();
            this.feed(match event.data().as_string() {
                Some(text) => Input::Text { generation, text },
                None => Input::Binary { generation },
            });
        });
        let this = self.clone();
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |event: CloseEvent| {
            this.feed(Input::Closed {
                generation,
                code: event.code(),
                reason: event.reason(),
            });
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let previous = self.inner.socket.borrow_mut().replace(Socket {
            ws,
            _on_open: on_open,
            _on_message: on_message,
            _on_close: on_close,
        });
        if let Some(previous) = previous {
            previous.retire();
        }
    }
}

/// Reads the settings of attempt `generation`, with a fresh `N_E` (a CSPRNG,
/// §2) and the `clientId` (made and stored on first run).
async fn load_settings(generation: u32) -> Input {
    let nonce = auth::encode_nonce(&chrome::random_bytes());
    let settings = match chrome::storage_get(&ConnectionSettings::KEYS).await {
        Ok(stored) => ConnectionSettings::from_storage(&stored),
        Err(e) => {
            return Input::Settings {
                generation,
                settings: Err(e.to_string()),
                nonce,
                client_id: String::new(),
                browser_run_id: None,
            };
        }
    };
    let client_id = match &settings.client_id {
        Some(id) => id.clone(),
        None => {
            let id = made(keys::CLIENT_ID);
            let _ = chrome::storage_set(&json!({ keys::CLIENT_ID: id })).await;
            id
        }
    };
    Input::Settings {
        generation,
        settings: Ok(settings),
        nonce,
        client_id,
        browser_run_id: browser_run_id().await,
    }
}

/// `hello.browserRunId` (§2): made once per browser process and kept in
/// `chrome.storage.session`, which outlives worker restarts (not the browser,
/// nor the extension's reload or update). `None` when that storage fails (the
/// backend then keeps its tabs as before).
async fn browser_run_id() -> Option<String> {
    let stored = chrome::session_storage_get(&[BROWSER_RUN_ID_KEY])
        .await
        .ok()?;
    if let Some(run) = stored.get(BROWSER_RUN_ID_KEY).and_then(|v| v.as_str()) {
        return Some(run.to_owned());
    }
    let run = made(BROWSER_RUN_ID_KEY);
    chrome::session_storage_set(&json!({ BROWSER_RUN_ID_KEY: run }))
        .await
        .ok()?;
    Some(run)
}

thread_local! {
    /// The UUID this worker made for each stored id ([`made`]).
    static MADE: RefCell<Vec<(&'static str, String)>> = const { RefCell::new(Vec::new()) };
}

/// The UUID this worker stores under `key` when storage has none: one per key
/// and worker, so two connection attempts that both read before either wrote
/// store and send the same id.
fn made(key: &'static str) -> String {
    MADE.with(|made| {
        let mut made = made.borrow_mut();
        if let Some((_, id)) = made.iter().find(|(k, _)| *k == key) {
            return id.clone();
        }
        let id = chrome::random_uuid();
        made.push((key, id.clone()));
        id
    })
}
