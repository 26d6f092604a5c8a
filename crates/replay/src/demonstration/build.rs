//! A demonstration's steps as a trajectory file: laid out as the history of a model run (the
//! frame before each step as the screenshot the step was decided on, the frame after it as
//! the step's own result) and recorded by [`build_cache_file`], so the file is the one a
//! model run writes, hashes, element facts, parameters and all. The metadata says it was
//! demonstrated ([`fields::RECORDED_FROM`]) and used no tokens.

use std::sync::Arc;

use base64::Engine;
use retrace_cache::CacheFile;
use retrace_cache::fields;
use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::tool::Toolbox;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use serde_json::Value;

use super::secrets;
use super::step::DemonstratedStep;
use crate::observe::Observation;
use crate::observe::Observations;
use crate::recorder::RecordError;
use crate::recorder::RecordSettings;
use crate::recorder::build_cache_file;

/// The goal a demonstrated trajectory is stored with.
pub fn goal_for(url: &str) -> String {
    format!("Demonstrated by a person, starting at {url}")
}

/// The trajectory file of `steps` demonstrated from `url`. `presets` are the person's
/// `--param NAME=VALUE` pairs; typed secrets are found here ([`secrets::parameters`]).
/// `settings` says how to hash (its parameters and observations are set here). `toolbox`
/// holds the `computer` tool the steps are calls of.
pub fn demonstrated_file(
    url: &str,
    steps: &[DemonstratedStep],
    presets: &[(String, String)],
    toolbox: &Toolbox,
    settings: &RecordSettings,
) -> Result<CacheFile, RecordError> {
    let observations = Observations::new();
    for step in steps {
        observations.push(Observation {
            input: step.input.clone(),
            element: step.element.clone(),
            element_after: step.element_after.clone(),
            focused_after: step.focused_after.clone(),
            page_after: step.page_after.clone(),
        });
    }
    let pairs = secrets::parameters(steps, presets);
    let settings = RecordSettings {
        parameters: pairs.iter().cloned().collect(),
        observations,
        ..settings.clone()
    };
    let mut file = build_cache_file(
        &goal_for(url),
        &history(steps),
        toolbox,
        Usage::default(),
        &settings,
    )?;
    store_dialogs(&mut file, steps, &pairs);
    file.metadata.extra.insert(
        fields::RECORDED_FROM.to_owned(),
        Value::String(fields::DEMONSTRATION.to_owned()),
    );
    Ok(file)
}

/// Stores the dialogs each step opened ([`fields::DIALOGS`]), parameter values in their answers
/// as placeholders ([`secrets::scrub_dialog`]); the file has a step for each demonstrated one,
/// in order.
fn store_dialogs(file: &mut CacheFile, steps: &[DemonstratedStep], pairs: &[(String, String)]) {
    if file.trajectory.len() != steps.len() {
        tracing::warn!(
            recorded = file.trajectory.len(),
            demonstrated = steps.len(),
            "the file's steps are not the demonstrated ones: its dialogs are left out"
        );
        return;
    }
    for (recorded, step) in file.trajectory.iter_mut().zip(steps) {
        let dialogs: Vec<_> = step
            .dialogs
            .iter()
            .map(|dialog| secrets::scrub_dialog(dialog, pairs))
            .collect();
        if !dialogs.is_empty()
            && let Ok(value) = serde_json::to_value(&dialogs)
        {
            // A placeholder in an answer is a parameter of the file like one in an input.
            for name in retrace_cache::params::parameters_in_value(&value) {
                let description = crate::recorder::default_description(&name);
                file.cache_parameters.entry(name).or_insert(description);
            }
            recorded.extra.insert(fields::DIALOGS.to_owned(), value);
        }
    }
}

/// The history a model run with these steps would have had.
fn history(steps: &[DemonstratedStep]) -> Vec<Message> {
    let mut history = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let id = format!("toolu_demo_{}", index + 1);
        if let Some(before) = &step.before {
            // The screen the step was made on: a result of no call, as the first screenshot
            // of a run is.
            history.push(Message::user(vec![screen(
                &format!("screen_{}", index + 1),
                before,
            )]));
        }
        history.push(Message::assistant(vec![ContentBlock::ToolUse(
            ToolUseBlock::new(id.clone(), step.tool, step.input.clone()),
        )]));
        if let Some(after) = &step.after {
            history.push(Message::user(vec![screen(&id, after)]));
        }
    }
    history
}

fn screen(tool_use_id: &str, frame: &Arc<Frame>) -> ContentBlock {
    let data = base64::engine::general_purpose::STANDARD.encode(&frame.png);
    ContentBlock::ToolResult(ToolResultBlock::new(
        tool_use_id,
        vec![ContentBlock::png_base64(data)],
        false,
    ))
}
