//! `retrace check`: visual regression of candidate pages against a baseline, both rendered by
//! the same headless Chromium; flags (or a JSON spec) in, one line per page out, the exit
//! code the verdict. The runner schedules it (`retrace_runner::check`: its browsers, its
//! shard); the work is retrace-check's.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use retrace_protocol::events::Events;

use retrace_report::ConsoleSink;
use retrace_report::Secrets;
use retrace_report::console::ConsoleView;
use retrace_report::suite::ReportKind;
use retrace_report::suite::check_tests::CheckTests;
use retrace_report::suite::check_tests::EVENTS_LOG;
use retrace_runner::check::CheckJob;
use retrace_runner::check::run_check_job;
use retrace_runner::check_spec::CheckFlags;
use retrace_runner::check_spec::CheckPlan;
use retrace_runner::check_spec::JudgeWhen;
use retrace_runner::check_spec::Viewport;
use retrace_runner::desktop_check_request::ThresholdFlags;

use super::browser_args::BrowserArgs;
use super::check_login::LoginArgs;
use super::check_window::WindowArgs;
use super::check_window::WindowRun;
use super::provider_args::ProviderArgs;
use super::shard_args::ShardArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Compare candidate pages with a baseline, pixel by pixel, in one headless Chromium: each
/// page is loaded on both sides, made still (network quiet, fonts loaded, lazy images loaded,
/// animations and transitions finished or cancelled, caret hidden), shot until two
/// screenshots in a row match, compared (pixelmatch-compatible, anti-aliasing aware, with a
/// CIEDE2000 floor) and every changed box typed (layout shift, text, colour, removed, added;
/// console errors too).
///
/// Prints one line per page: PASS, FAIL with its differences, or ERROR (the page did not
/// load, get ready or hold still, or the judge's answer was unusable, after the retries),
/// and a `retry` line before each retry's wait.
/// Evidence (both screenshots, the diff image with boxes, result.json) goes under --out.
///
/// With `--judge`, a model (`--provider`, `--model`, as `act` takes them) is shown both
/// screenshots, the diff image and the differences when they may be noise (every difference
/// pixels that changed under elements the DOM shows unchanged, at most `--judge-ceiling` of
/// the page; a moved, relabelled, recoloured, removed or added element is a fact, never
/// noise); `--judge=always` asks whenever the pixels differ. A fact stays a FAIL whatever the
/// judge answers; otherwise its PASS under `--min-confidence`, or above the ceiling, is an
/// ERROR, its PASS listing differences a FAIL. Judgements are cached under OUT/judgements,
/// so an unchanged page is never judged twice. Screenshots are fitted to the model's image
/// limits (see `retrace models`): shrunk to its recommended size while text stays legible,
/// else a tall page is sent in labelled parts; boxes the judge gives in a part are reported
/// in page pixels.
///
/// Exit code: 0 all PASS, 1 any FAIL, 2 any ERROR and no FAIL (or bad input).
///
/// With --baseline DIR the baseline is a folder of stored shots with the fingerprint of the
/// environment they were taken in (browser version, device scale, fonts); `retrace check
/// approve` stores the candidate's shots there. A fingerprint that does not match this
/// environment is an ERROR naming what differs, not a FAIL. --report html,junit,json writes
/// the suite reports into --out (the HTML opens offline); OUT/events.jsonl logs every attempt
/// (verdict, confidence, differences, evidence) and every page, one JSON object per line.
///
/// --connect checks in a running browser (a DevTools endpoint, a Selenium Grid, a farm
/// behind a token) as every browser command does, each side of each page in a browser
/// context of its own. --shard I/N checks the I-th of N disjoint parts of the pages at their
/// viewports (dealt by the test id PATH@WxH, as `retrace run` deals files; also from the
/// CI's variables); the reports are named report-shard-I-of-N.*, and `retrace report merge`
/// adds the shards' reports up.
///
/// Pages behind a login: --login FLOW.json replays a login trajectory on each side before any
/// page is compared (its parameters from --param, --params-file and RETRACE_PARAM_<NAME>), or
/// --storage-state FILE loads Playwright's storageState; a login that fails on either side is
/// an error (exit 2) naming the side, the file and the step, and a page the server then sends
/// elsewhere (its login page) is an ERROR. Secret values reach no output, report or rerun
/// command.
///
/// A desktop window instead of pages (--display :N or --desktop): each side is a run of an
/// application (--app for both sides, or --baseline-app and --candidate-app; --baseline-env
/// and --candidate-env add to each one's environment), brought to the same state by --flow
/// (a desktop trajectory replayed with no model), its --window captured once still and
/// compared: pixels, then the accessibility tree (AT-SPI: roles, names, states, text). The
/// same verdicts, typed differences, reports and exit codes; a side whose window never shows
/// or whose flow fails at a step is an ERROR naming the side and the step. Every process a
/// side started ends with it.
///
/// Example: `retrace check --baseline https://prod.example --candidate http://localhost:8000
/// --page / --page /pricing --jobs 4 --report html,junit`
///
/// Example: `retrace check --display :99 --app "mousepad --disable-server" --window Mousepad
/// --candidate-env GTK_THEME=Adwaita:dark --flow note.json`
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// `approve`: store the candidate's shots (and this environment's fingerprint) in the
    /// --baseline folder as the new baseline, instead of checking.
    #[arg(value_enum, value_name = "ACTION")]
    pub action: Option<CheckAction>,
    /// A JSON spec (`baseline`, `candidate`, `pages`, `viewports`, `jobs`, `out_dir`,
    /// `thresholds`, `timeouts`, `retry`, `capture`); flags given as well override it.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// The suite file whose `[timeouts]` (seconds: navigation, readiness, stability, model,
    /// page, run) every part shares (default: ./retrace.toml when there is one); a --spec
    /// file's `timeouts` and the flags override them.
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// The baseline's base URL ("production"), or a folder of stored shots (taken by
    /// `retrace check approve`; a fingerprint of another environment is an ERROR).
    #[arg(long, value_name = "URL|DIR")]
    pub baseline: Option<String>,
    /// The candidate's base URL ("refactored").
    #[arg(long, value_name = "URL")]
    pub candidate: Option<String>,
    /// A page path, joined to both base URLs (repeatable; default `/`).
    #[arg(long = "page", visible_alias = "path", value_name = "PATH")]
    pub pages: Vec<String>,
    /// A pages file, TOML when its name ends .toml (`[[pages]]` tables: `path = "/pricing"`,
    /// `masks = [".price-date"]`, `ready_selector = "#chart[data-ready]"`), else JSON:
    /// `{"pages": [{"path": "/pricing", "masks": [".price-date"]}, {"path": "/about"}]}`. Each
    /// page's `masks` (CSS selectors) are painted over on that page only, on both sides,
    /// besides every --mask; its `ready_selector` replaces --ready-selector on that page. Its
    /// pages replace the spec's; --page paths are added after them.
    #[arg(long = "pages", value_name = "FILE")]
    pub pages_file: Option<PathBuf>,
    /// A viewport, WIDTHxHEIGHT (repeatable; default 1280x720).
    #[arg(long = "viewport", value_name = "WxH", value_parser = parse_viewport)]
    pub viewports: Vec<Viewport>,
    /// pixelmatch threshold, 0 to 1 (default 0.1).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// CIEDE2000 ΔE from which a pixel always differs (default 5; 0 turns it off).
    #[arg(long)]
    pub delta_e: Option<f64>,
    /// Differing pixels that still pass (default 0).
    #[arg(long)]
    pub max_diff_pixels: Option<u64>,
    /// Differing pixels, as a share of the page, that still pass (default 0).
    #[arg(long)]
    pub max_diff_ratio: Option<f64>,
    /// Retries after an ERROR (default 3, after 2, 4 and 8 s; a FAIL is never retried).
    #[arg(long)]
    pub retries: Option<u32>,
    /// Waits before the retries, milliseconds, comma-separated; the last repeats (default
    /// 2000,4000,8000).
    #[arg(long, value_name = "MS,...", value_delimiter = ',')]
    pub backoff_ms: Option<Vec<u64>>,
    /// One limit for loading, readiness and stillness, milliseconds each (default 30000).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// A CSS selector painted over on both sides, on every page (repeatable).
    #[arg(long = "mask", value_name = "CSS")]
    pub masks: Vec<String>,
    /// Wait (within the readiness limit) until an element matching this CSS selector exists
    /// and is visible before making the page still; a selector that never matches makes the
    /// page an ERROR naming it. A pages file's `ready_selector` replaces it on its page.
    #[arg(long, value_name = "CSS")]
    pub ready_selector: Option<String>,
    /// Shoot the viewport only, not the whole page.
    #[arg(long)]
    pub viewport_only: bool,
    /// Pages checked at once (default 1).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where evidence goes (default ./retrace-check).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub browser: BrowserArgs,
    #[command(flatten)]
    pub sharding: ShardArgs,
    /// Print one JSON document (`pages[]` with verdicts, differences, attempts, evidence)
    /// instead of a line per page.
    #[arg(long)]
    pub json: bool,
    /// Reports to write into --out beside the evidence, comma-separated: html (offline,
    /// self-contained: both screenshots, the diff, the boxes, the typed differences, the
    /// thresholds), junit (FAIL a failure, ERROR an error), json.
    #[arg(long, value_delimiter = ',', value_name = "KINDS", value_parser = crate::suite_reports::parse_kind)]
    pub report: Vec<ReportKind>,
    /// Ask a model judge: `noise` (the default when given bare: only differences that may be
    /// noise), `always` (whenever the pixels differ, to explain), `off`.
    #[arg(
        long,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "noise",
        value_parser = |s: &str| s.parse::<JudgeWhen>()
    )]
    pub judge: Option<JudgeWhen>,
    /// Passed to the judge as reference (the file and line a refactoring changed).
    #[arg(long, value_name = "TEXT")]
    pub context: Option<String>,
    /// A judge's PASS under this confidence is an ERROR (default 80).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub min_confidence: Option<u8>,
    /// The hard ceiling: differing pixels, as a share of the page, above which the judge may
    /// not overrule the pixels (default 0.01).
    #[arg(long, value_name = "RATIO")]
    pub judge_ceiling: Option<f64>,
    /// How long the judge may take to answer, milliseconds (default 120000).
    #[arg(long, value_name = "MS")]
    pub model_timeout_ms: Option<u64>,
    #[command(flatten)]
    pub login: LoginArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[command(flatten)]
    pub window: WindowArgs,
}

