//! Recording: a finished run's history becomes a trajectory cache file.
//!
//! [`build_cache_file`] is pure and synchronous: it walks the history, keeps every tool call
//! of every assistant message in order (inputs of non-cacheable tools emptied, as askui
//! does), hashes the screen region around each action point in the screenshot the model saw
//! before acting, and the same region in the screenshot the action itself returned (the
//! after-action hash, `visual_representation_after`), then replaces parameter values by
//! `{{name}}` placeholders. [`record`] and [`record_repaired`] write the result to a
//! [`retrace_cache::CacheStore`].
//!
//! The before-screenshot is askui's: the first image inside a tool_result of the latest user
//! message, before the step's assistant message, that has one; steps of one assistant
//! message share it. Each screenshot is decoded at most once.
//!
//! It does not decide *whether* a run is recorded (failed runs, runs that only replayed a
//! cache): callers do, and it never calls a model except in
//! [`identify_parameters`](crate::recorder::identify_parameters).

use std::collections::BTreeMap;

use base64::Engine;
use retrace_cache::CacheFile;
use retrace_cache::CacheMetadata;
use retrace_cache::ParameterValues;
use retrace_cache::VisualValidation;
use retrace_cache::fields;
use retrace_cache::params::Template;
use retrace_cache::params::parameters_in_trajectory;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use retrace_protocol::tool_input;
use retrace_protocol::tool_names;
use retrace_vision::Image;
use retrace_vision::ImageHash;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use retrace_drive::tool::Toolbox;

use crate::observe::Observation;
use crate::observe::ObservationQueue;

mod after_region;
mod error;
mod params;
mod screens;
mod settings;
mod write;

use screens::ScreenKey;
use screens::Screens;
use screens::first_screenshot;
use screens::result_screenshots;

pub use after_region::region_hash_at;
pub use error::RecordError;
pub use params::Identification;
pub use params::IdentifiedParameter;
pub use params::add_parameters;
pub use params::default_description;
pub use params::identify_parameters;
pub use params::is_parameter_name;
pub use params::parameterize_value;
pub use settings::DEFAULT_CACHE_DIR;
pub use settings::RecordSettings;
pub use write::RepairedRecord;
pub use write::record;
pub use write::record_repaired;
pub use write::record_replacing;

