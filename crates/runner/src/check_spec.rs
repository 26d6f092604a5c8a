//! `retrace check`'s spec from the command line: the defaults, the suite file's `[timeouts]`,
//! a spec file, then the flags ([`CheckFlags`]), each over the one before, validated once
//! ([`CheckPlan::from_flags`]).

use std::path::Path;
use std::path::PathBuf;

use retrace_check::CheckSpec;

use crate::browser::BrowserConfig;
use crate::failure::Failure;
use crate::parameters::Parameters;
use crate::suite::config::SuiteFile;
use crate::suite::config::suite_file_path;
use crate::suite::timeouts::SuiteTimeouts;

/// A viewport, `WIDTHxHEIGHT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport(retrace_check::Viewport);

impl std::str::FromStr for Viewport {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse().map(Viewport)
    }
}

/// When the model judge is asked: `noise`, `always` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeWhen(retrace_check::JudgeWhen);

impl std::str::FromStr for JudgeWhen {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse().map(JudgeWhen)
    }
}

/// What the flags of `retrace check` say; `None` (or empty): the flag was not given.
#[derive(Debug, Clone, Default)]
pub struct CheckFlags {
    /// A JSON spec file.
    pub spec: Option<PathBuf>,
    /// The suite file whose `[timeouts]` apply (default ./retrace.toml when there is one).
    pub suite: Option<PathBuf>,
    /// The baseline: a base URL or a folder of stored shots.
    pub baseline: Option<String>,
    /// The candidate's base URL.
    pub candidate: Option<String>,
    /// Pages, paths under both base URLs.
    pub pages: Vec<String>,
    /// A file of pages, one a line.
    pub pages_file: Option<PathBuf>,
    /// Viewports.
    pub viewports: Vec<Viewport>,
    /// Pixel matching threshold.
    pub threshold: Option<f64>,
    /// Colour distance (CIEDE2000) under which pixels count as equal.
    pub delta_e: Option<f64>,
    /// Differing pixels that still pass.
    pub max_diff_pixels: Option<u64>,
    /// Differing pixels, as a share of the page, that still pass.
    pub max_diff_ratio: Option<f64>,
    /// Retries of a page that errs.
    pub retries: Option<u32>,
    /// Waits before the retries, ms.
    pub backoff_ms: Option<Vec<u64>>,
    /// One time limit for navigation, readiness and stability, ms.
    pub timeout_ms: Option<u64>,
    /// CSS selectors painted over on both sides.
    pub masks: Vec<String>,
    /// A selector every page waits for.
    pub ready_selector: Option<String>,
    /// Capture the viewport only, not the full page.
    pub viewport_only: bool,
    /// Pages checked at once.
    pub jobs: Option<usize>,
    /// Where evidence goes.
    pub out: Option<PathBuf>,
    /// The Chromium executable launched.
    pub chromium: Option<PathBuf>,
    /// When the model judge is asked.
    pub judge: Option<JudgeWhen>,
    /// Passed to the judge as reference.
    pub context: Option<String>,
    /// A judge's PASS under this confidence is an ERROR.
    pub min_confidence: Option<u8>,
    /// The share of differing pixels above which the judge may not overrule them.
    pub judge_ceiling: Option<f64>,
    /// How long the judge may take, ms.
    pub model_timeout_ms: Option<u64>,
    /// A login trajectory replayed on each side first.
    pub login: Option<PathBuf>,
    /// Where the login flow starts on each side.
    pub login_path: Option<String>,
    /// A Playwright storageState file loaded into each side instead.
    pub storage_state: Option<PathBuf>,
}

/// A check's spec, merged and validated.
#[derive(Debug, Clone)]
pub struct CheckPlan {
    spec: CheckSpec,
}

/// Overwrites `slot` with `value` when a flag gave one.
fn set<T: Clone>(slot: &mut T, value: &Option<T>) {
    if let Some(value) = value {
        *slot = value.clone();
    }
}

/// `spec` with the time limits of the suite file (`named`, else ./retrace.toml when there is
/// one) in place of its own.
fn with_suite_timeouts(mut spec: CheckSpec, named: Option<&Path>) -> Result<CheckSpec, Failure> {
    let Some(path) = suite_file_path(named) else {
        return Ok(spec);
    };
    let suite = SuiteFile::load(&path).map_err(Failure::of)?;
    let limits = &suite.timeouts;
    let timeouts = &mut spec.timeouts;
    for (slot, seconds) in [
        (&mut timeouts.navigation_ms, limits.navigation),
        (&mut timeouts.readiness_ms, limits.readiness),
        (&mut timeouts.stability_ms, limits.stability),
        (&mut timeouts.model_ms, limits.model),
        (&mut timeouts.page_ms, limits.page),
        (&mut timeouts.run_ms, limits.run),
    ] {
        if let Some(seconds) = seconds {
            *slot = SuiteTimeouts::millis(seconds);
        }
    }
    Ok(spec)
}

