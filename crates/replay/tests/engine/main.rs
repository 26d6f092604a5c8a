//! The replay engine without a browser: a scripted screen and computer ([`world`]), the real
//! speaker, conversation, checks, wait engine and file metadata. Each test names one behaviour
//! of the engine; none depends on timing (screens change per screenshot or per action).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser;
mod handover;
mod page;
mod world;

use std::sync::Arc;
use std::time::Duration;

use retrace_agent::Conversation;
use retrace_agent::RunStatus;
use retrace_agent::speaker::Speaker;
use retrace_agent::speaker::SpeakerContext;
use retrace_agent::speaker::SpeakerResult;
use retrace_agent::speaker::SpeakerTurn;
use retrace_agent::speaker::TurnContext;
use retrace_cache::ParameterValues;
use retrace_drive::tool::Tool;
use retrace_drive::tool::Toolbox;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::events::CheckResult;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::MemorySink;
use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::events::ReplayStatus;
use retrace_replay::CACHE_EXECUTOR;
use retrace_replay::OnMismatch;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySettings;
use retrace_replay::ReplaySpeaker;
use retrace_replay::WaitMode;
use serde_json::json;
use world::Locate;
use world::Step;
use world::World;
use world::WorldComputer;
use world::WorldScreen;
use world::control_at;
use world::other_screen;
use world::squares;
use world::write_trajectory;

/// What one replay did.
pub(crate) struct Replayed {
    status: RunStatus,
    outcome: Option<ReplayOutcome>,
    events: Vec<Event>,
    /// What the model was told when the replay handed over, if it did.
    handed_over: Option<String>,
}

impl Replayed {
    fn outcome(&self) -> &ReplayOutcome {
        self.outcome
            .as_ref()
            .expect("the replay reported an outcome")
    }

    /// Asserts that the replay passed, showing the failure when it did not.
    fn assert_passed(&self) {
        let failure = &self.outcome().failure;
        assert!(failure.is_none(), "{failure:?}");
    }

    fn checks(&self, name: &str) -> Vec<CheckResult> {
        self.events
            .iter()
            .filter_map(|event| match event {
                Event::CheckFinished(check) if check.check == name => Some(check.clone()),
                _ => None,
            })
            .collect()
    }

    fn tool_steps(&self) -> Vec<Option<usize>> {
        self.events
            .iter()
            .filter_map(|event| match event {
                Event::ToolCalled { step, .. } => Some(*step),
                _ => None,
            })
            .collect()
    }
}

/// A model stand-in that takes over a failed replay and notes what it was told.
struct Model {
    told: Arc<std::sync::Mutex<Option<String>>>,
}

#[async_trait::async_trait]
impl Speaker for Model {
    fn name(&self) -> &str {
        "agent"
    }
    fn description(&self) -> &str {
        "notes the hand-over"
    }
    async fn handle_step(
        &mut self,
        turn: &TurnContext<'_>,
    ) -> Result<SpeakerTurn, retrace_agent::AgentError> {
        let said = turn.history.last().map(Message::text);
        *self.told.lock().unwrap() = said;
        Ok(SpeakerTurn::ending(
            vec![Message::assistant(vec![ContentBlock::text("done")])],
            SpeakerResult::Done,
        ))
    }
}

/// Replays `request` on `world` with `settings`; with `OnMismatch::HandTo("agent")`, a
/// [`Model`] takes over.
async fn replay(
    world: &Arc<World>,
    request: ReplayRequest,
    settings: ReplaySettings,
    extra_tools: Vec<Arc<dyn Tool>>,
) -> Replayed {
    let hand_over = matches!(settings.on_mismatch, OnMismatch::HandTo(_));
    let speaker = ReplaySpeaker::new(settings, Arc::new(WorldScreen(world.clone())));
    let told = Arc::new(std::sync::Mutex::new(None));
    let mut speakers: Vec<Box<dyn Speaker>> = vec![Box::new(speaker)];
    if hand_over {
        speakers.push(Box::new(Model { told: told.clone() }));
    }
    let mut toolbox = Toolbox::new().with(Arc::new(WorldComputer(world.clone())));
    for tool in extra_tools {
        toolbox.add(tool);
    }
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(speakers, toolbox, Events::none().with(sink.clone()))
        .unwrap()
        .with_max_steps(100);
    let run = conversation.run(
        "replay",
        vec![Message::user_text("replay")],
        Some((CACHE_EXECUTOR, SpeakerContext::of(request))),
    );
    let report = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the replay finished")
        .unwrap();
    let events = sink.events();
    let outcome = events.iter().find_map(|event| match event {
        Event::ReplayFinished(outcome) => Some((**outcome).clone()),
        _ => None,
    });
    let handed_over = told.lock().unwrap().clone();
    Replayed {
        status: report.status,
        outcome,
        events,
        handed_over,
    }
}

