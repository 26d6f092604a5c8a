//! `retrace run`: replays a suite of trajectory files in parallel and reports on them. The
//! work is `retrace_runner::suite`'s; this module parses flags, watches Ctrl-C, subscribes the
//! progress display and writes the reports.

use std::path::PathBuf;

use retrace_protocol::events::Events;
use retrace_protocol::events::Shard;
use retrace_protocol::events::SuiteReport;
use retrace_runner::desktop::DesktopConfig;
use retrace_runner::suite;
use retrace_runner::suite::Interrupt;
use retrace_runner::suite::Schedule;
use retrace_runner::suite::SuiteJob;
use retrace_runner::suite::SuiteRequest;
use retrace_runner::suite::SuiteVerdict;
use retrace_runner::suite::config::Defaults;
use retrace_runner::suite::shard::ShardMode;

use super::browser_args::BrowserArgs;
use super::browser_args::parse_size;
use super::replay::ParameterArgs;
use super::shard_args::ShardArgs;
use crate::outcome::Outcome;
use crate::output::out;
use crate::progress::SuiteProgress;
use retrace_report::suite::ReportKind;

/// Replay a suite of trajectory files in parallel, in one headless Chromium, and report.
///
/// PATHS are trajectory files, folders (searched recursively for *.json trajectories; other
/// JSON files are left out, hidden folders skipped) and globs; default: .retrace_cache/.
/// Settings come from the suite file retrace.toml (per-file sections by path or glob), then
/// RETRACE_* variables (RETRACE_URL, RETRACE_JOBS...), then flags, which apply to every file.
/// Secret parameters come from the environment (RETRACE_PARAM_<NAME>) or --param only.
///
/// A failed check fails its test and is never retried; an infrastructure error (browser
/// crash, page that does not load) is retried up to --retries times, and a test that then
/// passes is reported flaky. Run-time state goes to .retrace_state/ in the suite file's
/// folder (without one, where `retrace replay` keeps it: the current folder for a file inside
/// it, else the file's own folder), not into the trajectories (unless --write-metadata);
/// files marked invalid are skipped.
///
/// --shard I/N runs the I-th of N disjoint parts of the suite (1-based), so N CI jobs run
/// every test once; a test's shard is FNV-1a 64 of its path relative to the suite root
/// (`/`-separated) mod N, or with --shard-mode slice its place in the sorted list mod N.
/// Without --shard the shard comes from GitLab (CI_NODE_INDEX 1-based, CI_NODE_TOTAL),
/// CircleCI (CIRCLE_NODE_INDEX 0-based, CIRCLE_NODE_TOTAL) or a Kubernetes Indexed Job
/// (JOB_COMPLETION_INDEX 0-based, with RETRACE_SHARD_TOTAL). Tests of other shards are not
/// run nor reported; reports are named report-shard-I-of-N.json (junit, html alike) and
/// `retrace report merge` adds them up.
///
/// Exit codes: 0 every test passed (flaky included), 1 a test failed, 2 a test could not
/// run, the suite was interrupted (Ctrl-C), or the input is bad.
///
/// Examples:
///   retrace run flows/ --url http://127.0.0.1:8080/ --param username=demo --jobs 4
///   RETRACE_PARAM_PASSWORD=s3cret retrace run --suite retrace.toml --tag smoke --report junit,json
///   retrace run 'flows/**/login*.json' --list
///   retrace run flows/ --shard 2/4 --report junit,json --out reports/
///   AWS_ENDPOINT_URL=http://127.0.0.1:9000 retrace run s3://qa/suite/ --jobs 4
///   retrace run flows/ --url http://127.0.0.1:8080/ --display :99 --allow-app-commands
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// Trajectory files, folders and globs (default: .retrace_cache/); or one suite in
    /// object storage, `s3://bucket/prefix/` (S3 settings from the AWS_* variables,
    /// AWS_ENDPOINT_URL for S3-compatible stores), whose run state then goes to
    /// `s3://bucket/prefix/.retrace_state/` as one record per run.
    pub paths: Vec<PathBuf>,
    /// The suite file (default: ./retrace.toml when it exists).
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// The page to open before each replay (overrides the suite file).
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    pub parameters: ParameterArgs,
    /// A TOML file of `NAME = "VALUE"` parameter values (no secrets).
    #[arg(long, value_name = "FILE")]
    pub params_file: Option<PathBuf>,
    /// Viewport size `WxH` for every test; default: each file's recorded size.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// The largest Hamming distance that passes a visual check (default 10).
    #[arg(long)]
    pub threshold: Option<u32>,
    /// How to wait before each step: `visual`, `stable` or `fixed:SECONDS`.
    #[arg(long)]
    pub wait: Option<String>,
    /// The longest wait for one step's screen, in seconds (default 10).
    #[arg(long)]
    pub step_timeout: Option<f64>,
    /// Tests run at once (default: twice the cores, at most 8).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Attempts after an infrastructure error (default 0).
    #[arg(long)]
    pub retries: Option<u32>,
    /// Only tests whose path matches this regular expression.
    #[arg(long, value_name = "PATTERN")]
    pub grep: Option<String>,
    /// Only tests with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    #[command(flatten)]
    pub sharding: ShardArgs,
    /// Print what would run, with its url (and, when sharded, every test's shard), and exit.
    #[arg(long)]
    pub list: bool,
    /// Also write each replay's result into its trajectory's metadata, as askui does.
    #[arg(long)]
    pub write_metadata: bool,
    /// Run files marked invalid instead of skipping them.
    #[arg(long)]
    pub include_invalid: bool,
    /// Reports to write into --out, comma-separated: html, junit, json (default: html on a
    /// terminal, none otherwise).
    #[arg(long, value_delimiter = ',', value_name = "KINDS", value_parser = crate::suite_reports::parse_kind)]
    pub report: Option<Vec<ReportKind>>,
    /// The reports' folder (also holds each test's evidence).
    #[arg(long, value_name = "DIR", default_value = "retrace-report")]
    pub out: PathBuf,
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// The X11 display files recorded on a desktop (`metadata.target`) replay on (default:
    /// `$DISPLAY`), one at a time, beside the browser files.
    #[arg(long, value_name = ":N")]
    pub display: Option<String>,
    /// Start the application commands desktop files name (`metadata.target.app`); without
    /// it, a file naming one fails to start rather than running a command from a file.
    #[arg(long)]
    pub allow_app_commands: bool,
    /// Print the suite report as one JSON document instead of progress lines.
    #[arg(long)]
    pub json: bool,
}

