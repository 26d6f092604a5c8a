//! Deciding whether a finished model run is recorded, and writing it: a new trajectory, or
//! the repaired version of the one it replayed (the previous file kept beside it).
//!
//! Only successful runs in a recording cache mode are written, and only when the model acted
//! itself: a run that only replayed a trajectory (and perhaps verified it) has nothing new to
//! record.

use std::path::PathBuf;

use retrace_agent::RunReport;
use retrace_agent::RunStatus;
use retrace_cache::export_askui;
use retrace_drive::tool::Toolbox;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::tool_input;
use retrace_protocol::tool_names;
use retrace_replay::observe::Observations;
use retrace_replay::recorder;
use retrace_replay::recorder::RecordSettings;

use crate::error::RunnerError;
use crate::parameters::Parameters;

/// The tool vocabulary a recording is written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolFormat {
    /// retrace's own: one `computer` tool with Anthropic's actions, after-action hashes and
    /// the page's facts kept (every check replay can make).
    #[default]
    Retrace,
    /// askui 0.48's computer tools (`move_mouse`, `mouse_click`, ...), so askui's own cache
    /// executor replays the file; what askui cannot use is left out
    /// ([`retrace_cache::export_askui`]).
    Askui,
}

impl std::str::FromStr for ToolFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "retrace" => Ok(ToolFormat::Retrace),
            "askui" => Ok(ToolFormat::Askui),
            _ => Err(format!(
                "unknown tool format `{text}`: use retrace or askui"
            )),
        }
    }
}

/// Where and how a run is recorded.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The goal as given, placeholders unfilled.
    pub goal_template: String,
    /// The trajectory directory.
    pub cache_dir: PathBuf,
    /// The file name to write, or a generated one.
    pub cache_file: Option<String>,
    /// The screen size the model saw (the trajectory's coordinates).
    pub display_size: (u32, u32),
    /// The browser's viewport, when it differs from what the model saw.
    pub viewport: (u32, u32),
    /// Hash size of the recorded regions (8: askui's 64-bit hashes).
    pub hash_size: u32,
    /// What the page said about each action (see [`retrace_replay::observe`]).
    pub observations: Observations,
    /// Values to turn back into placeholders.
    pub parameters: Parameters,
    /// The tool vocabulary the file is written in.
    pub tool_format: ToolFormat,
    /// The desktop target the run was on (`metadata.target`); `None` for a browser.
    pub target: Option<serde_json::Value>,
}

/// Acting steps (not observing, not steering the conversation) in the history.
fn acting_steps(history: &[Message]) -> usize {
    history
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .flat_map(Message::tool_uses)
        .filter(|step| {
            !tool_names::is_control_tool(&step.name) && !tool_input::is_observe_only(step)
        })
        .count()
}

/// Records `run` when it succeeded and the model acted beyond what `replay` replayed; the
/// path written, announced as [`Event::CacheWritten`].
pub fn record_run(
    recording: &Recording,
    run: &RunReport,
    toolbox: &Toolbox,
    replay: Option<&ReplayOutcome>,
    events: &Events,
) -> Result<Option<PathBuf>, RunnerError> {
    if run.status != RunStatus::Done {
        return Ok(None);
    }
    let replayed_steps = replay.map_or(0, |replay| replay.steps_replayed);
    if acting_steps(&run.history) <= replayed_steps {
        return Ok(None);
    }
    let settings = RecordSettings {
        parameters: recording.parameters.values(),
        cache_dir: recording.cache_dir.clone(),
        file_name: recording.cache_file.clone(),
        display_size: Some(recording.display_size),
        viewport: Some(recording.viewport),
        hash_size: recording.hash_size,
        observations: recording.observations.clone(),
        target: recording.target.clone(),
        ..RecordSettings::default()
    };
    let file = recorder::build_cache_file(
        &recording.goal_template,
        &run.history,
        toolbox,
        run.usage,
        &settings,
    )?;
    let (file, notes) = match recording.tool_format {
        ToolFormat::Retrace => (file, Vec::new()),
        ToolFormat::Askui => {
            let export = export_askui(&file).map_err(|error| {
                RunnerError::Input(format!(
                    "this run cannot be recorded in askui's tools: {error}"
                ))
            })?;
            (export.file, export.notes)
        }
    };
    let store = settings.store();
    let replayed_name = replay
        .and_then(|replay| replay.file.file_name())
        .and_then(|name| name.to_str());
    let (path, previous) = match replayed_name {
        Some(name) => {
            let written = recorder::record_repaired(&store, name, &file)?;
            (written.path, written.previous)
        }
        None => (
            recorder::record(&store, recording.cache_file.as_deref(), &file)?,
            None,
        ),
    };
    events.emit(Event::CacheWritten {
        path: path.clone(),
        steps: file.trajectory.len(),
        previous,
        notes,
    });
    Ok(Some(path))
}
