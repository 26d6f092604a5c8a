//! `retrace record`: a person's demonstration in a headed Chromium becomes a trajectory.

use std::path::PathBuf;

use anyhow::Context;
use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_report::JsonLinesSink;
use retrace_runner::Parameters;
use retrace_runner::demonstrate::RecordBrowser;
use retrace_runner::demonstrate::RecordJob;
use retrace_runner::desktop_record::DesktopRecordJob;
use retrace_runner::parameters::parse_pair;

use super::browser_args::parse_size;
use super::desktop_args::DesktopArgs;
use crate::outcome::Outcome;

/// Record a flow by doing it: open the page in a Chromium window, act in it, stop with
/// Ctrl-C (or close the window), and get a trajectory that `retrace replay` runs with no
/// model.
///
/// Clicks (left, right, middle, double, triple), typing, key chords and wheel turns are
/// recorded with the pointer in CSS pixels of the viewport, as replay acts; each step keeps
/// the hash of the screen region the person saw before acting and after, and the element
/// acted on. Keystrokes into one field become one `type` step (a backspace takes back a
/// character); pointer moves are dropped; wheel turns one way are merged.
///
/// Text typed into a password field (or a field whose label or name says password, token,
/// key or secret) is written as `{{name}}`, its value nowhere; `--param NAME=VALUE` turns
/// typed VALUE into `{{NAME}}`. The last line names the parameters a replay needs.
///
/// The window opens on $DISPLAY (or --display), or in a browser you run (--connect).
/// Exit codes: 0 written, 2 error.
///
/// Without --url, records on an X11 desktop instead (--display :N or --desktop, with --app
/// and --window as replay takes them): clicks, drags, wheel turns, typing and key chords on
/// the X server, points relative to the window, until Ctrl-C, SIGTERM or the window closes.
///
/// Examples:
///   retrace record --url http://127.0.0.1:8080/ --out .retrace_cache/login.json
///   retrace record --url https://example.com --out flow.json --param username=alice
///   retrace record --url http://127.0.0.1:8080/ --out flow.json --connect http://127.0.0.1:9222
///   retrace record --display :1 --app "xedit note.txt" --window xedit --out note.json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct RecordArgs {
    /// The page to open (without it: record on the desktop --display names).
    #[arg(long)]
    pub url: Option<String>,
    /// The trajectory file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// A value to record as a parameter, `NAME=VALUE` (repeatable): typed text equal to
    /// VALUE is written as `{{NAME}}`. Values are never written.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_pair)]
    pub params: Vec<(String, String)>,
    /// Viewport size in CSS pixels, `WIDTHxHEIGHT`: the recorded screen.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// With --url, the X display the browser window opens on (default: $DISPLAY); without
    /// it, the desktop to record.
    #[command(flatten)]
    pub desktop: DesktopArgs,
    /// With --url, record in a Chromium you already run with a debugging port (started with
    /// `--remote-debugging-port=9222`: `--connect http://127.0.0.1:9222`): the page opens in
    /// a new window of it, and the browser stays running when the recording ends.
    #[arg(long, value_name = "URL", requires = "url", conflicts_with_all = ["display", "desktop", "chromium"])]
    pub connect: Option<String>,
    /// The Chromium executable (a full browser with windows; default /usr/bin/chromium).
    #[arg(
        long = "chromium",
        value_name = "PATH",
        env = "RETRACE_RECORD_CHROMIUM"
    )]
    pub chromium: Option<PathBuf>,
    /// Write every event as JSON Lines to this file (parameter values redacted).
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
}

/// Records until Ctrl-C or the window closes, writes the file.
pub fn run(args: RecordArgs) -> anyhow::Result<Outcome> {
    let Some(url) = args.url.clone() else {
        let config = args
            .desktop
            .config(None)?
            .context("give --url or --display")?;
        let job = DesktopRecordJob {
            out: args.out.clone(),
            parameters: args.params.clone(),
        };
        return super::record_desktop::run(&job, &config, &record_events(&args)?);
    };
    for (flag, given) in [
        ("--app", args.desktop.app.is_some()),
        ("--window", args.desktop.window.is_some()),
    ] {
        if given {
            anyhow::bail!("{flag} is for recording a desktop: leave out --url");
        }
    }
    let browser = match args.connect.clone() {
        Some(endpoint) => RecordBrowser::Connect { endpoint },
        None => RecordBrowser::Launch {
            chromium: args
                .chromium
                .clone()
                .unwrap_or_else(|| PathBuf::from(retrace_runner::chromium_path::FULL_CHROMIUM)),
            display: match args.desktop.display.clone() {
                Some(display) => display,
                None => std::env::var("DISPLAY").context(
                    "no X display to open the browser window on: set DISPLAY or give \
                     --display :N (or record in your own browser with --connect URL)",
                )?,
            },
        },
    };
    let job = RecordJob {
        url,
        out: args.out.clone(),
        browser,
        size: args.size,
        parameters: args.params.clone(),
    };
    let events = record_events(&args)?;
    let runtime = retrace_runner::runtime()?;
    let stop = async {
        // No handler installed means no way to stop but closing the window.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    runtime.block_on(retrace_runner::demonstrate::record_demonstration(
        &job, stop, &events,
    ))?;
    Ok(Outcome::Pass)
}

/// The recording's event stream: the console, and the `--events` file when asked (parameter
/// values redacted from both).
fn record_events(args: &RecordArgs) -> anyhow::Result<Events> {
    let secrets = Parameters::new(args.params.clone(), Vec::new()).secrets();
    let mut events = Events::none().with(ConsoleSink::to_writer(
        crate::output::stdout_writer(),
        secrets.clone(),
    ));
    if let Some(path) = &args.events {
        let sink = JsonLinesSink::create(path, secrets)
            .with_context(|| format!("cannot write the events file {}", path.display()))?;
        events.subscribe(sink);
    }
    Ok(events)
}
