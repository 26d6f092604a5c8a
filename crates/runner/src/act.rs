//! [`ActJob`] and [`run_act`]: a model works a web page towards a goal, as one session, in
//! either mode, with the trajectory cache if asked.
//!
//! - Computer mode: screenshots and Anthropic's computer-use action set ([`AgentSpeaker`]);
//!   with a cache mode that executes, the model also gets the cache tools and the replay
//!   speaker, which hands back to it when a step fails or the replay ends.
//! - Structured mode: one JSON decision per turn in the response schema, carried out by the
//!   web executor by CSS selector ([`StructuredSpeaker`]); with a cache mode that executes and
//!   an existing `--cache-file`, that file is replayed first and the model takes over where it
//!   stops.
//!
//! Either way a successful run is recorded when the cache mode records ([`crate::record`]).

use std::sync::Arc;
use std::time::Instant;

use retrace_agent::AgentSettings;
use retrace_agent::AgentSpeaker;
use retrace_agent::Conversation;
use retrace_agent::speaker::Speaker;
use retrace_agent::speaker::SpeakerContext;
use retrace_agent::structured::ExecutorObserver;
use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::STRUCTURED_SPEAKER;
use retrace_agent::structured::SchemaDelivery;
use retrace_agent::structured::StructuredSettings;
use retrace_agent::structured::StructuredSpeaker;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Toolbox;
use retrace_drive::web::DEFAULT_SESSION;
use retrace_drive::web::WebCommand;
use retrace_drive::web::WebExecutor;
use retrace_drive::web::WebExecutorConfig;
use retrace_llm::VlmProvider;
use retrace_protocol::Message;
use retrace_protocol::events::ActSummary;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::SessionKind;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_replay::CACHE_EXECUTOR;
use retrace_replay::OnMismatch;
use retrace_replay::ReplayRequest;
use retrace_replay::ReplaySettings;
use retrace_replay::ReplaySpeaker;
use retrace_replay::observe::Observations;
use retrace_replay::observe::ObservingTool;
use retrace_replay::screen::BackendScreen;
use retrace_replay::screen::PageProbe;
use retrace_schema::SchemaManager;

pub use crate::act_cache::CacheMode;
use crate::act_cache::cache_replayer;
pub use crate::act_job::ActJob;
pub use crate::act_job::ActMode;
use crate::act_job::Ended;
pub use crate::act_job::MAX_MODEL_SIZE;
pub use crate::act_job::recommended_model_size;
use crate::browser::PageLoad;
use crate::browser::open_page;
use crate::collect::Collector;
use crate::error::RunnerError;
use crate::provider::Provider;
use crate::provider::TurnTracker;
use crate::record::record_run;
use crate::replay::session_log;
use crate::stored_cache::StoredCacheDir;
use crate::suite::Interrupt;

/// Runs `job`, sending every event to `events` (and to the job's log), and ends with a
/// [`Event::SessionFinished`] carrying the report it returns. A session that cannot run is a
/// report with status `error`.
pub async fn run_act(job: &ActJob, events: &Events) -> SessionReport {
    run_act_until(job, events, &Interrupt::new()).await
}

