//! `retrace check --display :N`: a desktop window instead of pages. Each side is a run of an
//! application (`--app` for both, or `--baseline-app` / `--candidate-app`, each with
//! `--baseline-env` / `--candidate-env`), brought to the same state by the same `--flow`
//! (replayed with no model), then captured and compared: pixels, then the accessibility tree.
//! The flags become a runner job; the runner wires, this module prints.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use anyhow::bail;
use retrace_protocol::events::Events;
use retrace_report::ConsoleSink;
use retrace_report::console::ConsoleView;
use retrace_report::suite::ReportKind;
use retrace_report::suite::check_tests::CheckTests;
use retrace_runner::desktop_check::WindowSide;
use retrace_runner::desktop_check::run_window_check_job;
use retrace_runner::desktop_check_request::ThresholdFlags;
use retrace_runner::desktop_check_request::WindowCheckRequest;

use super::check_login::LoginArgs;
use super::desktop_args::DesktopArgs;
use crate::outcome::Outcome;

/// The flags of a window check (with the desktop flags `--display`, `--app`, `--window`).
#[derive(Debug, clap::Args)]
pub struct WindowArgs {
    #[command(flatten)]
    pub desktop: DesktopArgs,
    /// A window check: the baseline's application command, in place of --app on that side.
    #[arg(long, value_name = "COMMAND")]
    pub baseline_app: Option<String>,
    /// A window check: the candidate's application command (another build), in place of
    /// --app on that side.
    #[arg(long, value_name = "COMMAND")]
    pub candidate_app: Option<String>,
    /// A window check: NAME=VALUE added to the baseline application's environment
    /// (repeatable).
    #[arg(long = "baseline-env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub baseline_env: Vec<(String, String)>,
    /// A window check: NAME=VALUE added to the candidate application's environment
    /// (repeatable), e.g. `GTK_THEME=Adwaita:dark`.
    #[arg(long = "candidate-env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub candidate_env: Vec<(String, String)>,
    /// A window check: the desktop trajectory both sides replay, with no model and all of
    /// replay's checks, before their windows are captured (default: captured as they start).
    /// Its parameters from --param, --params-file and RETRACE_PARAM_<NAME>.
    #[arg(long, value_name = "FLOW.json")]
    pub flow: Option<PathBuf>,
    /// A window check: let the flow's own app command start on a side no --app names.
    #[arg(long)]
    pub allow_app_commands: bool,
    /// A window check: the flow's replay checks the region hashes around each step too. By
    /// default it checks each step's element (AT-SPI: role, name, state) and not its pixels:
    /// pixels are what the check compares, with typed differences, once both sides are there
    /// (a dark theme would otherwise stop the candidate's flow at its first click). An
    /// application without accessibility always has its hashes checked.
    #[arg(long)]
    pub flow_hashes: bool,
    /// A window check: how long, in seconds, the flow's replay waits for a step's screen
    /// (default 10).
    #[arg(long, value_name = "SECONDS")]
    pub step_timeout: Option<f64>,
}

impl WindowArgs {
    /// Whether these flags ask for a window check.
    pub fn asked(&self) -> bool {
        self.desktop.display.is_some() || self.desktop.desktop
    }

    /// The window flags given without a display, by name.
    fn given(&self) -> Vec<&'static str> {
        [
            ("--app", self.desktop.app.is_some()),
            ("--window", self.desktop.window.is_some()),
            ("--baseline-app", self.baseline_app.is_some()),
            ("--candidate-app", self.candidate_app.is_some()),
            ("--baseline-env", !self.baseline_env.is_empty()),
            ("--candidate-env", !self.candidate_env.is_empty()),
            ("--flow", self.flow.is_some()),
            ("--allow-app-commands", self.allow_app_commands),
            ("--step-timeout", self.step_timeout.is_some()),
            ("--flow-hashes", self.flow_hashes),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// Refuses window flags on a page check.
    pub fn refuse_on_pages(&self) -> anyhow::Result<()> {
        if let Some(flag) = self.given().first() {
            bail!("{flag} is for a window check: add --display :N (or --desktop)");
        }
        Ok(())
    }
}

/// `NAME=VALUE`, NAME not empty.
fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() && !name.contains(char::is_whitespace) => {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!("expected NAME=VALUE, got {text:?}")),
    }
}

