//! [`Plan`]: a trajectory file read and made ready to replay, before any screen is looked at.
//!
//! Loading refuses a file with problems `retrace cache check` calls errors (an unknown
//! action, a point off the recorded screen, a malformed placeholder...), in its words; it
//! substitutes the parameter values (a missing value fails here, naming every name
//! that lacks one), parses every recorded hash (an unreadable hash fails here, naming its
//! step), and works out which checks the file allows, so that problems with the file are
//! reported before the browser does anything and a replay that checks less than usual says so
//! once, up front.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use retrace_protocol::events::Png;
use std::path::PathBuf;

use retrace_cache::CacheError;
use retrace_cache::CacheFile;
use retrace_cache::fields;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::ActionKind;
use retrace_protocol::computer_actions::askui;
use retrace_protocol::dialog::Dialog;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::tool_input;
use retrace_vision::ImageHash;
use retrace_vision::Method;

use crate::page_location::PageLocation;
use crate::request::ReplayRequest;

/// How the file's regions are hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashSpec {
    /// The hash method (pHash, as askui, unless the file says otherwise).
    pub method: Method,
    /// The side of the square hashed around each action point.
    pub region_size: u32,
}

/// One step of the trajectory, parameters filled in and hashes parsed.
#[derive(Debug, Clone)]
pub struct PlannedStep {
    /// The 0-based index in the file.
    pub index: usize,
    /// The tool call as it will be replayed (parameters substituted).
    pub call: ToolUseBlock,
    /// Where it acts, by askui's rules.
    pub point: Option<(i64, i64)>,
    /// The hash of the region around `point` before acting, as recorded.
    pub before: Option<ImageHash>,
    /// The hash of the same region after acting, as recorded (centred on `after_at`).
    pub after: Option<ImageHash>,
    /// Where the after-action region is centred when the recording re-centred it (a blank
    /// region around `point`); `None`: at the point.
    pub after_at: Option<(i64, i64)>,
    /// Where the step led when it started a navigation, as recorded.
    pub page_after: Option<PageLocation>,
    /// The element the step acts on, as the browser described it before acting when
    /// recorded: the one at `point`, or, for a step acting on the focus (typing, keys), the
    /// one with the focus.
    pub element: Option<ElementInfo>,
    /// The element at `point` after acting (its state), as recorded.
    pub element_after: Option<ElementInfo>,
    /// The focused element after a typing step, with its value (parameters filled in).
    pub focused_after: Option<ElementInfo>,
    /// The recorded region around `point` before acting (a small PNG), so a failure's
    /// evidence shows what was expected on any machine.
    pub expected_crop: Option<Png>,
    /// The recorded after-action region (around `after_at`, else `point`), likewise.
    pub expected_crop_after: Option<Png>,
    /// The JavaScript dialogs the step opened when recorded, with their answers: replay
    /// answers them alike (any other dialog fails the step).
    pub dialogs: Vec<Dialog>,
    /// Whether it only observes (replay skips it).
    pub observe_only: bool,
}

impl PlannedStep {
    /// The 1-based step number every message and report uses.
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// Whether it acts on the focused element (types or presses keys) rather than at a point.
    pub fn acts_on_focus(&self) -> bool {
        acts_on_focus(&tool_input::action_name(&self.call))
    }

    /// What the step does, for people: `left_click at (761, 203)` (typed text never shown).
    pub fn describe(&self) -> String {
        let action = tool_input::action_name(&self.call);
        match self.point {
            Some((x, y)) => format!("{action} at ({x}, {y})"),
            None => action,
        }
    }
}

/// askui's tools that act on the focused element rather than at a point.
const ASKUI_KEYBOARD_TOOLS: [&str; 2] = [askui::TYPE, askui::KEYBOARD_TAP];

/// Whether the computer tool's `action` (or askui's tool) acts on the focused element (types
/// or presses keys) rather than at a point: keyboard input by the action catalogue.
pub fn acts_on_focus(action: &str) -> bool {
    computer_actions::kind_of(action) == Some(ActionKind::Keyboard)
        || ASKUI_KEYBOARD_TOOLS.contains(&action)
}

