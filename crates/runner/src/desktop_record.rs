//! `retrace record --display`: a person works an X11 program and it becomes a trajectory the
//! desktop replay runs, no model involved.
//!
//! [`record_on_desktop`] opens the desktop target as `act` and `replay` do (`--app`,
//! `--window`: points relative to the window, screenshots of the application's windows),
//! watches the display's input ([`InputRecorder`]) and keeps capturing the target's frame, so
//! each input gets the last frame captured before it arrived: what the person saw. Inputs
//! are folded into steps ([`DesktopDemonstration`]); a step is announced
//! ([`DemonstrationEvent::Input`]) once the screen is still after it (two identical frames
//! captured after the input), so whoever acts next acts on the settled screen. Ctrl-C or
//! SIGTERM (the `stop` future), or the window closing, ends it; the file is built as a
//! browser demonstration's is ([`demonstrated_file`]), with the desktop target in its
//! metadata as `act --display` records it.

use std::collections::VecDeque;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_cache::CacheStore;
use retrace_drive::Backend;
use retrace_drive::DriveError;
use retrace_drive::backend::Point;
use retrace_drive::chromium::demonstration::Frame;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Toolbox;
use retrace_drive::x11::DesktopInput;
use retrace_drive::x11::InputRecorder;
use retrace_protocol::events::DemonstrationEvent;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_replay::demonstration::Noted;
use retrace_replay::demonstration::build::demonstrated_file;
use retrace_replay::demonstration::desktop::DesktopDemonstration;
use retrace_replay::recorder::RecordSettings;
use tokio::sync::mpsc;

use crate::demonstrate::Recorded;
use crate::demonstrate::split_out;
use crate::desktop::DesktopConfig;
use crate::desktop::DesktopTarget;
use crate::error::RunnerError;

/// The pause between two captures of the target: a frame at most this old plus one capture
/// is what an input is checked against.
const CAPTURE_EVERY: Duration = Duration::from_millis(30);

/// Frames kept to find the one before an input that arrived while later ones were taken.
const FRAMES_KEPT: usize = 32;

/// How long the last look at the screen may take when the person stops.
const LAST_LOOK: Duration = Duration::from_secs(10);

/// What to record the desktop demonstration into.
#[derive(Debug, Clone)]
pub struct DesktopRecordJob {
    /// The trajectory file to write.
    pub out: PathBuf,
    /// `--param NAME=VALUE` pairs: typed VALUE becomes `{{NAME}}`.
    pub parameters: Vec<(String, String)>,
}

/// One capture of the target.
#[derive(Debug, Clone)]
struct Shot {
    frame: Arc<Frame>,
    started: Instant,
    done: Instant,
}

/// What the capturing task reports.
enum Captured {
    Shot(Shot),
    /// The target's window is no longer shown.
    Closed,
}

/// Records the person's input on `desktop` until `stop` completes or the window closes, then
/// writes the trajectory. Reports through `events`; the application started for it is ended.
pub async fn record_on_desktop(
    job: &DesktopRecordJob,
    desktop: &DesktopConfig,
    stop: impl Future<Output = ()>,
    events: &Events,
) -> Result<Recorded, RunnerError> {
    let (dir, name) = split_out(&job.out)?;
    let store = CacheStore::new(dir);
    store.resolve(&name)?;
    let target = desktop.open(None, events).await?;
    let result = record(desktop, &target, stop, events).await;
    let written = match result {
        Ok(steps) => write(job, &target, &steps, &store, &name).await,
        Err(error) => Err(error),
    };
    target.end(events).await;
    let (recorded, stopped_by) = written?;
    emit(
        events,
        DemonstrationEvent::Finished {
            path: recorded.path.clone(),
            steps: recorded.steps,
            parameters: recorded.parameters.clone(),
            stopped_by: stopped_by.to_owned(),
        },
    );
    Ok(recorded)
}