/// What `retrace check` does besides checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckAction {
    /// Store the candidate's shots as the baseline.
    Approve,
}

fn parse_viewport(text: &str) -> Result<Viewport, String> {
    text.parse()
}

/// The flags as the runner reads them.
fn flags_of(args: &CheckArgs) -> CheckFlags {
    let login = &args.login;
    CheckFlags {
        spec: args.spec.clone(),
        suite: args.suite.clone(),
        baseline: args.baseline.clone(),
        candidate: args.candidate.clone(),
        pages: args.pages.clone(),
        pages_file: args.pages_file.clone(),
        viewports: args.viewports.clone(),
        threshold: args.threshold,
        delta_e: args.delta_e,
        max_diff_pixels: args.max_diff_pixels,
        max_diff_ratio: args.max_diff_ratio,
        retries: args.retries,
        backoff_ms: args.backoff_ms.clone(),
        timeout_ms: args.timeout_ms,
        masks: args.masks.clone(),
        ready_selector: args.ready_selector.clone(),
        viewport_only: args.viewport_only,
        jobs: args.jobs,
        out: args.out.clone(),
        chromium: args.browser.chromium.path.clone(),
        judge: args.judge,
        context: args.context.clone(),
        min_confidence: args.min_confidence,
        judge_ceiling: args.judge_ceiling,
        model_timeout_ms: args.model_timeout_ms,
        login: login.login.clone(),
        login_path: login.login_path.clone(),
        storage_state: login.storage_state.clone(),
    }
}

