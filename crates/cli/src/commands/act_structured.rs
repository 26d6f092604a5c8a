//! `retrace act --mode structured`: the model answers each step with one JSON decision in
//! the response schema, and the web executor carries out its command by CSS selector.
//!
//! Wiring only: a browser whose default web executor session is the page at `--url`, the
//! `web_executor` tool (with `${variable}` resolution), the structured speaker, and — with
//! `--cache execute|auto` and an existing `--cache-file` — the cache executor replaying that
//! file first, handing over to the model if a step fails. Recording and the summary are
//! `retrace act`'s.

use std::io::Write;
use std::sync::Arc;

use crate::commands::screenshot::BrowserArgs;
use anyhow::Context;
use anyhow::bail;
use retrace_agent::Conversation;
use retrace_agent::RunStatus;
use retrace_agent::cache_executor::CACHE_EXECUTOR;
use retrace_agent::cache_executor::CacheExecutor;
use retrace_agent::cache_executor::OnMismatch;
use retrace_agent::cache_executor::ReplaySettings;
use retrace_agent::events::Event;
use retrace_agent::events::EventSink;
use retrace_agent::events::Events;
use retrace_agent::events::JsonLinesSink;
use retrace_agent::events::Secrets;
use retrace_agent::screen::BackendScreen;
use retrace_agent::speaker::Speaker;
use retrace_agent::structured::ExecutorObserver;
use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::STRUCTURED_SPEAKER;
use retrace_agent::structured::SchemaDelivery;
use retrace_agent::structured::StructuredSettings;
use retrace_agent::structured::StructuredSpeaker;
use retrace_agent::tool::Toolbox;
use retrace_cache::ParameterValues;
use retrace_cache::params::Template;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::web::DEFAULT_SESSION;
use retrace_drive::web::WebCommand;
use retrace_drive::web::WebExecutor;
use retrace_drive::web::WebExecutorConfig;
use retrace_protocol::Message;
use retrace_schema::SchemaManager;
use serde_json::Value;

use crate::commands::act::ActArgs;
use crate::commands::act::ActRun;
use crate::commands::act::StepTracker;
use crate::console::ConsoleSink;
use crate::outcome::Outcome;

/// The `--mode` value of this mode.
pub const STRUCTURED_MODE: &str = "structured";

/// Prints each structured decision and each rejected answer as it happens, scrubbed of the
/// parameter values (a model may echo the password it was given).
#[derive(Debug, Default)]
struct DecisionLines {
    secrets: Secrets,
}

impl EventSink for DecisionLines {
    fn emit(&self, event: &Event) {
        let line = match event {
            Event::StructuredDecision {
                step,
                decision,
                command,
                message,
                ..
            } => {
                let command = command
                    .as_ref()
                    .map(|command| format!(" {command}"))
                    .unwrap_or_default();
                format!("  step {step:<3} {decision}{command}: {message}")
            }
            Event::StructuredAnswerRejected {
                step,
                attempt,
                errors,
            } => format!(
                "  step {step:<3} answer {attempt} rejected, sent back: {}",
                errors.join("; ")
            ),
            _ => return,
        };
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (a pipe to `head`) must not stop the run.
        let _ = writeln!(stdout, "{}", self.secrets.scrub(&line));
        let _ = stdout.flush();
    }
}