/// The steps recorded, with what stopped the recording.
type Steps = (
    Vec<retrace_replay::demonstration::DemonstratedStep>,
    &'static str,
);

async fn record(
    desktop: &DesktopConfig,
    target: &DesktopTarget,
    stop: impl Future<Output = ()>,
    events: &Events,
) -> Result<Steps, RunnerError> {
    let display = desktop.display_name();
    let mut inputs = tokio::task::spawn_blocking(move || InputRecorder::start(&display))
        .await
        .map_err(|error| RunnerError::Input(format!("the input recorder failed: {error}")))??;
    let (sender, mut shots) = mpsc::channel(4);
    let capturing = tokio::spawn(capture(target.backend(), sender));
    let mut watch = Watch::default();
    // The first frame: the screen the person starts from.
    if let Some(Captured::Shot(shot)) = shots.recv().await {
        watch.frames.push_back(shot);
    }
    let (width, height) = target.size();
    emit(
        events,
        DemonstrationEvent::Started {
            url: target.describe(),
            viewport: [width, height],
        },
    );
    let mut demonstration = DesktopDemonstration::new();
    let mut stop = std::pin::pin!(stop);
    let stopped_by = loop {
        tokio::select! {
            biased;
            () = &mut stop => break "interrupted",
            shot = shots.recv() => match shot {
                Some(Captured::Shot(shot)) => watch.shot(shot, events),
                Some(Captured::Closed) | None => break "window closed",
            },
            input = inputs.next() => match input {
                Some(input) => {
                    watch.take(&mut demonstration, target, input.input, input.at).await;
                }
                None => break "the X server went away",
            },
        }
    };
    inputs.stop();
    while let Some(input) = inputs.try_next() {
        watch
            .take(&mut demonstration, target, input.input, input.at)
            .await;
    }
    capturing.abort();
    let last = watch.frames.back().map(|shot| shot.frame.clone());
    let screen = match stopped_by {
        "interrupted" => tokio::time::timeout(LAST_LOOK, target.backend().screenshot())
            .await
            .ok()
            .and_then(Result::ok)
            .map(|shot| Arc::new(frame(shot.png)))
            .or(last),
        _ => last,
    };
    let mut steps = demonstration.finish(screen);
    if stopped_by == "window closed" && !watch.saw_last_step() {
        left_out(&mut steps, target, events);
    }
    Ok((steps, stopped_by))
}

/// Leaves out the last step, whose result never showed: it closed the window, and a replay
/// could not look at the screen after it. Said as a target notice.
fn left_out(
    steps: &mut Vec<retrace_replay::demonstration::DemonstratedStep>,
    target: &DesktopTarget,
    events: &Events,
) {
    if let Some(step) = steps.pop() {
        events.emit(Event::TargetNotice {
            target: target.describe(),
            message: format!(
                "the last input ({}) closed the window: it is left out, a replay could not \
                 check what it did",
                step.summary()
            ),
        });
    }
}

/// Builds and writes the file: the steps as calls of the computer tool on the target, the
/// target in the metadata.
async fn write(
    job: &DesktopRecordJob,
    target: &DesktopTarget,
    (steps, stopped_by): &Steps,
    store: &CacheStore,
    name: &str,
) -> Result<(Recorded, &'static str), RunnerError> {
    if steps.is_empty() {
        return Err(RunnerError::Input(format!(
            "nothing was recorded on {}: no click, key or wheel turn was made",
            target.describe()
        )));
    }
    let size = target.size();
    let computer = ComputerTool::new(
        target.backend(),
        ComputerToolConfig {
            model_size: Some(size),
            screenshot_after_action: false,
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })?;
    let toolbox = Toolbox::new().with(Arc::new(computer));
    let settings = RecordSettings {
        display_size: Some(size),
        viewport: Some(size),
        target: Some(target.metadata()),
        ..RecordSettings::default()
    };
    let file = demonstrated_file(
        &target.describe(),
        steps,
        &job.parameters,
        &toolbox,
        &settings,
    )?;
    let path = store.write(name, &file)?;
    let recorded = Recorded {
        path,
        steps: file.trajectory.len(),
        parameters: file.cache_parameters.keys().cloned().collect(),
    };
    Ok((recorded, stopped_by))
}