/// Like [`run_act`], stopped when `interrupt` is raised: the browser is killed, nothing is
/// recorded, and the session ends as an error naming the interruption (its events log and
/// report written).
pub async fn run_act_until(job: &ActJob, events: &Events, interrupt: &Interrupt) -> SessionReport {
    let started = Instant::now();
    let mut report = SessionReport::new(SessionKind::Act, job.goal.clone());
    if job.desktop.is_none() {
        report.url = Some(job.url.clone());
    }
    let stored = match &job.cache_store {
        Some(url) => match StoredCacheDir::fetch(url).await {
            Ok(stored) => Some(stored),
            Err(error) => {
                report.status = SessionStatus::Error;
                report.error = Some(retrace_report::error_chain(&error));
                events.emit(Event::SessionFinished(Box::new(report.clone())));
                return report;
            }
        },
        None => None,
    };
    let in_private_folder;
    let job = match &stored {
        Some(stored) => {
            in_private_folder = ActJob {
                cache_dir: stored.path().to_owned(),
                ..job.clone()
            };
            &in_private_folder
        }
        None => job,
    };
    let collector = Arc::new(Collector::default());
    let tracker = Arc::new(TurnTracker::default());
    let mut events = events.clone().with(collector.clone()).with(tracker.clone());
    let result = match session_log(
        job.events_log.as_deref(),
        &job.parameters,
        &mut events,
        &mut report,
    ) {
        // Dropping the run drops its browser, which kills the browser's processes.
        Ok(()) => tokio::select! {
            result = act(job, &events, tracker) => result,
            () = interrupt.triggered() => Err(interrupt.error("model run")),
        },
        Err(error) => Err(error),
    };
    report.replay = collector.replay();
    match result {
        Ok(ended) => {
            let recorded = if job.cache.records() {
                let mut recording = job.recording(ended.observations.clone());
                if let Some((target, size)) = &ended.desktop {
                    recording.display_size =
                        job.model_size.unwrap_or(recommended_model_size(*size));
                    recording.viewport = *size;
                    recording.target = Some(target.clone());
                }
                record_run(
                    &recording,
                    &ended.run,
                    &ended.toolbox,
                    report.replay.as_ref(),
                    &events,
                )
            } else {
                Ok(None)
            };
            let run = &ended.run;
            report.status = if run.status == retrace_agent::RunStatus::Done {
                SessionStatus::Passed
            } else {
                SessionStatus::Failed
            };
            let (recorded_path, previous) = collector.recorded().unzip();
            report.act = Some(ActSummary {
                outcome: run.status.label().to_owned(),
                reason: run.status.reason(),
                turns: run.turns,
                model: ended.model.clone(),
                speakers: run.speakers_used.clone(),
                usage: run.usage,
                cost_usd: ended.pricing.map(|pricing| pricing.cost(&run.usage)),
                recorded: recorded_path,
                previous: previous.flatten(),
                final_url: ended.final_url.clone(),
            });
            if let Err(error) = recorded {
                report.status = SessionStatus::Error;
                report.error = Some(retrace_report::error_chain(&error));
            } else if let Some(stored) = &stored {
                upload_recording(stored, &mut report).await;
            }
        }
        Err(error) => {
            report.status = SessionStatus::Error;
            report.error = Some(retrace_report::error_chain(&error));
        }
    }
    report.wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    events.emit(Event::SessionFinished(Box::new(report.clone())));
    report
}

/// Writes what the run recorded back to its store; the summary then names the store's URLs.
async fn upload_recording(stored: &StoredCacheDir, report: &mut SessionReport) {
    if let Err(error) = stored.upload().await {
        report.status = SessionStatus::Error;
        report.error = Some(retrace_report::error_chain(&error));
        return;
    }
    if let Some(act) = &mut report.act {
        act.recorded = act.recorded.take().map(|path| stored.url_of(&path).into());
        act.previous = act.previous.take().map(|path| stored.url_of(&path).into());
    }
}

async fn act(
    job: &ActJob,
    events: &Events,
    tracker: Arc<TurnTracker>,
) -> Result<Ended, RunnerError> {
    job.check()?;
    let goal = job.filled_goal()?;
    let provider = job.provider.build(events, tracker)?;
    if let Some(desktop) = &job.desktop {
        if job.mode != ActMode::Computer {
            return Err(RunnerError::Input(
                "--mode structured drives a web page by CSS selector: on a desktop, use the \
                 default computer mode"
                    .into(),
            ));
        }
        return crate::desktop_run::act_on_desktop(job, desktop, &goal, provider, events).await;
    }
    match job.mode {
        ActMode::Computer => act_computer(job, &goal, provider, events).await,
        ActMode::Structured {
            max_attempts,
            screenshots,
        } => act_structured(job, &goal, provider, events, max_attempts, screenshots).await,
    }
}