/// A trajectory ready to replay.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The file.
    pub path: PathBuf,
    /// Every step of the file, in order.
    pub steps: Vec<PlannedStep>,
    /// The 0-based index replay starts at.
    pub start: usize,
    /// How regions are hashed.
    pub hashing: HashSpec,
    /// Whether the file asks for visual checks (`visual_validation.enabled`).
    pub visual_enabled: bool,
    /// Checks this file cannot get, with why (said once at the start of a replay).
    pub checks_off: Vec<String>,
}

/// Why a file cannot be replayed at all.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The file cannot be read or parsed.
    #[error(transparent)]
    File(#[from] CacheError),
    /// Parameter values are missing or unknown.
    #[error("{path}: {source}")]
    Parameters {
        /// The file.
        path: String,
        /// Which names.
        #[source]
        source: CacheError,
    },
    /// A recorded element description (or another recorded value) cannot be read.
    #[error("{path}: step {step}: the recorded `{field}` cannot be read: {reason}")]
    BadElement {
        /// The file.
        path: String,
        /// The 1-based step.
        step: usize,
        /// The field holding it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A recorded hash cannot be read.
    #[error("{path}: step {step}: the recorded {field} `{value}` is not a hash: {reason}")]
    BadHash {
        /// The file.
        path: String,
        /// The 1-based step.
        step: usize,
        /// The field holding it.
        field: &'static str,
        /// The text found there.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The start step is past the end.
    #[error("{path}: start step {start} is past the last step ({steps})")]
    StartPastEnd {
        /// The file.
        path: String,
        /// The 1-based start asked for.
        start: usize,
        /// The number of steps.
        steps: usize,
    },
}

impl PlanError {
    /// Whether the failure is that parameter values are missing.
    pub fn is_missing_parameters(&self) -> bool {
        matches!(
            self,
            PlanError::Parameters {
                source: CacheError::MissingParameters { .. },
                ..
            }
        )
    }
}

impl Plan {
    /// Reads and prepares `request.file` (at most `max_file_size` bytes).
    pub fn load(request: &ReplayRequest, max_file_size: u64) -> Result<Plan, PlanError> {
        let file = retrace_cache::read_cache_file(&request.file, max_file_size)?;
        Self::from_file(request, &file)
    }

    /// Prepares an already-read `file` for `request`, refusing it for every problem
    /// `retrace cache check` calls an error ([`retrace_cache::refuse`]).
    pub fn from_file(request: &ReplayRequest, file: &CacheFile) -> Result<Plan, PlanError> {
        retrace_cache::refuse(&request.file, file)?;
        let path = request.file.display().to_string();
        let calls =
            retrace_cache::params::substitute_trajectory(&file.trajectory, &request.parameters)
                .map_err(|source| PlanError::Parameters {
                    path: path.clone(),
                    source,
                })?;
        if request.start > calls.len() {
            return Err(PlanError::StartPastEnd {
                path,
                start: request.start + 1,
                steps: calls.len(),
            });
        }
        let (hashing, visual_enabled) = match &file.metadata.visual_validation {
            Some(visual) => (
                HashSpec {
                    method: visual.method.parse::<Method>().unwrap_or(Method::Phash),
                    region_size: visual.region_size,
                },
                visual.enabled,
            ),
            None => (
                HashSpec {
                    method: Method::Phash,
                    region_size: 100,
                },
                false,
            ),
        };
        let steps = calls
            .into_iter()
            .enumerate()
            .map(|(index, call)| plan_step(&path, index, call, &request.parameters))
            .collect::<Result<Vec<_>, _>>()?;
        let checks_off = checks_off(&steps[request.start..], visual_enabled);
        Ok(Plan {
            path: request.file.clone(),
            steps,
            start: request.start,
            hashing,
            visual_enabled,
            checks_off,
        })
    }

    /// The first acting step after the step at `index`.
    pub fn next_acting(&self, index: usize) -> Option<&PlannedStep> {
        self.steps
            .get(index + 1..)
            .and_then(|rest| rest.iter().find(|step| !step.observe_only))
    }
}

fn plan_step(
    path: &str,
    index: usize,
    call: ToolUseBlock,
    parameters: &retrace_cache::ParameterValues,
) -> Result<PlannedStep, PlanError> {
    let parse = |field: &'static str, text: Option<&str>| -> Result<Option<ImageHash>, PlanError> {
        let Some(text) = text else { return Ok(None) };
        ImageHash::from_hex(text)
            .map(Some)
            .map_err(|error| PlanError::BadHash {
                path: path.to_owned(),
                step: index + 1,
                field,
                value: text.chars().take(40).collect(),
                reason: error.to_string(),
            })
    };
    let before = parse(
        "visual_representation",
        call.visual_representation.as_deref(),
    )?;
    let after_text = match call.extra.get(fields::AFTER_HASH) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(text)) => Some(text.as_str()),
        Some(other) => {
            return Err(PlanError::BadHash {
                path: path.to_owned(),
                step: index + 1,
                field: fields::AFTER_HASH,
                value: other.to_string().chars().take(40).collect(),
                reason: "not a string".into(),
            });
        }
    };
    let recentred =
        recorded_value::<RecentredAfter>(path, index, &call, fields::RECENTRED_AFTER, parameters)?;
    let (after, after_at) = match (after_text, recentred) {
        (None, Some(recentred)) => (
            parse(fields::RECENTRED_AFTER, Some(&recentred.hash))?,
            Some(recentred.at),
        ),
        (text, _) => (parse(fields::AFTER_HASH, text)?, None),
    };
    let element =
        |field: &'static str| recorded_value::<ElementInfo>(path, index, &call, field, parameters);
    let (element_before, element_after, focused_after) = (
        element(fields::ELEMENT)?,
        element(fields::ELEMENT_AFTER)?,
        element(fields::FOCUSED_AFTER)?,
    );
    let page_after =
        recorded_value::<PageLocation>(path, index, &call, fields::PAGE_AFTER, parameters)?;
    let dialogs = recorded_value::<Vec<Dialog>>(path, index, &call, fields::DIALOGS, parameters)?
        .unwrap_or_default();
    let expected_crop = recorded_crop(path, index, &call, fields::EXPECTED_CROP);
    let expected_crop_after = recorded_crop(path, index, &call, fields::EXPECTED_CROP_AFTER);
    Ok(PlannedStep {
        expected_crop,
        expected_crop_after,
        element: element_before,
        element_after,
        focused_after,
        index,
        point: tool_input::action_point(&call.input),
        observe_only: tool_input::is_observe_only(&call),
        call,
        before,
        after,
        after_at,
        page_after,
        dialogs,
    })
}

