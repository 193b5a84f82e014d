//! `browser-bridge chat`: a conversation with the built-in agent on the
//! terminal. Each stdin line is a turn ([`runner::chat_turn`]) on the same
//! browser, MCP servers and history; `/reset` forgets the history, `/quit` or
//! the end of input ends the chat. Each turn's steps go to stderr as in `run`,
//! then its tokens and the chat's; the answers go to stdout.

use std::io::IsTerminal;
use std::process::ExitCode;

use browser_bridge_agent::conversation::Conversation;
use browser_bridge_agent::llm::Usage;
use browser_bridge_agent::memory::Recorder;
use browser_bridge_agent::runner::{self, RunOptions};
use browser_bridge_backend::Bridge;
use browser_bridge_backend::hub::clients::generated_name;
use tokio::io::AsyncBufReadExt;

use crate::args::ChatArgs;
use crate::cmd::memory;
use crate::cmd::progress::CliProgress;
use crate::cmd::run::start_agent;
use crate::output::{EXIT_INTERRUPTED, fail, print_stdout};

/// `browser-bridge chat`: exit code 0 when the input ends or `/quit`.
pub(crate) async fn chat(args: ChatArgs) -> ExitCode {
    let (model, mut mcp, connected) =
        match start_agent(&args.model, &args.tools, &args.browser).await {
            Ok(started) => started,
            Err(error) => return fail(&error),
        };
    let memory = memory::open_for_run(
        args.limits.no_memory,
        args.browser.config.config_dir.as_deref(),
    );
    let mut options = RunOptions {
        max_steps: args.limits.max_steps,
        timeout: args.limits.timeout,
        observe: !args.limits.no_observe,
        handoff: None,
        ..RunOptions::new("")
    };
    let bridge = connected.bridge.for_client(&generated_name("chat"));
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!("Chat with the browser agent: /reset forgets the conversation, /quit ends it.");
    }
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut conversation: Option<Conversation> = None;
    let mut total = Usage::default();
    let mut turns = 0u32;
    let talk = async {
        loop {
            if interactive {
                eprint!("> ");
            }
            let Ok(Some(line)) = lines.next_line().await else {
                break;
            };
            match line.trim() {
                "" => continue,
                "/quit" => break,
                "/reset" => {
                    conversation = None;
                    eprintln!("(conversation cleared)");
                    continue;
                }
                text => {
                    // Lessons for a new conversation's first turn; each turn
                    // is remembered as a task of its own.
                    options.lessons = match conversation {
                        None => memory::lessons(memory.as_ref(), text, None),
                        Some(_) => None,
                    };
                    let mut shown = CliProgress::new(false);
                    let mut progress = Recorder::new(&mut shown);
                    let report = runner::chat_turn(
                        &bridge,
                        &model,
                        &mut mcp,
                        &mut conversation,
                        text,
                        &options,
                        &mut progress,
                    )
                    .await;
                    let events = progress.events;
                    drop(shown);
                    memory::remember(memory.as_ref(), text, None, &events, &report);
                    turns += 1;
                    total += report.usage;
                    print_stdout(&report.answer);
                    eprintln!("{}", tokens_line(turns, report.usage, total));
                }
            }
        }
    };
    let interrupted = tokio::select! {
        () = talk => false,
        _ = tokio::signal::ctrl_c() => true,
    };
    mcp.close().await;
    connected.close().await;
    if interrupted {
        eprintln!("interrupted");
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    ExitCode::SUCCESS
}

/// `turn 2: 1200 prompt + 40 completion tokens · chat: 2500 prompt + 90 completion tokens`.
fn tokens_line(turn: u32, usage: Usage, total: Usage) -> String {
    format!(
        "turn {turn}: {} prompt + {} completion tokens · chat: {} prompt + {} completion tokens",
        usage.prompt_tokens, usage.completion_tokens, total.prompt_tokens, total.completion_tokens
    )
}