/// Runs the check.
pub fn run(args: CheckArgs) -> anyhow::Result<Outcome> {
    if args.window.asked() {
        return super::check_window::run(WindowRun {
            window: &args.window,
            page_flags: page_flags(&args),
            thresholds: thresholds(&args),
            login: &args.login,
            out: args.out.clone(),
            json: args.json,
            report: &args.report,
        });
    }
    args.window.refuse_on_pages()?;
    let mut plan = CheckPlan::from_flags(&flags_of(&args))?;
    let login_parameters = args.login.parameters(&mut plan)?;
    // A launched browser is the spec's Chromium (a spec file may name it); --connect reaches
    // a running one as every browser command does.
    let browser = match &args.browser.connect {
        Some(_) => args.browser.config((0, 0)),
        None => plan.launched_browser(),
    };
    if args.action == Some(CheckAction::Approve) {
        return approve(&plan, browser);
    }
    let tests = Arc::new(CheckTests::new());
    let mut events = Events::none().with(tests.clone());
    if !args.json {
        events.subscribe(ConsoleSink::to_writer_for(
            ConsoleView::Check,
            crate::output::stdout_writer(),
            Secrets::default(),
        ));
    }
    // The judge's retries are the check's own (each attempt logged), so its client has none.
    let judge = if plan.judged() {
        Some(args.provider.config(true).build_unretried()?)
    } else {
        None
    };
    let shard = args.sharding.resolve()?;
    let job = CheckJob {
        spec: plan.spec(),
        judge: judge.as_deref(),
        browser,
        shard: shard.clone(),
        events_log: Some(plan.out_dir().join(EVENTS_LOG)),
        login_parameters,
    };
    let result = retrace_runner::runtime()
        .context("cannot start the async runtime")?
        .block_on(run_check_job(job, &events))?;
    let shard = shard.map(|selection| selection.shard);
    let written = crate::suite_reports::write(
        &tests.report(shard, plan.out_dir()),
        &args.report,
        plan.out_dir(),
    )?;
    let json = args
        .json
        .then(|| serde_json::to_string(&result))
        .transpose()?;
    super::check_end::finish(json, &written, result.verdict())
}

