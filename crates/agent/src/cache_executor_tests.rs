use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use retrace_vision::PixelLayout;
use serde_json::json;

use super::*;
use crate::Conversation;
use crate::RunStatus;
use crate::events::Events;
use crate::tool::AgentTool;
use crate::tool::FatalToolError;
use crate::tool::ToolReply;
use crate::tool::Toolbox;

/// A 200x200 screen with a dark square left of centre, so the region hash has structure.
fn screen_image() -> Image {
    let mut data = vec![230u8; 200 * 200];
    for y in 60..140 {
        for x in 30..90 {
            data[y * 200 + x] = 20;
        }
    }
    Image::new(200, 200, PixelLayout::Gray, data).unwrap()
}

/// A screen whose first `hangs` captures never answer (as Chromium's capture during a
/// navigation), then answers with `image`.
struct HangingScreen {
    hangs: usize,
    calls: AtomicUsize,
    image: Image,
}

#[async_trait]
impl Screen for HangingScreen {
    async fn capture(&self) -> Result<Image, String> {
        if self.calls.fetch_add(1, Ordering::SeqCst) < self.hangs {
            std::future::pending::<()>().await;
        }
        Ok(self.image.clone())
    }
}

/// A `computer` tool that notes each input it is called with.
#[derive(Default)]
struct NotingComputer {
    inputs: Mutex<Vec<Value>>,
}

#[async_trait]
impl AgentTool for NotingComputer {
    fn name(&self) -> &str {
        "computer"
    }
    fn description(&self) -> &str {
        "notes its inputs"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        true
    }
    async fn call(&self, input: Value) -> Result<ToolReply, FatalToolError> {
        self.inputs.lock().unwrap().push(input);
        Ok(ToolReply::text("done"))
    }
}

/// Writes a one-step trajectory clicking at (60, 100), hashed on `image`.
fn one_click_file(dir: &std::path::Path, image: &Image) -> PathBuf {
    let region = retrace_vision::action_region((60, 100), 100, image.width(), image.height());
    let hash = retrace_vision::region_hash(image, region, Method::Phash, 8).unwrap();
    let file = json!({
        "metadata": {
            "version": "0.1",
            "created_at": "2026-11-24T00:00:00Z",
            "goal": "click the square",
            "execution_attempts": 0,
            "failures": [],
            "is_valid": true,
            "visual_validation": {"enabled": true, "method": "phash", "region_size": 100}
        },
        "trajectory": [{
            "type": "tool_use",
            "id": "toolu_1",
            "name": "computer",
            "input": {"action": "left_click", "coordinate": [60, 100]},
            "visual_representation": hash.to_string()
        }]
    });
    let path = dir.join("click.json");
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    path
}

/// A capture that never answers is abandoned after its attempt limit and retried, so the step
/// is checked and replayed instead of waiting out the CDP timeout or failing the run.
#[tokio::test]
async fn a_capture_that_never_answers_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let image = screen_image();
    let file = one_click_file(dir.path(), &image);
    let screen = Arc::new(HangingScreen {
        hangs: 1,
        calls: AtomicUsize::new(0),
        image,
    });
    let computer = Arc::new(NotingComputer::default());
    let executor = CacheExecutor::new(ReplaySettings::default(), screen.clone());
    let outcome = executor.outcome_handle();
    let toolbox = Toolbox::new().with(computer.clone());
    let mut conversation =
        Conversation::new(vec![Box::new(executor)], toolbox, Events::none()).unwrap();
    // Without the bound the run would wait on the lost capture for good.
    let run = conversation.run(
        "replay",
        vec![Message::user_text("replay")],
        Some((CACHE_EXECUTOR, json!({"file": file}))),
    );
    let report = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the replay waited on a lost capture")
        .unwrap();
    assert_eq!(
        report.status,
        RunStatus::Done,
        "{:?}",
        outcome.lock().unwrap()
    );
    let outcome = outcome.lock().unwrap().clone();
    assert!(outcome.completed);
    assert_eq!(outcome.checks_passed, 1);
    assert_eq!(
        screen.calls.load(Ordering::SeqCst),
        2,
        "one lost, one answered"
    );
    assert_eq!(
        computer.inputs.lock().unwrap().as_slice(),
        [json!({"action": "left_click", "coordinate": [60, 100]})]
    );
}

/// A page in the middle of loading: shown, the old screen (the recorded one in negative
/// here); rendered (once the load is done), the one the trajectory was recorded on.
struct LoadingScreen {
    shown: Image,
    rendered: Image,
}

#[async_trait]
impl Screen for LoadingScreen {
    async fn capture(&self) -> Result<Image, String> {
        Ok(self.rendered.clone())
    }
    async fn capture_as_shown(&self) -> Result<Image, String> {
        Ok(self.shown.clone())
    }
}

