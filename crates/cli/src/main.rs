//! The `retrace` binary: argument parsing, configuration and printing over the library
//! crates. It holds no product logic; each subcommand lives in `commands/<name>.rs` and hands
//! over to a library crate.

mod commands;
mod console;
mod outcome;

use std::process::ExitCode;

use clap::Parser;

use crate::commands::Command;

/// retrace: let an AI agent work a user interface, record what it did, and replay it later
/// with no model calls, checking at every step that the screen still looks as recorded.
///
/// Exit codes: 0 pass, 1 a check failed, 2 error.
#[derive(Debug, Parser)]
#[command(name = "retrace", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli.command) {
        Ok(outcome) => outcome.exit_code(),
        Err(error) => {
            eprintln!("retrace: {error:#}");
            outcome::Outcome::Error.exit_code()
        }
    }
}
