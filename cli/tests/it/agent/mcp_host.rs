//! The agent as an MCP host: the fixture MCP server (a real rmcp server over
//! stdio, `browser-bridge-fixture-mcp`) beside `browser`, with the scripted
//! model in both wire formats.

use std::path::PathBuf;

use browser_bridge_agent::AgentEvent;
use browser_bridge_agent::mcp::McpHost;
use browser_bridge_agent::mcp::config::{ServerConfig, Transport};
use browser_bridge_agent::runner::run_task_with;
use serde_json::json;

use super::cli::command;
use super::scripted_llm::{Reply, ScriptedLlm, Wire, last_user_text, tool_names};
use super::{FakeBrowser, claim_page, client, options};

/// The fixture server, an example of this package: `cargo test` builds it with
/// the tests; a run of this test target alone builds it here.
fn fixture_path() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let name = "browser-bridge-fixture-mcp";
        let path = std::path::Path::new(env!("CARGO_BIN_EXE_browser-bridge"))
            .with_file_name("examples")
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        if !path.exists() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args(["build", "-p", "browser-bridge", "--example", name])
                .status()
                .expect("cargo build of the fixture MCP server");
            assert!(status.success(), "cargo build --example {name} failed");
        }
        path.to_string_lossy().into_owned()
    })
    .clone()
}

fn fixture(name: &str) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio {
            command: fixture_path(),
            args: Vec::new(),
            env: Default::default(),
        },
    }
}

fn withdrawals(events: &[AgentEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ServerWithdrawn { server, reason, .. } => {
                Some((server.clone(), reason.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The server's tools are offered under `mcp__<server>__<tool>` (sanitised,
/// object-rooted schemas); a call reaches the server and its text (and an
/// image's summary) reaches the next request.
#[tokio::test]
async fn a_tool_of_an_mcp_server_is_offered_called_and_its_result_read() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![
            Reply {
                calls: vec![json!({"key": "answer"}), json!({})],
                tools: vec![
                    "mcp__fixture__lookup".into(),
                    "mcp__fixture__picture".into(),
                ],
                usage: (100, 10),
                ..Reply::default()
            },
            Reply::text("The answer is 42.\nSTATUS: DONE"),
        ])
        .await;
        let mut mcp = McpHost::start(vec![fixture("fixture")]).await;
        let mut events = Vec::new();
        let report = run_task_with(
            &browser.server.hub,
            &client(&llm, wire),
            &mut mcp,
            &options("look the answer up", None),
            &mut events,
        )
        .await;
        mcp.close().await;
        assert!(report.success, "{wire:?}: {report:?}");
        assert_eq!(
            report.actions, 3,
            "{wire:?}: list_tabs and the two MCP calls"
        );
        assert_eq!(browser.actions(), ["list_tabs"], "{wire:?}");

        let requests = llm.requests();
        assert_eq!(
            tool_names(&requests[0]),
            [
                "browser",
                "mcp__fixture__lookup",
                "mcp__fixture__get_weather_now",
                "mcp__fixture__picture",
                "mcp__fixture__crash",
                "mcp__fixture__environment"
            ],
            "{wire:?}"
        );
        let weather = requests[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t.to_string().contains("mcp__fixture__get_weather_now"))
            .unwrap();
        let schema = weather
            .pointer("/function/parameters")
            .or(weather.get("input_schema"))
            .unwrap();
        assert_eq!(schema["type"], "object", "{wire:?}: {schema}");
        assert_eq!(schema["properties"]["city"]["type"], "string", "{wire:?}");

        let seen = last_user_text(&requests[1]);
        assert!(
            seen.contains("answer = 42 (from the fixture table)"),
            "{wire:?}: {seen}"
        );
        assert!(
            seen.contains("a red dot\n[image image/png, about"),
            "{wire:?}: {seen}"
        );
        assert!(
            requests[1]["system"]
                .to_string()
                .contains("mcp__<server>__<tool>")
                || requests[1]["messages"][0]["content"]
                    .to_string()
                    .contains("mcp__<server>__<tool>")
        );
        assert!(withdrawals(&events).is_empty(), "{wire:?}");
        let calls: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolCall {
                    step: 1, action, ..
                } => Some(action.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(calls, ["mcp__fixture__lookup", "mcp__fixture__picture"]);
    }
}

/// A tool error is an observation like a failed action: it brings the
/// reflection request.
#[tokio::test]
async fn an_mcp_tool_error_brings_a_reflection() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call_tool("mcp__fixture__lookup", json!({"key": "nothing"})),
        Reply::text("There is no such key.\nSTATUS: FAILED"),
    ])
    .await;
    let mut mcp = McpHost::start(vec![fixture("fixture")]).await;
    let mut events = Vec::new();
    let report = run_task_with(
        &browser.server.hub,
        &client(&llm, Wire::OpenAi),
        &mut mcp,
        &options("look nothing up", None),
        &mut events,
    )
    .await;
    mcp.close().await;
    assert_eq!(report.reflections, 1, "{report:?}");
    let seen = last_user_text(&llm.requests()[1]);
    assert!(
        seen.starts_with("tool_error: no key \"nothing\" in the table"),
        "{seen}"
    );
    assert!(seen.contains("the most likely cause"), "{seen}");
}

