//! Model runs and replays on the desktop target ([`crate::desktop`]): the same conversation,
//! tools and speakers as in a browser, on an X11 window instead of a page. Checks are visual
//! (region hashes around each action point) and, when the application publishes its widgets
//! on the accessibility bus, semantic as on a page: a recording stores the element each step
//! acted on, a replay checks it. The application started for the run is ended, with its whole
//! process tree, however the session ends.

use std::sync::Arc;

use retrace_agent::AgentSettings;
use retrace_agent::AgentSpeaker;
use retrace_agent::Conversation;
use retrace_agent::speaker::Speaker;
use retrace_agent::speaker::SpeakerContext;
use retrace_drive::Backend;
use retrace_drive::backend::ElementSource;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::computer::Scaler;
use retrace_drive::tool::Tool;
use retrace_drive::tool::Toolbox;
use retrace_llm::VlmProvider;
use retrace_protocol::Message;
use retrace_protocol::events::Events;
use retrace_protocol::events::ReplayStatus;
use retrace_protocol::events::SessionReport;
use retrace_replay::CACHE_EXECUTOR;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySpeaker;
use retrace_replay::observe::Observations;
use retrace_replay::observe::ObservingTool;
use retrace_replay::screen::BackendScreen;
use retrace_replay::screen::ElementProbe;

use crate::act_cache::cache_replayer;
use crate::act_job::ActJob;
use crate::act_job::Ended;
use crate::act_job::recommended_model_size;
use crate::browser::write_png;
use crate::collect::Collector;
use crate::desktop::DesktopConfig;
use crate::desktop::RecordedTarget;
use crate::error::RunnerError;
use crate::replay_job::ReplayJob;

/// The computer tool on `backend`, the model seeing `model_size`.
async fn computer_tool(
    backend: Arc<dyn Backend>,
    model_size: (u32, u32),
    screenshot_after_action: bool,
) -> Result<ComputerTool, RunnerError> {
    ComputerTool::new(
        backend,
        ComputerToolConfig {
            model_size: Some(model_size),
            screenshot_after_action,
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })
}

/// `retrace act` on the desktop: the computer tool on the target window, the cache tools when
/// the cache mode executes. The application is ended before this returns.
pub(crate) async fn act_on_desktop(
    job: &ActJob,
    desktop: &DesktopConfig,
    goal: &str,
    provider: Arc<dyn VlmProvider>,
    events: &Events,
) -> Result<Ended, RunnerError> {
    let target = desktop.open(None, events).await?;
    let size = target.size();
    let on = Target {
        backend: target.backend(),
        elements: target.elements(),
        size,
    };
    let result = converse(job, goal, provider, events, on).await;
    let metadata = target.metadata();
    target.end(events).await;
    let mut ended = result?;
    ended.desktop = Some((metadata, size));
    Ok(ended)
}

/// What a run acts on: the backend, the application's elements when it publishes them, the
/// frame size.
pub(crate) struct Target {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) elements: Option<Arc<dyn ElementSource>>,
    pub(crate) size: (u32, u32),
}

async fn converse(
    job: &ActJob,
    goal: &str,
    provider: Arc<dyn VlmProvider>,
    events: &Events,
    target: Target,
) -> Result<Ended, RunnerError> {
    let Target {
        backend,
        elements,
        size,
    } = target;
    let model_size = job.model_size.unwrap_or(recommended_model_size(size));
    let computer = computer_tool(backend.clone(), model_size, true).await?;
    let scaler = Scaler {
        model: model_size,
        display: size,
    };
    let computer: Arc<dyn Tool> = Arc::new(computer);
    let observations = Observations::new();
    let computer: Arc<dyn Tool> = match &elements {
        Some(elements) => Arc::new(ObservingTool::desktop(
            computer,
            ElementProbe::new(elements.clone(), (!scaler.is_identity()).then_some(scaler)),
            observations.clone(),
        )),
        None => computer,
    };
    let mut toolbox = Toolbox::new().with(computer);
    let mut settings = AgentSettings {
        max_tokens: job.max_tokens,
        ..AgentSettings::default()
    };
    if !job.provider.prompt_cache {
        settings.context.image_batch = 1;
    }
    let model = provider.model_id().to_owned();
    let pricing = provider.pricing();
    let mut speakers: Vec<Box<dyn Speaker>> = Vec::new();
    let replayer = cache_replayer(
        job.cache,
        &job.cache_dir,
        &mut toolbox,
        &mut settings,
        || Arc::new(screen(backend, elements, scaler)),
    );
    speakers.push(Box::new(AgentSpeaker::new(provider, settings)));
    if let Some(replayer) = replayer {
        speakers.push(Box::new(replayer));
    }
    let mut conversation =
        Conversation::new(speakers, toolbox, events.clone())?.with_max_steps(job.max_steps);
    let run = conversation
        .run(&job.goal, vec![Message::user_text(goal.to_owned())], None)
        .await?;
    Ok(Ended {
        run,
        toolbox: conversation.toolbox().clone(),
        observations,
        model,
        pricing,
        final_url: None,
        desktop: None,
    })
}