/// A recorded crop of `call` (`field`: a base64 PNG); `None`, with a warning, when it is not
/// one.
fn recorded_crop(path: &str, index: usize, call: &ToolUseBlock, field: &str) -> Option<Png> {
    let text = call.extra.get(field)?.as_str()?;
    match BASE64.decode(text) {
        Ok(bytes) if bytes.starts_with(b"\x89PNG") => Some(Png::from(bytes)),
        _ => {
            tracing::warn!(
                "{path}: step {}'s {field} is not a base64 PNG; its failures show no expected crop",
                index + 1,
            );
            None
        }
    }
}

/// A re-centred after-action region as recorded ([`fields::RECENTRED_AFTER`]).
#[derive(Debug, serde::Deserialize)]
struct RecentredAfter {
    hash: String,
    at: (i64, i64),
}

/// A recorded extra field of `call` read as a `T`, parameter values filled in; `None` when
/// absent or null.
fn recorded_value<T: serde::de::DeserializeOwned>(
    path: &str,
    index: usize,
    call: &ToolUseBlock,
    field: &'static str,
    parameters: &retrace_cache::ParameterValues,
) -> Result<Option<T>, PlanError> {
    let Some(value) = call.extra.get(field).filter(|value| !value.is_null()) else {
        return Ok(None);
    };
    let bad = |reason: String| PlanError::BadElement {
        path: path.to_owned(),
        step: index + 1,
        field,
        reason,
    };
    let filled = retrace_cache::params::substitute_value(value, parameters)
        .map_err(|error| bad(error.to_string()))?;
    serde_json::from_value(filled)
        .map(Some)
        .map_err(|error| bad(error.to_string()))
}

