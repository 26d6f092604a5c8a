//! [`ReplaySpeaker`]: the speaker that replays a trajectory, one step per turn, into the same
//! history a model would have written.
//!
//! It is a thin state machine over the rest of the crate. Activated with a
//! [`ReplayRequest`], it loads a [`Plan`]; then each turn it finishes the step acted last turn
//! (a tool error fails it; the after-action checks wait for its effect) and prepares the next:
//! observe-only steps are skipped, a step of a non-cacheable tool pauses the replay for the
//! model, and the before-action checks wait for the screen the step was recorded on (a step
//! nothing checks waits for a still screen), repairing a moved control when a check finds it.
//! The step is then emitted as a tool call and the conversation runs it.
//!
//! A failed step is filed in the file's metadata ([`MetadataWriter`]), reported as events
//! ([`Tally`]) with its evidence, and either ends the run or hands it to the model with a
//! message naming the step, the measure and the bound ([`crate::messages`]).

use std::sync::Arc;

use async_trait::async_trait;
use retrace_agent::AgentError;
use retrace_agent::speaker::Speaker;
use retrace_agent::speaker::SpeakerContext;
use retrace_agent::speaker::SpeakerTurn;
use retrace_agent::speaker::TurnContext;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::Role;
use retrace_protocol::events::CheckPhase;
use retrace_protocol::events::Event;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::tool_input;
use serde_json::Value;

mod ending;

use crate::checks::CheckEnv;
use crate::checks::NextChecks;
use crate::checks::StepCheck;
use crate::checks::default_checks;
use crate::failure::CheckFailure;
use crate::failure::check_failure;
use crate::frame_memory::FrameMemory;
use crate::ledger::ReplayLedger;
use crate::messages;
use crate::metadata::MetadataWriter;
use crate::plan::Plan;
use crate::plan::PlannedStep;
use crate::request::ReplayRequest;
use crate::request::ReplaySettings;
use crate::screen::Screen;
use crate::tally::Tally;
use crate::tally::millis;
use crate::wait::Verdict;
use crate::wait::Waiter;

/// The name of the replaying speaker.
pub const CACHE_EXECUTOR: &str = "cache_executor";

/// The speaker that replays a trajectory cache file.
pub struct ReplaySpeaker {
    settings: ReplaySettings,
    screen: Arc<dyn Screen>,
    checks: Vec<Arc<dyn StepCheck>>,
    metadata: MetadataWriter,
    max_file_size: u64,
    /// The last verified screenshot, emptied each time the replay acts.
    frames: FrameMemory,
    state: State,
}

impl std::fmt::Debug for ReplaySpeaker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ReplaySpeaker")
            .field("settings", &self.settings)
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

/// Where the speaker is.
#[derive(Debug)]
enum State {
    /// Nothing to replay.
    Idle,
    /// The last activation could not load its file: say why on the next turn.
    CannotStart(String),
    /// Replaying.
    Running(Box<Run>),
}

/// One replay in progress.
#[derive(Debug)]
struct Run {
    plan: Plan,
    env: CheckEnv,
    next: usize,
    pending: Option<Pending>,
    tally: Tally,
    run_tag: String,
}

/// The step acted last turn, finished at the start of the next.
#[derive(Debug)]
struct Pending {
    step: PlannedStep,
    id: String,
    /// Where it acted (shifted, when repaired).
    acted_at: Option<(i64, i64)>,
}

/// What one phase of a step came to.
enum PhaseEnd {
    Passed,
    Failed(Box<ReplayFailure>),
}

impl ReplaySpeaker {
    /// A replay speaker taking screenshots from `screen`, running the default checks.
    pub fn new(settings: ReplaySettings, screen: Arc<dyn Screen>) -> Self {
        Self {
            settings,
            screen,
            checks: default_checks(),
            metadata: MetadataWriter::default(),
            max_file_size: retrace_cache::DEFAULT_MAX_FILE_SIZE,
            frames: FrameMemory::default(),
            state: State::Idle,
        }
    }

