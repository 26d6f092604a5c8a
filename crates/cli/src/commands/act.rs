//! `retrace act`: a model works a web page in headless Chromium towards a goal, optionally
//! recording the run as a trajectory or replaying a recorded one through the cache tools.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context;
use anyhow::bail;
use retrace_agent::AGENT_SPEAKER;
use retrace_agent::AgentSettings;
use retrace_agent::AgentSpeaker;
use retrace_agent::Conversation;
use retrace_agent::DriveTool;
use retrace_agent::RunReport;
use retrace_agent::RunStatus;
use retrace_agent::cache_executor::CacheExecutor;
use retrace_agent::cache_executor::OnMismatch;
use retrace_agent::cache_executor::ReplayOutcome;
use retrace_agent::cache_executor::ReplaySettings;
use retrace_agent::cache_tools::CACHE_TOOLS_PROMPT;
use retrace_agent::events::Event;
use retrace_agent::events::EventSink;
use retrace_agent::events::Events;
use retrace_agent::events::JsonLinesSink;
use retrace_agent::events::Secrets;
use retrace_agent::recorder::CONTROL_TOOLS;
use retrace_agent::recorder::RecordSettings;
use retrace_agent::replay_ledger::ReplayLedger;
use retrace_agent::screen::BackendScreen;
use retrace_agent::speaker::Speaker;
use retrace_agent::tool::Toolbox;
use retrace_cache::CacheStore;
use retrace_cache::ParameterValues;
use retrace_cache::params::Template;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_llm::ApiKey;
use retrace_llm::Pricing;
use retrace_llm::RetryPolicy;
use retrace_llm::RetryingProvider;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::Message;
use retrace_protocol::Role;

use crate::commands::replay::parse_param;
use crate::commands::screenshot::BrowserArgs;
use crate::console::ConsoleSink;
use crate::outcome::Outcome;

/// The environment variable that overrides Anthropic's base URL (a proxy, a fake in tests).
pub const ANTHROPIC_BASE_URL_ENV: &str = "RETRACE_ANTHROPIC_BASE_URL";
/// Where the Anthropic key is read from unless `--api-key-env` names another variable.
pub const ANTHROPIC_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// Where an OpenAI-compatible key is read from (optional) unless `--api-key-env` says.
pub const OPENAI_KEY_ENV: &str = "OPENAI_API_KEY";
const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Let a model work a web page towards a goal, one screenshot and action at a time.
///
/// The goal may hold `{{name}}` placeholders filled from `--param name=value`; the values
/// go to the model but are never written to a file or a log. With `--cache record` a
/// successful run is saved as a trajectory that `retrace replay` runs with no model; with
/// `--cache execute` the model can replay recorded trajectories (and takes over when a
/// replayed step no longer matches the screen); `auto` does both.
///
/// Needs a key: `ANTHROPIC_API_KEY` (or the variable named by `--api-key-env`). For an
/// OpenAI-compatible server (`--provider openai --base-url U --model M`) the key is optional.
///
/// Exit codes: 0 goal reached, 1 the model gave up, refused, or ran out of steps or tokens,
/// 2 error.
///
/// Examples:
///   retrace act "Log in as {{username}} with password {{password}}" --url http://127.0.0.1:8080/ \
///       --param username=demo --param password=s3cret --cache record --cache-file login.json
///   retrace act "Open the invoices" --url http://localhost:3000/ --provider openai \
///       --base-url http://localhost:8000/v1 --model qwen2.5-vl-7b --cache auto
///   retrace act "Log in as demo with password {{password}}" --url http://127.0.0.1:8080/ \
///       --mode structured --param password=s3cret --cache record --cache-file login.json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ActArgs {
    /// What the model should achieve; `{{name}}` placeholders are filled from `--param`.
    pub goal: String,
    /// The page to open first.
    #[arg(long)]
    pub url: String,
    /// The model API: `anthropic` (Messages API) or `openai` (any OpenAI-compatible server).
    #[arg(long, default_value = "anthropic", value_parser = ["anthropic", "openai"])]
    pub provider: String,
    /// The model id; default `claude-sonnet-4-5` for anthropic (required for openai).
    #[arg(long)]
    pub model: Option<String>,
    /// The API's base URL; for anthropic also `RETRACE_ANTHROPIC_BASE_URL`.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (default `ANTHROPIC_API_KEY`, or
    /// `OPENAI_API_KEY` for openai where a key is optional).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Stop after this many turns.
    #[arg(long, default_value_t = 30)]
    pub max_steps: usize,
    /// Output token limit of each model turn.
    #[arg(long, default_value_t = 4096)]
    pub max_tokens: u32,
    /// Viewport size `WxH` (also the screen size the model is told).
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = crate::commands::screenshot::parse_size)]
    pub size: (u32, u32),
    /// Trajectory caching: `record` (save a successful run), `execute` (let the model replay
    /// saved runs), `auto` (both), `none`. Older names: write, read, both, no.
    #[arg(long, default_value = "none", value_parser = |s: &str| s.parse::<CacheMode>())]
    pub cache: CacheMode,
    /// The trajectory directory.
    #[arg(long, default_value = retrace_agent::recorder::DEFAULT_CACHE_DIR)]
    pub cache_dir: PathBuf,
    /// The file name to record to (inside `--cache-dir`); default: a generated name.
    #[arg(long, value_name = "FILE")]
    pub cache_file: Option<String>,
    /// A parameter value, `NAME=VALUE` (repeatable). Values are never written anywhere.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, String)>,
    /// Write every event as JSON Lines to this file.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// The Chromium executable.
    #[arg(long, env = "RETRACE_CHROMIUM", default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// Print one JSON summary instead of live lines.
    #[arg(long)]
    pub json: bool,
    /// How the model acts: `computer` (screenshots and the computer-use tool) or
    /// `structured` (one JSON decision per step in the response schema, carried out by the
    /// web executor by CSS selector; `--cache execute` then replays `--cache-file`).
    #[arg(long, default_value = "computer", value_parser = ["computer", crate::commands::act_structured::STRUCTURED_MODE])]
    pub mode: String,
    /// Structured mode: answers asked for per step before the run fails (an unusable answer
    /// is sent back with its errors for a correction).
    #[arg(long, default_value_t = 3)]
    pub max_attempts: u32,
    /// Structured mode: show the model the page as text only (no screenshot).
    #[arg(long)]
    pub no_screenshots: bool,
}

