//! The hub's owner task, routing half (PROTOCOL.md §5 "Browsers", "Clients"):
//! an action's browser chosen ([`super::browsers`]), its client's tab there
//! filled in ([`super::clients`]), `list_tabs` asked of every browser, the
//! `open_tab` before a tab-less client's `navigate`, and the frame queued on
//! its browser's connection. Connections, answers and deadlines are the other
//! half, in `hub/mod.rs`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use browser_bridge_protocol::{Action, ActionResult, BridgeError, Message, Request, RequestId};
use tokio::sync::{mpsc, oneshot};

use crate::timing::Trace;

use super::browsers::{self, Choice, Known};
use super::clients::{Route, Target};
use super::pool::Completion;
use super::{
    Command, Job, MAX_QUEUED_BYTES, Outbound, Owner, Pending, dropped_error, not_connected_error,
    not_reading_error, several, shutting_down_error,
};

impl Owner {
    /// Routes and sends one action (or makes it wait, or answers it).
    pub(super) fn act(&mut self, job: Job) {
        job.trace.mark("owner");
        if self.shutting_down {
            let _ = job.reply.send(Err(shutting_down_error()));
            return;
        }
        self.prune_closed();
        if let Some(job) = self.wait_for_last_used(job) {
            self.choose_and_act(job);
        }
    }

    /// An action without `browser` whose client's last-used browser is not
    /// connected while others are (its worker restarting, say) waits up to
    /// `connect_wait` for it, once, rather than going to another browser at
    /// once; gives the job back when it does not wait.
    fn wait_for_last_used(&mut self, mut job: Job) -> Option<Job> {
        let gone = self
            .last_used
            .get(&job.client)
            .is_some_and(|browser| !self.connections.iter().any(|c| c.info.client_id == browser));
        if job.waited
            || job.browser.is_some()
            || !gone
            || self.connections.is_empty()
            || self.options.connect_wait.is_zero()
            || matches!(job.action, Action::ListTabs(_))
        {
            return Some(job);
        }
        job.waited = true;
        self.waiting
            .push(Instant::now() + self.options.connect_wait, job);
        None
    }

    fn choose_and_act(&mut self, job: Job) {
        let known: Vec<Known<'_>> = self
            .connections
            .iter()
            .map(|c| Known {
                name: &c.info.name,
                client_id: &c.info.client_id,
            })
            .collect();
        let choice = browsers::choose(
            &known,
            job.browser.as_deref(),
            job.action.name(),
            job.action.tab_id(),
            |i, tab| {
                let browser = &self.connections[i].info.client_id;
                self.registries.knows(browser, tab)
                    || self
                        .events
                        .sessions_of(browser)
                        .iter()
                        .any(|s| s.tab_id == tab)
            },
            self.last_used.get(&job.client),
        );
        match choice {
            Choice::One(i) => self.act_on(i, job),
            Choice::All => self.list_everywhere(job),
            Choice::Refuse(error) => {
                let _ = job.reply.send(Err(error));
            }
            Choice::Wait if self.options.connect_wait.is_zero() => {
                let _ = job.reply.send(Err(not_connected_error()));
            }
            Choice::Wait => self
                .waiting
                .push(Instant::now() + self.options.connect_wait, job),
        }
    }

    /// Drops the connections whose socket task ended (their `Detach` is on its
    /// way), answering their requests, so no action is routed to them.
    fn prune_closed(&mut self) {
        let (gone, live): (Vec<_>, Vec<_>) = std::mem::take(&mut self.connections)
            .into_iter()
            .partition(|c| c.outbound.is_closed());
        self.connections = live;
        for conn in gone {
            self.fail_connection(conn.conn, dropped_error);
        }
    }

    /// `job` in the browser at `i` of [`Owner::connections`]: its client's tab
    /// there filled in ([`clients`]), then sent.
    fn act_on(&mut self, i: usize, mut job: Job) {
        let browser = self.connections[i].info.client_id.clone();
        if !matches!(job.action, Action::ListTabs(_)) {
            self.last_used.used(&job.client, &browser);
        }
        let events = &self.events;
        let sessions = || {
            events
                .sessions_of(&browser)
                .into_iter()
                .map(|s| (s.tab_id, s.agent_window))
                .collect()
        };
        let live: Vec<&str> = self
            .connections
            .iter()
            .map(|c| c.info.client_id.as_str())
            .collect();
        let clients = self.registries.of(&browser, &live);
        match clients.target(&job.client, &mut job.action, sessions) {
            Route::Send(target) => self.send(i, job, target),
            Route::Refuse(error) => {
                let _ = job.reply.send(Err(error));
            }
            Route::OpenTabFirst => {
                // Both steps in this browser.
                job.browser = Some(Arc::from(browser.as_str()));
                self.open_tab_first(job);
            }
        }
    }

