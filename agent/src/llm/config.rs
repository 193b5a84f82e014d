//! Which model, where: the model configuration `run` gets from its flags and the
//! environment, and the client made from it.

use crate::llm::{self, LlmClient, Provider};

/// Every environment variable that configures the model: the key variables
/// ([`llm::api_key`]) and the CLI's `--base-url`, `--provider`, `--model`
/// defaults. Tests that spawn the binary clear them so that a developer's own
/// settings cannot leak into the run.
pub const MODEL_ENV_VARIABLES: [&str; 8] = [
    llm::KEY_VARIABLE,
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "BROWSER_BRIDGE_BASE_URL",
    "BROWSER_BRIDGE_PROVIDER",
    "BROWSER_BRIDGE_MODEL",
];

/// A model choice: provider, model name and base URL (defaults per provider).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// Wire format.
    pub provider: Provider,
    /// Model name; `None`: [`Provider::default_model`].
    pub model: Option<String>,
    /// API base URL; `None`: [`Provider::default_base_url`].
    pub base_url: Option<String>,
}

impl ModelConfig {
    /// The base URL in use.
    pub fn base_url(&self) -> String {
        self.base_url
            .clone()
            .unwrap_or_else(|| self.provider.default_base_url().to_owned())
    }

    /// The client, with the key read through `lookup` (`std::env::var` in the
    /// CLI). `None` when there is no key and the base URL is not a loopback server
    /// (which may need none), or for Copilot, which always needs the GitHub
    /// token: [`ModelConfig::missing_key_message`] says why.
    pub fn client(&self, lookup: impl Fn(&str) -> Option<String>) -> Option<LlmClient> {
        self.client_with_key(None, lookup)
    }

    /// [`ModelConfig::client`] with a key given outright (`--api-key`), which wins
    /// over the environment.
    pub fn client_with_key(
        &self,
        key: Option<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Option<LlmClient> {
        let key = key
            .filter(|key| !key.trim().is_empty())
            .or_else(|| llm::api_key(self.provider, lookup));
        let base = self.base_url();
        if key.is_none() && (self.provider == Provider::Copilot || !is_loopback_url(&base)) {
            return None;
        }
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| self.provider.default_model().to_owned());
        Some(LlmClient::new(self.provider, &base, &model, key))
    }

    /// Why there is no client.
    pub fn missing_key_message(&self) -> String {
        let variables = self.provider.key_variables().join(" or ");
        if self.provider == Provider::Copilot {
            return format!(
                "no GitHub token: set {variables} (or {}, or pass --api-key) to a token of \
                 an account with Copilot",
                llm::KEY_VARIABLE
            );
        }
        format!(
            "no API key: set {} or {variables}, or pass --api-key (a loopback --base-url \
             such as Ollama's needs none)",
            llm::KEY_VARIABLE,
        )
    }
}

/// True for `http(s)://127.0.0.1…`, `localhost` and `[::1]` URLs.
pub fn is_loopback_url(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_need_no_key() {
        assert!(is_loopback_url("http://127.0.0.1:11434/v1"));
        assert!(is_loopback_url("http://localhost:1234/v1"));
        assert!(is_loopback_url("http://[::1]:8080/v1"));
        assert!(!is_loopback_url("https://api.openai.com/v1"));
        assert!(!is_loopback_url("not a url"));
    }

    #[test]
    fn no_key_and_a_remote_url_is_no_client() {
        let remote = ModelConfig {
            provider: Provider::Openai,
            model: None,
            base_url: None,
        };
        assert!(remote.client(|_| None).is_none());
        assert!(remote.client(|_| Some("sk-test".into())).is_some());
        let local = ModelConfig {
            base_url: Some("http://127.0.0.1:11434/v1".into()),
            ..remote
        };
        assert!(local.client(|_| None).is_some());
        let copilot = ModelConfig {
            provider: Provider::Copilot,
            ..local
        };
        assert!(copilot.client(|_| None).is_none(), "Copilot needs a token");
        assert!(
            copilot
                .client_with_key(Some("gho_x".into()), |_| None)
                .is_some()
        );
        assert!(
            copilot
                .missing_key_message()
                .contains("GITHUB_TOKEN or GH_TOKEN")
        );
    }
}
