//! `retrace act`: a model works a web page in headless Chromium (or an X11 desktop) towards a
//! goal, optionally
//! recording the run as a trajectory or replaying a recorded one through the cache tools.

use std::path::PathBuf;

use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_runner::ActJob;
use retrace_runner::ActMode;
use retrace_runner::CacheMode;
use retrace_runner::ToolFormat;
use retrace_runner::act_job::DEFAULT_CACHE_DIR;
use retrace_runner::store::Location;
use retrace_runner::suite::Interrupt;

use super::browser_args::BrowserArgs;
use super::browser_args::parse_size;
use super::desktop_args::DesktopArgs;
use super::finish::print_session;
use super::provider_args::ProviderArgs;
use super::replay::ParameterArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Let a model work a web page towards a goal, one screenshot and action at a time.
///
/// The goal may hold `{{name}}` placeholders filled from `--param name=value`; the values
/// go to the model but are never written to a file, and secret ones never to a log. With
/// `--cache record` a successful run is saved as a trajectory that `retrace replay` runs with
/// no model; with `--cache execute` the model can replay recorded trajectories (and takes
/// over when a replayed step no longer matches the screen); `auto` does both.
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
///   retrace act "Write hello, save it as note.txt" --display :99 \
///       --app "mousepad --disable-server" --window Mousepad --cache record --cache-file note.json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ActArgs {
    /// What the model should achieve; `{{name}}` placeholders are filled from `--param`.
    pub goal: String,
    /// The page to open first (or a desktop: --display / --desktop).
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    pub desktop: DesktopArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Stop after this many turns.
    #[arg(long, default_value_t = 30)]
    pub max_steps: usize,
    /// Output token limit of each model turn.
    #[arg(long, default_value_t = 4096)]
    pub max_tokens: u32,
    /// Viewport size `WxH`.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// The screen size the model is told and sees `WxH`: screenshots are scaled to it and its
    /// coordinates scaled back. Default: the viewport, scaled down (aspect kept) to fit
    /// 1280x800, the size Anthropic recommends for computer use.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub model_size: Option<(u32, u32)>,
    /// Hash size of the recorded regions: 8 (64-bit hashes, askui's) or 16 (256-bit, finer:
    /// for apps without a DOM, where only the pixels can tell a renamed control).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(4..=32))]
    pub hash_size: u32,
    /// The tool vocabulary a recording is written in: `retrace` (every check replay can make)
    /// or `askui` (askui 0.48's computer tools, so askui's own cache executor replays the
    /// file; after-action hashes and page facts are left out, and said).
    #[arg(long, value_name = "FORMAT", default_value = "retrace", value_parser = |s: &str| s.parse::<ToolFormat>())]
    pub tool_format: ToolFormat,
    /// Trajectory caching: `record` (save a successful run), `execute` (let the model replay
    /// saved runs), `auto` (both), `none`. Older names: write, read, both, no.
    #[arg(long, default_value = "none", value_parser = |s: &str| s.parse::<CacheMode>())]
    pub cache: CacheMode,
    /// The trajectory directory, or one in S3 (`s3://bucket/prefix`; credentials, region
    /// and `AWS_ENDPOINT_URL` from the standard AWS variables): read before the run, what it
    /// records written back after it (never over a file someone else changed meanwhile).
    #[arg(long, default_value = DEFAULT_CACHE_DIR)]
    pub cache_dir: PathBuf,
    /// The file name to record to (inside `--cache-dir`); default: a generated name.
    #[arg(long, value_name = "FILE")]
    pub cache_file: Option<String>,
    #[command(flatten)]
    pub parameters: ParameterArgs,
    /// Write every event as JSON Lines to this file (secret values redacted).
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// Print one JSON document instead of live lines.
    #[arg(long)]
    pub json: bool,
    /// How the model acts: `computer` (screenshots and the computer-use tool) or
    /// `structured` (one JSON decision per step in the response schema, carried out by the
    /// web executor by CSS selector; `--cache execute` then replays `--cache-file`).
    #[arg(long, default_value = "computer", value_parser = ["computer", "structured"])]
    pub mode: String,
    /// Structured mode: answers asked for per step before the run fails (an unusable answer
    /// is sent back with its errors for a correction).
    #[arg(long, default_value_t = 3)]
    pub max_attempts: u32,
    /// Structured mode: show the model the page as text only (no screenshot).
    #[arg(long)]
    pub no_screenshots: bool,
}

impl ActArgs {
    fn job(&self) -> anyhow::Result<ActJob> {
        let desktop = self.desktop.config(self.url.as_deref())?;
        let mode = if self.mode == "structured" {
            ActMode::Structured {
                max_attempts: self.max_attempts,
                screenshots: !self.no_screenshots,
            }
        } else {
            ActMode::Computer
        };
        Ok(ActJob {
            goal: self.goal.clone(),
            url: self.url.clone().unwrap_or_default(),
            mode,
            provider: self
                .provider
                .config(matches!(mode, ActMode::Structured { .. })),
            max_steps: self.max_steps,
            max_tokens: self.max_tokens,
            browser: self.browser.config(self.size),
            model_size: self.model_size,
            hash_size: self.hash_size,
            tool_format: self.tool_format,
            cache: self.cache,
            cache_dir: self.cache_dir.clone(),
            cache_store: self
                .cache_dir
                .to_str()
                .filter(|text| Location::is_remote(text))
                .map(str::to_owned),
            cache_file: self.cache_file.clone(),
            parameters: self.parameters.parameters(),
            events_log: self.events.clone(),
            desktop,
        })
    }
}

/// Runs `retrace act` and prints what happened.
pub fn run(args: ActArgs) -> anyhow::Result<Outcome> {
    let job = args.job()?;
    // Fail on a missing key, an unfillable goal or a missing trajectory before a browser
    // starts.
    job.check()?;
    let mut events = Events::none();
    if !args.json {
        let mode = match job.mode {
            ActMode::Computer => "",
            ActMode::Structured { .. } => " (structured)",
        };
        match (&job.desktop, &args.url) {
            (Some(desktop), _) => out!(
                "acting{mode} on desktop {}{}: {}",
                desktop.display_name(),
                desktop
                    .window
                    .as_ref()
                    .map(|window| format!(", window `{window}`"))
                    .unwrap_or_default(),
                args.goal
            ),
            (None, url) => out!(
                "acting{mode} on {} at {}x{}: {}",
                url.as_deref().unwrap_or_default(),
                args.size.0,
                args.size.1,
                args.goal
            ),
        }
        events.subscribe(ConsoleSink::to_writer(
            crate::output::stdout_writer(),
            job.parameters.secrets(),
        ));
    }
    let report = retrace_runner::runtime()?.block_on(async {
        let interrupt = Interrupt::new();
        let watcher = crate::signals::watch(&interrupt);
        let report = retrace_runner::run_act_until(&job, &events, &interrupt).await;
        watcher.abort();
        report
    });
    print_session(&report, args.json)
}