/// How a run uses the trajectory cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// No caching.
    None,
    /// Record a successful run.
    Record,
    /// Offer the model the recorded trajectories.
    Execute,
    /// Offer them and record what was new or repaired.
    Auto,
}

impl CacheMode {
    pub(crate) fn records(self) -> bool {
        matches!(self, CacheMode::Record | CacheMode::Auto)
    }

    pub(crate) fn executes(self) -> bool {
        matches!(self, CacheMode::Execute | CacheMode::Auto)
    }
}

impl std::str::FromStr for CacheMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "none" | "no" => Ok(CacheMode::None),
            "record" | "write" => Ok(CacheMode::Record),
            "execute" | "read" => Ok(CacheMode::Execute),
            "auto" | "both" => Ok(CacheMode::Auto),
            _ => Err(format!(
                "unknown cache mode `{text}`: use record, execute, auto or none"
            )),
        }
    }
}

/// Remembers the step in progress, so retry reports can name it.
#[derive(Debug, Default)]
pub(crate) struct StepTracker(AtomicUsize);

impl EventSink for StepTracker {
    fn emit(&self, event: &Event) {
        if let Event::StepStarted { step, .. } = event {
            self.0.store(*step, Ordering::Relaxed);
        }
    }
}

/// The API key: from `--api-key-env VAR` or the provider's usual variable.
pub(crate) fn api_key(args: &ActArgs) -> anyhow::Result<Option<ApiKey>> {
    let anthropic = args.provider == "anthropic";
    let variable = args.api_key_env.clone().unwrap_or_else(|| {
        if anthropic {
            ANTHROPIC_KEY_ENV
        } else {
            OPENAI_KEY_ENV
        }
        .to_owned()
    });
    let value = std::env::var(&variable)
        .ok()
        .filter(|value| !value.trim().is_empty());
    match (value, anthropic, &args.api_key_env) {
        (Some(value), _, _) => Ok(Some(ApiKey::new(value.trim()))),
        (None, _, Some(_)) => bail!(
            "no API key: the variable {variable} (named by --api-key-env) is not set or empty"
        ),
        (None, true, None) => bail!(
            "no API key: set {ANTHROPIC_KEY_ENV}, or name the variable that holds the key with --api-key-env VAR"
        ),
        (None, false, None) => Ok(None),
    }
}

