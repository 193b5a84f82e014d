//! The environment of a stdio MCP server: not ours (which holds the model's
//! API key, `GITHUB_TOKEN`, the pairing key…), but the few variables a program
//! needs to run, as the MCP SDKs' default stdio environment passes them
//! (TypeScript SDK `getDefaultEnvironment`, Python SDK
//! `get_default_environment`), with the server's own `env` from the config on top.

use std::collections::BTreeMap;

/// The variables passed on from our environment (Unix).
#[cfg(not(windows))]
pub const INHERITED_VARIABLES: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The variables passed on from our environment (Windows).
#[cfg(windows)]
pub const INHERITED_VARIABLES: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// The whole environment of a server whose config sets `own`: each of
/// [`INHERITED_VARIABLES`] that `lookup` finds (`std::env::var` in the host),
/// except a value starting with `()` (an exported bash function, a code
/// injection path since Shellshock), then `own`, which wins.
pub fn server_environment(
    lookup: impl Fn(&str) -> Option<String>,
    own: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut environment: BTreeMap<String, String> = INHERITED_VARIABLES
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), lookup(name)?)))
        .filter(|(_, value)| !value.starts_with("()"))
        .collect();
    environment.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    environment
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_allowed_variables_pass_and_the_config_wins() {
        let ours = |name: &str| -> Option<String> {
            match name {
                "PATH" => Some("/usr/bin".into()),
                "HOME" => Some("/home/u".into()),
                "SHELL" => Some("() { :; }; echo pwned".into()),
                "GITHUB_TOKEN" => Some("gho_secret".into()),
                _ => None,
            }
        };
        let own: BTreeMap<String, String> = [
            ("DEBUG".to_owned(), "1".to_owned()),
            ("PATH".to_owned(), "/opt/bin".to_owned()),
        ]
        .into();
        let mut expected: BTreeMap<String, String> = own.clone();
        if cfg!(not(windows)) {
            // SHELL holds a bash function: left out.
            expected.insert("HOME".into(), "/home/u".into());
        }
        assert_eq!(server_environment(ours, &own), expected);
        assert_eq!(
            server_environment(ours, &BTreeMap::new())
                .get("PATH")
                .map(String::as_str),
            Some("/usr/bin")
        );
    }
}