/// The desktop a replay of `job` runs on: the flags' target, the window the file recorded
/// when none is given, the file's application command when `allow_app_commands`.
pub(crate) fn replay_target(
    job: &ReplayJob,
    desktop: &DesktopConfig,
) -> Result<(DesktopConfig, Option<(i32, i32)>), RunnerError> {
    let file = retrace_cache::read_cache_file(&job.file, retrace_cache::DEFAULT_MAX_FILE_SIZE)?;
    let recorded = RecordedTarget::of(&file.metadata).unwrap_or_default();
    let mut config = desktop.clone();
    if config.window.is_none() {
        config.window = recorded.window.clone();
    }
    if config.app.is_none()
        && let Some(app) = &recorded.app
    {
        if !job.allow_app_commands {
            return Err(RunnerError::Input(format!(
                "{} names the app command `{app}`: pass --allow-app-commands to let it start, \
                 or --app to give the command yourself",
                job.file.display()
            )));
        }
        config.app = Some(app.clone());
    }
    // Anchored where the window was recorded, when the same window is targeted.
    let anchor = recorded
        .window_origin
        .filter(|_| config.window.is_some() && config.window == recorded.window);
    Ok((config, anchor))
}

/// `retrace replay` on the desktop: the computer tool and askui's tools on the target window,
/// visual checks. The application is ended before this returns.
pub(crate) async fn replay_on_desktop(
    job: &ReplayJob,
    desktop: &DesktopConfig,
    events: &Events,
    collector: &Collector,
    report: &mut SessionReport,
) -> Result<(), RunnerError> {
    let (config, anchor) = replay_target(job, desktop)?;
    let target = config.open(anchor, events).await?;
    let size = target.size();
    let backend = target.backend();
    let on = Target {
        backend: backend.clone(),
        elements: target.elements(),
        size,
    };
    let result = replay_with(job, on, events).await;
    let passed = collector
        .replay()
        .is_some_and(|replay| replay.status == ReplayStatus::Passed);
    let shot = match job
        .final_screenshot
        .as_ref()
        .filter(|_| job.final_screenshot_when_passed || !passed)
    {
        Some(path) => Some((path, backend.screenshot().await)),
        None => None,
    };
    target.end(events).await;
    if let Some((path, shot)) = shot {
        write_png(path, &shot?.png)?;
        report.evidence.push(path.clone());
    }
    let run = result?;
    match (collector.replay(), run.status.reason()) {
        (None, Some(reason)) => Err(RunnerError::NotStarted(reason)),
        _ => Ok(()),
    }
}

/// The screen replay's checks look at: `backend` scaled to the model's size, with the
/// application's elements when it publishes them.
fn screen(
    backend: Arc<dyn Backend>,
    elements: Option<Arc<dyn ElementSource>>,
    scaler: Scaler,
) -> BackendScreen {
    let screen = BackendScreen::new(backend);
    let screen = match elements {
        Some(elements) => screen.with_elements(elements),
        None => screen,
    };
    screen.scaled(scaler)
}

pub(crate) async fn replay_with(
    job: &ReplayJob,
    target: Target,
    events: &Events,
) -> Result<retrace_agent::RunReport, RunnerError> {
    let Target {
        backend,
        elements,
        size,
    } = target;
    let model = crate::replay_job::recorded_sizes(&job.file)
        .map(|sizes| sizes.display)
        .unwrap_or_else(|| recommended_model_size(size));
    let computer = computer_tool(backend.clone(), model, false).await?;
    let mut toolbox = Toolbox::new().with(Arc::new(computer));
    for tool in retrace_replay::askui_tools::askui_tools(backend.clone()) {
        toolbox.add(tool);
    }
    let scaler = Scaler {
        model,
        display: size,
    };
    let screen = screen(backend, elements, scaler);
    let speaker = ReplaySpeaker::new(job.settings.clone(), Arc::new(screen));
    let mut conversation =
        Conversation::new(vec![Box::new(speaker)], toolbox, events.clone())?.with_max_steps(10_000);
    let request = ReplayRequest::new(&job.file).with_parameters(job.parameters.values());
    let goal = format!("Replay {}", job.file.display());
    Ok(conversation
        .run(
            &goal,
            vec![Message::user_text(goal.clone())],
            Some((CACHE_EXECUTOR, SpeakerContext::of(request))),
        )
        .await?)
}
