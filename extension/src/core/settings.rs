//! The extension's settings: every `chrome.storage` key the Rust side reads or
//! writes, named once here (the JS pages use the same names; extension/README.md
//! documents them), and the typed views of what the worker reads.

use serde_json::Value;

/// `chrome.storage.local` keys.
pub mod keys {
    /// WebSocket URL of the backend (default [`super::DEFAULT_BACKEND_URL`]).
    pub const BACKEND_URL: &str = "backendUrl";
    /// The pairing token (`browser-bridge pair`); never sent.
    pub const PAIRING_TOKEN: &str = "pairingToken";
    /// The blocklist: an array of domains, or a string of them.
    pub const BLOCKLIST: &str = "blocklist";
    /// UUID of this install, sent in `hello`; made on first run.
    pub const CLIENT_ID: &str = "clientId";
    /// `{code, message}` of a `reject` from a backend that proved the token;
    /// cleared on re-pairing.
    pub const FATAL_ERROR: &str = "fatalError";
    /// Stop all is active.
    pub const GLOBAL_STOP: &str = "globalStop";
    /// The agent window's id.
    pub const AGENT_WINDOW_ID: &str = "agentWindowId";
    /// The browser's name, set in the options, sent in `hello` (PROTOCOL.md §5
    /// "Browsers"); unset: the brand and version.
    pub const BROWSER_NAME: &str = "browserName";
}

/// `chrome.storage.session` key of the live sessions (a JSON string of
/// `sessions::persist::Record`s).
pub const SESSIONS_KEY: &str = "sessions";

/// `chrome.storage.session` key of `hello.browserRunId` (PROTOCOL.md §2): a
/// UUID made by the first worker of a browser process (or of the extension's
/// reload, which clears that storage too).
pub const BROWSER_RUN_ID_KEY: &str = "browserRunId";

/// Where the extension connects when `backendUrl` is not set.
pub const DEFAULT_BACKEND_URL: &str = "ws://127.0.0.1:9333/extension";

/// What the connection reads before each attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionSettings {
    /// `backendUrl`, or the default when unset or empty.
    pub backend_url: String,
    /// `pairingToken`, `None` when unset or empty.
    pub pairing_token: Option<String>,
    /// `clientId`, `None` on first run.
    pub client_id: Option<String>,
    /// `fatalError.message`: the last proven `reject`, until re-pairing.
    pub fatal: Option<String>,
    /// `browserName`, cleaned ([`super::browser::clean_name`]); `None` when
    /// unset, blank or not a string.
    pub browser_name: Option<String>,
}

impl ConnectionSettings {
    /// The keys to read.
    pub const KEYS: [&str; 5] = [
        keys::BACKEND_URL,
        keys::PAIRING_TOKEN,
        keys::CLIENT_ID,
        keys::FATAL_ERROR,
        keys::BROWSER_NAME,
    ];

    /// Reads them from a `storage.local.get` result (wrong types count as unset).
    pub fn from_storage(stored: &Value) -> ConnectionSettings {
        let text = |key| {
            stored
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        ConnectionSettings {
            backend_url: text(keys::BACKEND_URL).unwrap_or_else(|| DEFAULT_BACKEND_URL.to_owned()),
            pairing_token: text(keys::PAIRING_TOKEN),
            client_id: stored
                .get(keys::CLIENT_ID)
                .and_then(Value::as_str)
                .map(str::to_owned),
            fatal: stored
                .get(keys::FATAL_ERROR)
                .and_then(|f| f.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            browser_name: stored
                .get(keys::BROWSER_NAME)
                .and_then(Value::as_str)
                .and_then(super::browser::clean_name),
        }
    }
}

/// What the sessions read at worker start.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySettings {
    /// The raw `blocklist` value (`Null` when unset), read by
    /// `browser_bridge_page::blocklist::setting_entries`.
    pub blocklist: Value,
    /// `globalStop`, false when unset.
    pub global_stop: bool,
    /// `agentWindowId`.
    pub agent_window: Option<i64>,
}

impl PolicySettings {
    /// The keys to read.
    pub const KEYS: [&str; 3] = [keys::BLOCKLIST, keys::GLOBAL_STOP, keys::AGENT_WINDOW_ID];

