//! `retrace replay`: replays a trajectory cache file in headless Chromium with no model,
//! checking the screen before every step.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use retrace_agent::Conversation;
use retrace_agent::DriveTool;
use retrace_agent::RunStatus;
use retrace_agent::cache_executor::CACHE_EXECUTOR;
use retrace_agent::cache_executor::CacheExecutor;
use retrace_agent::cache_executor::OnMismatch;
use retrace_agent::cache_executor::ReplayOutcome;
use retrace_agent::cache_executor::ReplaySettings;
use retrace_agent::cache_executor::WaitMode;
use retrace_agent::events::Events;
use retrace_agent::events::JsonLinesSink;
use retrace_agent::events::Secrets;
use retrace_agent::screen::BackendScreen;
use retrace_agent::structured::ResolvingWebTool;
use retrace_agent::structured::executor_on_page;
use retrace_agent::tool::Toolbox;
use retrace_drive::Backend;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::web::WebExecutorConfig;
use retrace_protocol::Message;

use crate::commands::screenshot::BrowserArgs;
use crate::console::ConsoleSink;
use crate::outcome::Outcome;

/// Replay a recorded trajectory in headless Chromium, with no model calls.
///
/// Before each step that acts at a point, replay waits until the screen region around that
/// point looks as it did when the trajectory was recorded (perceptual hash within the
/// threshold), searches nearby when the element moved a little, and stops at the first step
/// whose screen no longer matches, naming the step, the distance and the threshold. After
/// the last step it waits for the state recorded after that action (the effect check).
///
/// Exit codes: 0 every step replayed, 1 a step failed (mismatch or tool error), 2 error.
///
/// Examples:
///   retrace replay .retrace_cache/login.json --url http://127.0.0.1:8080/ --param password=s3cret
///   retrace replay login.json --url http://127.0.0.1:8080/?layout=v2 --wait fixed:1.0 --json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ReplayArgs {
    /// The trajectory cache file.
    pub file: PathBuf,
    /// The page to open before replaying.
    #[arg(long)]
    pub url: String,
    /// A parameter value, `NAME=VALUE` (repeatable). Values are never written anywhere.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, String)>,
    /// Viewport size `WxH`; default: the size recorded in the file, else 1280x800.
    #[arg(long, value_name = "WxH", value_parser = crate::commands::screenshot::parse_size)]
    pub size: Option<(u32, u32)>,
    /// The largest Hamming distance that passes a visual check.
    #[arg(long, default_value_t = 10)]
    pub threshold: u32,
    /// How to wait before each step: `visual` (until the screen matches), `stable` (until it
    /// stops changing) or `fixed:SECONDS`.
    #[arg(long, default_value = "visual", value_parser = |s: &str| s.parse::<WaitMode>())]
    pub wait: WaitMode,
    /// The longest wait for one step's screen, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub step_timeout: f64,
    /// Pixels to search around a step's point for a moved element (0: no repair).
    #[arg(long, default_value_t = 80)]
    pub search_radius: u32,
    /// What a failed step does: `fail` ends the run with exit 1.
    #[arg(long, default_value = "fail", value_parser = ["fail"])]
    pub on_mismatch: String,
    /// Skip visual checks (replay blind, as askui does without hashes).
    #[arg(long)]
    pub no_visual: bool,
    /// Write every event as JSON Lines to this file.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// The Chromium executable.
    #[arg(long, env = "RETRACE_CHROMIUM", default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// Use a running Chromium instead of launching one: its DevTools endpoint, `ws://...` or
    /// `http://HOST:PORT`. The replay gets a browser context of its own (no shared cookies).
    #[arg(long, value_name = "URL", env = "RETRACE_CONNECT")]
    pub connect: Option<String>,
    /// Print one JSON summary instead of live lines.
    #[arg(long)]
    pub json: bool,
}

/// Parses `NAME=VALUE`.
pub fn parse_param(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!(
            "`{}` is not NAME=VALUE",
            text.split('=').next().unwrap_or("")
        )),
    }
}