/// Settings with a short step timeout, for tests whose step is meant to fail.
fn failing_fast() -> ReplaySettings {
    ReplaySettings {
        step_timeout: Duration::from_millis(400),
        ..ReplaySettings::default()
    }
}

fn metadata(path: &std::path::Path) -> retrace_cache::CacheMetadata {
    retrace_cache::read_cache_file(path, retrace_cache::DEFAULT_MAX_FILE_SIZE)
        .unwrap()
        .metadata
}

const POINT: (i64, i64) = (80, 120);

#[tokio::test]
async fn waits_until_the_screen_matches_then_acts() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(recorded);
    // The page is still loading for three screenshots.
    world.queue(vec![other_screen(), other_screen(), other_screen()]);
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done, "{:?}", run.outcome);
    let actions = world.actions.lock().unwrap().clone();
    assert_eq!(actions.len(), 1);
    assert!(
        actions[0].1 >= 4,
        "acted after {} screenshots, before the screen matched",
        actions[0].1
    );
    let visual = run.checks("visual");
    assert_eq!(visual.len(), 1);
    assert!(visual[0].passed);
    assert_eq!(visual[0].step, 1);
    assert_eq!(run.outcome().status, ReplayStatus::Passed);
    assert_eq!(metadata(&file).execution_attempts, 1);
}

#[tokio::test]
async fn a_screen_that_never_matches_fails_the_step_with_distance_and_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(other_screen());
    let run = replay(&world, ReplayRequest::new(&file), failing_fast(), vec![]).await;
    assert!(
        matches!(run.status, RunStatus::Failed(_)),
        "{:?}",
        run.status
    );
    assert!(world.inputs().is_empty(), "nothing was clicked");
    let failure = run.outcome().failure.clone().unwrap();
    assert_eq!(failure.step, 1);
    assert_eq!(failure.kind, FailureKind::Mismatch);
    let (distance, threshold) = (failure.distance.unwrap(), failure.threshold.unwrap());
    assert!(distance > threshold);
    assert!(
        failure
            .message
            .starts_with("Visual validation failed at step 1 (left_click at (80, 120)): ")
            && failure.message.contains(&format!(
                "Hamming distance: {distance} > threshold: {threshold}"
            )),
        "{}",
        failure.message
    );
    assert!(
        failure.actual_crop.is_some(),
        "the failure carries what was seen"
    );
    let failures = metadata(&file).failures;
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].step_index, 0,
        "the file's own numbering is askui's"
    );
}

#[tokio::test]
async fn a_control_moved_within_the_radius_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(control_at(64, 92));
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done, "{:?}", run.outcome);
    assert_eq!(
        world.inputs(),
        [json!({"action": "left_click", "coordinate": [104, 132]})],
        "acted at the moved point"
    );
    let repairs = &run.outcome().repairs;
    assert_eq!(repairs.len(), 1);
    assert_eq!((repairs[0].step, repairs[0].offset), (1, (24, 12)));
    assert_eq!(run.checks("visual")[0].shift, Some((24, 12)));
}

