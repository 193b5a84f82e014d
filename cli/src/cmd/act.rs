//! `browser-bridge act`, `status` and `console`: clients of a running `serve` (its HTTP API,
//! after it proved it knows the token, PROTOCOL.md §2.1).

use std::io::Read;

use browser_bridge_backend::{Bridge, RemoteBridge, config};
use browser_bridge_protocol::{Action, BridgeError, ErrorCode};

use crate::args::{ActArgs, ClientArgs};
use crate::output::{internal, print_json};

fn client(args: &ClientArgs) -> Result<RemoteBridge, BridgeError> {
    let dir = config::resolve_config_dir(args.config.config_dir.as_deref()).map_err(internal)?;
    let token = config::read_token(&dir).map_err(internal)?.ok_or_else(|| {
        BridgeError::new(
            ErrorCode::Unauthorized,
            format!(
                "no pairing token in {}: run `browser-bridge serve` or `browser-bridge pair` first",
                dir.display()
            ),
        )
    })?;
    Ok(RemoteBridge::with_base_url(args.server.clone(), token).with_token_dir(dir))
}

/// Sends one action (JSON text, or `-` for stdin) and prints its result JSON.
///
/// # Errors
/// `invalid_request`/`invalid_action` for a bad action (never sent), else the
/// action's or the transport's error.
pub(crate) async fn act(args: ActArgs) -> Result<(), BridgeError> {
    let text = if args.action == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| BridgeError::invalid_request(format!("cannot read stdin: {e}")))?;
        text
    } else {
        args.action
    };
    // Validate locally first: a bad action never leaves this process. `browser`
    // (PROTOCOL.md §5 "Browsers") is not an action field: it goes beside it.
    let mut value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| BridgeError::invalid_request(format!("not valid JSON: {e}")))?;
    let browser = match &mut value {
        serde_json::Value::Object(map) => browser_bridge_protocol::browser::take_browser(map)?,
        _ => None,
    };
    let action = Action::from_value(value)?;
    let bridge = client(&args.client)?.for_browser(browser.as_deref());
    let result = bridge.act(action).await?;
    print_json(&result);
    Ok(())
}

/// Prints the running `serve`'s status JSON.
///
/// # Errors
/// `unauthorized` without a token or when the server is not proven; transport
/// errors as `not_connected`.
pub(crate) async fn status(args: ClientArgs) -> Result<(), BridgeError> {
    let status = client(&args)?.status().await?;
    print_json(&status);
    Ok(())
}

/// `browser-bridge console`: prints a one-time link to the running `serve`'s
/// console page (docs/DESIGN.md "Local console"). The token stays here: the
/// link carries a code, in its fragment, that works once, for 60 s.
///
/// # Errors
/// As [`status`]; `internal_error` (exit 1, not usage) when serve answers 429:
/// too many links are pending.
pub(crate) async fn console(args: ClientArgs) -> Result<(), BridgeError> {
    let link = client(&args)?.console_link().await?;
    crate::output::print_stdout(&link);
    eprintln!("open it in this machine's browser within 60 s; it works once");
    Ok(())
}