/// Replays the one-click file on a [`LoadingScreen`] with `wait`; the outcome.
async fn replay_on_a_loading_screen(wait: WaitMode) -> ReplayOutcome {
    let dir = tempfile::tempdir().unwrap();
    let rendered = screen_image();
    let file = one_click_file(dir.path(), &rendered);
    let negative = rendered.data().iter().map(|value| 255 - value).collect();
    let shown = Image::new(200, 200, PixelLayout::Gray, negative).unwrap();
    let settings = ReplaySettings {
        wait,
        step_timeout: Duration::from_millis(300),
        ..ReplaySettings::default()
    };
    let executor = CacheExecutor::new(settings, Arc::new(LoadingScreen { shown, rendered }));
    let outcome = executor.outcome_handle();
    let toolbox = Toolbox::new().with(Arc::new(NotingComputer::default()));
    let mut conversation =
        Conversation::new(vec![Box::new(executor)], toolbox, Events::none()).unwrap();
    conversation
        .run(
            "replay",
            vec![Message::user_text("replay")],
            Some((CACHE_EXECUTOR, json!({"file": file}))),
        )
        .await
        .unwrap();
    outcome.lock().unwrap().clone()
}

/// A fixed delay looks once at the screen as shown after its sleep (askui's behaviour: a page
/// still loading fails the step); visual waiting looks at the rendered screen.
#[tokio::test]
async fn a_fixed_delay_looks_at_the_screen_as_shown_and_visual_waiting_at_the_rendered_one() {
    let fixed = replay_on_a_loading_screen(WaitMode::Fixed(Duration::from_millis(10))).await;
    assert!(!fixed.completed);
    let failure = fixed.failure.unwrap_or_default();
    assert!(
        failure.contains("Visual validation failed at step 0"),
        "{failure}"
    );
    let visual = replay_on_a_loading_screen(WaitMode::Visual).await;
    assert!(visual.completed, "{:?}", visual.failure);
    assert_eq!(visual.checks_passed, 1);
}

/// Replays the one-click file (hashed on [`screen_image`]) on `screen` with `settings`: the
/// run's result (an error is exit 2 in the CLI) and the outcome.
async fn replay_one_click(
    screen: Arc<dyn Screen>,
    settings: ReplaySettings,
) -> (Result<RunStatus, AgentError>, ReplayOutcome) {
    let dir = tempfile::tempdir().unwrap();
    let file = one_click_file(dir.path(), &screen_image());
    let executor = CacheExecutor::new(settings, screen);
    let outcome = executor.outcome_handle();
    let toolbox = Toolbox::new().with(Arc::new(NotingComputer::default()));
    let mut conversation =
        Conversation::new(vec![Box::new(executor)], toolbox, Events::none()).unwrap();
    let run = conversation
        .run(
            "replay",
            vec![Message::user_text("replay")],
            Some((CACHE_EXECUTOR, json!({"file": file}))),
        )
        .await
        .map(|report| report.status);
    let outcome = outcome.lock().unwrap().clone();
    (run, outcome)
}

/// A screenshot that takes longer than the step timeout (a loaded machine) is waited for and
/// retried, not turned into an error that ends the run: here the first capture is lost and
/// its 2 s attempt limit is far past the 300 ms step timeout.
#[tokio::test]
async fn a_screenshot_slower_than_the_step_timeout_is_not_an_error() {
    let screen = Arc::new(HangingScreen {
        hangs: 1,
        calls: AtomicUsize::new(0),
        image: screen_image(),
    });
    let settings = ReplaySettings {
        step_timeout: Duration::from_millis(300),
        ..ReplaySettings::default()
    };
    let (run, outcome) = replay_one_click(screen.clone(), settings).await;
    assert_eq!(run.unwrap(), RunStatus::Done, "{:?}", outcome.failure);
    assert_eq!(outcome.checks_passed, 1);
    assert_eq!(screen.calls.load(Ordering::SeqCst), 2);
}

/// A screen that reaches the recorded state within the step timeout, seen through
/// screenshots slower than the timeout: the first shows the screen as it was when it was
/// asked for (before the change) and arrives after the timeout; the next shows the change.
struct SlowScreen {
    calls: AtomicUsize,
    first_takes: Duration,
    before: Image,
    after: Image,
}

#[async_trait]
impl Screen for SlowScreen {
    async fn capture(&self) -> Result<Image, String> {
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            let before = self.before.clone();
            tokio::time::sleep(self.first_takes).await;
            return Ok(before);
        }
        Ok(self.after.clone())
    }
}

/// The step fails only on a screenshot asked for after its whole timeout: one asked for at
/// the start and slow to come back (here it comes back after the timeout, showing the screen
/// before it matched) does not fail a step whose screen matched in time.
#[tokio::test]
async fn a_slow_screenshot_from_before_the_timeout_does_not_fail_the_step() {
    let after = screen_image();
    let negative = after.data().iter().map(|value| 255 - value).collect();
    let before = Image::new(200, 200, PixelLayout::Gray, negative).unwrap();
    let step_timeout = Duration::from_secs(2);
    let screen = Arc::new(SlowScreen {
        calls: AtomicUsize::new(0),
        first_takes: step_timeout + Duration::from_millis(500),
        before,
        after,
    });
    let settings = ReplaySettings {
        step_timeout,
        // No search: the old screen must not be "repaired" into a match either.
        search_radius: 0,
        ..ReplaySettings::default()
    };
    let (run, outcome) = replay_one_click(screen.clone(), settings).await;
    assert_eq!(run.unwrap(), RunStatus::Done, "{:?}", outcome.failure);
    assert!(outcome.completed, "{:?}", outcome.failure);
    assert_eq!(outcome.checks_passed, 1);
    assert_eq!(screen.calls.load(Ordering::SeqCst), 2);
}
