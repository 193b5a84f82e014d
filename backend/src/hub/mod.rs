//! The extension hub: the connected extension and the request pool (PROTOCOL.md §2,
//! §3; docs/DESIGN.md "Backend").
//!
//! One owner task holds all state (connections, [`InFlight`], [`Waiting`]); callers
//! hold a cheap [`ExtensionHub`] handle and talk to it over a channel. Rules:
//! - every request gets exactly one answer: the extension's result or error,
//!   `timeout` past its deadline, or `not_connected`;
//! - a request arriving with no extension connected waits up to `connect_wait` for
//!   one, then answers `not_connected`;
//! - a request already sent when its socket drops (or is replaced by a newer
//!   connection with the same `clientId`) answers `not_connected` and is never re-sent;
//! - late or unknown responses are logged and dropped;
//! - a connection's outbound queue holds at most [`MAX_QUEUED_BYTES`] of encoded
//!   requests not yet written to its socket: a request that would go past it (the
//!   extension stopped reading) answers `not_connected` at once, never queued;
//! - an action without `tabId` goes to its client's current tab ([`clients`]);
//! - every connected browser stays connected (one connection per `clientId`);
//!   an action goes to the browser [`browsers`] chooses, and a browser that
//!   disconnects fails only its own requests.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use browser_bridge_protocol::event::SessionEnded;
use browser_bridge_protocol::{
    Action, ActionResult, BridgeError, ErrorCode, Event, Response, SessionEndReason, TabId,
    check_url_scheme,
};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use crate::bridge::Bridge;
use crate::events::{EventLog, EventRecord, MAX_EVENT_TEXT_BYTES, cut};
pub mod browsers;
pub mod clients;
pub mod several;
use crate::observe::Observer;
use crate::timing::Trace;
pub mod pool;
mod route;

use browsers::LastUsed;
use clients::{HTTP_CLIENT, Target, closed_while_running};
use pool::{Completion, ConnNo, InFlight, Waiting};
use several::Registries;

/// The answer a caller waits for.
pub type ActOutcome = Result<ActionResult, BridgeError>;

/// Encoded requests a connection may have queued and not yet written to its
/// socket (bytes): one largest frame (32 MiB, PROTOCOL.md §1). A request that would
/// go past it while others wait is answered `not_connected` at once, so a peer
/// that stops reading cannot make the backend hold unbounded memory.
pub const MAX_QUEUED_BYTES: usize = browser_bridge_protocol::MAX_MESSAGE_BYTES;

/// Live sessions listed in [`HubStatus::sessions`]; `sessionCount` has the total.
pub const STATUS_SESSIONS: usize = 50;

/// How the hub behaves.
#[derive(Debug, Clone)]
pub struct HubOptions {
    /// How long a request waits for an extension to connect before
    /// `not_connected` (default 5 s).
    pub connect_wait: Duration,
    /// Replaces every action's protocol deadline (`Action::deadline_ms`); for
    /// tests that must see a `timeout` without waiting 15 s. `None` in production.
    pub deadline_override: Option<Duration>,
    /// The config directory: `upload_file` never hands a file inside it (the
    /// pairing token, the audit log) to a page. `None`: no such directory.
    pub private_dir: Option<PathBuf>,
}

impl Default for HubOptions {
    fn default() -> Self {
        HubOptions {
            connect_wait: Duration::from_secs(5),
            deadline_override: None,
            private_dir: None,
        }
    }
}

/// What the hub knows about a connected extension (from its `hello`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionInfo {
    /// The browser's name, unique among those connected (PROTOCOL.md §5
    /// "Browsers"): its `hello.browserName`, made unique by the hub.
    pub name: String,
    /// Stable id of the extension install.
    pub client_id: String,
    /// The browser's version (`hello.browserVersion`), when sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_version: Option<String>,
    /// The browser's run (`hello.browserRunId`, §2), when sent: another one than
    /// last time means the browser restarted and its tabIds start over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_run_id: Option<String>,
    /// The extension's own version.
    pub extension_version: String,
    /// The protocol version it speaks.
    pub protocol_version: u32,
    /// `navigator.userAgent`, when sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// The `connectionId` sent in its `ack`.
    pub connection_id: String,
    /// When the handshake completed (ms since the Unix epoch).
    pub connected_at: u64,
}