async fn act_computer(
    job: &ActJob,
    goal: &str,
    provider: Arc<dyn VlmProvider>,
    events: &Events,
) -> Result<Ended, RunnerError> {
    let browser = job.browser.open_reporting(events).await?;
    let page = Arc::new(open_page(&browser, &job.url, PageLoad::Quiet).await?);
    let backend: Arc<dyn Backend> = page.clone();
    let computer = ComputerTool::new(
        backend.clone(),
        ComputerToolConfig {
            model_size: Some(job.model_size()),
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(|error| RunnerError::Tool {
        tool: "computer",
        message: error.to_string(),
    })?;
    let observations = Observations::new();
    let probe = PageProbe::new(page.clone(), Some(job.scaler()));
    let mut toolbox = Toolbox::new().with(Arc::new(ObservingTool::new(
        Arc::new(computer),
        probe,
        observations.clone(),
    )));
    let mut settings = AgentSettings {
        max_tokens: job.max_tokens,
        ..AgentSettings::default()
    };
    if !job.provider.prompt_cache {
        // Without a prompt cache nothing is gained by keeping old images a while longer.
        settings.context.image_batch = 1;
    }
    let replayer = cache_replayer(
        job.cache,
        &job.cache_dir,
        &mut toolbox,
        &mut settings,
        || Arc::new(BackendScreen::browser(page.clone()).scaled(job.scaler())),
    );
    let model = provider.model_id().to_owned();
    let pricing = provider.pricing();
    let mut speakers: Vec<Box<dyn Speaker>> = vec![Box::new(AgentSpeaker::new(provider, settings))];
    if let Some(replayer) = replayer {
        speakers.push(Box::new(replayer));
    }
    let mut conversation =
        Conversation::new(speakers, toolbox, events.clone())?.with_max_steps(job.max_steps);
    let run = conversation
        .run(&job.goal, vec![Message::user_text(goal)], None)
        .await?;
    Ok(Ended {
        run,
        toolbox: conversation.toolbox().clone(),
        observations,
        model,
        pricing,
        final_url: page.current_url().await.ok(),
        desktop: None,
    })
}

async fn act_structured(
    job: &ActJob,
    goal: &str,
    provider: Arc<dyn VlmProvider>,
    events: &Events,
    max_attempts: u32,
    screenshots: bool,
) -> Result<Ended, RunnerError> {
    let browser = Arc::new(job.browser.open_reporting(events).await?);
    let executor = Arc::new(WebExecutor::new(browser, WebExecutorConfig::default()));
    executor.open_session(Some(DEFAULT_SESSION)).await?;
    executor
        .execute(
            DEFAULT_SESSION,
            &WebCommand::OpenPage {
                url: job.url.clone(),
            },
        )
        .await
        .map_err(|error| RunnerError::Input(format!("opening {}: {error}", job.url)))?;
    let page: Arc<dyn BrowserBackend> = executor.page(DEFAULT_SESSION)?;
    let toolbox = Toolbox::new().with(Arc::new(ResolvingWebTool::new(executor.clone())));
    let settings = StructuredSettings {
        max_attempts: max_attempts.max(1),
        max_tokens: job.max_tokens,
        delivery: if job.provider.provider == Provider::OpenAi {
            SchemaDelivery::ResponseFormat
        } else {
            SchemaDelivery::Prompt
        },
        ..StructuredSettings::default()
    };
    let observer = Arc::new(ExecutorObserver::new(
        executor.clone(),
        DEFAULT_SESSION,
        screenshots,
    ));
    let model = provider.model_id().to_owned();
    let pricing = provider.pricing();
    let speaker =
        StructuredSpeaker::new(provider, observer, Arc::new(SchemaManager::new()), settings);
    let mut speakers: Vec<Box<dyn Speaker>> = vec![Box::new(speaker)];
    let replay_first = job
        .cache_file
        .as_ref()
        .map(|name| job.cache_dir.join(name))
        .filter(|path| job.cache.executes() && path.is_file());
    let first = match replay_first {
        Some(path) => {
            let replay_settings = ReplaySettings {
                on_mismatch: OnMismatch::HandTo(STRUCTURED_SPEAKER.to_owned()),
                ..ReplaySettings::default()
            };
            let screen: Arc<dyn Backend> = page.clone();
            speakers.push(Box::new(ReplaySpeaker::new(
                replay_settings,
                Arc::new(BackendScreen::new(screen)),
            )));
            let request = ReplayRequest::new(path).with_parameters(job.parameters.values());
            Some((CACHE_EXECUTOR, SpeakerContext::of(request)))
        }
        None => None,
    };
    let mut conversation =
        Conversation::new(speakers, toolbox, events.clone())?.with_max_steps(job.max_steps);
    let run = conversation
        .run(&job.goal, vec![Message::user_text(goal)], first)
        .await?;
    Ok(Ended {
        run,
        toolbox: conversation.toolbox().clone(),
        observations: Observations::new(),
        model,
        pricing,
        final_url: page.current_url().await.ok(),
        desktop: None,
    })
}