/// Runs the suite and prints what happened.
pub fn run(args: RunArgs) -> anyhow::Result<Outcome> {
    let runtime = retrace_runner::runtime()?;
    // A suite in object storage is read into a private folder and run from there; its run
    // state goes back to the store.
    let download = tempfile::Builder::new()
        .prefix("retrace-suite-")
        .tempdir()?;
    let remote = suite::remote::remote_path(&args.paths);
    let (paths, suite_file, state_store) = match remote {
        Some(url) => {
            let (suite_file, store) = runtime.block_on(suite::remote::fetch_suite(
                url,
                args.paths.len(),
                args.suite.is_some(),
                download.path(),
            ))?;
            (
                vec![download.path().to_path_buf()],
                Some(suite_file),
                Some(store),
            )
        }
        None => (
            args.paths.clone(),
            suite::config::suite_file_path(args.suite.as_deref()),
            None,
        ),
    };
    let request = SuiteRequest {
        paths,
        suite_file,
        flags: Defaults {
            url: args.url.clone(),
            size: args.size.map(|(width, height)| format!("{width}x{height}")),
            threshold: args.threshold,
            wait: args.wait.clone(),
            step_timeout: args.step_timeout,
            jobs: args.jobs,
            retries: args.retries,
        },
        params_file: args.params_file.clone(),
        params: args.parameters.params.clone(),
        secrets: args.parameters.secret.clone(),
        grep: args.grep.clone(),
        tags: args.tags.clone(),
        shard: args.sharding.resolve()?,
    };
    let mut loaded = suite::load_suite(&request, &|name| std::env::var(name).ok())?;
    if let Some(url) = remote {
        suite::remote::name_after(&mut loaded, url);
    }
    if args.list {
        print_list(&loaded)?;
        return Ok(Outcome::Pass);
    }
    let kinds = match &args.report {
        Some(kinds) => kinds.clone(),
        None if crate::output::stdout_is_terminal() && !args.json => vec![ReportKind::Html],
        None => Vec::new(),
    };
    let evidence = !kinds.is_empty();
    let job = SuiteJob {
        schedule: Schedule {
            jobs: loaded.jobs,
            retries: loaded.retries,
            write_metadata: args.write_metadata,
            out_dir: evidence.then(|| args.out.clone()),
            desktop: DesktopConfig {
                display: args.display.clone(),
                ..DesktopConfig::default()
            },
            allow_app_commands: args.allow_app_commands,
        },
        suite: loaded,
        include_invalid: args.include_invalid,
        browser: args.browser.config((0, 0)),
        state_store,
    };
    let mut events = Events::none();
    if !args.json {
        events.subscribe(SuiteProgress::new(
            job.suite.plans.len(),
            crate::output::stdout_is_terminal(),
        ));
    }
    let report = runtime.block_on(async {
        let interrupt = Interrupt::new();
        let watcher = crate::signals::watch(&interrupt);
        let report = suite::run_suite(job, &events, &interrupt).await;
        watcher.abort();
        report
    });
    let written = crate::suite_reports::write(&report, &kinds, &args.out)?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_summary(&report, &written)?;
    }
    Ok(match suite::verdict(&report) {
        SuiteVerdict::Passed => Outcome::Pass,
        SuiteVerdict::Failed => Outcome::CheckFailed,
        SuiteVerdict::Error => Outcome::Error,
    })
}

