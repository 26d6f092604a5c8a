//! The subcommands. Each module owns its clap `Args` and a `run` that returns an [`Outcome`].
//! To add a command: its work in a runner module (arguments in, results out, in the runner's
//! own types), then a module here that parses and prints, a variant in [`Command`], an arm
//! in [`run`].

use clap::Subcommand;

use crate::outcome::Outcome;

mod act;
mod approve;
mod browser_args;
mod cache;
mod check;
mod check_end;
mod check_login;
mod check_window;
mod demo;
mod desktop_args;
mod diff;
mod do_actions;
mod finish;
mod hash;
mod mcp;
mod models;
mod provider_args;
mod record;
mod record_desktop;
mod replay;
mod report;
mod run;
mod schema;
mod screenshot;
mod serve_demo;
mod shard_args;

/// Every `retrace` subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    // No doc comments on the variants: clap would show them instead of each `...Args`' own
    // (which has the examples), here and in `retrace <command> --help`.
    Hash(hash::HashArgs),
    Diff(diff::DiffArgs),
    Cache(cache::CacheArgs),
    Check(Box<check::CheckArgs>),
    ServeDemo(serve_demo::ServeDemoArgs),
    Screenshot(screenshot::ScreenshotArgs),
    Do(do_actions::DoArgs),
    Demo(demo::DemoArgs),
    Replay(replay::ReplayArgs),
    Record(record::RecordArgs),
    Run(run::RunArgs),
    Act(act::ActArgs),
    Approve(approve::ApproveArgs),
    Schema(schema::SchemaArgs),
    Report(report::ReportArgs),
    Models(models::ModelsArgs),
    Mcp(mcp::McpArgs),
}

/// Runs one subcommand to its end.
pub fn run(command: Command) -> anyhow::Result<Outcome> {
    match command {
        Command::Hash(args) => hash::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Cache(args) => cache::run(args),
        Command::Check(args) => check::run(*args),
        Command::ServeDemo(args) => serve_demo::run(args),
        Command::Screenshot(args) => screenshot::run(args),
        Command::Do(args) => do_actions::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Record(args) => record::run(args),
        Command::Run(args) => run::run(args),
        Command::Act(args) => act::run(args),
        Command::Approve(args) => approve::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Report(args) => report::run(args),
        Command::Models(args) => models::run(args),
        Command::Mcp(args) => mcp::run(args),
    }
}
