//! [`approve`]: `retrace approve FILE [--step N]`, an intended UI change accepted. The step
//! a suite run failed at is re-recorded from what that run saw there ([`FailureEvidence`]
//! in `.retrace_state/`): its hash and crop before acting (a mismatch) or its hash after
//! acting (a missing effect) computed from the kept screen exactly as the recorder computes
//! them ([`recorder::region_hash_at`], [`recorder::crop_text`]), and the element found at
//! its point (for typing or keys, the one with the focus) when a check asking the page
//! failed. The file is rewritten as a repair is
//! ([`recorder::record_replacing`]): the previous version kept beside it, marked invalid.
//!
//! Nothing is guessed: with no failed run on record for the file as it is now, or for
//! another step than the one asked, approval is refused, naming the file and the step.

use std::path::Path;
use std::path::PathBuf;

use retrace_cache::CacheFile;
use retrace_cache::CacheStore;
use retrace_cache::fields;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::FailureKind;
use retrace_replay::recorder;
use retrace_vision::Image;
use retrace_vision::ImageHash;
use retrace_vision::Method;
use serde_json::Value;

use crate::error::RunnerError;
use crate::suite::plan::test_id;
use crate::suite::state::FailureEvidence;
use crate::suite::state::STATE_DIR;
use crate::suite::state::StateStore;

/// What to approve.
#[derive(Debug, Clone)]
pub struct ApproveRequest {
    /// The trajectory file.
    pub file: PathBuf,
    /// The suite root whose `.retrace_state/` holds its runs (the suite file's folder, else
    /// the current one, as for `retrace run`).
    pub root: PathBuf,
    /// Only this 1-based step; `None`: the step the last failed run failed at.
    pub step: Option<usize>,
}

/// What [`approve`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    /// The rewritten trajectory.
    pub path: PathBuf,
    /// Where its previous version was kept.
    pub previous: Option<PathBuf>,
    /// The 1-based step re-recorded.
    pub step: usize,
    /// The step's fields written (`visual_representation`, `visual_crop`, `element`...).
    pub fields: Vec<&'static str>,
}

/// Re-records the failed step of `request.file` from its last failed run's evidence and
/// writes the file, keeping the previous version beside it.
pub fn approve(request: &ApproveRequest) -> Result<Approved, RunnerError> {
    let file = &request.file;
    let shown = file.display();
    let refuse = |why: String| RunnerError::Input(format!("{shown}: {why}"));
    let mut cache = retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE)?;
    let store = StateStore::beside(&request.root);
    let id = test_id(&request.root, file);
    let state = store.load(&id, file);
    let Some(evidence) = state.last_failure else {
        let what = request.step.map_or_else(
            || "its failed step".to_owned(),
            |step| format!("step {step}"),
        );
        return Err(refuse(format!(
            "cannot approve {what}: no failed run of this file as it is now is on record in {} \
             (run it with `retrace run` first)",
            store.dir().display()
        )));
    };
    if let Some(step) = request.step.filter(|step| *step != evidence.step) {
        return Err(refuse(format!(
            "cannot approve step {step}: it did not fail in the last failed run (step {} did)",
            evidence.step
        )));
    }
    let step = evidence.step;
    let screen = kept_screen(&store, &evidence).map_err(|why| {
        refuse(format!(
            "cannot approve step {step}: {why} (run it again with `retrace run`)"
        ))
    })?;
    let fields = restate_step(&mut cache, &evidence, &screen)
        .map_err(|why| refuse(format!("cannot approve step {step}: {why}")))?;
    let name = file
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| refuse("not a file name".into()))?;
    let dir = file
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let written = recorder::record_replacing(&CacheStore::new(dir), name, &cache, "approved")?;
    if let Some(kept) = &evidence.screen {
        // The state now describes other content; its screen goes with it.
        let _ = std::fs::remove_file(store.dir().join(kept));
    }
    Ok(Approved {
        path: written.path,
        previous: written.previous,
        step,
        fields,
    })
}