#[tokio::test]
async fn a_control_moved_past_the_radius_is_not_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(control_at(150, 80));
    let settings = ReplaySettings {
        search_radius: 80,
        ..failing_fast()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, vec![]).await;
    assert!(
        matches!(run.status, RunStatus::Failed(_)),
        "{:?} {:?}",
        run.checks("visual"),
        run.outcome
    );
    assert!(world.inputs().is_empty());
    let failure = run.outcome().failure.clone().unwrap();
    assert_eq!(failure.kind, FailureKind::Mismatch);
    assert!(
        failure.message.contains("no match within 80 px"),
        "{}",
        failure.message
    );
    assert!(run.outcome().repairs.is_empty());
}

/// A threshold below the search's own bound must not let the search pass what the check
/// rejects (it once reported "repaired: shifted +0,+0" and "no match" in one line).
#[tokio::test]
async fn a_strict_threshold_bounds_the_search_too() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    // One more square nearby changes the hash a little, never to zero.
    let world = World::showing(squares(&[(40, 80), (80, 120), (130, 30)]));
    let settings = ReplaySettings {
        threshold: 0,
        ..failing_fast()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, vec![]).await;
    let outcome = run.outcome();
    if outcome.passed() {
        // Any repair it made must meet the threshold of 0.
        assert!(outcome.repairs.iter().all(|repair| repair.distance == 0));
    } else {
        assert!(outcome.repairs.is_empty(), "{:?}", outcome.repairs);
        let visual = run.checks("visual");
        assert_eq!(visual.last().unwrap().shift, None);
    }
}

#[tokio::test]
async fn every_step_with_an_after_state_has_its_effect_checked() {
    let dir = tempfile::tempdir().unwrap();
    let start = control_at(40, 80);
    let checked = squares(&[(40, 80), (80, 120), (170, 170)]);
    let after = control_at(10, 50);
    // Step 1 should turn the square into another; step 2 clicks elsewhere.
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &start, &after),
            Step::click((200, 200), &checked, &checked),
        ],
    );
    // The control ignores the click: the screen does not change, but step 2's region looks
    // the same either way, so only step 1's effect check can catch it.
    let world = World::showing(checked);
    let run = replay(&world, ReplayRequest::new(&file), failing_fast(), vec![]).await;
    assert!(matches!(run.status, RunStatus::Failed(_)));
    let failure = run.outcome().failure.clone().unwrap();
    assert_eq!((failure.step, failure.kind), (1, FailureKind::Effect));
    assert!(
        failure.message.contains("Effect check failed after step 1"),
        "{}",
        failure.message
    );
    assert_eq!(world.inputs().len(), 1, "step 2 never ran");
}

#[tokio::test]
async fn an_effect_that_arrives_late_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let before = control_at(40, 80);
    let after = control_at(10, 50);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &before, &after)]);
    let world = World::showing(before.clone());
    // The click's result shows after three more screenshots of the old screen.
    world.on_next_action(Box::new(move |queue, settled| {
        queue.extend([before.clone(), before.clone(), before.clone()]);
        *settled = after.clone();
    }));
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done, "{:?}", run.outcome);
    let effect = run.checks("effect");
    assert_eq!(effect.len(), 1);
    assert!(effect[0].passed);
    assert_eq!(run.outcome().passed_checks("effect"), 1);
}

#[tokio::test]
async fn a_step_nothing_checks_waits_for_a_still_screen() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[Step::click(POINT, &screen, &screen), Step::typing("hello")],
    );
    let world = World::showing(screen.clone());
    // The click starts an animation: five different frames, then still.
    let frames: Vec<_> = (0..5u32)
        .map(|n| squares(&[(40, 80), (80, 120), (170, 20 * n)]))
        .collect();
    world.on_next_action(Box::new(move |queue, _| queue.extend(frames.clone())));
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done, "{:?}", run.outcome);
    let actions = world.actions.lock().unwrap().clone();
    assert_eq!(actions.len(), 2);
    let (click_at, type_at) = (actions[0].1, actions[1].1);
    // Five moving frames plus two alike after them: typing came only after all of them.
    assert!(
        type_at >= click_at + 7,
        "typed after {} screenshots past the click",
        type_at - click_at
    );
    assert!(run.events.iter().any(|event| matches!(
        event,
        Event::ScreenSettled {
            step: 2,
            settled: true,
            ..
        }
    )));
}