    /// `list_tabs` without `browser` while several browsers are connected: one
    /// `list_tabs` to each, answered with every tab, each with its `browser`.
    fn list_everywhere(&mut self, job: Job) {
        let mut answers = Vec::new();
        for conn in &self.connections {
            answers.push((conn.info.name.clone(), conn.info.client_id.clone()));
        }
        let answers: Vec<_> = answers
            .into_iter()
            .map(|(name, client_id)| {
                let (reply, rx) = oneshot::channel();
                self.act(Job {
                    client: job.client.clone(),
                    browser: Some(Arc::from(client_id.as_str())),
                    action: job.action.clone(),
                    reply,
                    waited: true,
                    trace: Trace::default(),
                });
                (name, rx)
            })
            .collect();
        tokio::spawn(several::merge_lists(answers, job.reply));
    }

    /// [`Route::OpenTabFirst`]: an `open_tab` `about:blank` in the agent window
    /// for `job`'s client (its answer makes the tab the client's current tab),
    /// then `job`'s `navigate` with that `tabId`, as a request of its own. An
    /// `open_tab` error answers the `navigate`.
    fn open_tab_first(&mut self, job: Job) {
        let Job {
            client,
            browser,
            mut action,
            reply,
            trace,
            ..
        } = job;
        let (opened, answer) = oneshot::channel();
        let open = Action::OpenTab(browser_bridge_protocol::action::OpenTab {
            url: "about:blank".into(),
            focus: None,
        });
        self.act(Job {
            client: client.clone(),
            browser: browser.clone(),
            action: open,
            reply: opened,
            waited: true,
            trace: Trace::default(),
        });
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let tab = match answer.await {
                Ok(Ok(ActionResult::OpenTab(tab))) => tab.tab_id,
                Ok(Err(error)) => {
                    let _ = reply.send(Err(BridgeError::new(
                        error.code,
                        format!("navigate: opening a tab for this client: {}", error.message),
                    )));
                    return;
                }
                Ok(Ok(_)) | Err(_) => {
                    let _ = reply.send(Err(BridgeError::internal(
                        "navigate: the backend's extension hub dropped the open_tab before it",
                    )));
                    return;
                }
            };
            if let Some(slot) = action.tab_id_mut() {
                *slot = Some(tab);
            }
            let job = Job {
                client,
                browser,
                action,
                reply,
                waited: true,
                trace,
            };
            if let Some(tx) = tx.upgrade()
                && let Err(mpsc::error::SendError(Command::Act(job))) = tx.send(Command::Act(job))
            {
                let _ = job.reply.send(Err(BridgeError::internal(
                    "the backend's extension hub has stopped",
                )));
            }
        });
    }

    /// Sends on the connection at `i` of [`Owner::connections`].
    fn send(&mut self, i: usize, job: Job, target: Target) {
        {
            let conn = &self.connections[i];
            let browser = conn.info.client_id.clone();
            let Job {
                client,
                action,
                reply,
                trace,
                ..
            } = job;
            let timeout = self
                .options
                .deadline_override
                .unwrap_or_else(|| Duration::from_millis(action.deadline_ms()));
            let timeout_ms = timeout.as_millis() as u64;
            let id = RequestId(uuid::Uuid::new_v4().to_string());
            let name = action.name();
            if let Action::CloseTab(close) = &action {
                for other in self.in_flight.payloads_mut() {
                    if let Target::Named(tab) | Target::Current(tab) | Target::Resolved(tab) =
                        other.target
                        && tab == close.tab_id
                        && other.browser == browser
                    {
                        other.closed_by = Some(client.clone());
                    }
                }
            }
            // The extension opens this client's new tabs in its own window (§3, §10).
            let client_name = client.to_string();
            let pending = Pending {
                reply,
                action: name,
                timeout_ms,
                client,
                browser,
                target,
                closed_by: None,
                trace: trace.clone(),
            };
            let conn_no = conn.conn;
            let text = Message::Request(Request {
                id: id.clone(),
                action,
                timeout_ms,
                client: Some(client_name),
            })
            .encode();
            let queued = conn.queued.load(Ordering::Acquire);
            if queued > 0 && queued + text.len() > MAX_QUEUED_BYTES {
                tracing::warn!(
                    conn = conn_no,
                    queued,
                    action = name,
                    "extension not reading: request refused"
                );
                pending.answer(Err(not_reading_error(queued)));
                return;
            }
            conn.queued.fetch_add(text.len(), Ordering::AcqRel);
            self.in_flight
                .insert(id.clone(), conn_no, Instant::now() + timeout, pending);
            tracing::debug!(%id, action = name, conn = conn_no, "request sent");
            trace.mark("encoded");
            if conn.outbound.send(Outbound::Send(text, trace)).is_err() {
                // The socket task ended between the check and the send.
                if let Completion::Answered(p) = self.in_flight.complete(&id, conn_no) {
                    p.answer(Err(dropped_error()));
                }
            }
        }
    }
}