/// The flags' settings laid over `spec`.
fn apply_flags(spec: &mut CheckSpec, flags: &CheckFlags) -> Result<(), Failure> {
    set(&mut spec.baseline, &flags.baseline);
    set(&mut spec.candidate, &flags.candidate);
    if let Some(file) = &flags.pages_file {
        spec.add_pages(retrace_check::load_pages(file).map_err(Failure::of)?);
        spec.pages.extend(flags.pages.iter().cloned());
    } else if !flags.pages.is_empty() {
        spec.pages = flags.pages.clone();
    }
    if !flags.viewports.is_empty() {
        spec.viewports = flags.viewports.iter().map(|v| v.0).collect();
    }
    let t = &mut spec.thresholds;
    set(&mut t.pixel_threshold, &flags.threshold);
    set(&mut t.delta_e, &flags.delta_e);
    set(&mut t.max_diff_pixels, &flags.max_diff_pixels);
    set(&mut t.max_diff_ratio, &flags.max_diff_ratio);
    set(&mut spec.retry.retries, &flags.retries);
    set(&mut spec.retry.backoff_ms, &flags.backoff_ms);
    if let Some(ms) = flags.timeout_ms {
        spec.timeouts.navigation_ms = ms;
        spec.timeouts.readiness_ms = ms;
        spec.timeouts.stability_ms = ms;
    }
    spec.capture.masks.extend(flags.masks.iter().cloned());
    if flags.ready_selector.is_some() {
        spec.capture.ready_selector = flags.ready_selector.clone();
    }
    if flags.viewport_only {
        spec.capture.full_page = false;
    }
    set(&mut spec.jobs, &flags.jobs);
    set(&mut spec.out_dir, &flags.out);
    set(&mut spec.chromium, &flags.chromium);
    set(&mut spec.judge.when, &flags.judge.map(|when| when.0));
    if flags.context.is_some() {
        spec.judge.context = flags.context.clone();
    }
    set(&mut spec.judge.min_confidence, &flags.min_confidence);
    set(&mut spec.judge.ceiling_ratio, &flags.judge_ceiling);
    set(&mut spec.timeouts.model_ms, &flags.model_timeout_ms);
    if flags.login.is_some() || flags.storage_state.is_some() {
        spec.login.flow = flags.login.clone();
        spec.login.storage_state = flags.storage_state.clone();
    }
    if flags.login_path.is_some() {
        spec.login.start_path = flags.login_path.clone();
    }
    Ok(())
}

impl CheckPlan {
    /// The spec: the defaults, the suite file's `[timeouts]`, the spec file, then the flags;
    /// a bad value is named with the spec file, when there is one.
    pub fn from_flags(flags: &CheckFlags) -> Result<CheckPlan, Failure> {
        let base = with_suite_timeouts(CheckSpec::default(), flags.suite.as_deref())?;
        let mut spec = match &flags.spec {
            Some(path) => retrace_check::load_spec_over(path, &base).map_err(Failure::of)?,
            None => base,
        };
        apply_flags(&mut spec, flags)?;
        if spec.baseline.is_empty() || spec.candidate.is_empty() {
            return Err(Failure::msg(
                "give --baseline URL and --candidate URL (or a --spec file naming them)",
            ));
        }
        spec.validate()
            .map_err(|mut error| {
                error.file = error.file.take().or_else(|| flags.spec.clone());
                error
            })
            .map_err(Failure::of)?;
        Ok(CheckPlan { spec })
    }

    /// The values of the login flow's parameters (`--param`, `--secret`, `--params-file`,
    /// `RETRACE_PARAM_*` through `env`), read as `retrace run` reads them; the rerun command
    /// names them too. No flow: none.
    pub fn login_parameters(
        &mut self,
        pairs: &[(String, String)],
        secret: &[String],
        params_file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Parameters, Failure> {
        let Some(flow) = &self.spec.login.flow else {
            self.spec.login.rerun_params = Vec::new();
            return Ok(Parameters::default());
        };
        let (parameters, rerun) =
            crate::check_login::login_parameters(flow, pairs, secret, params_file, env)
                .map_err(Failure::of)?;
        self.spec.login.rerun_params = rerun;
        Ok(parameters)
    }

    /// The spec.
    pub fn spec(&self) -> &CheckSpec {
        &self.spec
    }

    /// The browser launched when none is connected to: the spec's Chromium (a spec file may
    /// name it).
    pub fn launched_browser(&self) -> BrowserConfig {
        BrowserConfig::launch(self.spec.chromium.clone(), (0, 0))
    }

    /// Whether a model judge is asked.
    pub fn judged(&self) -> bool {
        self.spec.judge.when != retrace_check::JudgeWhen::Off
    }

    /// Where evidence and reports go.
    pub fn out_dir(&self) -> &Path {
        &self.spec.out_dir
    }

    /// Stores the candidate's shots as the baseline, in the baseline's folder; the files
    /// written.
    pub async fn approve(&self, browser: BrowserConfig) -> Result<Vec<PathBuf>, Failure> {
        let Some(dir) = self.spec.stored_baseline() else {
            return Err(Failure::msg(format!(
                "`retrace check approve` stores shots in a folder: give --baseline DIR, not the URL {}",
                self.spec.baseline
            )));
        };
        crate::check::approve_check_baseline(&self.spec, dir, browser)
            .await
            .map_err(Failure::of)
    }
}
