//! `retrace replay`: replays a trajectory cache file in headless Chromium with no model,
//! checking the screen before and after every step.

use std::path::PathBuf;
use std::time::Duration;

use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_runner::Parameters;
use retrace_runner::ReplayJob;
use retrace_runner::parameters::parse_pair;
use retrace_runner::replay_options::ReplayOptions;
use retrace_runner::replay_options::Wait;
use retrace_runner::store::Location;
use retrace_runner::stored_replay::StoredTrajectory;
use retrace_runner::suite::Interrupt;

use super::browser_args::BrowserArgs;
use super::browser_args::parse_size;
use super::desktop_args::DesktopArgs;
use super::finish::print_session;
use crate::outcome::Outcome;
use crate::output::out;

/// Replay a recorded trajectory in headless Chromium, with no model calls.
///
/// Before each step that acts at a point, replay waits until the screen region around that
/// point looks as it did when the trajectory was recorded (perceptual hash within the
/// threshold), searches nearby when the element moved a little, and stops at the first step
/// whose screen no longer matches, naming the step, the distance and the threshold. After
/// each step it waits for the state recorded after that action (the effect check). A step
/// with nothing to check waits until the screen stops changing. Steps are numbered from 1.
///
/// A file `retrace cache check` finds errors in (an unknown action, a point off the recorded
/// screen, a malformed placeholder, a hash that is not one...) is refused before the browser
/// starts, with the same words: bad input, exit 2.
///
/// Exit codes: 0 every step replayed, 1 a step failed (mismatch, effect, tool error), 2 error.
///
/// Examples:
///   retrace replay .retrace_cache/login.json --url http://127.0.0.1:8080/ --param password=s3cret
///   retrace replay login.json --url http://127.0.0.1:8080/?layout=v2 --wait fixed:1.0 --json
///   AWS_ENDPOINT_URL=http://127.0.0.1:9000 retrace replay s3://qa/flows/login.json --url ...
///   retrace replay .retrace_cache/note.json --display :99 \
///       --app "mousepad --disable-server" --window Mousepad
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ReplayArgs {
    /// The trajectory cache file: a path, or `s3://bucket/prefix/name.json` (S3 settings
    /// from the AWS_* variables, AWS_ENDPOINT_URL for S3-compatible stores); then the run is
    /// also counted in the run state beside it (`s3://bucket/prefix/.retrace_state/`).
    pub file: PathBuf,
    /// The page to open before replaying (or a desktop: --display / --desktop).
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    pub desktop: DesktopArgs,
    /// Start the application command a desktop trajectory names (`metadata.target.app`);
    /// without it, such a file needs --app or the application already running.
    #[arg(long)]
    pub allow_app_commands: bool,
    #[command(flatten)]
    pub parameters: ParameterArgs,
    /// Viewport size `WxH`; default: the size recorded in the file, else 1280x800.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// The largest Hamming distance that passes a visual check.
    #[arg(long, default_value_t = 10)]
    pub threshold: u32,
    /// How to wait before each step: `visual` (until the screen matches), `stable` (until it
    /// stops changing) or `fixed:SECONDS`.
    #[arg(long, default_value = "visual", value_parser = |s: &str| s.parse::<Wait>())]
    pub wait: Wait,
    /// The longest wait for one step's screen, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub step_timeout: f64,
    /// Pixels to search around a step's point for a moved element (0: no repair).
    #[arg(long, default_value_t = 80)]
    pub search_radius: u32,
    /// Skip visual checks (replay blind, as askui does without hashes).
    #[arg(long)]
    pub no_visual: bool,
    /// Write every event as JSON Lines to this file (secret values redacted).
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// Write the run's metadata (attempts, failures, last run) into the trajectory, in its own
    /// layout, as askui does; by default it goes to `.retrace_state/` in the current folder
    /// (the file's own when it is outside it) and the file is left as it is.
    #[arg(long)]
    pub write_metadata: bool,
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// Print one JSON document instead of live lines.
    #[arg(long)]
    pub json: bool,
}

