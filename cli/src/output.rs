//! What the CLI prints and how it exits: results on stdout (stdout belongs to MCP
//! in `mcp` mode, so only these functions write to it), the error JSON
//! `{"error":{"code","message"}}` on stderr, and an exit code per error kind so
//! that scripts can tell "no browser" from "bad action".

use std::process::ExitCode;

use browser_bridge_protocol::{BridgeError, ErrorCode};

/// The exit codes, as `--help` shows them (README "Exit codes" says the same).
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0    success (for `run`: the task succeeded)
  1    any other failure (for `run`: the task did not succeed)
  2    usage: bad arguments, or an invalid action refused before it was sent
  3    not_connected: no browser extension is connected
  4    unauthorized or protocol_mismatch: pairing or trust failed (the token was not sent)
  5    timeout
  130  interrupted (Ctrl-C)";

/// Success.
pub(crate) const EXIT_OK: u8 = 0;
/// Any failure without a code of its own; `run` without success.
pub(crate) const EXIT_FAILURE: u8 = 1;
/// Bad arguments (clap's own code) or an invalid action.
pub(crate) const EXIT_USAGE: u8 = 2;
/// `not_connected`.
pub(crate) const EXIT_NOT_CONNECTED: u8 = 3;
/// `unauthorized`, `protocol_mismatch`.
pub(crate) const EXIT_UNAUTHORIZED: u8 = 4;
/// `timeout`.
pub(crate) const EXIT_TIMEOUT: u8 = 5;
/// Ctrl-C: 128 + SIGINT, as shells report it.
#[cfg_attr(not(feature = "agent"), allow(dead_code))]
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// The exit code for a failure with `code` ([`EXIT_CODES_HELP`]).
pub(crate) fn exit_code_for(code: &ErrorCode) -> u8 {
    match code {
        ErrorCode::InvalidRequest | ErrorCode::InvalidAction => EXIT_USAGE,
        ErrorCode::NotConnected => EXIT_NOT_CONNECTED,
        ErrorCode::Unauthorized | ErrorCode::ProtocolMismatch => EXIT_UNAUTHORIZED,
        ErrorCode::Timeout => EXIT_TIMEOUT,
        _ => EXIT_FAILURE,
    }
}

/// Prints the error JSON on stderr and returns its exit code.
pub(crate) fn fail(error: &BridgeError) -> ExitCode {
    eprintln!("{}", serde_json::json!({ "error": error }));
    ExitCode::from(exit_code_for(&error.code))
}

/// Pretty JSON of `value` on stdout.
pub(crate) fn print_json(value: &impl serde::Serialize) {
    print_stdout(&serde_json::to_string_pretty(value).expect("JSON values serialise"));
}

/// Writes `text` and a newline to stdout, the CLI's result output (stdout is ours
/// outside `mcp`). A closed stdout (`browser-bridge status | head -3`) is a normal
/// end, as for other Unix tools: the process exits 0 quietly instead of panicking
/// like `println!`. Any other write failure exits 1 with the error JSON on stderr.
pub(crate) fn print_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "{text}").and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            let error = internal(format!("cannot write to stdout: {e}"));
            eprintln!("{}", serde_json::json!({ "error": error }));
            std::process::exit(i32::from(EXIT_FAILURE));
        }
    }
}

/// `internal_error` with `e`'s text.
pub(crate) fn internal(e: impl std::fmt::Display) -> BridgeError {
    BridgeError::internal(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_kind_has_its_exit_code() {
        assert_eq!(exit_code_for(&ErrorCode::InvalidAction), 2);
        assert_eq!(exit_code_for(&ErrorCode::InvalidRequest), 2);
        assert_eq!(exit_code_for(&ErrorCode::NotConnected), 3);
        assert_eq!(exit_code_for(&ErrorCode::Unauthorized), 4);
        assert_eq!(exit_code_for(&ErrorCode::ProtocolMismatch), 4);
        assert_eq!(exit_code_for(&ErrorCode::Timeout), 5);
        assert_eq!(exit_code_for(&ErrorCode::ElementNotFound), 1);
        assert_eq!(exit_code_for(&ErrorCode::InternalError), 1);
    }

    #[test]
    fn the_help_lists_every_code() {
        for code in [
            EXIT_OK,
            EXIT_FAILURE,
            EXIT_USAGE,
            EXIT_NOT_CONNECTED,
            EXIT_UNAUTHORIZED,
            EXIT_TIMEOUT,
            EXIT_INTERRUPTED,
        ] {
            assert!(
                EXIT_CODES_HELP.contains(&format!("\n  {code} ")),
                "{code} missing from the help"
            );
        }
    }
}
