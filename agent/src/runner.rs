//! The ReAct loop: send the conversation, execute the tool calls through the
//! [`Bridge`] (or, for `mcp__…` tools, the [`McpHost`]), feed back compact
//! observations, reflect after failures, and stop on a `STATUS:` line or a
//! guardrail. Generic over the bridge and the model, so the tests drive it with a
//! fake extension and a scripted model server. A chat turn ([`chat_turn`]) is
//! the same loop on a kept conversation, ended by a reply without tool calls.

use std::time::{Duration, Instant};

use browser_bridge_protocol::handoff::HandoffOutcome;
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode};
use serde_json::{Value, json};
use tokio::time::timeout_at;

use crate::conversation::{self, Conversation, Turn};
use crate::guard::{
    CHECK_ACTION, CheckLedger, LoopDetector, ReflectionBudget, RepeatGuard, Status, check_target,
    fingerprint, parse_status,
};
use crate::handoff;
use crate::llm::{Model, ToolSpec, Usage};
use crate::mcp::McpHost;
use crate::observe::{self, Observation, Terminal};
use crate::report::{AgentEvent, FinalReport, Progress, StopReason};
use browser_bridge_backend::bridge::Bridge;
use browser_bridge_backend::tool;

/// Default `--max-steps`.
pub const DEFAULT_MAX_STEPS: u32 = 25;

/// Default `--timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// How often a reply without tool calls and without a status line is answered
/// with a nudge before the run ends as `no_status`.
pub const MAX_NUDGES: u32 = 1;

/// One task.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// What to do, in the user's words.
    pub task: String,
    /// Navigate here first and show the model the page.
    pub url: Option<String>,
    /// Most model calls.
    pub max_steps: u32,
    /// Longest wall time of the whole run.
    pub timeout: Duration,
    /// Actions that take `observe` observe unless the model says otherwise
    /// (default true; `run --no-observe` turns it off).
    pub observe: bool,
    /// `run --handoff`: on an obstacle `high`, hand the tab to the person for
    /// this long (at most ten minutes) and go on when they are done; `None`:
    /// stop there. The person's time does not count against `timeout`.
    pub handoff: Option<Duration>,
    /// Lessons from earlier runs ([`crate::memory::lessons_text`]), added to
    /// the first user message (a chat: of a new conversation).
    pub lessons: Option<String>,
}

impl RunOptions {
    /// `task` with the default limits and no start URL.
    pub fn new(task: impl Into<String>) -> Self {
        RunOptions {
            task: task.into(),
            url: None,
            max_steps: DEFAULT_MAX_STEPS,
            timeout: DEFAULT_TIMEOUT,
            observe: true,
            handoff: None,
            lessons: None,
        }
    }
}

/// Runs one task to its end with the `browser` tool alone and returns the final
/// report (also sent as the last event to `progress`).
pub async fn run_task<B: Bridge, M: Model>(
    bridge: &B,
    model: &M,
    options: &RunOptions,
    progress: &mut impl Progress,
) -> FinalReport {
    run_task_with(bridge, model, &mut McpHost::default(), options, progress).await
}

/// [`run_task`] with the tools of `mcp`'s servers offered beside `browser`.
pub async fn run_task_with<B: Bridge, M: Model>(
    bridge: &B,
    model: &M,
    mcp: &mut McpHost,
    options: &RunOptions,
    progress: &mut impl Progress,
) -> FinalReport {
    let mut run = Run::new(bridge, mcp, progress, options);
    let stop = run.drive(model, options).await;
    let report = run.finish(stop);
    run.progress.event(&AgentEvent::Final(report.clone()));
    report
}

/// One turn of a chat: `text` is added to `conversation` (a new one, started
/// with the tabs under control, when it is `None`), then the loop runs until
/// the model replies without a tool call (`answered`) or a guardrail stops it;
/// the conversation keeps every turn for the next. `options.task` is unused.
pub async fn chat_turn<B: Bridge, M: Model>(
    bridge: &B,
    model: &M,
    mcp: &mut McpHost,
    conversation: &mut Option<Conversation>,
    text: &str,
    options: &RunOptions,
    progress: &mut impl Progress,
) -> FinalReport {
    let mut run = Run::new(bridge, mcp, progress, options);
    let stop = match conversation {
        Some(conversation) => {
            conversation.push(Turn::User(text.to_owned()));
            run.converse(model, conversation, options.max_steps, true)
                .await
        }
        None => match run.prelude(None).await {
            Err(stop) => stop,
            Ok(context) => {
                let started = conversation.insert(Conversation::chat(text, context.as_deref()));
                add_lessons(started, options.lessons.as_deref());
                run.converse(model, started, options.max_steps, true).await
            }
        },
    };
    if let Some(conversation) = conversation {
        conversation.close_open_calls(TURN_CUT_SHORT);
    }
    let report = run.finish(stop);
    run.progress.event(&AgentEvent::Final(report.clone()));
    report
}

