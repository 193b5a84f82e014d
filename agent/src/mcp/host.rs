//! The running MCP servers: each one connected with rmcp's client at start
//! (spawned over stdio, or over streamable HTTP), its tools listed and offered
//! under [`names::tool_name`], calls routed back to it. A server that does not
//! start, or stops answering, is withdrawn with its tools and reported once
//! ([`McpHost::take_reports`]); the run goes on with the others.

use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use super::config::{ServerConfig, Transport};
use super::{environment, names, render};
use crate::llm::ToolSpec;

/// Longest wait for one server to start, initialize and list its tools.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest wait for one `tools/call` (the run's own timeout still applies).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);

type Client = RunningService<RoleClient, ()>;

/// A server taken out of the run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawal {
    /// Its name in the config.
    pub server: String,
    /// What happened (`did not start: …`, `stopped: …`).
    pub reason: String,
}

/// The outcome of one call, as the loop feeds it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOutcome {
    /// The text the model reads ([`render::result_text`], or the failure).
    pub content: String,
    /// `code: message` when the call failed: `tool_error`, `server_stopped`,
    /// `timeout`, `invalid_request`, `mcp_error`.
    pub failure: Option<String>,
}

impl McpOutcome {
    fn failed(text: String) -> Self {
        McpOutcome {
            content: text.clone(),
            failure: Some(text),
        }
    }
}

struct Hosted {
    spec: ToolSpec,
    /// The tool's own name on its server.
    original: String,
}

struct Server {
    name: String,
    client: Option<Client>,
    tools: Vec<Hosted>,
    withdrawn: Option<String>,
}

/// The MCP servers of a run or a chat. Empty by default.
#[derive(Default)]
pub struct McpHost {
    servers: Vec<Server>,
    reports: Vec<Withdrawal>,
}