/// The page check's flags given with a window check, by name.
fn page_flags(args: &CheckArgs) -> Vec<&'static str> {
    [
        ("approve", args.action.is_some()),
        ("--spec", args.spec.is_some()),
        ("--baseline", args.baseline.is_some()),
        ("--candidate", args.candidate.is_some()),
        ("--page", !args.pages.is_empty()),
        ("--pages", args.pages_file.is_some()),
        ("--viewport", !args.viewports.is_empty()),
        ("--mask", !args.masks.is_empty()),
        ("--ready-selector", args.ready_selector.is_some()),
        ("--viewport-only", args.viewport_only),
        ("--jobs", args.jobs.is_some()),
        ("--judge", args.judge.is_some()),
        ("--login", args.login.login.is_some()),
        ("--storage-state", args.login.storage_state.is_some()),
        ("--connect", args.browser.connect.is_some()),
        ("--retries", args.retries.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect()
}

/// The thresholds the flags set.
fn thresholds(args: &CheckArgs) -> ThresholdFlags {
    ThresholdFlags {
        threshold: args.threshold,
        delta_e: args.delta_e,
        max_diff_pixels: args.max_diff_pixels,
        max_diff_ratio: args.max_diff_ratio,
    }
}

/// `retrace check approve`: the candidate's shots stored as the baseline.
fn approve(plan: &CheckPlan, browser: retrace_runner::BrowserConfig) -> anyhow::Result<Outcome> {
    let written = retrace_runner::runtime()
        .context("cannot start the async runtime")?
        .block_on(plan.approve(browser))?;
    for path in &written {
        out!("stored {}", path.display());
    }
    Ok(Outcome::Pass)
}