/// The result of one replay, for printing.
#[derive(Debug)]
pub struct ReplayRun {
    /// How the conversation ended.
    pub status: RunStatus,
    /// What the cache executor did.
    pub outcome: ReplayOutcome,
    /// Wall time.
    pub duration: Duration,
}

/// Everything a replay needs besides the file.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    /// The cache file (a path as given).
    pub file: PathBuf,
    /// The page to open.
    pub url: String,
    /// Parameter values.
    pub params: Vec<(String, String)>,
    /// The viewport size.
    pub size: (u32, u32),
    /// Replay settings.
    pub settings: ReplaySettings,
    /// The Chromium executable.
    pub chromium: PathBuf,
    /// A running browser's DevTools endpoint to use instead of launching one.
    pub connect: Option<String>,
    /// Where to log events.
    pub events_log: Option<PathBuf>,
    /// Whether to print live lines.
    pub live: bool,
    /// Where to save a screenshot of the page when the replay ends.
    pub final_screenshot: Option<PathBuf>,
}

/// The viewport a file was recorded at (`metadata.display_size`), if it says.
pub fn recorded_size(file: &std::path::Path) -> Option<(u32, u32)> {
    let cache = retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE).ok()?;
    let size = cache.metadata.extra.get("display_size")?.as_array()?;
    let width = u32::try_from(size.first()?.as_u64()?).ok()?;
    let height = u32::try_from(size.get(1)?.as_u64()?).ok()?;
    Some((width, height))
}