#[tokio::test]
async fn a_failed_step_hands_over_with_its_step_distance_and_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &recorded, &recorded),
            Step::typing("left for the model"),
        ],
    );
    let world = World::showing(other_screen());
    let settings = ReplaySettings {
        on_mismatch: OnMismatch::HandTo("agent".into()),
        ..failing_fast()
    };
    let run = replay(&world, ReplayRequest::new(&file), settings, vec![]).await;
    assert_eq!(run.status, RunStatus::Done, "the model took over");
    let told = run.handed_over.clone().unwrap();
    let failure = run.outcome().failure.clone().unwrap();
    assert!(
        told.starts_with(&format!(
            "The recorded trajectory could not continue: {}\n",
            failure.message
        )),
        "{told}"
    );
    assert!(
        failure
            .message
            .starts_with("Visual validation failed at step 1 (left_click at (80, 120)): "),
        "{}",
        failure.message
    );
    assert!(
        told.contains(&format!(
            "Hamming distance: {} > threshold: 10",
            failure.distance.unwrap()
        )),
        "{told}"
    );
    assert!(
        told.lines()
            .any(|line| line == "  step 2: computer type text of 18 characters"),
        "{told}"
    );
    assert!(
        !told.contains("left for the model"),
        "typed text is not repeated"
    );
}

#[tokio::test]
async fn a_non_cacheable_step_pauses_for_the_model_without_counting_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &screen, &screen),
            Step {
                tool: "locate",
                input: json!({"query": "the save button"}),
                before: None,
                after: None,
                extra: Vec::new(),
            },
        ],
    );
    let world = World::showing(screen);
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![Arc::new(Locate)],
    )
    .await;
    assert!(
        matches!(run.status, RunStatus::Failed(_)),
        "{:?}",
        run.status
    );
    let outcome = run.outcome();
    assert_eq!(outcome.status, ReplayStatus::Paused);
    let failure = outcome.failure.clone().unwrap();
    assert_eq!((failure.step, failure.kind), (2, FailureKind::NeedsModel));
    assert!(
        failure.message.contains("non-cacheable tool `locate`"),
        "{}",
        failure.message
    );
    let metadata = metadata(&file);
    assert!(
        metadata.failures.is_empty(),
        "a pause is not a cache failure"
    );
    assert_eq!(world.inputs().len(), 1);
}

#[tokio::test]
async fn missing_parameter_values_are_named_before_anything_acts() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::click(POINT, &screen, &screen),
            Step::typing("{{user}} and {{pin}}"),
        ],
    );
    let world = World::showing(screen);
    let partial: ParameterValues = [("user", "demo")].into_iter().collect();
    let run = replay(
        &world,
        ReplayRequest::new(&file).with_parameters(partial),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    let RunStatus::Failed(reason) = &run.status else {
        panic!("{:?}", run.status)
    };
    assert!(
        reason.contains("missing values for parameters: pin"),
        "{reason}"
    );
    assert!(world.inputs().is_empty());
    assert_eq!(world.captures(), 0, "not even a screenshot");
}

#[tokio::test]
async fn parameter_values_are_substituted_into_the_steps() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::typing("{{user}}!")]);
    let world = World::showing(screen);
    let values: ParameterValues = [("user", "demo")].into_iter().collect();
    let run = replay(
        &world,
        ReplayRequest::new(&file).with_parameters(values),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(world.inputs(), [json!({"action": "type", "text": "demo!"})]);
}

#[tokio::test]
async fn a_tool_error_stops_the_replay_at_its_step() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::typing("first"),
            Step::click(POINT, &screen, &screen),
            Step::typing("never"),
        ],
    );
    let world = World::showing(screen);
    world
        .failing_actions
        .lock()
        .unwrap()
        .push(json!({"action": "left_click", "coordinate": [80, 120]}));
    let run = replay(
        &world,
        ReplayRequest::new(&file),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert!(matches!(run.status, RunStatus::Failed(_)));
    let failure = run.outcome().failure.clone().unwrap();
    assert_eq!((failure.step, failure.kind), (2, FailureKind::ToolError));
    assert!(
        failure.message.contains("the element is not clickable"),
        "{}",
        failure.message
    );
    assert_eq!(world.inputs(), [json!({"action": "type", "text": "first"})]);
    assert_eq!(metadata(&file).failures[0].step_index, 1);
}