/// A snapshot of the hub for `/v1/status`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HubStatus {
    /// The browser connected last, when one is connected.
    pub extension: Option<ExtensionInfo>,
    /// Every connected browser, oldest connection first.
    pub browsers: Vec<ExtensionInfo>,
    /// Requests sent and not answered yet.
    pub in_flight: usize,
    /// Requests waiting for an extension to connect.
    pub waiting: usize,
    /// Live sessions (from `session_started` / `session_ended` events), the first
    /// [`STATUS_SESSIONS`] by tab id.
    pub sessions: Vec<browser_bridge_protocol::event::SessionStarted>,
    /// How many live sessions there are in all.
    pub session_count: usize,
    /// The last 100 events, oldest first.
    pub events: Vec<EventRecord>,
}

/// A frame or instruction for a connection's socket task.
#[derive(Debug)]
pub(crate) enum Outbound {
    /// Send this encoded message as a text frame, then take its length off the
    /// connection's [`Attachment::queued`] bytes; marks go on the request's trace.
    Send(String, Trace),
    /// Close the socket with this code and reason, then stop.
    Close(u16, String),
}

/// A connection's side of the hub: how the hub reaches its socket task.
#[derive(Debug)]
pub(crate) struct Attachment {
    pub(crate) conn: ConnNo,
    pub(crate) info: ExtensionInfo,
    pub(crate) outbound: mpsc::UnboundedSender<Outbound>,
    /// Bytes of [`Outbound::Send`] frames queued and not yet written; the hub adds,
    /// the socket task subtracts. Bounded by [`MAX_QUEUED_BYTES`].
    pub(crate) queued: Arc<AtomicUsize>,
}

/// An action on its way to the extension, with whom to answer.
struct Job {
    client: Arc<str>,
    /// The call's `browser` (a name or a `clientId`), if any.
    browser: Option<Arc<str>>,
    action: Action,
    reply: oneshot::Sender<ActOutcome>,
    /// It already waited for its client's last-used browser to come back.
    waited: bool,
    /// The caller's timing marks ([`crate::timing`]).
    trace: Trace,
}

enum Command {
    Act(Job),
    /// A tab of the browser with this `clientId` closed (`session_ended`
    /// `tab_closed`): it leaves every client's stack there.
    TabClosed(String, TabId),
    Attach(Attachment),
    Detach {
        conn: ConnNo,
    },
    Response {
        conn: ConnNo,
        response: Response,
        /// When its frame was read off the socket (epoch ms, [`crate::timing`]).
        read_at: f64,
    },
    Status {
        reply: oneshot::Sender<HubStatus>,
    },
    CloseAll,
}

/// Handle to the hub's owner task; cheap to clone. Implements [`Bridge`].
#[derive(Debug, Clone)]
pub struct ExtensionHub {
    tx: mpsc::UnboundedSender<Command>,
    events: EventLog,
    /// [`HubOptions::private_dir`], resolved (symlinks followed).
    private_dir: Option<Arc<Path>>,
    /// The client this handle acts for ([`clients`]; [`HTTP_CLIENT`] unless
    /// [`Bridge::for_client`] chose another).
    client: Arc<str>,
    /// The browser this handle's actions go to ([`Bridge::for_browser`]);
    /// `None`: the hub chooses ([`browsers`]).
    browser: Option<Arc<str>>,
    /// Per-tab baselines of observed actions and `extract.since`.
    observer: Observer,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Command")
    }
}

