//! `retrace cache export --askui`: a trajectory rewritten in askui 0.48's tool vocabulary
//! (`retrace_runner::cache::export`), so askui's own cache executor replays it.

use std::path::PathBuf;

use anyhow::bail;

use crate::outcome::Outcome;
use crate::output::out;

/// Write a trajectory in another tool's vocabulary.
///
/// --askui: askui 0.48's computer tools (`move_mouse {x, y}` carrying the step's hash, then
/// `mouse_click`, `type`, `keyboard_tap`, `mouse_scroll`...), with a screenshot step before
/// each checked point, so askui's CacheExecutor replays the file and checks its hashes.
/// Parameters stay `{{name}}`; what askui cannot use (after-action hashes, `wait`) is left
/// out and said on stderr; the replay history is cleared (its step numbers change).
///
/// Examples:
///   retrace cache export --askui .retrace_cache/login.json --out .askui_cache/login.json
///   retrace cache export --askui login.json > login.askui.json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ExportArgs {
    /// The trajectory file to export.
    pub file: PathBuf,
    /// Write askui 0.48's tool vocabulary (the one format so far).
    #[arg(long)]
    pub askui: bool,
    /// Write here (atomically) instead of to stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Exports the file.
pub fn run(args: ExportArgs) -> anyhow::Result<Outcome> {
    if !args.askui {
        bail!("say which format to export to: --askui (askui 0.48's tool vocabulary)");
    }
    let export = retrace_runner::cache::export::export_for_askui(&args.file)?;
    for note in &export.notes {
        crate::output::note!("retrace: {}: {note}", args.file.display());
    }
    match &args.out {
        Some(path) => {
            retrace_runner::cache::export::write(path, &export.bytes)?;
            crate::output::note!(
                "retrace: wrote {} ({} steps for askui, from {})",
                path.display(),
                export.steps,
                export.from_steps
            );
        }
        None => out!("{}", String::from_utf8_lossy(&export.bytes).trim_end()),
    }
    Ok(Outcome::Pass)
}
