//! `browser-bridge pair`: print the pairing token (created on first use) and how
//! to enter it in the extension.

use browser_bridge_backend::config;
use browser_bridge_protocol::BridgeError;

use crate::args::PairArgs;
use crate::output::{internal, print_stdout};

/// Prints the token on stdout and the pairing link and instructions on stderr.
///
/// # Errors
/// `internal_error` when the config directory or the token cannot be used.
pub(crate) fn pair(args: &PairArgs) -> Result<(), BridgeError> {
    let dir = config::resolve_config_dir(args.config.config_dir.as_deref()).map_err(internal)?;
    let token = config::load_or_create_token(&dir).map_err(internal)?;
    print_stdout(&token);
    let link = config::pairing_link(&args.extension_id, &token, &args.backend_url);
    eprintln!(
        "Pairing token above (stored in {}).\n\
         To pair, open this link in the browser where the extension is installed:\n\
         \n  {link}\n\n\
         or open the browser-bridge extension's popup (its toolbar icon), paste the token\n\
         into the pairing token field and save. The extension then connects to\n\
         {} while `browser-bridge serve` runs.\n\
         Keep the token secret: it lets a program drive your browser.",
        dir.join(config::TOKEN_FILE).display(),
        args.backend_url
    );
    Ok(())
}
