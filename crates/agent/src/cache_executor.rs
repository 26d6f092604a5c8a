//! [`CacheExecutor`]: the speaker that replays a recorded trajectory, one step per turn, into
//! the same history the model would have written.
//!
//! For each step: parameters are substituted; observe-only steps (screenshots) are skipped;
//! a step of a non-cacheable tool pauses the replay and hands over to the model. A step that
//! acts at a point is **validated visually** first: a fresh screenshot is taken and replay
//! **waits** (polls) until the region around the point hashes within the threshold of the
//! recorded hash, or a timeout passes. If it never matches, replay **searches nearby** for the
//! recorded region and, when found within the threshold, acts at the shifted point (a repair).
//! Otherwise the step fails: the failure goes to the file's metadata and the model gets a
//! message naming the step, the distance and the threshold (or, with no model, the run ends).
//! After acting, an error from the tool fails the step too: a blind replay would go on.
//!
//! **Effect check.** Each step's wait is also the check that the step before it had its
//! effect: the screen must reach the state recorded for the next action. The last acting step
//! has no next step, so when the recording holds its after-action hash
//! (`visual_representation_after`), replay waits for the region around the point it acted at
//! to match that hash before calling the run complete; a mismatch fails that step like a
//! visual check does.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use async_trait::async_trait;
use retrace_cache::CacheFile;
use retrace_cache::MetadataUpdate;
use retrace_cache::ParameterValues;
use retrace_cache::Validators;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::ToolUseBlock;
use retrace_vision::Image;
use retrace_vision::ImageHash;
use retrace_vision::Method;
use serde_json::Value;

use crate::error::AgentError;
use crate::events::Event;
use crate::replay_ledger::ReplayLedger;
use crate::screen::Screen;
use crate::speaker::Speaker;
use crate::speaker::SpeakerResult;
use crate::speaker::SpeakerTurn;
use crate::speaker::StopCause;
use crate::speaker::TurnContext;
use crate::step_input::is_observe_only;
use crate::step_input::shift_point;

/// The name of the replaying speaker.
pub const CACHE_EXECUTOR: &str = "cache_executor";

/// How long replay keeps retrying a screenshot that fails or does not come before the run
/// ends as an error: an infrastructure budget of its own (the CDP command timeout), not the
/// step timeout, which is how long the screen may take to match.
const SCREENSHOT_BUDGET: Duration = Duration::from_secs(30);

/// How replay waits before acting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WaitMode {
    /// Poll until the region matches its recorded hash (the default).
    Visual,
    /// Poll until the screen stops changing, then check once.
    Stable,
    /// Sleep this long, then check once (askui's behaviour).
    Fixed(Duration),
}

impl std::str::FromStr for WaitMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "visual" => Ok(WaitMode::Visual),
            "stable" => Ok(WaitMode::Stable),
            _ => {
                let seconds = text
                    .strip_prefix("fixed:")
                    .and_then(|s| s.parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("unknown wait mode `{text}`: use visual, stable or fixed:SECONDS (e.g. fixed:1.0)"))?;
                Ok(WaitMode::Fixed(Duration::from_secs_f64(seconds)))
            }
        }
    }
}

/// What replay does when a step fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnMismatch {
    /// End the run (exit 1 from the CLI) with the failure message.
    Fail,
    /// Hand the run to this speaker (the model) with the failure message.
    HandTo(String),
}

/// Replay settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySettings {
    /// The largest Hamming distance that passes a visual check.
    pub threshold: u32,
    /// How long to wait for a step's screen before giving up on it.
    pub step_timeout: Duration,
    /// Time between polls while waiting.
    pub poll_interval: Duration,
    /// How to wait before acting.
    pub wait: WaitMode,
    /// Whether visual checks run at all.
    pub visual: bool,
    /// How far (in pixels, each way) to search for a moved region; 0 disables repairs.
    pub search_radius: u32,
    /// How long the screen must have stood still, mismatched, before replay searches for a
    /// moved region instead of waiting on (so a moved control is repaired in about this
    /// time, not after the whole step timeout).
    pub search_after: Duration,
    /// The largest distance a search hit may have. Stricter than `threshold`: a search
    /// compares thousands of places, so a loose bound would find look-alikes.
    pub search_threshold: u32,
    /// What to do when a step fails.
    pub on_mismatch: OnMismatch,
    /// Whether a completed replay hands back to the model (to verify the goal) instead of
    /// ending the run.
    pub hand_back_on_completion: Option<String>,
}

