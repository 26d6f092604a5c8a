//! The `retrace` binary: argument parsing, configuration and printing over the library
//! crates. It holds no product logic; each subcommand lives in `commands/<name>.rs` and hands
//! over to `retrace-runner` (its work) and `retrace-report` (what is printed of events).
//!
//! Everything for stdout goes through [`output`], so a reader that went away (`| head -1`)
//! ends the command quietly instead of a panic of `println!`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod commands;
mod outcome;
mod output;
mod progress;
mod signals;
mod suite_reports;

use std::process::ExitCode;

use clap::Parser;

use crate::commands::Command;

/// retrace: record what an AI agent does in a user interface, and replay it without the model.
///
/// Every replayed step first checks that the screen still looks as it did when recorded.
///
/// Exit codes: 0 pass, 1 a check failed, 2 error.
#[derive(Debug, Parser)]
#[command(
    name = "retrace",
    version,
    propagate_version = true,
    verbatim_doc_comment
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    match commands::run(cli.command) {
        Ok(outcome) => outcome.exit_code(),
        // The reader went away (`retrace hash *.png | head -1`): nothing more to say.
        Err(error) if output::is_broken_pipe(&error) => outcome::Outcome::Pass.exit_code(),
        Err(error) => {
            output::note!("retrace: {}", retrace_report::error_chain(error.as_ref()));
            outcome::Outcome::Error.exit_code()
        }
    }
}

/// The environment variable that sets what retrace logs to stderr, as a `tracing` filter
/// (`RETRACE_LOG=debug`, `RETRACE_LOG=retrace_agent=debug`).
const LOG_ENV: &str = "RETRACE_LOG";

/// `directives` with `target=off` added unless they name `target`: chromiumoxide's protocol
/// logs carry page traffic (typed text, cookies) and rmcp's carry tool arguments (parameter
/// values, passwords among them), which must not reach a log by accident.
fn quiet_unless_named(directives: String, target: &str) -> String {
    if directives.contains(target) {
        directives
    } else {
        format!("{directives},{target}=off")
    }
}

/// Sends retrace's own warnings (a metadata update that could not be written, a screenshot
/// retried) to stderr; `RETRACE_LOG` widens or narrows that. chromiumoxide and rmcp stay
/// silent unless `RETRACE_LOG` names them ([`quiet_unless_named`]).
fn init_logging() {
    let directives = match std::env::var(LOG_ENV) {
        Ok(value) => quiet_unless_named(quiet_unless_named(value, "chromiumoxide"), "rmcp"),
        Err(_) => "retrace=warn".to_owned(),
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&directives).unwrap_or_else(|error| {
        output::note!("retrace: ignoring {LOG_ENV}: {error}");
        tracing_subscriber::EnvFilter::new("retrace=warn")
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(output::stderr_writer)
        .with_ansi(output::colours());
    // Asked for more than warnings: someone is diagnosing, so say when and where.
    let _ = if std::env::var_os(LOG_ENV).is_some() {
        builder
            .with_timer(tracing_subscriber::fmt::time::uptime())
            .try_init()
    } else {
        builder.without_time().with_target(false).try_init()
    };
}
