//! The MCP servers file that Claude Desktop and Cursor use
//! (`claude_desktop_config.json`, `.cursor/mcp.json`):
//! `{"mcpServers": {"<name>": {"command", "args", "env"}}}` for a server spawned
//! over stdio, `{"url", "headers"}` for one reached over streamable HTTP.

use std::collections::BTreeMap;

use serde_json::Value;

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Spawn `command args…` in a minimal environment with `env` on top
    /// ([`super::environment::server_environment`]); MCP over its stdio.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it (on top of the few passed on from ours).
        env: BTreeMap<String, String>,
    },
    /// MCP streamable HTTP at `url`, each request with `headers`.
    Http {
        /// The endpoint (`http(s)://…/mcp`).
        url: String,
        /// Extra request headers (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Its key in `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
}

/// Parses the file's text into its servers, in the file's key order
/// (alphabetical: JSON objects are read into a sorted map).
///
/// # Errors
/// A message naming the server and field at fault: not JSON, no `mcpServers`
/// object, a server with neither `command` nor `url` (or both), or a field of
/// the wrong type.
pub fn parse(text: &str) -> Result<Vec<ServerConfig>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let servers = root
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or("no \"mcpServers\" object")?;
    let mut sorted: Vec<(&String, &Value)> = servers.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted
        .into_iter()
        .map(|(name, server)| {
            server_config(name, server).map_err(|e| format!("server {name:?}: {e}"))
        })
        .collect()
}

fn server_config(name: &str, server: &Value) -> Result<ServerConfig, String> {
    if name.trim().is_empty() {
        return Err("an empty name".into());
    }
    let server = server.as_object().ok_or("not an object")?;
    let text = |field: &str| -> Result<Option<String>, String> {
        match server.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(value)) => Ok(Some(value.clone())),
            Some(_) => Err(format!("\"{field}\" is not a string")),
        }
    };
    let transport = match (text("command")?, text("url")?) {
        (Some(command), None) => Transport::Stdio {
            command,
            args: strings(server.get("args"), "args")?,
            env: string_map(server.get("env"), "env")?,
        },
        (None, Some(url)) => Transport::Http {
            url,
            headers: string_map(server.get("headers"), "headers")?,
        },
        (Some(_), Some(_)) => return Err("both \"command\" and \"url\"".into()),
        (None, None) => return Err("neither \"command\" nor \"url\"".into()),
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
    })
}

fn strings(value: Option<&Value>, field: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("\"{field}\" holds a non-string"))
            })
            .collect(),
        Some(_) => Err(format!("\"{field}\" is not an array of strings")),
    }
}

fn string_map(value: Option<&Value>, field: &str) -> Result<BTreeMap<String, String>, String> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| match value {
                Value::String(text) => Ok((key.clone(), text.clone())),
                _ => Err(format!("\"{field}\".{key} is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("\"{field}\" is not an object of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_http_servers_parse() {
        let servers = parse(
            r#"{"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "server-files", "/tmp"],
                          "env": {"DEBUG": "1"}},
                "docs": {"url": "https://docs.example/mcp",
                         "headers": {"Authorization": "Bearer t"}}
            }}"#,
        )
        .unwrap();
        assert_eq!(servers[0].name, "docs");
        assert_eq!(
            servers[0].transport,
            Transport::Http {
                url: "https://docs.example/mcp".into(),
                headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
            }
        );
        assert_eq!(
            servers[1].transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server-files".into(), "/tmp".into()],
                env: [("DEBUG".to_owned(), "1".to_owned())].into(),
            }
        );
        assert_eq!(parse(r#"{"mcpServers": {}}"#).unwrap(), []);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(parse("{").unwrap_err().starts_with("not JSON"));
        assert_eq!(parse("{}").unwrap_err(), "no \"mcpServers\" object");
        assert_eq!(
            parse(r#"{"mcpServers": {"x": {}}}"#).unwrap_err(),
            "server \"x\": neither \"command\" nor \"url\""
        );
        assert_eq!(
            parse(r#"{"mcpServers": {"x": {"command": "a", "url": "b"}}}"#).unwrap_err(),
            "server \"x\": both \"command\" and \"url\""
        );
        assert_eq!(
            parse(r#"{"mcpServers": {"x": {"command": "a", "args": "b"}}}"#).unwrap_err(),
            "server \"x\": \"args\" is not an array of strings"
        );
        assert_eq!(
            parse(r#"{"mcpServers": {"x": {"command": "a", "env": {"K": 1}}}}"#).unwrap_err(),
            "server \"x\": \"env\".K is not a string"
        );
    }
}