impl ExtensionHub {
    /// Starts the owner task. Must be called inside a tokio runtime; the task ends
    /// when every handle (and every connection task) is gone.
    pub fn new(options: HubOptions, events: EventLog) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let private_dir = options
            .private_dir
            .as_deref()
            .map(|dir| Arc::from(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())));
        let observer = Observer::new();
        let owner = Owner {
            tx: tx.downgrade(),
            options,
            events: events.clone(),
            observer: observer.clone(),
            connections: Vec::new(),
            registries: Registries::default(),
            last_used: LastUsed::default(),
            in_flight: InFlight::new(),
            waiting: Waiting::new(),
            shutting_down: false,
        };
        tokio::spawn(owner.run(rx));
        ExtensionHub {
            tx,
            events,
            private_dir,
            client: Arc::from(HTTP_CLIENT),
            browser: None,
            observer,
        }
    }

    /// The event store this hub records into.
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// A snapshot of the connected extension, the pool and recent events.
    pub async fn status(&self) -> HubStatus {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Command::Status { reply }).is_ok()
            && let Ok(status) = rx.await
        {
            return status;
        }
        HubStatus {
            extension: None,
            browsers: Vec::new(),
            in_flight: 0,
            waiting: 0,
            sessions: Vec::new(),
            session_count: 0,
            events: Vec::new(),
        }
    }

    /// True when an extension is connected right now.
    pub async fn is_connected(&self) -> bool {
        self.status().await.extension.is_some()
    }

    /// Closes every extension socket with 1001 (going away: the extension reconnects
    /// later) and answers their in-flight requests and every request waiting for a
    /// connection with `not_connected`. Used on shutdown.
    pub fn close_all(&self) {
        let _ = self.tx.send(Command::CloseAll);
    }

    pub(crate) fn attach(&self, attachment: Attachment) {
        let _ = self.tx.send(Command::Attach(attachment));
    }

    pub(crate) fn detach(&self, conn: ConnNo) {
        let _ = self.tx.send(Command::Detach { conn });
    }

    pub(crate) fn respond(&self, conn: ConnNo, response: Response, read_at: f64) {
        let _ = self.tx.send(Command::Response {
            conn,
            response,
            read_at,
        });
    }

    /// Records an event of the extension `client_id` (PROTOCOL.md §11); a
    /// closed tab also leaves every client's tab stack.
    pub(crate) fn event(&self, client_id: &str, event: Event) {
        if let Event::SessionEnded(SessionEnded {
            tab_id,
            reason: SessionEndReason::TabClosed,
            ..
        }) = &event
        {
            let _ = self
                .tx
                .send(Command::TabClosed(client_id.to_owned(), *tab_id));
        }
        self.events.record(client_id, event);
    }
}

/// `invalid_action` when `path` (symlinks followed; as given when it cannot be
/// resolved) lies inside `dir`.
async fn refuse_private(path: &str, dir: &Path) -> Result<(), BridgeError> {
    let resolved = tokio::fs::canonicalize(path)
        .await
        .unwrap_or_else(|_| PathBuf::from(path));
    if resolved.starts_with(dir) {
        return Err(BridgeError::invalid_action(format!(
            "upload_file: {path:?} is inside browser-bridge's config directory, which \
             holds the pairing token; no file of it is handed to a page"
        )));
    }
    Ok(())
}

impl Bridge for ExtensionHub {
    /// Sends `action` to the extension and waits for its one answer. A `navigate` /
    /// `open_tab` URL outside §5's schemes (`javascript:`, `file:`, `data:`,
    /// `chrome:`, `about:` other than `about:blank`, …) answers `invalid_action`
    /// here and is never sent: the extension checks again, but a URL that could
    /// read local files or run script must not depend on one layer only.
    ///
    /// An `upload_file` path inside the config directory (symlinks followed)
    /// answers `invalid_action` and is never sent: a page must not be handed the
    /// pairing token. Both hold for each action of a `batch`.
    ///
    /// `observe` and `extract.since` are answered here, never sent
    /// ([`Observer`]): the hub extracts after an observed action and diffs.
    /// A `wait_for_download`'s file is read here for its size and SHA-256
    /// ([`crate::downloads::fill`]).
    async fn act(&self, action: Action) -> ActOutcome {
        self.observer
            .act(action, |action| self.forward(action))
            .await
    }

    /// The same hub acting for `client`: its actions without `tabId` go to that
    /// client's current tab (PROTOCOL.md §5 "Clients").
    fn for_client(&self, client: &str) -> Self {
        ExtensionHub {
            client: Arc::from(client),
            ..self.clone()
        }
    }