    /// Notes each replay that runs to its end in `ledger`, so that the model's verdict on it
    /// (the verify tool over the same ledger) does not count a second attempt.
    pub fn with_ledger(mut self, ledger: Arc<ReplayLedger>) -> Self {
        self.metadata = self.metadata.with_ledger(ledger);
        self
    }

    /// The same speaker running `checks` instead of the default ones.
    pub fn with_checks(mut self, checks: Vec<Arc<dyn StepCheck>>) -> Self {
        self.checks = checks;
        self
    }

    /// The checks of `phase` that apply to `step`.
    fn checks_for(
        &self,
        phase: CheckPhase,
        step: &PlannedStep,
        env: &CheckEnv,
    ) -> Vec<Arc<dyn StepCheck>> {
        self.checks
            .iter()
            .filter(|check| check.phase() == phase && check.applies(step, env))
            .cloned()
            .collect()
    }

    /// The points `step`'s before-action checks read on the screenshot, at its recorded
    /// point; none for no step, or one without a point.
    fn reads_before(&self, step: Option<&PlannedStep>, env: &CheckEnv) -> Vec<(i64, i64)> {
        let Some((step, at)) = step.and_then(|step| Some((step, step.point?))) else {
            return Vec::new();
        };
        self.checks_for(CheckPhase::Before, step, env)
            .iter()
            .filter(|check| check.reads_screen())
            .flat_map(|check| check.points_read(step, at))
            .collect()
    }

    fn run_mut(&mut self, turn: &TurnContext<'_>) -> Result<&mut Run, AgentError> {
        match &mut self.state {
            State::Running(run) => Ok(run),
            _ => Err(speaker_error(turn, "no trajectory is loaded".into())),
        }
    }

    /// Runs the checks of one phase of `step` acting at `at`, reporting them; the failure
    /// when they did not pass.
    async fn run_phase(
        &mut self,
        turn: &TurnContext<'_>,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        phase: CheckPhase,
    ) -> Result<(PhaseEnd, Option<Verdict>), AgentError> {
        let run = self.run_mut(turn)?;
        let env = run.env.clone();
        let checks = self.checks_for(phase, step, &env);
        if checks.is_empty() {
            return Ok((PhaseEnd::Passed, None));
        }
        let waiter = Waiter {
            screen: self.screen.as_ref(),
            env: &env,
            memory: &self.frames,
        };
        let repair = phase == CheckPhase::Before && at.is_some();
        let verdict = waiter
            .until_checks_pass(step, at, &checks, phase)
            .await
            .map_err(|error| {
                speaker_error(turn, format!("checking step {}: {error}", step.number()))
            })?;
        let run = self.run_mut(turn)?;
        run.tally
            .checked(turn.events, step.number(), phase, &verdict);
        let Some((name, look)) = verdict.failing() else {
            return Ok((PhaseEnd::Passed, Some(verdict)));
        };
        let failure = check_failure(CheckFailure {
            step,
            phase,
            check: name,
            look,
            verdict: &verdict,
            searched_within: (repair && self.settings.search_radius > 0)
                .then_some(self.settings.search_radius),
            at,
            region_size: env.hashing.region_size,
        });
        Ok((PhaseEnd::Failed(Box::new(failure)), Some(verdict)))
    }

    /// Finishes the step acted last turn: its tool result, then its after-action checks.
    async fn finish_pending(
        &mut self,
        turn: &TurnContext<'_>,
        pending: Pending,
    ) -> Result<Option<ReplayFailure>, AgentError> {
        let error = turn
            .history
            .last()
            .filter(|message| message.role == Role::User)
            .and_then(|message| {
                message
                    .tool_results()
                    .find(|result| result.tool_use_id == pending.id)
                    .filter(|result| result.is_error())
                    .map(retrace_protocol::ToolResultBlock::text)
            });
        let step = &pending.step;
        if let Some(error) = error {
            return Ok(Some(ReplayFailure {
                step: step.number(),
                kind: FailureKind::ToolError,
                action: step.describe(),
                message: format!(
                    "Step {} ({}) failed when replayed: {error}",
                    step.number(),
                    step.call.name,
                ),
                distance: None,
                threshold: None,
                waited_ms: None,
                expected_crop: None,
                actual_crop: None,
                actual_screen: None,
                actual_element: None,
            }));
        }
        match self
            .run_phase(turn, step, pending.acted_at, CheckPhase::After)
            .await?
        {
            (PhaseEnd::Failed(failure), _) => Ok(Some(*failure)),
            (PhaseEnd::Passed, _) => Ok(None),
        }
    }