/// `{{name}}` values: `--param NAME=VALUE`, and which are secret.
#[derive(Debug, Clone, clap::Args)]
pub struct ParameterArgs {
    /// A parameter value, `NAME=VALUE` (repeatable). Values are never written to a file;
    /// values of secret parameters (names like password, token, key, or `--secret`) never
    /// reach a log or the terminal either.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub params: Vec<(String, String)>,
    /// Treat the parameter NAME as a secret whatever its name (repeatable).
    #[arg(long = "secret", value_name = "NAME")]
    pub secret: Vec<String>,
}

impl ParameterArgs {
    /// The values and their secrecy.
    pub fn parameters(&self) -> Parameters {
        Parameters::new(self.params.clone(), self.secret.clone())
    }
}

/// Replays the file and prints what happened.
pub fn run(args: ReplayArgs) -> anyhow::Result<Outcome> {
    let settings = ReplayOptions {
        threshold: args.threshold,
        step_timeout: Duration::from_secs_f64(args.step_timeout.max(0.0)),
        wait: args.wait,
        visual: !args.no_visual,
        search_radius: args.search_radius,
        write_metadata: args.write_metadata,
    }
    .settings();
    let desktop = args.desktop.config(args.url.as_deref())?;
    let parameters = args.parameters.parameters();
    let runtime = retrace_runner::runtime()?;
    // A trajectory in object storage is read into a private folder and replayed from there.
    let download = tempfile::Builder::new()
        .prefix("retrace-replay-")
        .tempdir()?;
    let stored = match args.file.to_str().filter(|text| Location::is_remote(text)) {
        Some(url) => {
            let stored = StoredTrajectory::parse(url)?;
            let (file, bytes) = runtime.block_on(stored.fetch_into(download.path()))?;
            Some((stored, file, bytes))
        }
        None => None,
    };
    let job = ReplayJob {
        file: stored
            .as_ref()
            .map_or_else(|| args.file.clone(), |(_, file, _)| file.clone()),
        url: args.url.clone().unwrap_or_default(),
        size: args.size,
        settings,
        browser: args.browser.config((0, 0)),
        events_log: args.events.clone(),
        final_screenshot: None,
        final_screenshot_when_passed: false,
        parameters,
        desktop,
        allow_app_commands: args.allow_app_commands,
    };
    // A file that cannot be read or that replay refuses (in `cache check`'s words), or
    // parameters that are missing, end the session before a browser starts
    // (`ReplayJob::check`), as an error the console, the --json document and the --events
    // log all carry.
    let mut events = Events::none();
    if !args.json {
        match (&job.desktop, &args.url) {
            (Some(desktop), _) => out!(
                "replaying {} on desktop {}",
                args.file.display(),
                desktop.display_name()
            ),
            (None, url) => {
                let (width, height) = job.viewport();
                out!(
                    "replaying {} on {} at {width}x{height}",
                    args.file.display(),
                    url.as_deref().unwrap_or_default()
                );
            }
        }
        events.subscribe(ConsoleSink::to_writer(
            crate::output::stdout_writer(),
            job.parameters.secrets(),
        ));
    }
    let report = runtime.block_on(async {
        let interrupt = Interrupt::new();
        let watcher = crate::signals::watch(&interrupt);
        let report = retrace_runner::run_replay_until(&job, &events, &interrupt).await;
        watcher.abort();
        report
    });
    // The run happened whatever the state says now: a state that cannot be written is a
    // warning, as in a suite.
    if let Some((stored, _, bytes)) = &stored {
        match runtime.block_on(stored.record_run(bytes, &report)) {
            Ok(key) if !args.json => out!("run state: {}/{key}", stored.store.name()),
            Ok(_) => {}
            Err(error) => crate::output::note!("retrace: could not record the run state: {error}"),
        }
    } else if !args.write_metadata {
        match retrace_runner::record_replay_state(&args.file, &report) {
            Ok(Some(path)) if !args.json => out!("run state: {}", path.display()),
            Ok(_) => {}
            Err(error) => crate::output::note!("retrace: could not record the run state: {error}"),
        }
    }
    print_session(&report, args.json)
}