/// Appends `lessons` to the first user message: after the task and the
/// page, so that the model reads where it is before what happened elsewhere.
fn add_lessons(conversation: &mut Conversation, lessons: Option<&str>) {
    if let (Some(lessons), Some(Turn::User(first))) = (lessons, conversation.turns.first_mut()) {
        first.push_str("\n\n");
        first.push_str(lessons);
    }
}

/// The result of a call a chat turn never finished (the turn stopped first).
const TURN_CUT_SHORT: &str = "not run: the turn stopped before this call";

/// How a run ends: the reason and the answer to print.
type Stop = (StopReason, String);

struct Run<'a, B, P> {
    bridge: &'a B,
    mcp: &'a mut McpHost,
    progress: &'a mut P,
    started: Instant,
    deadline: tokio::time::Instant,
    timeout: Duration,
    observe: bool,
    handoff: Option<Duration>,
    handoffs: u32,
    steps: u32,
    actions: u32,
    usage: Usage,
    repeats: RepeatGuard,
    loops: LoopDetector,
    budget: ReflectionBudget,
    checks: CheckLedger,
    last_text: String,
}

impl<'a, B: Bridge, P: Progress> Run<'a, B, P> {
    fn new(bridge: &'a B, mcp: &'a mut McpHost, progress: &'a mut P, options: &RunOptions) -> Self {
        Run {
            bridge,
            mcp,
            progress,
            started: Instant::now(),
            deadline: tokio::time::Instant::now() + options.timeout,
            timeout: options.timeout,
            observe: options.observe,
            handoff: options.handoff,
            handoffs: 0,
            steps: 0,
            actions: 0,
            usage: Usage::default(),
            repeats: RepeatGuard::default(),
            loops: LoopDetector::default(),
            budget: ReflectionBudget::default(),
            checks: CheckLedger::default(),
            last_text: String::new(),
        }
    }

    async fn drive<M: Model>(&mut self, model: &M, options: &RunOptions) -> Stop {
        let context = match self.prelude(options.url.as_deref()).await {
            Ok(context) => context,
            Err(stop) => return stop,
        };
        let mut conversation = Conversation::new(&options.task, context.as_deref());
        add_lessons(&mut conversation, options.lessons.as_deref());
        self.converse(model, &mut conversation, options.max_steps, false)
            .await
    }