impl std::fmt::Debug for McpHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHost")
            .field(
                "servers",
                &self.servers.iter().map(|s| &s.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl McpHost {
    /// Starts every server at once (each within [`START_TIMEOUT`]) and lists its
    /// tools. A server that fails is withdrawn and reported, never an error.
    pub async fn start(configs: Vec<ServerConfig>) -> McpHost {
        let mut starting = tokio::task::JoinSet::new();
        for (index, config) in configs.iter().cloned().enumerate() {
            starting.spawn(async move {
                let started = tokio::time::timeout(START_TIMEOUT, connect(&config))
                    .await
                    .unwrap_or_else(|_| {
                        Err(format!("no answer within {} s", START_TIMEOUT.as_secs()))
                    });
                (index, started)
            });
        }
        let mut started: HashMap<usize, Result<(Client, Vec<rmcp::model::Tool>), String>> =
            HashMap::new();
        while let Some(joined) = starting.join_next().await {
            if let Ok((index, result)) = joined {
                started.insert(index, result);
            }
        }
        let mut host = McpHost::default();
        let mut taken: HashSet<String> =
            HashSet::from([browser_bridge_backend::tool::TOOL_NAME.to_owned()]);
        for (index, config) in configs.into_iter().enumerate() {
            let result = started
                .remove(&index)
                .unwrap_or_else(|| Err("its start task failed".into()));
            match result {
                Ok((client, tools)) => {
                    let tools = tools
                        .into_iter()
                        .map(|tool| {
                            let name = names::tool_name(&config.name, &tool.name, &taken);
                            taken.insert(name.clone());
                            let text = tool.description.as_deref().or(tool.title.as_deref());
                            Hosted {
                                spec: ToolSpec {
                                    name,
                                    description: names::description(&config.name, text),
                                    schema: names::input_schema(&tool.input_schema),
                                },
                                original: tool.name.into_owned(),
                            }
                        })
                        .collect();
                    host.servers.push(Server {
                        name: config.name,
                        client: Some(client),
                        tools,
                        withdrawn: None,
                    });
                }
                Err(reason) => {
                    let reason = format!("did not start: {reason}");
                    host.reports.push(Withdrawal {
                        server: config.name.clone(),
                        reason: reason.clone(),
                    });
                    host.servers.push(Server {
                        name: config.name,
                        client: None,
                        tools: Vec::new(),
                        withdrawn: Some(reason),
                    });
                }
            }
        }
        host
    }

    /// The tools of the servers still running, in config order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.servers
            .iter()
            .filter(|server| server.client.is_some())
            .flat_map(|server| server.tools.iter().map(|tool| tool.spec.clone()))
            .collect()
    }

    /// True for the name of a tool this host offers or offered.
    pub fn knows(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Withdrawals not yet reported; each is handed out once.
    pub fn take_reports(&mut self) -> Vec<Withdrawal> {
        std::mem::take(&mut self.reports)
    }

    /// Withdraws the servers whose connection has closed since the last look
    /// (a child that exited between calls).
    pub fn poll(&mut self) {
        for index in 0..self.servers.len() {
            if self.servers[index]
                .client
                .as_ref()
                .is_some_and(RunningService::is_closed)
            {
                self.withdraw(index, "stopped: the connection closed".into());
            }
        }
    }

    /// Calls the tool offered as `name` with `arguments` (a JSON object).
    pub async fn call(&mut self, name: &str, arguments: &Value) -> McpOutcome {
        let Some((index, original)) = self.find(name) else {
            return McpOutcome::failed(format!("invalid_request: unknown tool `{name}`"));
        };
        let server = &self.servers[index];
        let Some(client) = &server.client else {
            return McpOutcome::failed(format!(
                "server_stopped: the MCP server `{}` {}; its tools are withdrawn",
                server.name,
                server.withdrawn.as_deref().unwrap_or("stopped")
            ));
        };
        let arguments = match arguments {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            _ => {
                return McpOutcome::failed(
                    "invalid_request: the arguments must be a JSON object".into(),
                );
            }
        };
        let request = CallToolRequestParams::new(original).with_arguments(arguments);
        let answer = tokio::time::timeout(CALL_TIMEOUT, client.call_tool(request)).await;
        match answer {
            Err(_) => McpOutcome::failed(format!(
                "timeout: the MCP tool did not answer within {} s",
                CALL_TIMEOUT.as_secs()
            )),
            Ok(Ok(result)) => {
                let value = serde_json::to_value(&result).unwrap_or_default();
                let text = render::result_text(&value);
                if result.is_error == Some(true) {
                    McpOutcome::failed(format!("tool_error: {text}"))
                } else {
                    McpOutcome {
                        content: text,
                        failure: None,
                    }
                }
            }
            Ok(Err(error)) => {
                let closed = client.is_closed()
                    || matches!(
                        error,
                        ServiceError::TransportClosed | ServiceError::TransportSend(_)
                    );
                if closed {
                    let name = server.name.clone();
                    self.withdraw(index, format!("stopped: {error}"));
                    McpOutcome::failed(format!(
                        "server_stopped: the MCP server `{name}` stopped during the call \
                         ({error}); its tools are withdrawn: do without them"
                    ))
                } else {
                    McpOutcome::failed(format!("mcp_error: {error}"))
                }
            }
        }
    }

    /// Ends every server still running (a stdio child is asked to exit, then killed).
    pub async fn close(self) {
        for server in self.servers {
            if let Some(client) = server.client {
                let _ = client.cancel().await;
            }
        }
    }

    fn find(&self, name: &str) -> Option<(usize, String)> {
        self.servers.iter().enumerate().find_map(|(index, server)| {
            server
                .tools
                .iter()
                .find(|tool| tool.spec.name == name)
                .map(|tool| (index, tool.original.clone()))
        })
    }

    fn withdraw(&mut self, index: usize, reason: String) {
        let server = &mut self.servers[index];
        if server.withdrawn.is_some() {
            return;
        }
        // Dropping the client ends its service task (and a stdio child).
        server.client = None;
        server.withdrawn = Some(reason.clone());
        self.reports.push(Withdrawal {
            server: server.name.clone(),
            reason,
        });
    }
}

async fn connect(config: &ServerConfig) -> Result<(Client, Vec<rmcp::model::Tool>), String> {
    let client = match &config.transport {
        Transport::Stdio { command, args, env } => {
            let mut child = tokio::process::Command::new(command);
            // A third-party server gets none of our keys and tokens.
            child
                .args(args)
                .env_clear()
                .envs(environment::server_environment(
                    |name| std::env::var(name).ok(),
                    env,
                ))
                .kill_on_drop(true);
            // The server's own log goes where ours does.
            let (transport, _) = TokioChildProcess::builder(child)
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| format!("cannot run `{command}`: {e}"))?;
            ().serve(transport)
                .await
                .map_err(|e| format!("MCP initialize failed: {e}"))?
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("header {name:?}: {e}"))?;
                let value = reqwest::header::HeaderValue::from_str(value)
                    .map_err(|e| format!("header {name}: {e}"))?;
                custom.insert(name, value);
            }
            let transport = StreamableHttpClientTransport::from_config(
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom),
            );
            ().serve(transport)
                .await
                .map_err(|e| format!("MCP initialize at {url} failed: {e}"))?
        }
    };
    let tools = client
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok((client, tools))
}