impl Default for ReplaySettings {
    fn default() -> Self {
        Self {
            threshold: 10,
            step_timeout: Duration::from_secs(10),
            poll_interval: Duration::from_millis(50),
            wait: WaitMode::Visual,
            visual: true,
            search_radius: 80,
            search_after: Duration::from_millis(500),
            search_threshold: 4,
            on_mismatch: OnMismatch::Fail,
            hand_back_on_completion: None,
        }
    }
}

/// A step that replay acted at a shifted point.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// The trajectory index.
    pub step_index: usize,
    /// The offset applied, in pixels.
    pub offset: (i64, i64),
    /// The distance at the shifted point.
    pub distance: u32,
}

/// What a replay did, for the caller once the run ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplayOutcome {
    /// The cache file replayed.
    pub file: Option<PathBuf>,
    /// Steps acted (skipped observe-only steps not counted).
    pub steps_replayed: usize,
    /// Visual checks that passed.
    pub checks_passed: usize,
    /// Effect checks (the last step's after-action hash) that passed.
    pub effect_checks_passed: usize,
    /// Steps acted at a shifted point.
    pub repairs: Vec<Repair>,
    /// The failure message, when a step failed.
    pub failure: Option<String>,
    /// Whether every step ran.
    pub completed: bool,
}

/// The trajectory being replayed.
#[derive(Debug)]
struct Replay {
    path: PathBuf,
    steps: Vec<ToolUseBlock>,
    next: usize,
    method: Method,
    region_size: u32,
    visual_enabled: bool,
    /// The step emitted last turn, checked when its result comes back.
    pending: Option<PendingStep>,
    run_tag: String,
}

/// A step acted last turn whose result is checked at the start of the next turn.
#[derive(Debug)]
struct PendingStep {
    /// Index in the trajectory file.
    index: usize,
    /// The tool_use id the step was emitted under.
    id: String,
    /// For the last acting step: the point acted at and the recorded after-action hash.
    effect: Option<((i64, i64), ImageHash)>,
}

/// The speaker that replays a trajectory cache file.
pub struct CacheExecutor {
    settings: ReplaySettings,
    screen: Arc<dyn Screen>,
    validators: Validators,
    max_file_size: u64,
    replay: Option<Replay>,
    outcome: Arc<std::sync::Mutex<ReplayOutcome>>,
    activation_error: Option<String>,
    ledger: Option<Arc<ReplayLedger>>,
}

impl std::fmt::Debug for CacheExecutor {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("CacheExecutor")
            .field("settings", &self.settings)
            .field("replay", &self.replay)
            .finish()
    }
}

impl CacheExecutor {
    /// A cache executor taking screenshots from `screen`.
    pub fn new(settings: ReplaySettings, screen: Arc<dyn Screen>) -> Self {
        Self {
            settings,
            screen,
            validators: Validators::default(),
            max_file_size: retrace_cache::DEFAULT_MAX_FILE_SIZE,
            replay: None,
            outcome: Arc::default(),
            activation_error: None,
            ledger: None,
        }
    }