/// The desktop flags as given, for the rerun command.
fn target_words(args: &WindowArgs) -> Vec<String> {
    let mut words = Vec::new();
    let mut flag = |name: &str, value: &str| words.extend([name.to_owned(), value.to_owned()]);
    let desktop = &args.desktop;
    if let Some(display) = &desktop.display {
        flag("--display", display);
    }
    for (name, value) in [
        ("--app", &desktop.app),
        ("--baseline-app", &args.baseline_app),
        ("--candidate-app", &args.candidate_app),
        ("--window", &desktop.window),
    ] {
        if let Some(value) = value {
            flag(name, value);
        }
    }
    for (name, pairs) in [
        ("--baseline-env", &args.baseline_env),
        ("--candidate-env", &args.candidate_env),
    ] {
        for (key, value) in pairs {
            flag(name, &format!("{key}={value}"));
        }
    }
    if let Some(flow) = &args.flow {
        flag("--flow", &flow.display().to_string());
    }
    for (flag, given) in [
        ("--allow-app-commands", args.allow_app_commands),
        ("--flow-hashes", args.flow_hashes),
    ] {
        if given {
            words.push(flag.to_owned());
        }
    }
    if desktop.desktop {
        words.push("--desktop".to_owned());
    }
    words
}

/// What a window check takes from `retrace check`'s flags besides its own.
pub struct WindowRun<'a> {
    /// Its own flags.
    pub window: &'a WindowArgs,
    /// The page check's flags that were given, by name (refused).
    pub page_flags: Vec<&'static str>,
    /// The thresholds the flags set.
    pub thresholds: ThresholdFlags,
    /// `--param`, `--secret`, `--params-file` (for the flow).
    pub login: &'a LoginArgs,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--json`.
    pub json: bool,
    /// `--report`.
    pub report: &'a [ReportKind],
}

/// Runs a window check (`window.asked()`).
pub fn run(args: WindowRun<'_>) -> anyhow::Result<Outcome> {
    let window = args.window;
    if let Some(flag) = args.page_flags.first() {
        bail!("{flag} is for pages: a window check (--display) compares one window");
    }
    let Some(desktop) = window.desktop.config(None)? else {
        bail!("a window check needs --display :N or --desktop");
    };
    let side = |app: &Option<String>, env: &[(String, String)]| WindowSide {
        app: app.clone(),
        env: env.to_vec(),
    };
    let request = WindowCheckRequest {
        desktop,
        baseline: side(&window.baseline_app, &window.baseline_env),
        candidate: side(&window.candidate_app, &window.candidate_env),
        flow: window.flow.clone(),
        params: args.login.parameters.params.clone(),
        secret: args.login.parameters.secret.clone(),
        params_file: args.login.params_file.clone(),
        allow_app_commands: window.allow_app_commands,
        flow_hashes: window.flow_hashes,
        step_timeout: window.step_timeout,
        thresholds: args.thresholds,
        target_words: target_words(window),
        out: args.out,
    };
    let job = request.job(&|name| std::env::var(name).ok())?;
    let out_dir = job.check.out_dir.clone();
    let tests = Arc::new(CheckTests::new());
    let mut events = Events::none().with(tests.clone());
    if !args.json {
        let secrets = job.parameters.secrets();
        events.subscribe(ConsoleSink::to_writer_for(
            ConsoleView::Check,
            crate::output::stdout_writer(),
            secrets,
        ));
    }
    let result = retrace_runner::runtime()
        .context("cannot start the async runtime")?
        .block_on(run_window_check_job(job, &events))?;
    let written =
        crate::suite_reports::write(&tests.report(None, &out_dir), args.report, &out_dir)?;
    let json = args
        .json
        .then(|| serde_json::to_string(&result))
        .transpose()?;
    super::check_end::finish(json, &written, result.verdict())
}

#[cfg(test)]
mod tests {
    use super::parse_env;

    #[test]
    fn an_environment_variable_is_name_equals_value() {
        assert_eq!(
            parse_env("GTK_THEME=Adwaita:dark"),
            Ok(("GTK_THEME".into(), "Adwaita:dark".into()))
        );
        assert_eq!(parse_env("EMPTY="), Ok(("EMPTY".into(), String::new())));
        for bad in ["=x", "NOEQUALS", "A B=c"] {
            assert!(parse_env(bad).unwrap_err().contains("NAME=VALUE"), "{bad}");
        }
    }
}