/// The provider the flags ask for, wrapped in the retry policy whose waits become events.
pub(crate) fn provider(
    args: &ActArgs,
    events: &Events,
    tracker: Arc<StepTracker>,
) -> anyhow::Result<Arc<dyn VlmProvider>> {
    let key = api_key(args)?;
    let events = events.clone();
    let observer = Arc::new(move |attempt: u32, delay: Duration, error: &VlmError| {
        events.emit(Event::Retry {
            step: tracker.0.load(Ordering::Relaxed),
            attempt,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            error: error.to_string(),
        });
    });
    if args.provider == "anthropic" {
        let model = args
            .model
            .clone()
            .unwrap_or_else(|| DEFAULT_ANTHROPIC_MODEL.to_owned());
        let base_url = args.base_url.clone().or_else(|| {
            std::env::var(ANTHROPIC_BASE_URL_ENV)
                .ok()
                .filter(|url| !url.is_empty())
        });
        let mut config =
            AnthropicConfig::new(key.unwrap_or_else(|| ApiKey::new("")), model.clone());
        if let Some(base_url) = base_url {
            config = config.with_base_url(base_url);
        }
        if let Some(pricing) = Pricing::anthropic_list_price(&model) {
            config = config.with_pricing(pricing);
        }
        let client = AnthropicClient::new(config)?;
        Ok(Arc::new(
            RetryingProvider::new(client, RetryPolicy::default()).with_observer(observer),
        ))
    } else {
        let Some(model) = args.model.clone() else {
            bail!("--model is required with --provider openai (the model id the server serves)");
        };
        let base_url = args
            .base_url
            .clone()
            .unwrap_or_else(|| DEFAULT_OPENAI_BASE_URL.to_owned());
        let mut config = OpenAiConfig::new(base_url, model);
        if let Some(key) = key {
            config = config.with_api_key(key);
        }
        if args.mode == crate::commands::act_structured::STRUCTURED_MODE {
            // The response schema has optional fields and conditionals, which OpenAI's
            // strict mode refuses; the answer is validated after it arrives anyway.
            config = config.with_strict_response_schema(false);
        }
        let client = OpenAiClient::new(config)?;
        Ok(Arc::new(
            RetryingProvider::new(client, RetryPolicy::default()).with_observer(observer),
        ))
    }
}

/// What `retrace act` did, for printing.
#[derive(Debug)]
pub struct ActRun {
    /// The conversation's report.
    pub report: RunReport,
    /// The model id.
    pub model: String,
    /// Cost in US dollars, when the model's prices are known.
    pub cost_usd: Option<f64>,
    /// What a replay through the cache tools did, if one ran.
    pub replay: Option<ReplayOutcome>,
    /// The trajectory written, if any.
    pub recorded: Option<PathBuf>,
    /// The file a repaired recording replaced, kept beside it.
    pub previous: Option<PathBuf>,
    /// The page's URL when the run ended.
    pub final_url: Option<String>,
}

/// Acting steps (not observing, not steering the conversation) in the history.
fn acting_steps(history: &[Message]) -> usize {
    history
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .flat_map(Message::tool_uses)
        .filter(|step| {
            !CONTROL_TOOLS.contains(&step.name.as_str())
                && !retrace_agent::step_input::is_observe_only(step)
        })
        .count()
}