    /// The same hub sending to the browser named `browser` (a name or a
    /// `clientId`, PROTOCOL.md §5 "Browsers"); `None`: the hub chooses.
    fn for_browser(&self, browser: Option<&str>) -> Self {
        ExtensionHub {
            browser: browser.map(Arc::from),
            ..self.clone()
        }
    }
}

impl ExtensionHub {
    /// [`Bridge::act`] without the observation layer: one action (or batch) to
    /// the extension.
    async fn forward(&self, action: Action) -> ActOutcome {
        // A batch's parts are checked one by one, each error naming its index.
        let batched = matches!(action, Action::Batch(_));
        for (i, part) in action.parts().iter().enumerate() {
            let named = |e: BridgeError| match batched {
                true => BridgeError::new(e.code, format!("batch: actions[{i}]: {}", e.message)),
                false => e,
            };
            if let Some(url) = part.url() {
                check_url_scheme(url).map_err(named)?;
            }
            if let (Action::UploadFile(upload), Some(dir)) = (part, &self.private_dir) {
                for path in &upload.paths {
                    refuse_private(path, dir).await.map_err(named)?;
                }
            }
        }
        let (reply, rx) = oneshot::channel();
        let client = self.client.clone();
        self.tx
            .send(Command::Act(Job {
                client,
                browser: self.browser.clone(),
                action,
                reply,
                waited: false,
                trace: Trace::current(),
            }))
            .map_err(|_| BridgeError::internal("the backend's extension hub has stopped"))?;
        let mut outcome = rx.await.unwrap_or_else(|_| {
            Err(BridgeError::internal(
                "the backend's extension hub dropped the request",
            ))
        });
        if let Ok(result) = &mut outcome {
            crate::downloads::fill(result).await;
        }
        outcome
    }
}

/// The extension's `hello` fields as shown in status: free text cut to
/// [`MAX_EVENT_TEXT_BYTES`] so `/v1/status` stays small.
fn capped_info(info: &ExtensionInfo) -> ExtensionInfo {
    ExtensionInfo {
        client_id: cut(&info.client_id, MAX_EVENT_TEXT_BYTES),
        extension_version: cut(&info.extension_version, MAX_EVENT_TEXT_BYTES),
        browser_version: info
            .browser_version
            .as_deref()
            .map(|v| cut(v, MAX_EVENT_TEXT_BYTES)),
        user_agent: info
            .user_agent
            .as_deref()
            .map(|ua| cut(ua, MAX_EVENT_TEXT_BYTES)),
        ..info.clone()
    }
}

/// What the pool remembers about a request until it is answered.
struct Pending {
    reply: oneshot::Sender<ActOutcome>,
    action: &'static str,
    timeout_ms: u64,
    client: Arc<str>,
    /// The `clientId` of the browser it was sent to.
    browser: String,
    target: Target,
    /// The client that sent `close_tab` for this request's tab while it ran.
    closed_by: Option<Arc<str>>,
    trace: Trace,
}

impl Pending {
    fn answer(self, outcome: ActOutcome) {
        // The caller may have gone away (HTTP client hung up); nothing to do then.
        let _ = self.reply.send(outcome);
    }
}

struct Owner {
    /// Its own queue, for the second step of [`Route::OpenTabFirst`]; weak, so
    /// the task still ends when every handle is gone.
    tx: mpsc::WeakUnboundedSender<Command>,
    options: HubOptions,
    events: EventLog,
    /// The handles' baselines, forgotten when a browser restarts.
    observer: Observer,
    /// Authenticated connections (one per browser), oldest first.
    connections: Vec<Attachment>,
    /// Per browser: every client's current tab there, and the tabs it knows.
    registries: Registries,
    /// Each client's last-used browser.
    last_used: LastUsed,
    in_flight: InFlight<Pending>,
    /// Requests that came while no browser was connected, not yet routed.
    waiting: Waiting<Job>,
    /// Set by `CloseAll`: later requests get [`shutting_down_error`] at once.
    shutting_down: bool,
}

fn not_connected_error() -> BridgeError {
    BridgeError::new(
        ErrorCode::NotConnected,
        "no browser extension is connected: open the browser and check the extension's pairing \
         (`browser-bridge pair`); after a backend restart the extension reconnects within \
         about 30 s (its retry backoff), so retrying shortly may work",
    )
}