    /// The loop on `conversation`: at most `max_steps` model calls. In a chat
    /// (`chat`), a reply without tool calls is the turn's answer; in a task it
    /// must end with a `STATUS:` line.
    async fn converse<M: Model>(
        &mut self,
        model: &M,
        conversation: &mut Conversation,
        max_steps: u32,
        chat: bool,
    ) -> Stop {
        let mut nudges = 0;
        loop {
            if self.steps >= max_steps {
                return (StopReason::MaxSteps(self.steps), self.last_text.clone());
            }
            self.steps += 1;
            let step = self.steps;
            self.progress.event(&AgentEvent::StepStarted {
                step,
                elapsed_ms: elapsed_ms(self.started),
            });
            self.mcp.poll();
            self.report_withdrawals(step);
            let mut tools = vec![ToolSpec::browser()];
            tools.extend(self.mcp.specs());
            conversation.mcp_tools(tools.len() > 1);
            self.progress.waiting_for_model(true);
            let reply = timeout_at(self.deadline, model.reply(conversation, &tools)).await;
            self.progress.waiting_for_model(false);
            let reply = match reply {
                Err(_) => return self.timed_out(),
                Ok(Err(error)) => {
                    return (StopReason::Model(error.to_string()), self.last_text.clone());
                }
                Ok(Ok(reply)) => reply,
            };
            self.usage += reply.usage;
            if !reply.text.trim().is_empty() {
                self.last_text = reply.text.trim().to_owned();
            }
            // An empty reply is not kept: both APIs refuse an assistant message
            // with neither text nor tool calls.
            if !reply.text.trim().is_empty() || !reply.calls.is_empty() {
                conversation.push(Turn::Assistant {
                    text: reply.text.clone(),
                    calls: reply.calls.clone(),
                });
            }

            if reply.calls.is_empty() && chat {
                return (StopReason::Answered, reply.text.trim().to_owned());
            }
            if reply.calls.is_empty() {
                let (answer, status) = parse_status(&reply.text);
                match status {
                    Some(Status::Done) => {
                        return match self.checks.first_failed() {
                            Some(check) => (StopReason::FailedCheck(check.to_owned()), answer),
                            None => (StopReason::Status(Status::Done), answer),
                        };
                    }
                    Some(Status::Failed) => return (StopReason::Status(Status::Failed), answer),
                    None if nudges < MAX_NUDGES => {
                        nudges += 1;
                        conversation.push(Turn::User(conversation::status_nudge()));
                        continue;
                    }
                    None => return (StopReason::NoStatus, answer),
                }
            }

            let mut failure = None;
            for (n, call) in reply.calls.iter().enumerate() {
                let browser = call.name == tool::TOOL_NAME;
                let action = match call.arguments["action"].as_str() {
                    Some(action) if browser => action.to_owned(),
                    _ => call.name.clone(),
                };
                self.progress.event(&AgentEvent::ToolCall {
                    step,
                    call_id: call.id.clone(),
                    action: action.clone(),
                    target: observe::target(&call.arguments),
                    arguments: call.arguments.clone(),
                    usage: if n == 0 {
                        reply.usage
                    } else {
                        Usage::default()
                    },
                });
                let print = if browser {
                    fingerprint(&call.arguments)
                } else {
                    fingerprint(&json!({"tool": call.name, "arguments": call.arguments}))
                };
                let (mut observation, refused, ms, result) =
                    if !browser && !self.mcp.knows(&call.name) {
                        let mut offered = vec![tool::TOOL_NAME.to_owned()];
                        offered.extend(self.mcp.specs().into_iter().map(|spec| spec.name));
                        let error = BridgeError::invalid_request(format!(
                            "unknown tool `{}`; the tools are: {}",
                            call.name,
                            offered.join(", ")
                        ));
                        (observe::of_error(&error), false, 0, None)
                    } else if let Some(refusal) = self.repeats.check(&print) {
                        let text = refusal.message().to_owned();
                        let observation = Observation {
                            content: text.clone(),
                            outcome: "refused (identical repeat)".into(),
                            failure: Some(text),
                            terminal: None,
                            snapshot: false,
                        };
                        (observation, true, 0, None)
                    } else {
                        let started = Instant::now();
                        let executed = if browser {
                            timeout_at(self.deadline, self.execute_typed(&call.arguments)).await
                        } else {
                            timeout_at(self.deadline, self.mcp.call(&call.name, &call.arguments))
                                .await
                                .map(|outcome| (observe::of_mcp(outcome), None))
                        };
                        let Ok((observation, result)) = executed else {
                            return self.timed_out();
                        };
                        if !browser {
                            self.report_withdrawals(step);
                        }
                        self.actions += 1;
                        self.repeats
                            .record(print.clone(), &action, observation.failure.is_some());
                        if action == CHECK_ACTION {
                            self.checks.record(
                                check_target(&call.arguments),
                                observation.failure.is_none(),
                                observation.failure.as_deref().unwrap_or_default(),
                            );
                        }
                        (observation, false, elapsed_ms(started), result)
                    };
                self.progress.event(&AgentEvent::ToolResult {
                    step,
                    call_id: call.id.clone(),
                    action: action.clone(),
                    ok: observation.failure.is_none(),
                    refused,
                    outcome: observation.outcome.clone(),
                    error: observation.failure.clone(),
                    ms,
                });
                if let Some(terminal) = observation.terminal.take() {
                    match self.hand_off(step, terminal, result.as_ref()).await {
                        Ok(line) => {
                            observation.content = format!("{}\n{line}", observation.content)
                        }
                        Err(stop) => return stop,
                    }
                }
                if let Some(found) = self.loops.push(print) {
                    return (StopReason::Loop(found), self.last_text.clone());
                }
                conversation.push(Turn::ToolResult {
                    call_id: call.id.clone(),
                    content: observation.content,
                    is_error: observation.failure.is_some(),
                    snapshot: observation.snapshot,
                });
                if let Some(text) = observation.failure {
                    failure = Some(text);
                }
            }
            if let Some(failure) = failure
                && let Some(remaining) = self.budget.take()
            {
                self.progress.event(&AgentEvent::Reflection {
                    step,
                    failure: failure.clone(),
                    remaining,
                });
                conversation.push(Turn::User(conversation::reflection_message(
                    &failure, remaining,
                )));
            }
        }
    }

