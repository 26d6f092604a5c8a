//! `retrace cache`: list, show, check, export, invalidate and revalidate trajectory cache files
//! (askui v0.2/v0.3 files and legacy lists included). The work is `retrace_runner::cache`'s;
//! this module parses arguments and prints.

mod check;
mod export;
mod list;
mod mark;
mod show;
mod text;

use clap::Subcommand;

use crate::outcome::Outcome;

/// Inspect and manage trajectory cache files: the recordings retrace (or askui) replays.
///
/// Examples:
///   retrace cache list --dir .cache
///   retrace cache show .retrace_cache/login.json
///   retrace cache check .retrace_cache/*.json
///   retrace cache export --askui .retrace_cache/login.json --out askui_login.json
///   retrace cache invalidate .retrace_cache/login.json --reason "login page redesigned"
///   retrace cache revalidate .retrace_cache/login.json
///
/// Exit codes: 0 ok, 1 a check found problems, 2 error (unreadable file, bad arguments).
#[derive(Debug, clap::Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    command: CacheCommand,
}

#[derive(Debug, Subcommand)]
enum CacheCommand {
    List(list::ListArgs),
    Show(show::ShowArgs),
    Check(check::CheckArgs),
    Export(export::ExportArgs),
    Invalidate(mark::InvalidateArgs),
    Revalidate(mark::RevalidateArgs),
}

/// Runs one `retrace cache` subcommand.
pub fn run(args: CacheArgs) -> anyhow::Result<Outcome> {
    match args.command {
        CacheCommand::List(args) => list::run(args),
        CacheCommand::Show(args) => show::run(args),
        CacheCommand::Check(args) => check::run(args),
        CacheCommand::Export(args) => export::run(args),
        CacheCommand::Invalidate(args) => mark::run_invalidate(args),
        CacheCommand::Revalidate(args) => mark::run_revalidate(args),
    }
}
