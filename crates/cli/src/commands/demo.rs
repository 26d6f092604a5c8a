//! `retrace demo`: the main job on a fresh machine with no API key. The bundled demo app, the
//! bundled recording of its demo flow, replayed on the layout it was recorded on and on `v2`
//! (a moved control repaired, a changed one caught). The demo itself is the runner's
//! ([`retrace_runner::demo`]); this prints it.

use std::path::PathBuf;

use retrace_protocol::events::Events;
use retrace_protocol::events::SessionReport;
use retrace_report::ConsoleSink;
use retrace_runner::demo::Demo;
use retrace_runner::demo::PHASES;
use retrace_runner::demo_app::Latency;
use serde_json::json;

use super::browser_args::BrowserArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Run the demo: replay a recorded sign-in and new draft invoice on the bundled demo app,
/// then on its `v2` layout.
///
/// On `v2`, watch replay repair a moved button and catch a changed one.
///
/// Needs Chromium (Debian's `chromium-headless-shell` or `chromium`, or `--chromium`); no API
/// key, no network.
/// Evidence (event logs, the replayed file, final screenshots) goes to `--out`.
///
/// Exit codes: 0 the demo behaved as expected, 1 it did not, 2 error.
///
/// Examples:
///   retrace demo
///   retrace demo --latency-ms 100..1500 --out /tmp/retrace-demo
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct DemoArgs {
    /// Where to write the evidence.
    #[arg(long, default_value = "retrace-evidence")]
    pub out: PathBuf,
    /// The demo app's response latency, `MS` or a random range `A..B` (ms).
    #[arg(long, default_value = "200..800", value_parser = |s: &str| s.parse::<Latency>())]
    pub latency_ms: Latency,
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// Print one JSON document instead of live lines.
    #[arg(long)]
    pub json: bool,
    /// Re-record the bundled recording into this file (for maintainers, after the demo app
    /// changed) instead of running the demo.
    #[arg(long, hide = true, value_name = "FILE")]
    pub rerecord: Option<PathBuf>,
}

/// Runs the demo.
pub fn run(args: DemoArgs) -> anyhow::Result<Outcome> {
    let runtime = retrace_runner::runtime()?;
    if let Some(path) = &args.rerecord {
        runtime.block_on(retrace_runner::demo::rerecord(
            &args.browser.chromium.executable(),
            path,
        ))?;
        out!("recorded the demo flow to {}", path.display());
        return Ok(Outcome::Pass);
    }
    let demo = runtime.block_on(Demo::start(&args.out, args.latency_ms.clone()))?;
    if !args.json {
        out!(
            "retrace demo: the demo app runs at {} (latency {} ms)",
            demo.url(),
            args.latency_ms
        );
        out!(
            "replaying {} (recorded once by an agent; no model is called now)\n",
            demo.recording().display()
        );
    }
    let mut reports: Vec<SessionReport> = Vec::new();
    for (title, layout) in PHASES {
        let mut events = Events::none();
        if !args.json {
            out!("{title}");
            events.subscribe(ConsoleSink::to_writer(
                crate::output::stdout_writer(),
                retrace_runner::demo::demo_parameters().secrets(),
            ));
        }
        let mut job = demo.job(layout, &args.browser.chromium.executable());
        job.browser = args.browser.config(job.browser.size);
        let report = runtime.block_on(retrace_runner::run_replay(&job, &events));
        if !args.json {
            for line in retrace_report::summary::render(&report) {
                out!("{line}");
            }
            out!();
        }
        reports.push(report);
    }
    let evidence = demo.evidence().to_owned();
    let recording = demo.recording().to_owned();
    runtime.block_on(demo.shutdown())?;
    let expected = match reports.as_slice() {
        [v1, v2] => retrace_runner::demo::judge(v1, v2),
        _ => Err("the demo did not run both layouts".into()),
    };
    if args.json {
        let document = json!({
            "evidence": evidence,
            "as_expected": expected.is_ok(),
            "problem": expected.as_ref().err(),
            "phases": PHASES.iter().zip(&reports).map(|((_, layout), report)| json!({
                "layout": layout,
                "session": report,
            })).collect::<Vec<_>>(),
        });
        out!("{document}");
    } else {
        for ((title, _), report) in PHASES.iter().zip(&reports) {
            let files: Vec<String> = report
                .evidence
                .iter()
                .map(|path| path.display().to_string())
                .collect();
            out!("{title}: {}", files.join(", "));
        }
        out!(
            "the replayed file with its updated metadata: {}",
            recording.display()
        );
        match &expected {
            Ok(()) => out!(
                "\ndemo OK: the recording replayed without a model, the moved button was repaired, the changed button was caught."
            ),
            Err(problem) => out!("\ndemo NOT as expected: {problem}"),
        }
    }
    Ok(if expected.is_ok() {
        Outcome::Pass
    } else {
        Outcome::CheckFailed
    })
}
