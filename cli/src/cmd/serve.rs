//! `browser-bridge serve`: the backend until Ctrl-C or SIGTERM.

use browser_bridge_backend::{ServeOptions, run_serve};
use browser_bridge_protocol::BridgeError;

use crate::args::ServeArgs;
use crate::output::internal;

/// Runs `serve` with `args`.
///
/// # Errors
/// `internal_error` with the [`ServeError`](browser_bridge_backend::ServeError)'s
/// text (address taken, non-loopback address, config or token unusable);
/// `unauthorized` for `--provider` without the key it needs.
pub(crate) async fn serve(args: ServeArgs) -> Result<(), BridgeError> {
    #[cfg(feature = "agent")]
    let console_runner =
        super::console_runner::from_args(&args.console_model, args.config.config_dir.clone())?;
    #[cfg(not(feature = "agent"))]
    let console_runner = None;
    let opts = ServeOptions {
        console_runner,
        listen: args.listen,
        config_dir: args.config.config_dir,
        extension_id: args.extension_id,
        min_protocol_version: args.min_protocol_version,
        connect_wait: args.connect_wait,
        allow_remote: args.allow_remote,
        ..ServeOptions::default()
    };
    run_serve(opts).await.map_err(internal)
}