/// A server that exits during a call: the call fails, the server is reported
/// once, its tools leave the next request's list, a later call of one of them
/// is answered without it, and the run goes on to its end.
#[tokio::test]
async fn a_server_that_crashes_mid_run_is_withdrawn_and_the_run_goes_on() {
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let browser = FakeBrowser::start(claim_page()).await;
        let llm = ScriptedLlm::start(vec![
            Reply::call_tool("mcp__fixture__crash", json!({})),
            Reply::call_tool("mcp__fixture__lookup", json!({"key": "answer"})),
            Reply::call(json!({"action": "extract"})),
            Reply::text("The claim form is open.\nSTATUS: DONE"),
        ])
        .await;
        let mut mcp = McpHost::start(vec![fixture("fixture"), fixture("spare")]).await;
        let mut events = Vec::new();
        let report = run_task_with(
            &browser.server.hub,
            &client(&llm, wire),
            &mut mcp,
            &options("crash it", None),
            &mut events,
        )
        .await;
        mcp.close().await;
        assert!(report.success, "{wire:?}: {report:?}");
        let requests = llm.requests();
        assert!(tool_names(&requests[0]).contains(&"mcp__fixture__crash".to_owned()));
        assert_eq!(
            tool_names(&requests[1]),
            [
                "browser",
                "mcp__spare__lookup",
                "mcp__spare__get_weather_now",
                "mcp__spare__picture",
                "mcp__spare__crash",
                "mcp__spare__environment"
            ],
            "{wire:?}: the crashed server's tools are withdrawn, the other's stay"
        );
        let after_crash = last_user_text(&requests[1]);
        assert!(
            after_crash.starts_with("server_stopped: the MCP server `fixture` stopped"),
            "{wire:?}: {after_crash}"
        );
        let after_retry = last_user_text(&requests[2]);
        assert!(
            after_retry.starts_with("server_stopped: the MCP server `fixture`"),
            "{wire:?}: {after_retry}"
        );
        let reported = withdrawals(&events);
        assert_eq!(reported.len(), 1, "{wire:?}: reported once: {reported:?}");
        assert_eq!(reported[0].0, "fixture");
        assert_eq!(browser.actions(), ["list_tabs", "extract"], "{wire:?}");
    }
}

/// Through the binary: a config whose second server cannot start. The run
/// reports it once on stderr and completes with the other server's tool.
#[tokio::test]
async fn run_with_a_server_that_cannot_start_reports_it_and_goes_on() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call_tool("mcp__fixture__lookup", json!({"key": "answer"})),
        Reply::text("The answer is 42.\nSTATUS: DONE"),
    ])
    .await;
    let dir = crate::common::temp_config_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let config: PathBuf = dir.join("mcp.json");
    let missing = dir.join("no-such-server");
    std::fs::write(
        &config,
        json!({"mcpServers": {
            "fixture": {"command": fixture_path(), "args": []},
            "gone": {"command": missing, "env": {"X": "1"}}
        }})
        .to_string(),
    )
    .unwrap();
    let mut command = command();
    command
        .args(["run", "look the answer up", "--mcp-config"])
        .arg(&config)
        .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
        .arg(&browser.server.config_dir)
        .args(["--base-url", &llm.base_url()]);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "The answer is 42.\n"
    );
    assert_eq!(
        stderr.matches("MCP server \"gone\" withdrawn").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("did not start: cannot run"), "{stderr}");
    assert!(stderr.contains("  1 mcp__fixture__lookup"), "{stderr}");
    assert_eq!(
        tool_names(&llm.requests()[0]),
        [
            "browser",
            "mcp__fixture__lookup",
            "mcp__fixture__get_weather_now",
            "mcp__fixture__picture",
            "mcp__fixture__crash",
            "mcp__fixture__environment"
        ]
    );
}

