//! `retrace cache export --askui`: a trajectory rewritten in askui 0.48's tool vocabulary
//! ([`retrace_cache::export_askui`]), so askui's own cache executor replays it.

use std::path::Path;

use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::RECORDING_INDENT;
use retrace_cache::export_askui;
use retrace_cache::read_cache_file;
use retrace_cache::to_askui_json;

use crate::failure::Context;
use crate::failure::Failure;

/// A trajectory in askui's vocabulary.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The file's text.
    pub bytes: Vec<u8>,
    /// One line per kind of thing left out, naming the steps.
    pub notes: Vec<String>,
    /// Steps written for askui.
    pub steps: usize,
    /// Steps of the file exported.
    pub from_steps: usize,
}

/// Exports the trajectory at `path` for askui.
pub fn export_for_askui(path: &Path) -> Result<Exported, Failure> {
    let file = read_cache_file(path, DEFAULT_MAX_FILE_SIZE).map_err(Failure::of)?;
    let export = export_askui(&file)
        .with_context(|| format!("{} cannot be written for askui", path.display()))?;
    let bytes = to_askui_json(&export.file.to_json(), RECORDING_INDENT).map_err(Failure::of)?;
    Ok(Exported {
        bytes,
        notes: export.notes,
        steps: export.file.trajectory.len(),
        from_steps: file.trajectory.len(),
    })
}

/// Writes `bytes` to `path` whole (a temporary name, then a rename).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    retrace_cache::atomic_write(path, bytes).map_err(Failure::of)
}
