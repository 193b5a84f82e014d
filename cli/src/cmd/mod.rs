//! One module per subcommand; [`run()`] dispatches the parsed command line and
//! turns its outcome into the process exit code ([`crate::output`]).

mod act;
#[cfg(feature = "agent")]
mod chat;
#[cfg(feature = "agent")]
mod console_runner;
mod mcp;
#[cfg(feature = "agent")]
mod memory;
mod pair;
#[cfg(feature = "agent")]
mod progress;
#[cfg(feature = "agent")]
mod run;
mod schema;
mod serve;

use std::process::ExitCode;

use crate::args::{Cli, Command};
use crate::output;

/// Runs the parsed command line; returns the process exit code.
pub(crate) async fn run(cli: Cli) -> ExitCode {
    let outcome = match cli.command {
        // Its exit code is the task's verdict, not only an error.
        #[cfg(feature = "agent")]
        Command::Run(args) => return run::run(args).await,
        #[cfg(feature = "agent")]
        Command::Chat(args) => return chat::chat(args).await,
        #[cfg(feature = "agent")]
        Command::Memory(args) => memory::memory(&args),
        Command::Serve(args) => serve::serve(args).await,
        Command::Mcp(args) => mcp::mcp(args).await,
        Command::Pair(args) => pair::pair(&args),
        Command::Act(args) => act::act(args).await,
        Command::Status(args) => act::status(args).await,
        Command::Console(args) => act::console(args).await,
        Command::Schema(args) => {
            schema::schema(&args);
            Ok(())
        }
    };
    match outcome {
        Ok(()) => ExitCode::from(output::EXIT_OK),
        Err(error) => output::fail(&error),
    }
}