/// The screen the failed run kept, decoded.
fn kept_screen(store: &StateStore, evidence: &FailureEvidence) -> Result<Image, String> {
    let Some(name) = &evidence.screen else {
        return Err(format!("its failed run kept no screenshot in {STATE_DIR}/"));
    };
    let path = store.dir().join(name);
    let bytes = std::fs::read(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    retrace_vision::decode_png(&bytes).map_err(|error| format!("{}: {error}", path.display()))
}

/// Writes into the failed step of `cache` what `screen` shows there; the fields written.
fn restate_step(
    cache: &mut CacheFile,
    evidence: &FailureEvidence,
    screen: &Image,
) -> Result<Vec<&'static str>, String> {
    let (method, region_size) = match &cache.metadata.visual_validation {
        Some(visual) => (
            visual.method.parse::<Method>().unwrap_or(Method::Phash),
            visual.region_size,
        ),
        None => (Method::Phash, 100),
    };
    let before_phase = match evidence.kind {
        FailureKind::Mismatch => true,
        FailureKind::Effect => false,
        other => {
            return Err(format!(
                "it failed as {} ({}), not on what the screen shows; approve re-records screens \
                 and elements only",
                other.label(),
                evidence.message
            ));
        }
    };
    let total = cache.trajectory.len();
    let step = cache
        .trajectory
        .get_mut(evidence.step.wrapping_sub(1))
        .ok_or_else(|| format!("the file has {total} steps"))?;
    let (hash_field, element_field) = if before_phase {
        (None, fields::ELEMENT)
    } else {
        (Some(fields::AFTER_HASH), fields::ELEMENT_AFTER)
    };
    let mut written = Vec::new();
    match retrace_protocol::tool_input::action_point(&step.input) {
        Some(point) => {
            if let Some(field) = restate_hash(step, point, hash_field, screen, method, region_size)?
            {
                written.push(field);
                if hash_field.is_none()
                    && let Some(crop) = recorder::crop_text(screen, point, region_size)
                {
                    step.extra
                        .insert(fields::EXPECTED_CROP.to_owned(), Value::String(crop));
                    written.push(fields::EXPECTED_CROP);
                }
            }
        }
        // Typing or keys whose focus was on another element: that element is the change.
        None if before_phase
            && retrace_replay::plan::acts_on_focus(&retrace_protocol::tool_input::action_name(
                step,
            )) => {}
        None => {
            return Err("the step acts at no point, so it has no region to re-record".to_owned());
        }
    }
    if let Some(found) = &evidence.element
        && restate_element(step, element_field, found)?
    {
        written.push(element_field);
    }
    if written.is_empty() {
        return Err(format!(
            "what the failed run saw there matches what is recorded, so there is nothing to \
             re-record (the failure was: {})",
            evidence.message
        ));
    }
    Ok(written)
}

/// Writes the hash `screen` shows around `point` into the step's before-action hash
/// (`hash_field` `None`) or `hash_field`; the field written, `None` when it was recorded
/// already.
fn restate_hash(
    step: &mut ToolUseBlock,
    point: (i64, i64),
    hash_field: Option<&'static str>,
    screen: &Image,
    method: Method,
    region_size: u32,
) -> Result<Option<&'static str>, String> {
    let recorded = match hash_field {
        None => step.visual_representation.clone(),
        Some(key) => step
            .extra
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    // The file's own hash size (askui's 64-bit hashes unless it was recorded finer).
    let hash_size = recorded
        .as_deref()
        .and_then(|hex| ImageHash::from_hex(hex).ok())
        .map_or(8, |hash| (hash.bits().len() as f64).sqrt() as u32);
    let hash = recorder::region_hash_at(screen, point, method, region_size, hash_size)
        .map_err(|error| format!("cannot hash the region around {point:?}: {error}"))?
        .to_string();
    if recorded.as_deref() == Some(hash.as_str()) {
        return Ok(None);
    }
    Ok(Some(match hash_field {
        None => {
            step.visual_representation = Some(hash);
            "visual_representation"
        }
        Some(key) => {
            step.extra.insert(key.to_owned(), Value::String(hash));
            fields::AFTER_HASH
        }
    }))
}