/// The cache file for a finished run.
///
/// `goal_template` is the goal as the user gave it, placeholders unfilled; `usage` the
/// tokens of the recording run. See the module docs for the rules.
pub fn build_cache_file(
    goal_template: &str,
    history: &[Message],
    toolbox: &Toolbox,
    usage: Usage,
    settings: &RecordSettings,
) -> Result<CacheFile, RecordError> {
    let mut screens = Screens::new(history);
    let after_screens = result_screenshots(history);
    let mut observed = ObservationQueue::new(settings.observations.snapshot());
    let mut before: Option<ScreenKey> = None;
    let mut first_size: Option<(u32, u32)> = None;
    let mut trajectory = Vec::new();
    let not_executed = not_executed_calls(history);
    for (index, message) in history.iter().enumerate() {
        if message.role == Role::User {
            if let Some(block) = first_screenshot(message) {
                before = Some((index, block));
            }
            continue;
        }
        for tool_use in message.tool_uses() {
            if !settings.keep_control_tools && tool_names::is_control_tool(&tool_use.name) {
                continue;
            }
            if not_executed.contains(tool_use.id.as_str()) {
                continue;
            }
            let step = trajectory.len();
            let cacheable = toolbox
                .get(&tool_use.name)
                .is_some_and(|tool| tool.cacheable());
            let input = if cacheable {
                tool_use.input.clone()
            } else {
                Value::Object(Map::new())
            };
            let mut recorded = ToolUseBlock::new(tool_use.id.clone(), tool_use.name.clone(), input);
            if cacheable && let Some(observation) = observed.take(&tool_use.input) {
                store_observation(&mut recorded, observation);
            }
            if let Some(point) = retrace_protocol::tool_input::action_point(&recorded.input) {
                let shot = |key: Option<ScreenKey>,
                            screens: &mut Screens<'_>|
                 -> Result<Option<ImageHash>, RecordError> {
                    let Some(key) = key else { return Ok(None) };
                    let image = screens.get(key).map_err(|source| RecordError::Screenshot {
                        step,
                        id: tool_use.id.clone(),
                        message: key.0,
                        source,
                    })?;
                    let Some(image) = image else { return Ok(None) };
                    let hash = region_hash_at(
                        image,
                        point,
                        settings.method,
                        settings.region_size,
                        settings.hash_size,
                    )
                    .map_err(|source| RecordError::Hash {
                        step,
                        id: tool_use.id.clone(),
                        x: point.0,
                        y: point.1,
                        source,
                    })?;
                    Ok(Some(hash))
                };
                recorded.visual_representation =
                    shot(before, &mut screens)?.map(|hash| hash.to_string());
                if settings.store_crops
                    && recorded.visual_representation.is_some()
                    && let Some(key) = before
                    && let Ok(Some(image)) = screens.get(key)
                    && let Some(text) = crop_text(image, point, settings.region_size)
                {
                    recorded
                        .extra
                        .insert(fields::EXPECTED_CROP.to_owned(), Value::String(text));
                }
                if let Some(hash) = &recorded.visual_representation
                    && is_flat_hash(hash)
                {
                    tracing::warn!(
                        "step {}'s region around ({}, {}) is blank: its check can detect nothing",
                        step + 1,
                        point.0,
                        point.1
                    );
                }
                let after_key = after_screens.get(tool_use.id.as_str()).copied();
                if let Some(at_point) = shot(after_key, &mut screens)?
                    && let Some(key) = after_key
                    && let (Some(image), before_image) = screens.pair(key, before)
                {
                    store_after_region(
                        &mut recorded,
                        (image, before_image),
                        point,
                        at_point,
                        settings,
                        step,
                    );
                }
            }
            if first_size.is_none()
                && let Some(key) = before
                && let Ok(Some(image)) = screens.get(key)
            {
                first_size = Some((image.width(), image.height()));
            }
            trajectory.push(recorded);
        }
    }
    if trajectory.is_empty() {
        return Err(RecordError::Empty);
    }
    if first_size.is_none()
        && let Some(key) = before
        && let Ok(Some(image)) = screens.get(key)
    {
        first_size = Some((image.width(), image.height()));
    }

    let presets: Vec<(String, String)> = preset_pairs(&settings.parameters);
    parameterize_steps(&mut trajectory, &presets);
    let metadata = recording_metadata(goal_template, usage, settings, first_size);
    let mut file = CacheFile::new(metadata, trajectory);
    file.cache_parameters = described_parameters(&file.trajectory, settings);
    warn_on_leftover_values(&file, &presets);
    Ok(file)
}

/// Writes the preset parameters' values in each step's input and element fields as their
/// `{{name}}` placeholders, so no value reaches the file.
fn parameterize_steps(trajectory: &mut [ToolUseBlock], presets: &[(String, String)]) {
    for step in trajectory {
        step.input = parameterize_value(&step.input, presets);
        for key in [
            fields::ELEMENT,
            fields::ELEMENT_AFTER,
            fields::FOCUSED_AFTER,
            fields::PAGE_AFTER,
        ] {
            if let Some(value) = step.extra.get_mut(key) {
                *value = parameterize_value(value, presets);
            }
        }
    }
}

/// The metadata of a new recording: its goal, token usage, how its regions are hashed, the
/// screen it was recorded on (`first_size` when the settings do not say) and its target.
fn recording_metadata(
    goal_template: &str,
    usage: Usage,
    settings: &RecordSettings,
    first_size: Option<(u32, u32)>,
) -> CacheMetadata {
    let mut metadata = CacheMetadata::new(jiff::Timestamp::now(), Some(goal_template.to_owned()));
    metadata.token_usage = Some(usage);
    metadata.visual_validation = Some(VisualValidation {
        enabled: settings.visual_validation,
        method: settings.method.name().to_owned(),
        region_size: settings.region_size,
        extra: Map::new(),
    });
    let display_size = settings.display_size.or(first_size);
    if let Some((width, height)) = display_size {
        metadata
            .extra
            .insert(fields::DISPLAY_SIZE.to_owned(), json!([width, height]));
    }
    if let Some((width, height)) = settings.viewport
        && Some((width, height)) != display_size
    {
        metadata
            .extra
            .insert(fields::VIEWPORT.to_owned(), json!([width, height]));
    }
    if let Some(target) = &settings.target {
        metadata
            .extra
            .insert(fields::TARGET.to_owned(), target.clone());
    }
    metadata
}