/// For requests cut off by [`ExtensionHub::close_all`] (SIGTERM, Ctrl-C).
fn shutting_down_error() -> BridgeError {
    BridgeError::new(
        ErrorCode::NotConnected,
        "the browser-bridge backend is shutting down; the action was not retried (it may or \
         may not have run): start `browser-bridge serve` again, then decide whether to repeat it",
    )
}

fn not_reading_error(queued: usize) -> BridgeError {
    BridgeError::new(
        ErrorCode::NotConnected,
        format!(
            "the browser extension is not reading its socket ({queued} bytes of requests \
             already wait for it); the action was not sent: check the browser, then retry"
        ),
    )
}

fn dropped_error() -> BridgeError {
    BridgeError::new(
        ErrorCode::NotConnected,
        "the browser extension disconnected before answering; the action was not retried \
         (it may or may not have run): check the browser, then decide whether to repeat it",
    )
}

impl Owner {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Command>) {
        loop {
            let next = [self.in_flight.next_deadline(), self.waiting.next_deadline()]
                .into_iter()
                .flatten()
                .min();
            let command = match next {
                Some(at) => tokio::select! {
                    command = rx.recv() => command,
                    () = tokio::time::sleep_until(at.into()) => {
                        self.expire(Instant::now());
                        continue;
                    }
                },
                None => rx.recv().await,
            };
            let Some(command) = command else { break };
            self.handle(command);
        }
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Act(job) => self.act(job),
            Command::TabClosed(browser, tab) => self.registries.closed(&browser, tab),
            Command::Attach(attachment) => self.attach(attachment),
            Command::Detach { conn } => self.detach(conn),
            Command::Response {
                conn,
                response,
                read_at,
            } => self.response(conn, response, read_at),
            Command::CloseAll => {
                self.shutting_down = true;
                for conn in std::mem::take(&mut self.connections) {
                    let _ = conn
                        .outbound
                        .send(Outbound::Close(1001, "backend shutting down".into()));
                    self.fail_connection(conn.conn, shutting_down_error);
                }
                for job in self.waiting.take_all() {
                    let _ = job.reply.send(Err(shutting_down_error()));
                }
                self.events.clear_sessions();
            }
            Command::Status { reply } => {
                let (sessions, session_count) = self.events.sessions_page(STATUS_SESSIONS);
                let _ = reply.send(HubStatus {
                    extension: self.connections.last().map(|c| capped_info(&c.info)),
                    browsers: self
                        .connections
                        .iter()
                        .map(|c| capped_info(&c.info))
                        .collect(),
                    in_flight: self.in_flight.len(),
                    waiting: self.waiting.len(),
                    sessions,
                    session_count,
                    events: self.events.recent(),
                });
            }
        }
    }

    fn attach(&mut self, attachment: Attachment) {
        let client_id = attachment.info.client_id.clone();
        tracing::info!(
            client_id = %client_id,
            version = %attachment.info.extension_version,
            conn = attachment.conn,
            "extension connected"
        );
        let (replaced, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.connections)
            .into_iter()
            .partition(|c| c.info.client_id == client_id);
        self.connections = kept;
        let mut attachment = attachment;
        let taken: Vec<&str> = self
            .connections
            .iter()
            .map(|c| c.info.name.as_str())
            .collect();
        let wanted = Some(attachment.info.name.as_str()).filter(|n| !n.is_empty());
        attachment.info.name = browsers::unique_name(wanted, &client_id, &taken);
        let live: Vec<&str> = self
            .connections
            .iter()
            .map(|c| c.info.client_id.as_str())
            .collect();
        let run = attachment.info.browser_run_id.as_deref();
        if self
            .registries
            .started(&client_id, run, &live, !replaced.is_empty())
        {
            tracing::info!(client_id = %client_id, "the browser restarted: its clients' tabs are forgotten");
            // A new run has no sessions, and its tabIds may be the last run's
            // numbers: nothing known of those tabs holds. (Baselines are kept by
            // tabId alone, so every browser's go: a full extract comes next.)
            self.events.clear_sessions_of(&client_id);
            self.observer.forget_all();
        }
        for old in replaced {
            tracing::info!(client_id = %client_id, conn = old.conn, "connection replaced by a newer one");
            let _ = old.outbound.send(Outbound::Close(
                1000,
                "replaced by a newer connection with the same clientId".into(),
            ));
            self.fail_connection(old.conn, dropped_error);
        }
        self.connections.push(attachment);
        for job in self.waiting.take_all() {
            self.act(job);
        }
    }

    fn detach(&mut self, conn: ConnNo) {
        if let Some(at) = self.connections.iter().position(|c| c.conn == conn) {
            let gone = self.connections.remove(at);
            tracing::info!(conn, name = %gone.info.name, "extension disconnected");
            let browser = &gone.info.client_id;
            if !self
                .connections
                .iter()
                .any(|c| c.info.client_id == *browser)
            {
                self.events.clear_sessions_of(browser);
            }
        }
        self.fail_connection(conn, dropped_error);
    }

    /// Answers the requests in flight on `conn` with `error()`.
    fn fail_connection(&mut self, conn: ConnNo, error: fn() -> BridgeError) {
        for (id, pending) in self.in_flight.drop_connection(conn) {
            tracing::warn!(%id, action = pending.action, conn, "request lost with its connection");
            pending.answer(Err(error()));
        }
    }

    fn response(&mut self, conn: ConnNo, response: Response, read_at: f64) {
        match self.in_flight.complete(&response.id, conn) {
            Completion::Answered(pending) => {
                pending.trace.mark_at("ws_read", read_at);
                pending.trace.mark("owner_resp");
                let mut outcome = match response.outcome {
                    Ok(result) if result.action_name() != pending.action => {
                        Err(BridgeError::internal(format!(
                            "the extension answered a `{}` request with a `{}` result",
                            pending.action,
                            result.action_name()
                        )))
                    }
                    other => other,
                };
                if let (
                    Err(error),
                    Some(closer),
                    Target::Named(tab) | Target::Current(tab) | Target::Resolved(tab),
                ) = (&mut outcome, &pending.closed_by, pending.target)
                {
                    let own = *closer == pending.client;
                    *error = closed_while_running(error.clone(), pending.action, tab, closer, own);
                }
                let name = self
                    .connections
                    .iter()
                    .find(|c| c.conn == conn)
                    .map(|c| c.info.name.clone());
                let connected = match &outcome {
                    Ok(ActionResult::ListTabs(_)) => self.browser_list(),
                    _ => Vec::new(),
                };
                self.registries.answered(
                    &pending.browser,
                    name,
                    connected,
                    &pending.client,
                    pending.target,
                    &mut outcome,
                );
                pending.answer(outcome);
            }
            Completion::NotInFlight => {
                tracing::warn!(id = %response.id, conn, "response not in flight (late or unknown): dropped");
            }
            Completion::WrongConnection => {
                tracing::warn!(id = %response.id, conn, "response for a request sent on another connection: dropped");
            }
        }
    }

    /// The connected browsers, as `list_tabs` lists them.
    fn browser_list(&self) -> Vec<browser_bridge_protocol::browser::BrowserInfo> {
        self.connections
            .iter()
            .map(|c| browser_bridge_protocol::browser::BrowserInfo {
                name: c.info.name.clone(),
                client_id: cut(&c.info.client_id, MAX_EVENT_TEXT_BYTES),
                browser_version: c.info.browser_version.clone(),
                connected_at: c.info.connected_at,
            })
            .collect()
    }

    fn expire(&mut self, now: Instant) {
        for (id, pending) in self.in_flight.expire(now) {
            tracing::warn!(%id, action = pending.action, "request timed out");
            let message = format!(
                "{} got no answer within {} ms; retry only together with wait_for when the page is slow",
                pending.action, pending.timeout_ms
            );
            pending.answer(Err(BridgeError::new(ErrorCode::Timeout, message)));
        }
        for job in self.waiting.expire(now) {
            if job.waited && !self.connections.is_empty() {
                // Its last-used browser did not come back: the other rules.
                self.act(job);
                continue;
            }
            let _ = job.reply.send(Err(not_connected_error()));
        }
    }
}