fn frame(png: Vec<u8>) -> Frame {
    Frame {
        png,
        at_ms: jiff::Timestamp::now().as_millisecond() as f64,
    }
}

/// Captures the target's frame over and over until the receiver goes or the window closes.
async fn capture(backend: Arc<dyn Backend>, sender: mpsc::Sender<Captured>) {
    loop {
        let started = Instant::now();
        let captured = match backend.screenshot().await {
            Ok(shot) => Captured::Shot(Shot {
                frame: Arc::new(frame(shot.png)),
                started,
                done: Instant::now(),
            }),
            Err(DriveError::BackendGone { .. }) => Captured::Closed,
            Err(error) => {
                tracing::warn!(%error, "could not capture the target while recording");
                tokio::time::sleep(CAPTURE_EVERY).await;
                continue;
            }
        };
        let closed = matches!(captured, Captured::Closed);
        if sender.send(captured).await.is_err() || closed {
            return;
        }
        tokio::time::sleep(CAPTURE_EVERY).await;
    }
}

/// The frames seen lately, and the step waiting for the screen to settle to be announced.
#[derive(Default)]
struct Watch {
    frames: VecDeque<Shot>,
    /// The step last changed, its summary, and when its input arrived.
    pending: Option<(usize, String, Instant)>,
    /// When the input that last made or changed a step arrived.
    last_step_at: Option<Instant>,
}

impl Watch {
    /// Keeps a new frame; announces the pending step when it shows the screen settled.
    fn shot(&mut self, shot: Shot, events: &Events) {
        if let Some((step, summary, at)) = &self.pending
            && let Some(previous) = self.frames.back()
            && previous.started > *at
            && previous.frame.png == shot.frame.png
        {
            emit(
                events,
                DemonstrationEvent::Input {
                    step: *step,
                    summary: summary.clone(),
                },
            );
            self.pending = None;
        }
        self.frames.push_back(shot);
        while self.frames.len() > FRAMES_KEPT {
            self.frames.pop_front();
        }
    }

    /// Whether a frame was captured after the last step's input (its result was on screen).
    fn saw_last_step(&self) -> bool {
        match (self.last_step_at, self.frames.back()) {
            (Some(at), Some(shot)) => shot.started > at,
            (None, _) => true,
            (Some(_), None) => false,
        }
    }

    /// The last frame captured completely before `at`.
    fn before(&self, at: Instant) -> Option<Arc<Frame>> {
        self.frames
            .iter()
            .rev()
            .find(|shot| shot.done <= at)
            .or(self.frames.front())
            .map(|shot| shot.frame.clone())
    }

    /// Folds one input in, its points moved into the target's frame.
    async fn take(
        &mut self,
        demonstration: &mut DesktopDemonstration,
        target: &DesktopTarget,
        input: DesktopInput,
        at: Instant,
    ) {
        let input = match input {
            DesktopInput::Button { button, down, x, y } => {
                let point = target
                    .frame_point(Point { x, y })
                    .await
                    .unwrap_or(Point { x, y });
                DesktopInput::Button {
                    button,
                    down,
                    x: point.x,
                    y: point.y,
                }
            }
            key => key,
        };
        let before = self.before(at);
        if let Noted::Step { step, summary } = demonstration.add(input, at, before) {
            // A step changed again before the screen settled is announced as it is then.
            self.pending = Some((step, summary, at));
            self.last_step_at = Some(at);
        }
    }
}

fn emit(events: &Events, event: DemonstrationEvent) {
    events.emit(Event::Demonstration(event));
}