/// `--list`: each test with its url; when sharded, a line naming the shard, then every test
/// the filters kept with its shard, this shard's marked `run here` with their urls.
fn print_list(loaded: &suite::LoadedSuite) -> anyhow::Result<()> {
    let describe = |plan: &suite::plan::TestPlan| {
        let target = match (&plan.problem, &plan.url) {
            (Some(problem), _) => format!("cannot run: {problem}"),
            (None, Some(url)) => url.clone(),
            (None, None) => String::new(),
        };
        let tags = if plan.tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", plan.tags.join(", "))
        };
        format!("{target}{tags}")
    };
    let Some(selection) = &loaded.shard else {
        for plan in &loaded.plans {
            out!("{}  {}", plan.id, describe(plan));
        }
        return Ok(());
    };
    let Shard { index, total } = selection.shard;
    let mode = match selection.mode {
        ShardMode::Hash => "hash",
        ShardMode::Slice => "slice",
    };
    out!(
        "shard {index}/{total} by {mode} (from {}): {} of {} tests",
        selection.source,
        loaded.plans.len(),
        loaded.assignment.len()
    );
    let mut mine = loaded.plans.iter();
    for (id, shard) in &loaded.assignment {
        if *shard == index {
            let detail = mine.next().map(describe).unwrap_or_default();
            out!("{id}  shard {shard}/{total}  run here  {detail}");
        } else {
            out!("{id}  shard {shard}/{total}");
        }
    }
    Ok(())
}

fn print_summary(report: &SuiteReport, written: &[PathBuf]) -> anyhow::Result<()> {
    let totals = report.totals;
    out!(
        "{} tests: {} passed, {} failed, {} error, {} flaky, {} skipped in {:.1} s{}",
        totals.tests,
        totals.passed,
        totals.failed,
        totals.error,
        totals.flaky,
        totals.skipped,
        report.wall_ms as f64 / 1000.0,
        if report.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    );
    for path in written {
        out!("report: {}", path.display());
    }
    Ok(())
}