/// Writes `found` as the step's `key` element, keeping the recorded field value (which may
/// hold a `{{parameter}}`); whether it changed.
fn restate_element(
    step: &mut ToolUseBlock,
    key: &str,
    found: &ElementInfo,
) -> Result<bool, String> {
    let mut value = serde_json::to_value(found).map_err(|error| error.to_string())?;
    let old = step.extra.get(key);
    if let Value::Object(object) = &mut value {
        // The value as recorded (it may hold a placeholder), and the listeners the step waits
        // for, which a failed run's evidence does not read.
        if let Some(kept) = old.and_then(|old| old.get("value")) {
            object.insert("value".to_owned(), kept.clone());
        }
        if found.listeners.is_none()
            && let Some(kept) = old.and_then(|old| old.get("listeners"))
        {
            object.insert("listeners".to_owned(), kept.clone());
        }
    }
    let changed = step.extra.get(key) != Some(&value);
    step.extra.insert(key.to_owned(), value);
    Ok(changed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn textbox(name: &str) -> ElementInfo {
        serde_json::from_value(json!({
            "role": "textbox", "name": name, "text": "", "tag": "input",
            "selector": "#customer", "box": {"x": 0.0, "y": 0.0, "width": 10.0, "height": 10.0},
            "disabled": false, "focused": true, "editable": true, "receives_events": true
        }))
        .unwrap()
    }

    /// A file of one typing step recorded with the focus on `recorded`.
    fn typing_file(recorded: &ElementInfo) -> CacheFile {
        let text = json!({
            "metadata": {"version": "0.1", "created_at": "2026-11-27T00:00:00Z"},
            "trajectory": [{
                "type": "tool_use", "id": "toolu_1", "name": "computer",
                "input": {"action": "type", "text": "Acme Corp"},
                "element": serde_json::to_value(recorded).unwrap()
            }]
        })
        .to_string();
        retrace_cache::parse_bytes(
            Path::new("typing.json"),
            text.as_bytes(),
            jiff::Timestamp::now(),
        )
        .unwrap()
    }

    fn evidence(kind: FailureKind, found: &ElementInfo) -> FailureEvidence {
        FailureEvidence {
            step: 1,
            kind,
            message: "expected the focus on textbox 'Customer', found it on textbox 'Client'"
                .into(),
            screen: None,
            element: Some(found.clone()),
        }
    }

    fn blank_screen() -> Image {
        Image::new(
            200,
            200,
            retrace_vision::PixelLayout::Gray,
            vec![0; 200 * 200],
        )
        .unwrap()
    }

    /// A field relabelled on purpose fails typing at its focus; approving that takes the
    /// element that had the focus, with no region to hash.
    #[test]
    fn typing_whose_focus_moved_to_a_relabelled_field_is_approved_by_its_element() {
        let mut cache = typing_file(&textbox("Customer"));
        let client = textbox("Client");
        let written = restate_step(
            &mut cache,
            &evidence(FailureKind::Mismatch, &client),
            &blank_screen(),
        )
        .unwrap();
        assert_eq!(written, [fields::ELEMENT]);
        assert_eq!(cache.trajectory[0].extra[fields::ELEMENT]["name"], "Client");
    }

    /// The listeners recorded for the element stay: replay keeps waiting for them.
    #[test]
    fn an_approved_element_keeps_the_listeners_it_was_recorded_with() {
        let mut recorded = textbox("Customer");
        recorded.listeners = Some(vec!["input".into(), "keydown".into()]);
        let mut cache = typing_file(&recorded);
        restate_step(
            &mut cache,
            &evidence(FailureKind::Mismatch, &textbox("Client")),
            &blank_screen(),
        )
        .unwrap();
        let element = &cache.trajectory[0].extra[fields::ELEMENT];
        assert_eq!(element["name"], "Client");
        assert_eq!(element["listeners"], json!(["input", "keydown"]));
    }

    /// What typing left in a field (its effect) is not a screen to re-record.
    #[test]
    fn typing_that_left_another_value_is_not_approved() {
        let mut cache = typing_file(&textbox("Customer"));
        let error = restate_step(
            &mut cache,
            &evidence(FailureKind::Effect, &textbox("Customer")),
            &blank_screen(),
        )
        .unwrap_err();
        assert!(error.contains("acts at no point"), "{error}");
    }
}