    /// A failure of `step` found before it acts, other than a check's.
    fn refusal(step: &PlannedStep, kind: FailureKind, message: String) -> ReplayFailure {
        ReplayFailure {
            step: step.number(),
            kind,
            action: step.describe(),
            message,
            distance: None,
            threshold: None,
            waited_ms: None,
            expected_crop: None,
            actual_crop: None,
            actual_screen: None,
            actual_element: None,
        }
    }
}

fn speaker_error(turn: &TurnContext<'_>, message: String) -> AgentError {
    AgentError::Speaker {
        speaker: CACHE_EXECUTOR.into(),
        turn: turn.turn,
        message,
    }
}

#[async_trait]
impl Speaker for ReplaySpeaker {
    fn name(&self) -> &str {
        CACHE_EXECUTOR
    }

    fn description(&self) -> &str {
        "replays a recorded trajectory step by step, checking the screen before and after each action"
    }

    fn can_handle(&self, _turn: &TurnContext<'_>) -> bool {
        !matches!(self.state, State::Idle)
    }

    async fn on_activate(
        &mut self,
        context: &SpeakerContext,
        turn: &TurnContext<'_>,
    ) -> Result<(), AgentError> {
        let request = match (context.get::<ReplayRequest>(), context.get::<Value>()) {
            (Some(request), _) => Ok(request.clone()),
            (None, Some(json)) => serde_json::from_value::<ReplayRequest>(json.clone())
                .map_err(|error| format!("the replay request is not usable: {error}")),
            (None, None) => Err("no replay request was given (a trajectory file to replay)".into()),
        };
        let plan = request.and_then(|request| {
            Plan::load(&request, self.max_file_size).map_err(|error| error.to_string())
        });
        // Whatever was seen before this activation may have been acted on since.
        self.frames.forget();
        self.state = match plan {
            Ok(plan) => {
                let env = CheckEnv {
                    settings: self.settings.clone(),
                    hashing: plan.hashing,
                    visual_enabled: plan.visual_enabled,
                    last_acting: false,
                    focus_next: false,
                    next_reads: Vec::new(),
                    next_page_checks: None,
                    page: self.screen.page(),
                    elements: self.screen.elements(),
                };
                let tally = Tally::start(&plan, turn.events);
                let run_tag = jiff::Timestamp::now()
                    .as_microsecond()
                    .rem_euclid(1_000_000_000)
                    .to_string();
                State::Running(Box::new(Run {
                    next: plan.start,
                    plan,
                    env,
                    pending: None,
                    tally,
                    run_tag,
                }))
            }
            Err(reason) => State::CannotStart(reason),
        };
        Ok(())
    }

