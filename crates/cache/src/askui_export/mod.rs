//! A trajectory in askui 0.48's tool vocabulary, so askui's own `CacheExecutor` replays it.
//!
//! retrace records one `computer` tool with Anthropic actions (`left_click` at `coordinate`);
//! askui 0.48 replays per-action tools named `<base>_tags_<tags>_<uuid>` that act at the
//! pointer (`move_mouse {x, y}`, then `mouse_click {mouse_button, number_of_clicks}`). askui
//! checks a step's `visual_representation` only on a step whose input has a point, against the
//! latest screenshot in its conversation, so the hash moves to the `move_mouse` step and a
//! `screenshot` step is put before it when the step before is not one.
//!
//! Kept: `{{name}}` parameters, the goal, `visual_validation`, retrace's metadata and step
//! fields askui ignores on reading (`element` and `visual_crop` on the `move_mouse` step that
//! carries the hash, `focused_after` on `type`). Left out, each said in [`AskuiExport::notes`]:
//! after-action fields (askui has no after-action check, and no step of the export is the
//! one that had the effect), `wait` and `cursor_position` (askui has no such tool; askui waits
//! `delay_time_between_actions` between steps anyway), and the replay history (its step
//! indices name the old steps). A step askui cannot express (a held key, web executor
//! commands, a key without an askui name) is an [`ExportError`] naming it.

mod actions;
mod keys;
mod out;

use std::collections::BTreeMap;

use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::Askui;
use retrace_protocol::tool_names::COMPUTER;
use retrace_protocol::tool_names::WEB_EXECUTOR;
use serde_json::Value;

use retrace_protocol::stable_hash::fnv1a64;

use crate::fields;
use crate::model::CacheFile;
use out::Out;
pub use out::PIXELS_PER_NOTCH;

/// A file in askui's vocabulary, and what the conversion left out.
#[derive(Debug, Clone, PartialEq)]
pub struct AskuiExport {
    /// The converted file (write it with [`crate::to_askui_json`]).
    pub file: CacheFile,
    /// One line per kind of thing left out, naming the steps (1-based, of the input file).
    pub notes: Vec<String>,
}

/// A step askui 0.48's tools cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("step {step} (`{action}`): {message}")]
pub struct ExportError {
    /// The 1-based step of the input file.
    pub step: usize,
    /// Its tool or action.
    pub action: String,
    /// Why it cannot be exported.
    pub message: String,
}

/// `file` with its `computer` steps rewritten as askui 0.48's computer tools. Steps of other
/// tools (askui's own, `locate`...) are kept as they are.
pub fn export_askui(file: &CacheFile) -> Result<AskuiExport, ExportError> {
    let mut out = Out {
        steps: Vec::new(),
        seed: fnv1a64(file.metadata.created_at.to_string().as_bytes()),
        dropped: BTreeMap::new(),
    };
    for (index, step) in file.trajectory.iter().enumerate() {
        convert(step, index + 1, &mut out)?;
    }
    let mut exported = file.clone();
    exported.trajectory = out.steps;
    let mut notes: Vec<String> = out
        .dropped
        .into_iter()
        .map(|(what, steps)| format!("left out {what} at steps {steps}"))
        .collect();
    let metadata = &mut exported.metadata;
    if metadata.execution_attempts > 0 || !metadata.failures.is_empty() {
        notes.push(format!(
            "replay history cleared ({} attempts, {} failures): its step indices name the \
             steps before the export",
            metadata.execution_attempts,
            metadata.failures.len()
        ));
    }
    metadata.execution_attempts = 0;
    metadata.failures.clear();
    metadata.last_executed_at = None;
    metadata.extra.remove(fields::LAST_PASSED);
    metadata.extra.remove(fields::LAST_VERIFICATION);
    Ok(AskuiExport {
        file: exported,
        notes,
    })
}

/// Appends the askui steps for the 1-based step `number`.
fn convert(step: &ToolUseBlock, number: usize, out: &mut Out) -> Result<(), ExportError> {
    if step.name == WEB_EXECUTOR {
        return Err(refuse(
            step,
            number,
            "askui 0.48 has no tool for web executor commands",
        ));
    }
    if step.name != COMPUTER {
        out.steps.push(step.clone());
        return Ok(());
    }
    let name = step
        .input
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("");
    let err = |message: String| ExportError {
        step: number,
        action: name.to_owned(),
        message,
    };
    let action = computer_actions::parse(&step.input).map_err(|error| err(error.message))?;
    match computer_actions::spec(name).map(|spec| spec.askui) {
        Some(Askui::Dropped(reason)) => {
            out.drop_note(&format!("`{name}` ({reason})"), number);
            Ok(())
        }
        Some(Askui::Unsupported(reason)) => Err(err(reason.to_owned())),
        Some(Askui::Tools(_)) | None => actions::convert(step, number, &action, out).map_err(err),
    }
}

fn refuse(step: &ToolUseBlock, number: usize, message: &str) -> ExportError {
    ExportError {
        step: number,
        action: step.name.clone(),
        message: message.to_owned(),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