/// Runs `retrace act --mode structured` and prints what happened.
pub fn run(args: ActArgs) -> anyhow::Result<Outcome> {
    let values: ParameterValues = args.params.iter().cloned().collect();
    let goal = Template::parse(&args.goal)
        .render(&values)
        .context("filling the goal's {{placeholders}} from --param")?;
    // Fail on a missing key or a missing trajectory before starting a browser.
    crate::commands::act::api_key(&args)?;
    if args.cache.executes() && !args.cache.records() {
        let Some(name) = &args.cache_file else {
            bail!("--mode structured --cache execute replays the trajectory named by --cache-file");
        };
        let path = args.cache_dir.join(name);
        if !path.is_file() {
            bail!("{}: no such trajectory to replay", path.display());
        }
    }
    if !args.json {
        println!(
            "acting (structured) on {} at {}x{}: {}",
            args.url, args.size.0, args.size.1, args.goal
        );
    }
    let run = crate::commands::screenshot::runtime()?.block_on(act(&args, &goal, &values))?;
    crate::commands::act::print_summary(&run, args.json);
    Ok(if run.report.status == RunStatus::Done {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}

/// The trajectory to replay first, with its context for the cache executor, when the cache
/// mode executes and the file exists.
fn replay_context(args: &ActArgs) -> Option<Value> {
    if !args.cache.executes() {
        return None;
    }
    let path = args.cache_dir.join(args.cache_file.as_ref()?);
    if !path.is_file() {
        return None;
    }
    let parameters: serde_json::Map<String, Value> = args
        .params
        .iter()
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect();
    Some(serde_json::json!({"file": path, "parameters": parameters, "start": 0}))
}

async fn act(args: &ActArgs, goal: &str, values: &ParameterValues) -> anyhow::Result<ActRun> {
    let tracker = Arc::new(StepTracker::default());
    let mut events = Events::none().with(tracker.clone());
    if !args.json {
        events.subscribe(ConsoleSink::new());
        events.subscribe(Arc::new(DecisionLines {
            secrets: Secrets::new(values.values()),
        }));
    }
    if let Some(path) = &args.events {
        events.subscribe(
            JsonLinesSink::create_scrubbing(path, Secrets::new(values.values()))
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
    }
    let provider = crate::commands::act::provider(args, &events, tracker)?;
    let model = provider.model_id().to_owned();
    let pricing = provider.pricing();

    let browser_args = BrowserArgs {
        size: args.size,
        chromium: args.chromium.clone(),
        connect: None,
    };
    let browser = Arc::new(crate::commands::screenshot::browser(&browser_args).await?);
    let executor = Arc::new(WebExecutor::new(browser, WebExecutorConfig::default()));
    executor.open_session(Some(DEFAULT_SESSION)).await?;
    executor
        .execute(
            DEFAULT_SESSION,
            &WebCommand::OpenPage {
                url: args.url.clone(),
            },
        )
        .await
        .with_context(|| format!("opening {}", args.url))?;
    let page: Arc<dyn BrowserBackend> = executor.page(DEFAULT_SESSION)?;

    let toolbox = Toolbox::new().with(Arc::new(ResolvingWebTool::new(executor.clone())));
    let settings = StructuredSettings {
        max_attempts: args.max_attempts.max(1),
        max_tokens: args.max_tokens,
        delivery: if args.provider == "openai" {
            SchemaDelivery::ResponseFormat
        } else {
            SchemaDelivery::Prompt
        },
        ..StructuredSettings::default()
    };
    let observer = Arc::new(ExecutorObserver::new(
        executor.clone(),
        DEFAULT_SESSION,
        !args.no_screenshots,
    ));
    let speaker =
        StructuredSpeaker::new(provider, observer, Arc::new(SchemaManager::new()), settings);
    let mut speakers: Vec<Box<dyn Speaker>> = vec![Box::new(speaker)];
    let first = replay_context(args);
    let mut replay_outcome = None;
    if first.is_some() {
        let replay_settings = ReplaySettings {
            on_mismatch: OnMismatch::HandTo(STRUCTURED_SPEAKER.to_owned()),
            hand_back_on_completion: None,
            ..ReplaySettings::default()
        };
        let screen: Arc<dyn Backend> = page.clone();
        let cache_executor =
            CacheExecutor::new(replay_settings, Arc::new(BackendScreen::new(screen)));
        replay_outcome = Some(cache_executor.outcome_handle());
        speakers.push(Box::new(cache_executor));
    }
    let mut conversation =
        Conversation::new(speakers, toolbox, events.clone())?.with_max_steps(args.max_steps);
    let report = conversation
        .run(
            &args.goal,
            vec![Message::user_text(goal)],
            first.map(|context| (CACHE_EXECUTOR, context)),
        )
        .await?;
    let ended = crate::commands::act::RunEnd {
        report,
        model,
        pricing,
        replay_outcome,
        final_url: page.current_url().await.ok(),
    };
    ended.finish(args, values, conversation.toolbox(), &events)
}