/// Launches Chromium, opens the page and replays the file into it.
pub async fn replay(request: &ReplayRequest) -> anyhow::Result<ReplayRun> {
    let browser_args = BrowserArgs {
        size: request.size,
        chromium: request.chromium.clone(),
        connect: request.connect.clone(),
    };
    let (browser, page) =
        crate::commands::screenshot::open_loaded(&browser_args, &request.url).await?;
    let browser_page = Arc::new(page);
    let page: Arc<dyn Backend> = browser_page.clone();
    let computer = Arc::new(
        ComputerTool::new(
            page.clone(),
            ComputerToolConfig {
                model_size: Some(request.size),
                // Nobody reads a replayed action's screenshot: the next step's visual wait
                // looks at the screen itself, so skip the capture and its settle time.
                screenshot_after_action: false,
                ..ComputerToolConfig::default()
            },
        )
        .await
        .context("setting up the computer tool")?,
    );
    let mut toolbox = Toolbox::new().with(Arc::new(DriveTool::computer(computer)));
    for tool in retrace_agent::askui_tools::askui_tools(page.clone()) {
        toolbox.add(tool);
    }
    // Structured runs record web executor commands; they replay on the same page.
    let web = executor_on_page(
        browser_page,
        Arc::new(browser),
        WebExecutorConfig::default(),
    );
    toolbox.add(Arc::new(ResolvingWebTool::new(web)));
    let executor = CacheExecutor::new(
        request.settings.clone(),
        Arc::new(BackendScreen::new(page.clone())),
    );
    let outcome = executor.outcome_handle();
    let mut events = Events::none();
    if request.live {
        events.subscribe(ConsoleSink::new());
    }
    if let Some(path) = &request.events_log {
        let secrets = Secrets::new(request.params.iter().map(|(_, value)| value.as_str()));
        events.subscribe(
            JsonLinesSink::create_scrubbing(path, secrets)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
    }
    let mut conversation =
        Conversation::new(vec![Box::new(executor)], toolbox, events)?.with_max_steps(10_000);
    let parameters: serde_json::Map<String, serde_json::Value> = request
        .params
        .iter()
        .map(|(name, value)| (name.clone(), serde_json::Value::String(value.clone())))
        .collect();
    let context = serde_json::json!({"file": request.file, "parameters": parameters, "start": 0});
    let goal = format!("Replay {}", request.file.display());
    let report = conversation
        .run(
            &goal,
            vec![Message::user_text(goal.clone())],
            Some((CACHE_EXECUTOR, context)),
        )
        .await?;
    let outcome = outcome
        .lock()
        .map(|outcome| outcome.clone())
        .unwrap_or_default();
    if let Some(path) = &request.final_screenshot {
        let shot = page
            .screenshot()
            .await
            .context("taking the final screenshot")?;
        crate::commands::screenshot::write_png(path, &shot.png)?;
    }
    Ok(ReplayRun {
        status: report.status,
        outcome,
        duration: report.duration,
    })
}

/// Replays the file and prints what happened.
pub fn run(args: ReplayArgs) -> anyhow::Result<Outcome> {
    // Fail fast, before starting a browser, on a file that cannot be read or parameters that
    // are missing (one message naming all of them).
    let cache = retrace_cache::read_cache_file(&args.file, retrace_cache::DEFAULT_MAX_FILE_SIZE)?;
    let needed = retrace_cache::params::parameters_in_trajectory(&cache.trajectory);
    let missing: Vec<&str> = needed
        .iter()
        .map(String::as_str)
        .filter(|name| !args.params.iter().any(|(given, _)| given == name))
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "{} needs values for its parameters: {} (pass --param NAME=VALUE for each)",
            args.file.display(),
            missing.join(", ")
        );
    }
    let size = args
        .size
        .or_else(|| recorded_size(&args.file))
        .unwrap_or((1280, 800));
    let settings = ReplaySettings {
        threshold: args.threshold,
        step_timeout: Duration::from_secs_f64(args.step_timeout.max(0.0)),
        wait: args.wait,
        visual: !args.no_visual,
        search_radius: args.search_radius,
        on_mismatch: OnMismatch::Fail,
        ..ReplaySettings::default()
    };
    let request = ReplayRequest {
        file: args.file.clone(),
        url: args.url.clone(),
        params: args.params.clone(),
        size,
        settings,
        chromium: args.chromium.clone(),
        connect: args.connect.clone(),
        events_log: args.events.clone(),
        live: !args.json,
        final_screenshot: None,
    };
    if !args.json {
        println!(
            "replaying {} on {} at {}x{}",
            args.file.display(),
            args.url,
            size.0,
            size.1
        );
    }
    let run = crate::commands::screenshot::runtime()?.block_on(replay(&request))?;
    print_summary(&run, args.json);
    Ok(if run.outcome.completed {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}

/// Prints the end of a replay: a sentence, or one JSON object.
pub fn print_summary(run: &ReplayRun, json: bool) {
    let outcome = &run.outcome;
    if json {
        let summary = serde_json::json!({
            "file": outcome.file,
            "passed": outcome.completed,
            "status": run.status.label(),
            "steps_replayed": outcome.steps_replayed,
            "visual_checks_passed": outcome.checks_passed,
            "effect_checks_passed": outcome.effect_checks_passed,
            "repairs": outcome.repairs.iter().map(|r| serde_json::json!({"step": r.step_index, "offset": [r.offset.0, r.offset.1], "distance": r.distance})).collect::<Vec<_>>(),
            "failure": outcome.failure,
            "duration_ms": run.duration.as_millis() as u64,
        });
        println!("{summary}");
        return;
    }
    if outcome.completed {
        println!(
            "PASS: {} steps replayed, {} visual checks passed, {} effect checks passed, {} repaired, in {:.2} s",
            outcome.steps_replayed,
            outcome.checks_passed,
            outcome.effect_checks_passed,
            outcome.repairs.len(),
            run.duration.as_secs_f64()
        );
    } else {
        let reason = outcome
            .failure
            .clone()
            .or_else(|| run.status.reason())
            .unwrap_or_default();
        println!(
            "FAIL after {} steps in {:.2} s: {reason}",
            outcome.steps_replayed,
            run.duration.as_secs_f64()
        );
    }
}