/// Runs the goal in a fresh browser.
async fn act(args: &ActArgs, goal: &str, values: &ParameterValues) -> anyhow::Result<ActRun> {
    let tracker = Arc::new(StepTracker::default());
    let mut events = Events::none().with(tracker.clone());
    if !args.json {
        events.subscribe(ConsoleSink::new());
    }
    if let Some(path) = &args.events {
        events.subscribe(
            JsonLinesSink::create_scrubbing(path, Secrets::new(values.values()))
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
    }
    let provider = provider(args, &events, tracker)?;
    let model = provider.model_id().to_owned();
    let pricing = provider.pricing();

    let browser_args = BrowserArgs {
        size: args.size,
        chromium: args.chromium.clone(),
        connect: None,
    };
    let (_browser, page) = crate::commands::screenshot::open(&browser_args, &args.url).await?;
    let browser_page = Arc::new(page);
    let page: Arc<dyn Backend> = browser_page.clone();
    let computer = Arc::new(
        ComputerTool::new(
            page.clone(),
            ComputerToolConfig {
                model_size: Some(args.size),
                ..ComputerToolConfig::default()
            },
        )
        .await
        .context("setting up the computer tool")?,
    );
    let mut toolbox = Toolbox::new().with(Arc::new(DriveTool::computer(computer)));
    let mut settings = AgentSettings {
        max_tokens: args.max_tokens,
        ..AgentSettings::default()
    };
    let store = Arc::new(CacheStore::new(&args.cache_dir));
    let mut replay_outcome = None;
    let mut speakers: Vec<Box<dyn Speaker>> = Vec::new();
    let mut executor = None;
    if args.cache.executes() {
        let ledger = ReplayLedger::new();
        for tool in retrace_agent::cache_tools::cache_tools(store.clone(), ledger.clone()) {
            toolbox.add(tool);
        }
        settings.system_sections.push(CACHE_TOOLS_PROMPT.to_owned());
        let replay_settings = ReplaySettings {
            on_mismatch: OnMismatch::HandTo(AGENT_SPEAKER.to_owned()),
            hand_back_on_completion: Some(AGENT_SPEAKER.to_owned()),
            ..ReplaySettings::default()
        };
        let cache_executor =
            CacheExecutor::new(replay_settings, Arc::new(BackendScreen::new(page.clone())))
                .with_ledger(ledger);
        replay_outcome = Some(cache_executor.outcome_handle());
        executor = Some(cache_executor);
    }
    speakers.push(Box::new(AgentSpeaker::new(provider, settings)));
    if let Some(executor) = executor {
        speakers.push(Box::new(executor));
    }
    let mut conversation =
        Conversation::new(speakers, toolbox, events.clone())?.with_max_steps(args.max_steps);
    let report = conversation
        .run(&args.goal, vec![Message::user_text(goal)], None)
        .await?;
    let ended = RunEnd {
        report,
        model,
        pricing,
        replay_outcome,
        final_url: browser_page.current_url().await.ok(),
    };
    ended.finish(args, values, conversation.toolbox(), &events)
}

/// Records a successful run: a new trajectory, or the repaired version of the one replayed.
/// A run that only replayed a trajectory writes nothing.
/// How a conversation ended, before the summary is put together.
pub(crate) struct RunEnd {
    /// The conversation's report.
    pub(crate) report: RunReport,
    /// The model id.
    pub(crate) model: String,
    /// The model's prices, when known.
    pub(crate) pricing: Option<Pricing>,
    /// The cache executor's outcome, when a replay could run.
    pub(crate) replay_outcome: Option<Arc<std::sync::Mutex<ReplayOutcome>>>,
    /// The page's URL when the run ended.
    pub(crate) final_url: Option<String>,
}

impl RunEnd {
    /// The run's summary, with the trajectory recorded when the cache mode records and the
    /// run succeeded (the same for both `--mode`s).
    pub(crate) fn finish(
        self,
        args: &ActArgs,
        values: &ParameterValues,
        toolbox: &Toolbox,
        events: &Events,
    ) -> anyhow::Result<ActRun> {
        let replay = self
            .replay_outcome
            .and_then(|handle| handle.lock().ok().map(|outcome| outcome.clone()))
            .filter(|outcome| outcome.file.is_some());
        let cost_usd = self.pricing.map(|pricing| pricing.cost(&self.report.usage));
        let mut run = ActRun {
            report: self.report,
            model: self.model,
            cost_usd,
            replay,
            recorded: None,
            previous: None,
            final_url: self.final_url,
        };
        if args.cache.records() && run.report.status == RunStatus::Done {
            record(args, values, toolbox, events, &mut run)?;
        }
        Ok(run)
    }
}

pub(crate) fn record(
    args: &ActArgs,
    values: &ParameterValues,
    toolbox: &Toolbox,
    events: &Events,
    run: &mut ActRun,
) -> anyhow::Result<()> {
    let replayed_steps = run
        .replay
        .as_ref()
        .map_or(0, |replay| replay.steps_replayed);
    let model_acted = acting_steps(&run.report.history) > replayed_steps;
    if !model_acted {
        return Ok(());
    }
    let settings = RecordSettings {
        parameters: values.clone(),
        cache_dir: args.cache_dir.clone(),
        file_name: args.cache_file.clone(),
        display_size: Some(args.size),
        ..RecordSettings::default()
    };
    let file = retrace_agent::recorder::build_cache_file(
        &args.goal,
        &run.report.history,
        toolbox,
        run.report.usage,
        &settings,
    )
    .context("recording the run")?;
    let store = settings.store();
    let replayed = run
        .replay
        .as_ref()
        .and_then(|replay| replay.file.as_ref())
        .and_then(|path| path.file_name())
        .and_then(|name| name.to_str());
    let path = match replayed {
        Some(name) => {
            let written = retrace_agent::recorder::record_repaired(&store, name, &file)
                .context("recording the repaired run")?;
            run.previous = written.previous;
            written.path
        }
        None => retrace_agent::recorder::record(&store, args.cache_file.as_deref(), &file)
            .context("recording the run")?,
    };
    events.emit(Event::CacheWritten {
        path: path.clone(),
        steps: file.trajectory.len(),
    });
    run.recorded = Some(path);
    Ok(())
}

/// Runs `retrace act` and prints what happened.
pub fn run(args: ActArgs) -> anyhow::Result<Outcome> {
    if args.mode == crate::commands::act_structured::STRUCTURED_MODE {
        return crate::commands::act_structured::run(args);
    }
    let values: ParameterValues = args.params.iter().cloned().collect();
    let goal = Template::parse(&args.goal)
        .render(&values)
        .context("filling the goal's {{placeholders}} from --param")?;
    // Fail on a missing key before starting a browser.
    api_key(&args)?;
    if !args.json {
        println!(
            "acting on {} at {}x{}: {}",
            args.url, args.size.0, args.size.1, args.goal
        );
    }
    let run = crate::commands::screenshot::runtime()?.block_on(act(&args, &goal, &values))?;
    print_summary(&run, args.json);
    Ok(if run.report.status == RunStatus::Done {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}

/// Prints the end of a run: a few lines, or one JSON object.
pub(crate) fn print_summary(run: &ActRun, json: bool) {
    let report = &run.report;
    let usage = &report.usage;
    if json {
        let summary = serde_json::json!({
            "outcome": report.status.label(),
            "reason": report.status.reason(),
            "steps": report.steps,
            "model": run.model,
            "speakers": report.speakers_used,
            "input_tokens": usage.total_input(),
            "output_tokens": usage.output_tokens,
            "cost_usd": run.cost_usd,
            "duration_ms": u64::try_from(report.duration.as_millis()).unwrap_or(u64::MAX),
            "replayed": run.replay.as_ref().map(|replay| serde_json::json!({
                "file": replay.file, "steps_replayed": replay.steps_replayed, "completed": replay.completed,
                "failure": replay.failure, "repairs": replay.repairs.len(),
            })),
            "recorded": run.recorded,
            "previous": run.previous,
            "final_url": run.final_url,
        });
        println!("{summary}");
        return;
    }
    let verdict = match &report.status {
        RunStatus::Done => "DONE".to_owned(),
        status => format!(
            "{}: {}",
            status.label().to_uppercase(),
            status.reason().unwrap_or_default()
        ),
    };
    let cost = run
        .cost_usd
        .map(|cost| format!(", about ${cost:.4}"))
        .unwrap_or_default();
    println!(
        "{verdict}\n  {} steps, {} input + {} output tokens{cost}, {:.1} s ({})",
        report.steps,
        usage.total_input(),
        usage.output_tokens,
        report.duration.as_secs_f64(),
        run.model
    );
    if let Some(replay) = &run.replay {
        let file = replay
            .file
            .as_ref()
            .map(|path| path.display().to_string())
            .unwrap_or_default();
        let state = if replay.completed {
            "completed".to_owned()
        } else {
            replay.failure.clone().unwrap_or_else(|| "stopped".into())
        };
        println!(
            "  replayed {file}: {} steps, {state}",
            replay.steps_replayed
        );
    }
    if let Some(path) = &run.recorded {
        println!("  recorded {}", path.display());
    }
    if let Some(path) = &run.previous {
        println!("  kept the previous recording as {}", path.display());
    }
}