/// The checks the steps from the start on cannot get, with why.
fn checks_off(steps: &[PlannedStep], visual_enabled: bool) -> Vec<String> {
    let pointing: Vec<&PlannedStep> = steps
        .iter()
        .filter(|step| !step.observe_only && step.point.is_some())
        .collect();
    if pointing.is_empty() {
        return Vec::new();
    }
    if !visual_enabled {
        return vec![
            "visual: the file turns visual validation off (metadata.visual_validation)".into(),
        ];
    }
    let mut off = Vec::new();
    if pointing.iter().all(|step| step.element.is_none()) {
        off.push(format!(
            "semantic: the file holds no element descriptions (`{}`): recorded before retrace \
             checked elements, by askui, or not in a browser",
            fields::ELEMENT
        ));
    }
    let unhashed = pointing.iter().filter(|step| step.before.is_none()).count();
    if unhashed > 0 {
        off.push(format!(
            "visual: {unhashed} of {} steps that act at a point have no recorded hash",
            pointing.len()
        ));
    }
    for step in &pointing {
        if step.before.as_ref().is_some_and(ImageHash::is_flat) {
            off.push(format!(
                "visual: step {}'s region is blank: its check can detect nothing (re-record it \
                 on a point with something to see)",
                step.number()
            ));
        }
    }
    for step in &pointing {
        if step.after.as_ref().is_some_and(ImageHash::is_near_flat) {
            off.push(format!(
                "effect: step {}'s after-action region is blank: it is not checked (a blank \
                 region detects nothing, and fails when anything is drawn there later); \
                 re-record the step to check what it was for",
                step.number()
            ));
        }
    }
    let no_after = pointing.iter().filter(|step| step.after.is_none()).count();
    if no_after == pointing.len() {
        off.push(format!(
            "effect: the file holds no after-action hashes (`{}`), as askui writes it",
            fields::AFTER_HASH
        ));
    } else if no_after > 0 {
        off.push(format!(
            "effect: {no_after} of {} steps that act at a point have no after-action hash",
            pointing.len()
        ));
    }
    off
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use retrace_cache::CacheMetadata;
    use retrace_protocol::ToolUseBlock;
    use serde_json::json;

    use super::*;

    /// A file `cache check` finds an error in is refused when it is loaded, in check's words,
    /// whoever loads it (`retrace replay`, a suite, or a model through the cache tools).
    #[test]
    fn a_file_with_an_error_of_cache_check_is_refused_in_its_words() {
        let at = retrace_cache::parse_timestamp("2026-01-01T00:00:00Z").unwrap();
        let step = |action: &str| {
            ToolUseBlock::new(
                "toolu_1",
                "computer",
                json!({"action": action, "coordinate": [10, 20]}),
            )
        };
        let request = ReplayRequest::new("flow.json");
        let good = CacheFile::new(CacheMetadata::new(at, None), vec![step("left_click")]);
        assert_eq!(Plan::from_file(&request, &good).unwrap().steps.len(), 1);
        let bad = CacheFile::new(CacheMetadata::new(at, None), vec![step("teleport")]);
        let error = Plan::from_file(&request, &bad).unwrap_err().to_string();
        let problem = retrace_cache::check(&bad)[0].to_string();
        assert_eq!(error, format!("flow.json: {problem}"));
        assert!(
            problem.starts_with("step 1: trajectory[0].input.action: unknown action `teleport`"),
            "{problem}"
        );
    }
}