    /// Notes each replay that runs to its end in `ledger`, so that the model's verdict on it
    /// (verify_cache_execution_tool over the same ledger) does not count a second attempt.
    pub fn with_ledger(mut self, ledger: Arc<ReplayLedger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// A handle on the outcome, readable after the run.
    pub fn outcome_handle(&self) -> Arc<std::sync::Mutex<ReplayOutcome>> {
        self.outcome.clone()
    }

    fn with_outcome(&self, change: impl FnOnce(&mut ReplayOutcome)) {
        if let Ok(mut outcome) = self.outcome.lock() {
            change(&mut outcome);
        }
    }

    /// Loads the file named in a switch context: `{"file", "parameters", "start"}`.
    fn load(&self, context: &Value) -> Result<Replay, String> {
        let path = context
            .get("file")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .ok_or("the cache executor needs `file` (a path) in its context")?;
        let file: CacheFile = retrace_cache::read_cache_file(&path, self.max_file_size)
            .map_err(|error| error.to_string())?;
        let mut values = ParameterValues::new();
        if let Some(parameters) = context.get("parameters").and_then(Value::as_object) {
            for (name, value) in parameters {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                values.insert(name.clone(), text);
            }
        }
        let steps = retrace_cache::params::substitute_trajectory(&file.trajectory, &values)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let start = context.get("start").and_then(Value::as_u64).unwrap_or(0);
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        if start > steps.len() {
            return Err(format!(
                "{}: start step {start} is past the last step ({})",
                path.display(),
                steps.len()
            ));
        }
        let (method, region_size, visual_enabled) = match &file.metadata.visual_validation {
            Some(visual) => (
                visual.method.parse::<Method>().unwrap_or(Method::Phash),
                visual.region_size,
                visual.enabled,
            ),
            None => (Method::Phash, 100, false),
        };
        let run_tag = jiff::Timestamp::now()
            .as_microsecond()
            .rem_euclid(1_000_000_000)
            .to_string();
        Ok(Replay {
            path,
            steps,
            next: start,
            method,
            region_size,
            visual_enabled,
            pending: None,
            run_tag,
        })
    }

    /// Ends the replay at a failed step: metadata, event, and the hand-over or the end.
    fn fail_step(&mut self, step_index: usize, message: String) -> SpeakerTurn {
        let path = self.replay.as_ref().map(|replay| replay.path.clone());
        if let Some(path) = &path {
            let update = MetadataUpdate::RecordFailure {
                step_index: step_index as u64,
                error_message: message.clone(),
            };
            if let Err(error) =
                retrace_cache::update_file(path, self.max_file_size, &update, &self.validators)
            {
                tracing::warn!(
                    "could not record the failure in {}: {error}",
                    path.display()
                );
            }
        }
        let remaining = self
            .replay
            .as_ref()
            .map(|replay| describe_remaining(&replay.steps, step_index))
            .unwrap_or_default();
        self.replay = None;
        self.with_outcome(|outcome| outcome.failure = Some(message.clone()));
        let report = Message::assistant(vec![ContentBlock::text(format!(
            "Cached replay stopped. {message}"
        ))]);
        match &self.settings.on_mismatch {
            OnMismatch::Fail => SpeakerTurn {
                messages: vec![report],
                usage: None,
                result: SpeakerResult::Failed(StopCause::Failed(message)),
            },
            OnMismatch::HandTo(speaker) => {
                let instruction = Message::user_text(format!(
                    "The recorded trajectory could not continue: {message}\nTake a screenshot, then complete the goal from the current state yourself. The steps that were not replayed:\n{remaining}"
                ));
                SpeakerTurn {
                    messages: vec![report, instruction],
                    usage: None,
                    result: SpeakerResult::SwitchTo {
                        speaker: speaker.clone(),
                        context: Value::Null,
                        reason: "replay step failed".into(),
                    },
                }
            }
        }
    }

    /// Waits for the step's region to match its recorded hash. In visual mode with `search`,
    /// once the screen has stood still (mismatched) for `search_after`, it also searches
    /// nearby for the recorded region and stops early on a match.
    async fn wait_for_screen(
        &self,
        recorded: &ImageHash,
        method: Method,
        point: (i64, i64),
        region_size: u32,
        search: bool,
    ) -> Result<WaitResult, String> {
        let started = Instant::now();
        let threshold = self.settings.threshold;
        let distance_of = |image: &Image| -> Result<u32, String> {
            let region =
                retrace_vision::action_region(point, region_size, image.width(), image.height());
            let hash_size = (recorded.bits().len() as f64).sqrt() as u32;
            let current = retrace_vision::region_hash(image, region, method, hash_size)
                .map_err(|e| e.to_string())?;
            current.distance(recorded).map_err(|e| e.to_string())
        };
        let finish = |distance: u32, image: Image| WaitResult {
            distance,
            waited: started.elapsed(),
            image,
            hit: None,
        };
        match self.settings.wait {
            WaitMode::Fixed(delay) => {
                tokio::time::sleep(delay).await;
                // As askui does: look at the screen as shown after the sleep, without waiting
                // for a pending page load to finish.
                let image = self.capture(Look::AsShown).await?;
                Ok(finish(distance_of(&image)?, image))
            }
            WaitMode::Stable => {
                let mut previous = self.capture(Look::Rendered).await?;
                loop {
                    tokio::time::sleep(self.settings.poll_interval).await;
                    let asked_at = started.elapsed();
                    let next = self.capture(Look::Rendered).await?;
                    let stable = retrace_vision::is_stable(&previous, &next, None).unwrap_or(false);
                    if stable || asked_at >= self.settings.step_timeout {
                        return Ok(finish(distance_of(&next)?, next));
                    }
                    previous = next;
                }
            }
            WaitMode::Visual => {
                // A hit counts once two searches in a row agree on it, so an element caught
                // mid-animation or a page caught mid-load is not clicked where it is passing.
                let mut last_hit: Option<retrace_vision::SearchHit> = None;
                let mut last_search: Option<Instant> = None;
                loop {
                    // A mismatch is final only on a screenshot asked for once the whole step
                    // timeout has passed: on a loaded machine one screenshot can take seconds,
                    // and one asked for earlier may show the screen before it got there.
                    let asked_at = started.elapsed();
                    let image = self.capture(Look::Rendered).await?;
                    let distance = distance_of(&image)?;
                    if distance <= threshold || asked_at >= self.settings.step_timeout {
                        return Ok(finish(distance, image));
                    }
                    let due = started.elapsed() >= self.settings.search_after
                        && last_search
                            .is_none_or(|at| at.elapsed() >= self.settings.search_after / 2);
                    if search && due && self.settings.search_radius > 0 {
                        last_search = Some(Instant::now());
                        let hit = self
                            .search(&image, recorded, method, point, region_size)
                            .await;
                        if let (Some(hit), Some(previous)) = (hit, last_hit)
                            && hit.offset == previous.offset
                        {
                            return Ok(WaitResult {
                                distance,
                                waited: started.elapsed(),
                                image,
                                hit: Some(hit),
                            });
                        }
                        last_hit = hit;
                    }
                    tokio::time::sleep(self.settings.poll_interval).await;
                }
            }
        }
    }

    /// Waits for the region where the last step acted to match its recorded after-action
    /// hash: `None` when it does (or replay is no longer running), else the failed turn.
    async fn check_effect(
        &mut self,
        turn: &TurnContext<'_>,
        index: usize,
        point: (i64, i64),
        after: &ImageHash,
    ) -> Result<Option<SpeakerTurn>, AgentError> {
        let Some((method, region_size)) = self
            .replay
            .as_ref()
            .map(|replay| (replay.method, replay.region_size))
        else {
            return Ok(None);
        };
        let WaitResult {
            distance, waited, ..
        } = self
            .wait_for_screen(after, method, point, region_size, false)
            .await
            .map_err(|error| AgentError::Speaker {
                speaker: CACHE_EXECUTOR.into(),
                step: turn.step,
                message: format!("taking a screenshot to check step {index}'s effect: {error}"),
            })?;
        let threshold = self.settings.threshold;
        let passed = distance <= threshold;
        turn.events.emit(Event::EffectCheck {
            step: turn.step,
            trajectory_index: index,
            distance,
            threshold,
            passed,
            waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
        });
        if passed {
            self.with_outcome(|outcome| outcome.effect_checks_passed += 1);
            return Ok(None);
        }
        let action = self
            .replay
            .as_ref()
            .and_then(|replay| replay.steps.get(index))
            .map(crate::step_input::action_name)
            .unwrap_or_default();
        let message = format!(
            "Effect check failed after step {index} ({action} at ({}, {})): the screen region did not reach the state recorded after that action. Hamming distance: {distance} > threshold: {threshold} (waited {:.1} s).",
            point.0,
            point.1,
            waited.as_secs_f64(),
        );
        Ok(Some(self.fail_step(index, message)))
    }

    /// A fresh screenshot, retried for [`SCREENSHOT_BUDGET`] (or the step timeout when
    /// longer): a page in the middle of a navigation cannot be captured for a moment, and a
    /// loaded machine can take seconds over one screenshot; neither is a failure of the step,
    /// and neither may end the run as an error while the budget lasts. Each attempt is bounded
    /// (2 s, doubling on every retry) because Chromium can leave a capture requested while a
    /// navigation commits unanswered until the CDP timeout (30 s); a new request after the
    /// navigation is answered at once.
    async fn capture(&self, look: Look) -> Result<Image, String> {
        let started = Instant::now();
        let budget = self.settings.step_timeout.max(SCREENSHOT_BUDGET);
        let mut attempt_limit = Duration::from_secs(2);
        loop {
            let limit = attempt_limit;
            let attempt = async {
                match look {
                    Look::Rendered => self.screen.capture().await,
                    Look::AsShown => self.screen.capture_as_shown().await,
                }
            };
            let error = match tokio::time::timeout(limit, attempt).await {
                Ok(Ok(image)) => return Ok(image),
                Ok(Err(error)) => error,
                Err(_) => format!("no screenshot within {:.1} s", limit.as_secs_f64()),
            };
            if started.elapsed() >= budget {
                return Err(error);
            }
            tracing::debug!("screenshot failed ({error}); retrying");
            attempt_limit = attempt_limit.saturating_mul(2);
            tokio::time::sleep(self.settings.poll_interval).await;
        }
    }

    /// Searches near `point` for the recorded region; a hit within the threshold or nothing.
    async fn search(
        &self,
        image: &Image,
        recorded: &ImageHash,
        method: Method,
        point: (i64, i64),
        region_size: u32,
    ) -> Option<retrace_vision::SearchHit> {
        let (image, recorded, radius, threshold) = (
            image.clone(),
            recorded.clone(),
            self.settings.search_radius,
            self.settings.search_threshold,
        );
        tokio::task::spawn_blocking(move || {
            retrace_vision::search_near(&image, &recorded, method, point, region_size, radius)
        })
        .await
        .ok()
        .and_then(Result::ok)
        .filter(|hit| hit.distance <= threshold)
    }
}

/// Which screenshot a check looks at.
#[derive(Debug, Clone, Copy)]
enum Look {
    /// One holding every change made before it (the backend may wait for a pending page
    /// load): visual and stable waiting.
    Rendered,
    /// The screen as shown at that moment: a fixed delay's single look.
    AsShown,
}

/// What waiting for a step's screen ended with.
struct WaitResult {
    /// The distance at the recorded point in the last screenshot.
    distance: u32,
    /// How long it took.
    waited: Duration,
    /// The last screenshot.
    image: Image,
    /// A match found nearby, when the region moved.
    hit: Option<retrace_vision::SearchHit>,
}

/// The step's recorded after-action hash, when it has one.
fn after_hash(step: &ToolUseBlock) -> Option<Result<ImageHash, String>> {
    let hex = step.extra.get(crate::recorder::AFTER_HASH_FIELD)?;
    Some(match hex.as_str() {
        Some(hex) => ImageHash::from_hex(hex).map_err(|error| error.to_string()),
        None => Err(format!(
            "`{}` is not a string",
            crate::recorder::AFTER_HASH_FIELD
        )),
    })
}

/// One line per step not replayed, from `from` on, for the model.
fn describe_remaining(steps: &[ToolUseBlock], from: usize) -> String {
    steps
        .iter()
        .enumerate()
        .skip(from)
        .map(|(index, step)| {
            format!(
                "  {index}: {} {}",
                step.name,
                crate::step_input::redacted_input_summary(&step.input)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[async_trait]
impl Speaker for CacheExecutor {
    fn name(&self) -> &str {
        CACHE_EXECUTOR
    }

    fn description(&self) -> &str {
        "replays a recorded trajectory step by step, checking the screen before each action"
    }

    fn can_handle(&self, _turn: &TurnContext<'_>) -> bool {
        self.replay.is_some() || self.activation_error.is_some()
    }

    async fn on_activate(
        &mut self,
        context: &Value,
        _turn: &TurnContext<'_>,
    ) -> Result<(), AgentError> {
        match self.load(context) {
            Ok(replay) => {
                let path = replay.path.clone();
                self.replay = Some(replay);
                self.activation_error = None;
                self.with_outcome(|outcome| {
                    *outcome = ReplayOutcome {
                        file: Some(path),
                        ..ReplayOutcome::default()
                    };
                });
            }
            Err(message) => {
                self.replay = None;
                self.activation_error = Some(message);
            }
        }
        Ok(())
    }

    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        if let Some(message) = self.activation_error.take() {
            self.with_outcome(|outcome| outcome.failure = Some(message.clone()));
            return Ok(match &self.settings.on_mismatch {
                OnMismatch::Fail => SpeakerTurn {
                    messages: vec![Message::assistant(vec![ContentBlock::text(format!(
                        "Cannot replay: {message}"
                    ))])],
                    usage: None,
                    result: SpeakerResult::Failed(StopCause::Failed(message)),
                },
                OnMismatch::HandTo(speaker) => SpeakerTurn {
                    messages: vec![
                        Message::assistant(vec![ContentBlock::text(format!(
                            "Cannot replay: {message}"
                        ))]),
                        Message::user_text(format!(
                            "The trajectory could not be replayed: {message}\nComplete the goal yourself."
                        )),
                    ],
                    usage: None,
                    result: SpeakerResult::SwitchTo {
                        speaker: speaker.clone(),
                        context: Value::Null,
                        reason: "replay could not start".into(),
                    },
                },
            });
        }
        let no_replay = || AgentError::Speaker {
            speaker: CACHE_EXECUTOR.into(),
            step: turn.step,
            message: "no trajectory is loaded".into(),
        };
        let pending = self.replay.as_mut().ok_or_else(no_replay)?.pending.take();

        // The previous step's tool result: an error fails that step.
        if let Some(PendingStep { index, id, effect }) = pending {
            let last = turn
                .history
                .last()
                .filter(|message| message.role == Role::User);
            let failed = last.and_then(|message| {
                message
                    .tool_results()
                    .find(|result| result.tool_use_id == id)
                    .filter(|result| result.is_error())
                    .map(retrace_protocol::ToolResultBlock::text)
            });
            if let Some(error) = failed {
                let name = self
                    .replay
                    .as_ref()
                    .and_then(|replay| replay.steps.get(index))
                    .map(|step| step.name.clone())
                    .unwrap_or_default();
                return Ok(self.fail_step(
                    index,
                    format!("Step {index} ({name}) failed when replayed: {error}"),
                ));
            }
            if let Some((point, after)) = effect
                && let Some(failed) = self.check_effect(turn, index, point, &after).await?
            {
                return Ok(failed);
            }
        }
        let Some(replay) = self.replay.as_mut() else {
            return Err(no_replay());
        };

        // Skip observe-only steps.
        while replay.next < replay.steps.len() && is_observe_only(&replay.steps[replay.next]) {
            replay.next += 1;
        }
        if replay.next >= replay.steps.len() {
            let path = replay.path.clone();
            self.replay = None;
            self.with_outcome(|outcome| outcome.completed = true);
            let recorded = retrace_cache::update_file(
                &path,
                self.max_file_size,
                &MetadataUpdate::RecordCompletion { success: true },
                &self.validators,
            );
            if recorded.is_ok()
                && let Some(ledger) = &self.ledger
            {
                ledger.completed(&path);
            }
            if let Err(error) = recorded {
                tracing::warn!(
                    "could not record the completed replay in {}: {error}",
                    path.display()
                );
            }
            let summary = Message::assistant(vec![ContentBlock::text(format!(
                "Replayed every step of {}.",
                path.display()
            ))]);
            return Ok(match self.settings.hand_back_on_completion.clone() {
                Some(speaker) => SpeakerTurn {
                    messages: vec![
                        summary,
                        Message::user_text(
                            "The cached trajectory was replayed to its end. Take a screenshot and check that the goal is reached; finish it if not.",
                        ),
                    ],
                    usage: None,
                    result: SpeakerResult::SwitchTo {
                        speaker,
                        context: Value::Null,
                        reason: "replay completed".into(),
                    },
                },
                None => SpeakerTurn {
                    messages: vec![summary],
                    usage: None,
                    result: SpeakerResult::Done,
                },
            });
        }

        let index = replay.next;
        let mut step = replay.steps[index].clone();
        let cacheable = turn.toolbox.get(&step.name).map(|tool| tool.cacheable());
        match cacheable {
            None => {
                let message = format!(
                    "Step {index} uses the tool `{}`, which this run does not have (tools: {})",
                    step.name,
                    turn.toolbox.names()
                );
                return Ok(self.fail_step(index, message));
            }
            Some(false) => {
                let message = format!(
                    "Step {index} uses the non-cacheable tool `{}`; do that step yourself, then resume the replay at step {} with execute_cached_executions_tool.",
                    step.name,
                    index + 1
                );
                // A pause, not a failure: no metadata is written.
                self.replay = None;
                return Ok(SpeakerTurn {
                    messages: vec![
                        Message::assistant(vec![ContentBlock::text(format!(
                            "Replay paused at step {index}."
                        ))]),
                        Message::user_text(message.clone()),
                    ],
                    usage: None,
                    result: match &self.settings.on_mismatch {
                        OnMismatch::HandTo(speaker) => SpeakerResult::SwitchTo {
                            speaker: speaker.clone(),
                            context: Value::Null,
                            reason: "non-cacheable step".into(),
                        },
                        OnMismatch::Fail => SpeakerResult::Failed(StopCause::Failed(message)),
                    },
                });
            }
            Some(true) => {}
        }

        // Visual validation.
        let point = retrace_vision::action_point(&step.input);
        let recorded = step
            .visual_representation
            .as_deref()
            .map(ImageHash::from_hex);
        let check = self.settings.visual && replay.visual_enabled;
        if let (true, Some(point), Some(recorded)) = (check, point, recorded) {
            let recorded = match recorded {
                Ok(hash) => hash,
                Err(error) => {
                    return Ok(self.fail_step(
                        index,
                        format!("Step {index}: the recorded hash is unreadable: {error}"),
                    ));
                }
            };
            let (method, region_size) = (replay.method, replay.region_size);
            let waited = self
                .wait_for_screen(&recorded, method, point, region_size, true)
                .await;
            let WaitResult {
                distance,
                waited,
                image,
                hit,
            } = match waited {
                Ok(result) => result,
                Err(error) => {
                    return Err(AgentError::Speaker {
                        speaker: CACHE_EXECUTOR.into(),
                        step: turn.step,
                        message: format!("taking a screenshot for step {index}: {error}"),
                    });
                }
            };
            let threshold = self.settings.threshold;
            let hit = match hit {
                Some(hit) => Some(hit),
                None if distance > threshold && self.settings.search_radius > 0 => {
                    self.search(&image, &recorded, method, point, region_size)
                        .await
                }
                None => None,
            };
            let mut shift = None;
            let mut final_distance = distance;
            if let Some(hit) = hit {
                shift = Some(hit.offset);
                final_distance = hit.distance;
                shift_point(&mut step.input, hit.offset);
                self.with_outcome(|outcome| {
                    outcome.repairs.push(Repair {
                        step_index: index,
                        offset: hit.offset,
                        distance: hit.distance,
                    })
                });
            }
            let passed = final_distance <= threshold;
            turn.events.emit(Event::VisualCheck {
                step: turn.step,
                trajectory_index: index,
                distance: final_distance,
                threshold,
                passed,
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                shift: shift.map(|(dx, dy)| {
                    (
                        i32::try_from(dx).unwrap_or(i32::MAX),
                        i32::try_from(dy).unwrap_or(i32::MAX),
                    )
                }),
            });
            if !passed {
                let action = crate::step_input::action_name(&step);
                let message = format!(
                    "Visual validation failed at step {index} ({action} at ({}, {})): the screen region differs from the recording. Hamming distance: {distance} > threshold: {threshold} (waited {:.1} s; no match within {} px).",
                    point.0,
                    point.1,
                    waited.as_secs_f64(),
                    self.settings.search_radius
                );
                return Ok(self.fail_step(index, message));
            }
            self.with_outcome(|outcome| outcome.checks_passed += 1);
        } else if let WaitMode::Fixed(delay) = self.settings.wait {
            tokio::time::sleep(delay).await;
        }

        let Some(replay) = self.replay.as_mut() else {
            return Err(AgentError::Speaker {
                speaker: CACHE_EXECUTOR.into(),
                step: turn.step,
                message: "the replay ended unexpectedly".into(),
            });
        };
        step.id = format!("toolu_replay_{}_{index}", replay.run_tag);
        let last_acting = replay.steps[index + 1..].iter().all(is_observe_only);
        let effect = match (check && last_acting, point, after_hash(&step)) {
            (true, Some(_), Some(Err(error))) => {
                return Ok(self.fail_step(
                    index,
                    format!("Step {index}: the recorded after-action hash is unreadable: {error}"),
                ));
            }
            (true, Some(_), Some(Ok(after))) => {
                retrace_vision::action_point(&step.input).map(|acted_at| (acted_at, after))
            }
            _ => None,
        };
        replay.pending = Some(PendingStep {
            index,
            id: step.id.clone(),
            effect,
        });
        replay.next += 1;
        self.with_outcome(|outcome| outcome.steps_replayed += 1);
        Ok(SpeakerTurn::continue_with(vec![Message::assistant(vec![
            ContentBlock::ToolUse(step),
        ])]))
    }
}

#[cfg(test)]
#[path = "cache_executor_tests.rs"]
mod tests;