    async fn handle_step(&mut self, turn: &TurnContext<'_>) -> Result<SpeakerTurn, AgentError> {
        if let State::CannotStart(reason) = &self.state {
            let reason = reason.clone();
            self.state = State::Idle;
            return Ok(self.cannot_start(reason));
        }
        let pending = self.run_mut(turn)?.pending.take();
        if let Some(pending) = pending
            && let Some(failure) = self.finish_pending(turn, pending).await?
        {
            return Ok(self.fail(turn, failure).await);
        }

        let run = self.run_mut(turn)?;
        while run
            .plan
            .steps
            .get(run.next)
            .is_some_and(|step| step.observe_only)
        {
            run.next += 1;
        }
        let Some(step) = run.plan.steps.get(run.next).cloned() else {
            return Ok(self.complete(turn).await);
        };
        let next = run.plan.next_acting(step.index).cloned();
        run.env.last_acting = next.is_none();
        let env = run.env.clone();
        let next_reads = self.reads_before(next.as_ref(), &env);
        // A next step on the focus waits for a still field only when nothing checks it before
        // it acts (on a browser, the focus on its recorded element is checked instead).
        let focus_next = next.as_ref().is_some_and(|next| {
            next.acts_on_focus() && self.checks_for(CheckPhase::Before, next, &env).is_empty()
        });
        let next_page_checks = next.map(|next| NextChecks {
            checks: self
                .checks_for(CheckPhase::Before, &next, &env)
                .into_iter()
                .filter(|check| !check.reads_screen())
                .collect(),
            step: next,
        });
        let run = self.run_mut(turn)?;
        run.env.next_reads = next_reads;
        run.env.focus_next = focus_next;
        run.env.next_page_checks = next_page_checks.filter(|next| !next.checks.is_empty());

        match turn
            .toolbox
            .get(&step.call.name)
            .map(|tool| tool.cacheable())
        {
            None => {
                // As askui's CacheExecutor: a tool the run does not have (askui's `locate`)
                // is the model's to do, not a fault of the file, so nothing is counted.
                let message = format!(
                    "Step {} uses the tool `{}`, which this run does not have (tools: {}); a \
                     model has to do this step",
                    step.number(),
                    step.call.name,
                    turn.toolbox.names()
                );
                let failure = Self::refusal(&step, FailureKind::NeedsModel, message);
                return Ok(self.fail(turn, failure).await);
            }
            Some(false) => {
                let message = messages::needs_model(step.number(), &step.call.name);
                let failure = Self::refusal(&step, FailureKind::NeedsModel, message);
                return Ok(self.fail(turn, failure).await);
            }
            Some(true) => {}
        }

        // Before acting: the checks at the step's point, or a still screen.
        let mut call = step.call.clone();
        let acted_at = match self
            .run_phase(turn, &step, step.point, CheckPhase::Before)
            .await?
        {
            (PhaseEnd::Failed(failure), _) => return Ok(self.fail(turn, *failure).await),
            (PhaseEnd::Passed, Some(verdict)) => match (step.point, verdict.relocation) {
                (Some(point), Some(hit)) => {
                    tool_input::shift_point(&mut call.input, hit.offset);
                    Some((point.0 + hit.offset.0, point.1 + hit.offset.1))
                }
                (point, _) => point,
            },
            (PhaseEnd::Passed, None) => {
                self.wait_settled(turn, &step).await?;
                step.point
            }
        };

        // The step acts: no screenshot from before it may stand for the screen after it.
        self.frames.forget();
        // The dialogs it opened when recorded are answered so; any other fails it.
        if let Some(page) = self.screen.page() {
            page.expect_dialogs(&step.dialogs);
        }
        let run = self.run_mut(turn)?;
        call.id = format!("toolu_replay_{}_{}", run.run_tag, step.index);
        run.pending = Some(Pending {
            id: call.id.clone(),
            step: step.clone(),
            acted_at,
        });
        run.next += 1;
        run.tally.acted();
        Ok(SpeakerTurn {
            step: Some(step.number()),
            ..SpeakerTurn::continue_with(vec![Message::assistant(vec![ContentBlock::ToolUse(
                call,
            )])])
        })
    }
}

impl ReplaySpeaker {
    /// Waits, before a step nothing checks, for the screen to stop changing.
    async fn wait_settled(
        &mut self,
        turn: &TurnContext<'_>,
        step: &PlannedStep,
    ) -> Result<(), AgentError> {
        let env = self.run_mut(turn)?.env.clone();
        let waiter = Waiter {
            screen: self.screen.as_ref(),
            env: &env,
            memory: &self.frames,
        };
        let (settled, waited) = waiter.until_settled(step).await.map_err(|error| {
            speaker_error(
                turn,
                format!("waiting before step {}: {error}", step.number()),
            )
        })?;
        turn.events.emit(Event::ScreenSettled {
            step: step.number(),
            settled,
            waited_ms: millis(waited.as_millis()),
        });
        Ok(())
    }
}