    /// Step 0: with a URL, navigate there (in a new agent tab when several tabs
    /// are under control) and read that tab; without one, tell the model which
    /// tabs are under its control. Returns the context for the first message.
    async fn prelude(&mut self, url: Option<&str>) -> Result<Option<String>, Stop> {
        self.progress.event(&AgentEvent::StepStarted {
            step: 0,
            elapsed_ms: 0,
        });
        self.report_withdrawals(0);
        let Some(url) = url else {
            let (observation, result) = self.prelude_call(json!({"action": "list_tabs"})).await?;
            return Ok(Some(match result {
                // Only the tabs under control: the user's other tabs are none of
                // the model's business until it asks (`list_tabs`).
                Some(ActionResult::ListTabs(list)) => conversation::tabs_context(&list.tabs),
                _ => format!("list_tabs failed: {}", observation.content),
            }));
        };
        let (mut observation, mut result) = self
            .prelude_call(json!({"action": "navigate", "url": url}))
            .await?;
        if observation
            .failure
            .as_deref()
            .is_some_and(|f| f.starts_with(ErrorCode::SessionNotFound.as_str()))
        {
            // Several tabs under control and none named: start a tab of our own.
            (observation, result) = self
                .prelude_call(json!({"action": "open_tab", "url": url}))
                .await?;
        }
        let tab = match result {
            Some(ActionResult::Navigate(page)) => page.tab_id,
            Some(ActionResult::OpenTab(opened)) => opened.tab_id,
            // The model starts from what went wrong rather than a page.
            _ => {
                return Ok(Some(format!(
                    "Opening {url} failed: {}",
                    observation.content
                )));
            }
        };
        let (observation, _) = self
            .prelude_call(json!({"action": "extract", "tabId": tab}))
            .await?;
        Ok(Some(observation.content))
    }

    /// One prelude call with its events; a timeout or a terminal result ends the run.
    async fn prelude_call(
        &mut self,
        arguments: Value,
    ) -> Result<(Observation, Option<ActionResult>), Stop> {
        let action = arguments["action"].as_str().unwrap_or_default().to_owned();
        let call_id = format!("prelude-{}", self.actions + 1);
        self.progress.event(&AgentEvent::ToolCall {
            step: 0,
            call_id: call_id.clone(),
            action: action.clone(),
            target: observe::target(&arguments),
            arguments: arguments.clone(),
            usage: Usage::default(),
        });
        let started = Instant::now();
        let Ok((observation, result)) =
            timeout_at(self.deadline, self.execute_typed(&arguments)).await
        else {
            return Err(self.timed_out());
        };
        self.actions += 1;
        self.progress.event(&AgentEvent::ToolResult {
            step: 0,
            call_id,
            action,
            ok: observation.failure.is_none(),
            refused: false,
            outcome: observation.outcome.clone(),
            error: observation.failure.clone(),
            ms: elapsed_ms(started),
        });
        let mut observation = observation;
        if let Some(terminal) = observation.terminal.take() {
            let line = self.hand_off(0, terminal, result.as_ref()).await?;
            observation.content = format!("{}\n{line}", observation.content);
        }
        Ok((observation, result))
    }