/// Every parameter the trajectory's placeholders name, with its description (the one given,
/// else a default).
fn described_parameters(
    trajectory: &[ToolUseBlock],
    settings: &RecordSettings,
) -> BTreeMap<String, String> {
    parameters_in_trajectory(trajectory)
        .into_iter()
        .map(|name| {
            let description = settings
                .parameter_descriptions
                .get(&name)
                .cloned()
                .unwrap_or_else(|| default_description(&name));
            (name, description)
        })
        .collect()
}

/// The same square as a base64 PNG: what a step stores as `visual_crop`; `None` when it
/// cannot be encoded.
pub fn crop_text(image: &Image, point: (i64, i64), region_size: u32) -> Option<String> {
    let crop = crate::evidence::region_crop(image, point, region_size)?;
    Some(base64::engine::general_purpose::STANDARD.encode(crop.bytes()))
}

/// Stores what the page said about a step in its extra fields (absent ones stay absent).
fn store_observation(step: &mut ToolUseBlock, observation: Observation) {
    let fields = [
        (fields::ELEMENT, observation.element),
        (fields::ELEMENT_AFTER, observation.element_after),
        (fields::FOCUSED_AFTER, observation.focused_after),
    ];
    for (key, element) in fields {
        if let Some(element) = element
            && let Ok(value) = serde_json::to_value(&element)
        {
            step.extra.insert(key.to_owned(), value);
        }
    }
    if let Some(page) = observation.page_after
        && let Ok(value) = serde_json::to_value(&page)
    {
        step.extra.insert(fields::PAGE_AFTER.to_owned(), value);
    }
}

/// Stores the after-action region of `step` (0-based) acting at `point` in the screenshot
/// the action returned (with the one before it), re-centred when blank (see
/// [`after_region`]), or none, with a warning, when nothing near changed.
fn store_after_region(
    recorded: &mut ToolUseBlock,
    (image, before): (&Image, Option<&Image>),
    point: (i64, i64),
    at_point: ImageHash,
    settings: &RecordSettings,
    step: usize,
) {
    let Some((hash, centre)) = after_region::after_region(image, before, point, at_point, settings)
    else {
        tracing::warn!(
            "step {}'s after-action region around ({}, {}) is blank and the action changed nothing near it: no after-action hash is recorded",
            step + 1,
            point.0,
            point.1
        );
        return;
    };
    let (field, value) = match centre {
        None => (fields::AFTER_HASH, Value::String(hash.to_string())),
        Some((x, y)) => (
            fields::RECENTRED_AFTER,
            json!({"hash": hash.to_string(), "at": [x, y]}),
        ),
    };
    recorded.extra.insert(field.to_owned(), value);
    if settings.store_crops
        && let Some(text) = crop_text(image, centre.unwrap_or(point), settings.region_size)
    {
        recorded
            .extra
            .insert(fields::EXPECTED_CROP_AFTER.to_owned(), Value::String(text));
    }
}

/// The ids of the calls that were never run (an earlier action of their turn failed): a
/// recording leaves them out.
fn not_executed_calls(history: &[Message]) -> std::collections::HashSet<&str> {
    history
        .iter()
        .filter(|message| message.role == Role::User)
        .flat_map(Message::tool_results)
        .filter(|result| result.is_error() && result.text() == tool_input::NOT_EXECUTED)
        .map(|result| result.tool_use_id.as_str())
        .collect()
}

/// Whether a recorded hash is flat (see [`retrace_vision::ImageHash::is_flat`]); an
/// unparsable hash is not called flat (the file check reports it on its own).
pub fn is_flat_hash(hash: &str) -> bool {
    retrace_vision::ImageHash::from_hex(hash).is_ok_and(|hash| hash.is_flat())
}

/// The (name, value) pairs of preset values. `ParameterValues` keeps values private, so each
/// is read back by rendering its own placeholder.
fn preset_pairs(values: &ParameterValues) -> Vec<(String, String)> {
    values
        .names()
        .filter_map(|name| {
            let value = Template::parse(&format!("{{{{{name}}}}}"))
                .render(values)
                .ok()?;
            Some((name.to_owned(), value))
        })
        .collect()
}

/// Warns (naming the parameter, never its value) when a value still occurs in the file, for
/// example inside a longer word where it was deliberately not replaced.
fn warn_on_leftover_values(file: &CacheFile, values: &[(String, String)]) {
    let text = file.to_json().to_string();
    for (name, value) in values {
        if !value.is_empty() && text.contains(value.as_str()) {
            tracing::warn!(parameter = %name, "the value of a parameter still occurs in the recording (inside other text)");
        }
    }
}

#[cfg(test)]
mod tests;