/// A file that is not an `mcpServers` config is a usage error before anything starts.
#[tokio::test]
async fn a_bad_mcp_config_is_a_usage_error() {
    let dir = crate::common::temp_config_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mcp.json");
    std::fs::write(&config, r#"{"mcpServers": {"x": {"args": []}}}"#).unwrap();
    let output = tokio::task::spawn_blocking(move || {
        command()
            .args([
                "run",
                "x",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--mcp-config",
            ])
            .arg(&config)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("server \\\"x\\\": neither \\\"command\\\" nor \\\"url\\\""),
        "{stderr}"
    );
}

/// A server over streamable HTTP with its headers: `serve`'s own `/mcp`, which
/// wants the pairing token as a bearer. With the token its `browser` tool is
/// offered as `mcp__bb__browser` and its result is read; with a wrong token the
/// server is refused at start, withdrawn and reported.
#[tokio::test]
async fn an_http_server_is_reached_with_its_headers() {
    let browser = FakeBrowser::start(claim_page()).await;
    let llm = ScriptedLlm::start(vec![
        Reply::call_tool("mcp__bb__browser", json!({"action": "list_tabs"})),
        Reply::text("One tab of the user's own.\nSTATUS: DONE"),
    ])
    .await;
    let url = format!("http://{}/mcp", browser.server.addr);
    let http = |name: &str, token: &str| ServerConfig {
        name: name.into(),
        transport: Transport::Http {
            url: url.clone(),
            headers: [("Authorization".to_owned(), format!("Bearer {token}"))].into(),
        },
    };
    let mut mcp = McpHost::start(vec![
        http("bb", &browser.server.token),
        http("locked", "not-the-token"),
    ])
    .await;
    let mut events = Vec::new();
    let report = run_task_with(
        &browser.server.hub,
        &client(&llm, Wire::Anthropic),
        &mut mcp,
        &options("list the tabs", None),
        &mut events,
    )
    .await;
    mcp.close().await;
    assert!(report.success, "{report:?}");
    let requests = llm.requests();
    assert_eq!(tool_names(&requests[0]), ["browser", "mcp__bb__browser"]);
    let seen = last_user_text(&requests[1]);
    assert!(seen.contains("My bank accounts"), "{seen}");
    // The prelude's list_tabs, then the one through `/mcp`.
    assert_eq!(browser.actions(), ["list_tabs", "list_tabs"]);
    let reported = withdrawals(&events);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(reported[0].0, "locked");
    assert!(reported[0].1.starts_with("did not start: "), "{reported:?}");
}

/// A stdio server started by `run` gets none of our secrets: with the model
/// keys, `GITHUB_TOKEN` and a private variable in the agent's environment, the
/// fixture sees only `PATH`, `HOME` and the variable its config's `env` sets.
#[tokio::test]
async fn a_stdio_server_sees_none_of_the_agents_secrets() {
    let browser = FakeBrowser::start(claim_page()).await;
    let secrets = [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "BROWSER_BRIDGE_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
    ];
    let mut names: Vec<&str> = secrets.to_vec();
    names.extend(["PATH", "HOME", "FIXTURE_SETTING"]);
    let llm = ScriptedLlm::start(vec![
        Reply::call_tool("mcp__fixture__environment", json!({ "names": names })),
        Reply::text("Checked.\nSTATUS: DONE"),
    ])
    .await;
    let dir = crate::common::temp_config_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let config: PathBuf = dir.join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {
            "fixture": {"command": fixture_path(), "env": {"FIXTURE_SETTING": "on"}}
        }})
        .to_string(),
    )
    .unwrap();
    let mut command = command();
    command
        .args(["run", "check the environment", "--mcp-config"])
        .arg(&config)
        .args(["--listen", &browser.server.addr.to_string(), "--config-dir"])
        .arg(&browser.server.config_dir)
        .args(["--base-url", &llm.base_url()])
        .env("HOME", &dir)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for secret in secrets {
        command.env(secret, format!("{secret}-value-of-the-agent"));
    }
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let seen = last_user_text(&llm.requests()[1]);
    assert!(
        seen.contains("set: [PATH, HOME, FIXTURE_SETTING]"),
        "{seen}"
    );
}