    /// Reads them from a `storage.local.get` result.
    pub fn from_storage(stored: &Value) -> PolicySettings {
        PolicySettings {
            blocklist: stored.get(keys::BLOCKLIST).cloned().unwrap_or(Value::Null),
            global_stop: stored
                .get(keys::GLOBAL_STOP)
                .and_then(Value::as_bool)
                .unwrap_or(false),
            agent_window: stored.get(keys::AGENT_WINDOW_ID).and_then(Value::as_i64),
        }
    }
}

/// What a `chrome.storage.onChanged` of the `local` area means to the worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The new `blocklist` value (`Null` when removed), when it changed.
    pub blocklist: Option<Value>,
    /// `pairingToken` or `backendUrl` changed: clear a fatal reject, reconnect now.
    pub repaired: bool,
    /// `browserName` changed: reconnect now, so the backend learns it.
    pub renamed: bool,
}

impl Change {
    /// Reads an `onChanged` `changes` object (`{key: {oldValue?, newValue?}}`).
    pub fn from_changes(changes: &Value) -> Change {
        Change {
            blocklist: changes
                .get(keys::BLOCKLIST)
                .map(|c| c.get("newValue").cloned().unwrap_or(Value::Null)),
            repaired: changes.get(keys::PAIRING_TOKEN).is_some()
                || changes.get(keys::BACKEND_URL).is_some(),
            renamed: changes.get(keys::BROWSER_NAME).is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn connection_settings_with_defaults() {
        let s = ConnectionSettings::from_storage(&json!({}));
        assert_eq!(
            s,
            ConnectionSettings {
                backend_url: DEFAULT_BACKEND_URL.into(),
                pairing_token: None,
                client_id: None,
                fatal: None,
                browser_name: None,
            }
        );
        // Empty strings are unset; wrong types too.
        let s = ConnectionSettings::from_storage(
            &json!({"backendUrl": "", "pairingToken": "", "fatalError": "oops"}),
        );
        assert_eq!(s.backend_url, DEFAULT_BACKEND_URL);
        assert_eq!(s.pairing_token, None);
        assert_eq!(s.fatal, None);
        let s = ConnectionSettings::from_storage(&json!({"browserName": " \t "}));
        assert_eq!(s.browser_name, None);
        let s = ConnectionSettings::from_storage(&json!({"browserName": 7}));
        assert_eq!(s.browser_name, None);
    }

    #[test]
    fn connection_settings_as_stored() {
        let s = ConnectionSettings::from_storage(&json!({
            "backendUrl": "ws://127.0.0.1:4000/extension", "pairingToken": "tok",
            "clientId": "c-1", "fatalError": {"code": "unauthorized", "message": "unauthorized: bad token"},
            "browserName": " Work "
        }));
        assert_eq!(s.browser_name.as_deref(), Some("Work"));
        assert_eq!(s.backend_url, "ws://127.0.0.1:4000/extension");
        assert_eq!(s.pairing_token.as_deref(), Some("tok"));
        assert_eq!(s.client_id.as_deref(), Some("c-1"));
        assert_eq!(s.fatal.as_deref(), Some("unauthorized: bad token"));
    }

    #[test]
    fn policy_settings() {
        let s = PolicySettings::from_storage(
            &json!({"blocklist": ["a.test"], "globalStop": true, "agentWindowId": 7}),
        );
        assert_eq!(s.blocklist, json!(["a.test"]));
        assert!(s.global_stop);
        assert_eq!(s.agent_window, Some(7));
        let s = PolicySettings::from_storage(&json!({"globalStop": "yes"}));
        assert_eq!(
            (s.blocklist, s.global_stop, s.agent_window),
            (Value::Null, false, None)
        );
    }

    #[test]
    fn storage_changes() {
        let c = Change::from_changes(
            &json!({"blocklist": {"oldValue": [], "newValue": "a.test b.test"}}),
        );
        assert_eq!(c.blocklist, Some(json!("a.test b.test")));
        assert!(!c.repaired);
        let c = Change::from_changes(&json!({"blocklist": {"oldValue": ["a.test"]}}));
        assert_eq!(c.blocklist, Some(Value::Null));
        let c = Change::from_changes(&json!({"backendUrl": {"newValue": "ws://x"}}));
        assert_eq!((c.blocklist, c.repaired), (None, true));
        assert!(Change::from_changes(&json!({"pairingToken": {"newValue": "t"}})).repaired);
        assert!(!Change::from_changes(&json!({"clientId": {"newValue": "c"}})).repaired);
        let c = Change::from_changes(&json!({"browserName": {"newValue": "Work"}}));
        assert_eq!((c.repaired, c.renamed), (false, true));
    }
}