    /// A terminal result: with `--handoff` and an obstacle, the tab goes to the
    /// person (`handoff`, with its own events); `Ok(line)`, its rendering, when
    /// they are done and the run goes on, else the run's stop.
    async fn hand_off(
        &mut self,
        step: u32,
        terminal: Terminal,
        result: Option<&ActionResult>,
    ) -> Result<String, Stop> {
        let (Some(wait), Terminal::Obstacle { kind, message }, Some(tab)) = (
            self.handoff,
            &terminal,
            result.and_then(ActionResult::tab_id),
        ) else {
            return Err(terminal_stop(terminal));
        };
        if self.handoffs >= handoff::MAX_HANDOFFS {
            return Err(terminal_stop(terminal));
        }
        self.handoffs += 1;
        let action = handoff::action(tab, kind, message, wait);
        let arguments = serde_json::to_value(&action).unwrap_or_default();
        let call_id = format!("handoff-{}", self.handoffs);
        self.progress.event(&AgentEvent::ToolCall {
            step,
            call_id: call_id.clone(),
            action: "handoff".into(),
            target: format!("tab {tab}"),
            arguments,
            usage: Usage::default(),
        });
        let started = Instant::now();
        let answered = self.bridge.act(action).await;
        // The person's time is not the agent's: the run's clock stops meanwhile.
        self.deadline += started.elapsed();
        self.actions += 1;
        let (observation, done) = match &answered {
            Ok(ActionResult::Handoff(r)) => (
                observe::of_result(&ActionResult::Handoff(r.clone()), false),
                (r.outcome == HandoffOutcome::Done).then_some(r),
            ),
            Ok(other) => (observe::of_result(other, false), None),
            Err(error) => (observe::of_error(error), None),
        };
        self.progress.event(&AgentEvent::ToolResult {
            step,
            call_id,
            action: "handoff".into(),
            ok: observation.failure.is_none(),
            refused: false,
            outcome: observation.outcome.clone(),
            error: observation.failure.clone(),
            ms: elapsed_ms(started),
        });
        if done.is_some() {
            // The person changed the page: the model's next read is a new one.
            self.repeats.clear();
            return Ok(observation.content);
        }
        let handed = match &answered {
            Ok(ActionResult::Handoff(r)) => Some(r),
            _ => None,
        };
        let answer = handoff::stopped_answer(kind, message, handed);
        let (kind, message) = (kind.clone(), message.clone());
        Err((StopReason::Obstacle { kind, message }, answer))
    }

    /// Reports, once each, the MCP servers withdrawn since the last report.
    fn report_withdrawals(&mut self, step: u32) {
        for withdrawal in self.mcp.take_reports() {
            self.progress.event(&AgentEvent::ServerWithdrawn {
                step,
                server: withdrawal.server,
                reason: withdrawal.reason,
            });
        }
    }

    /// Decodes and executes one `browser` call and renders what came back, with
    /// the typed result when there is one.
    async fn execute_typed(&self, arguments: &Value) -> (Observation, Option<ActionResult>) {
        let decoded = tool::decode(arguments.as_object().cloned());
        let tool::Call {
            mut action,
            include_text,
            browser,
        } = match decoded {
            Ok(decoded) => decoded,
            Err(error) => return (observe::of_error(&error), None),
        };
        tool::default_observe(&mut action, self.observe);
        let bridge = self.bridge.for_browser(browser.as_deref());
        let result: Result<ActionResult, BridgeError> = bridge.act(action).await;
        match result {
            Ok(result) => (observe::of_result(&result, include_text), Some(result)),
            Err(error) => (observe::of_error(&error), None),
        }
    }

    fn timed_out(&self) -> Stop {
        let ms = u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX);
        (StopReason::Timeout(ms), self.last_text.clone())
    }

    fn finish(&self, (stop, answer): Stop) -> FinalReport {
        FinalReport {
            success: matches!(
                stop,
                StopReason::Status(Status::Done) | StopReason::Answered
            ),
            reason: stop.code(),
            detail: stop.detail(),
            answer,
            steps: self.steps,
            actions: self.actions,
            reflections: self.budget.used(),
            wall_ms: elapsed_ms(self.started),
            usage: self.usage,
            stop,
        }
    }
}

fn terminal_stop(terminal: Terminal) -> Stop {
    match terminal {
        Terminal::Obstacle { kind, message } => {
            let answer = format!("Stopped: the page shows {kind} ({message}).");
            (StopReason::Obstacle { kind, message }, answer)
        }
        Terminal::Error(error) => {
            let answer = match error.code {
                ErrorCode::DomainBlocked => "Stopped: the site is on the user's blocklist.",
                ErrorCode::Cancelled => "Stopped: the user stopped the session.",
                _ => "Stopped: the browser cannot be reached.",
            };
            (
                StopReason::Terminal(tool::render::error_text(&error)),
                answer.to_owned(),
            )
        }
    }
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