#[tokio::test]
async fn a_replay_started_midway_numbers_its_steps_by_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let screen = control_at(40, 80);
    let file = write_trajectory(
        dir.path(),
        &[
            Step::typing("skipped"),
            Step::click(POINT, &screen, &screen),
            Step::typing("last"),
        ],
    );
    let world = World::showing(screen);
    let run = replay(
        &world,
        ReplayRequest::new(&file).starting_at(1),
        ReplaySettings::default(),
        vec![],
    )
    .await;
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.tool_steps(), [Some(2), Some(3)]);
    assert_eq!(run.checks("visual")[0].step, 2);
}

/// A screen whose first capture never answers (as Chromium's capture during a navigation).
struct HangingScreen {
    world: Arc<World>,
    hung: std::sync::atomic::AtomicBool,
}

#[async_trait::async_trait]
impl retrace_replay::screen::Screen for HangingScreen {
    async fn capture(&self) -> Result<retrace_vision::Image, String> {
        if !self.hung.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        WorldScreen(self.world.clone()).capture().await
    }
}

#[tokio::test]
async fn a_capture_that_never_answers_is_abandoned_and_retried() {
    use retrace_replay::screen::Screen;
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(recorded);
    let screen = HangingScreen {
        world: world.clone(),
        hung: std::sync::atomic::AtomicBool::new(false),
    };
    let _: &dyn Screen = &screen;
    let speaker = ReplaySpeaker::new(ReplaySettings::default(), Arc::new(screen));
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(
        vec![Box::new(speaker)],
        Toolbox::new().with(Arc::new(WorldComputer(world.clone()))),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let run = conversation.run(
        "replay",
        vec![Message::user_text("replay")],
        Some((
            CACHE_EXECUTOR,
            SpeakerContext::of(ReplayRequest::new(&file)),
        )),
    );
    // Without the bound on each attempt the replay would wait on the lost capture for good.
    let report = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the replay waited on a lost capture")
        .unwrap();
    assert_eq!(report.status, RunStatus::Done);
    assert_eq!(world.inputs().len(), 1);
}

/// A page in the middle of loading: shown, the old screen; rendered, the recorded one.
struct LoadingScreen {
    shown: retrace_vision::Image,
    rendered: retrace_vision::Image,
}

#[async_trait::async_trait]
impl retrace_replay::screen::Screen for LoadingScreen {
    async fn capture(&self) -> Result<retrace_vision::Image, String> {
        Ok(self.rendered.clone())
    }
    async fn capture_as_shown(&self) -> Result<retrace_vision::Image, String> {
        Ok(self.shown.clone())
    }
}

/// A fixed delay looks once at the screen as shown after its sleep (askui's behaviour: a page
/// still loading fails the step); visual waiting looks at the rendered screen.
#[tokio::test]
async fn a_fixed_delay_looks_at_the_screen_as_shown_and_visual_waiting_at_the_rendered_one() {
    for (wait, passes) in [
        (WaitMode::Fixed(Duration::from_millis(10)), false),
        (WaitMode::Visual, true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let rendered = control_at(40, 80);
        let file = write_trajectory(dir.path(), &[Step::click(POINT, &rendered, &rendered)]);
        let world = World::showing(rendered.clone());
        let screen = LoadingScreen {
            shown: other_screen(),
            rendered,
        };
        let settings = ReplaySettings {
            wait,
            ..failing_fast()
        };
        let speaker = ReplaySpeaker::new(settings, Arc::new(screen));
        let sink = MemorySink::new();
        let mut conversation = Conversation::new(
            vec![Box::new(speaker)],
            Toolbox::new().with(Arc::new(WorldComputer(world.clone()))),
            Events::none().with(sink.clone()),
        )
        .unwrap();
        let report = conversation
            .run(
                "replay",
                vec![Message::user_text("replay")],
                Some((
                    CACHE_EXECUTOR,
                    SpeakerContext::of(ReplayRequest::new(&file)),
                )),
            )
            .await
            .unwrap();
        assert_eq!(report.status == RunStatus::Done, passes, "{wait:?}");
    }
}

/// Replays a one-click trajectory (recorded on `control_at(40, 80)`) on `screen`.
async fn replay_on(
    screen: Arc<dyn retrace_replay::screen::Screen>,
    settings: ReplaySettings,
) -> (
    Result<RunStatus, retrace_agent::AgentError>,
    Option<ReplayOutcome>,
) {
    let dir = tempfile::tempdir().unwrap();
    let recorded = control_at(40, 80);
    let file = write_trajectory(dir.path(), &[Step::click(POINT, &recorded, &recorded)]);
    let world = World::showing(recorded);
    let speaker = ReplaySpeaker::new(settings, screen);
    let sink = MemorySink::new();
    let mut conversation = Conversation::new(
        vec![Box::new(speaker)],
        Toolbox::new().with(Arc::new(WorldComputer(world))),
        Events::none().with(sink.clone()),
    )
    .unwrap();
    let run = conversation
        .run(
            "replay",
            vec![Message::user_text("replay")],
            Some((
                CACHE_EXECUTOR,
                SpeakerContext::of(ReplayRequest::new(&file)),
            )),
        )
        .await
        .map(|report| report.status);
    let outcome = sink.events().iter().find_map(|event| match event {
        Event::ReplayFinished(outcome) => Some((**outcome).clone()),
        _ => None,
    });
    (run, outcome)
}

/// A screenshot that takes longer than the step timeout (a loaded machine) is waited for and
/// retried, not turned into an error that ends the run: the first capture is lost and its
/// 2 s attempt limit is far past the 300 ms step timeout.
#[tokio::test]
async fn a_screenshot_slower_than_the_step_timeout_is_not_an_error() {
    let world = World::showing(control_at(40, 80));
    let screen = Arc::new(HangingScreen {
        world: world.clone(),
        hung: std::sync::atomic::AtomicBool::new(false),
    });
    let settings = ReplaySettings {
        step_timeout: Duration::from_millis(300),
        ..ReplaySettings::default()
    };
    let (run, outcome) = replay_on(screen, settings).await;
    assert_eq!(run.unwrap(), RunStatus::Done, "{outcome:?}");
    assert_eq!(outcome.unwrap().passed_checks("visual"), 1);
}

/// A screen that reaches the recorded state within the step timeout, seen through a first
/// screenshot slower than the timeout that shows the screen as it was when asked for.
struct SlowScreen {
    calls: std::sync::atomic::AtomicUsize,
    first_takes: Duration,
    before: retrace_vision::Image,
    after: retrace_vision::Image,
}

#[async_trait::async_trait]
impl retrace_replay::screen::Screen for SlowScreen {
    async fn capture(&self) -> Result<retrace_vision::Image, String> {
        if self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            tokio::time::sleep(self.first_takes).await;
            return Ok(self.before.clone());
        }
        Ok(self.after.clone())
    }
}

/// A step fails only on a screenshot asked for after its whole timeout: one asked for at the
/// start and slow to come back (showing the screen before it matched) does not fail a step
/// whose screen matched in time.
#[tokio::test]
async fn a_slow_screenshot_from_before_the_timeout_does_not_fail_the_step() {
    let step_timeout = Duration::from_secs(1);
    let screen = Arc::new(SlowScreen {
        calls: std::sync::atomic::AtomicUsize::new(0),
        first_takes: step_timeout + Duration::from_millis(500),
        before: other_screen(),
        after: control_at(40, 80),
    });
    let settings = ReplaySettings {
        step_timeout,
        // No search: the old screen must not be "repaired" into a match either.
        search_radius: 0,
        ..ReplaySettings::default()
    };
    let (run, outcome) = replay_on(screen.clone(), settings).await;
    assert_eq!(run.unwrap(), RunStatus::Done, "{outcome:?}");
    assert_eq!(outcome.unwrap().passed_checks("visual"), 1);
    assert!(screen.calls.load(std::sync::atomic::Ordering::SeqCst) >= 2);
}
