//! A window check as `retrace check --display` asks for it (flags, as values of this crate's
//! own types) made into the job [`crate::desktop_check`] runs: each side's application, the
//! flow's parameters (read as `retrace run` reads them), how the flow replays, the
//! thresholds and the rerun command.

use std::path::PathBuf;
use std::time::Duration;

use retrace_check::CheckSpec;
use retrace_check::Thresholds;
use retrace_check::WindowCheck;
use retrace_replay::ReplaySettings;
use retrace_report::suite::check_tests::EVENTS_LOG;

use crate::desktop::DesktopConfig;
use crate::desktop_check::WindowCheckJob;
use crate::desktop_check::WindowSide;
use crate::error::RunnerError;

/// The thresholds given on the command line (`None`: the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThresholdFlags {
    /// `--threshold`: pixelmatch's per-pixel colour threshold.
    pub threshold: Option<f64>,
    /// `--delta-e`: the colour distance a styling difference needs.
    pub delta_e: Option<f64>,
    /// `--max-diff-pixels`.
    pub max_diff_pixels: Option<u64>,
    /// `--max-diff-ratio`.
    pub max_diff_ratio: Option<f64>,
}

impl ThresholdFlags {
    fn thresholds(&self) -> Thresholds {
        let mut thresholds = Thresholds::default();
        for (slot, value) in [
            (&mut thresholds.pixel_threshold, self.threshold),
            (&mut thresholds.delta_e, self.delta_e),
            (&mut thresholds.max_diff_ratio, self.max_diff_ratio),
        ] {
            if let Some(value) = value {
                *slot = value;
            }
        }
        if let Some(pixels) = self.max_diff_pixels {
            thresholds.max_diff_pixels = pixels;
        }
        thresholds
    }
}

/// A window check as asked for.
#[derive(Debug, Clone)]
pub struct WindowCheckRequest {
    /// The display, the window, its timeout and the application both sides start (`--app`).
    pub desktop: DesktopConfig,
    /// The baseline's own application command and environment (`--baseline-app`,
    /// `--baseline-env`); a side without a command starts `--app`.
    pub baseline: WindowSide,
    /// The candidate's, likewise.
    pub candidate: WindowSide,
    /// The flow both sides replay before they are captured.
    pub flow: Option<PathBuf>,
    /// `--param NAME=VALUE` pairs for the flow.
    pub params: Vec<(String, String)>,
    /// `--secret NAME`: parameters whose values are never shown.
    pub secret: Vec<String>,
    /// `--params-file`.
    pub params_file: Option<PathBuf>,
    /// Whether the flow's own app command may start.
    pub allow_app_commands: bool,
    /// Whether the flow's replay checks region hashes too (`--flow-hashes`).
    pub flow_hashes: bool,
    /// The flow's step timeout in seconds (`--step-timeout`).
    pub step_timeout: Option<f64>,
    /// The thresholds given.
    pub thresholds: ThresholdFlags,
    /// The desktop flags as given, for the rerun command.
    pub target_words: Vec<String>,
    /// The evidence folder (`--out`).
    pub out: Option<PathBuf>,
}

impl WindowCheckRequest {
    /// The job, parameters read through `env` (`RETRACE_PARAM_<NAME>`); an error for a flow
    /// whose parameters cannot be had or a step timeout that is no duration.
    pub fn job(self, env: &dyn Fn(&str) -> Option<String>) -> Result<WindowCheckJob, RunnerError> {
        let mut desktop = self.desktop;
        let app = desktop.app.take();
        let side = |own: WindowSide| WindowSide {
            app: own.app.or_else(|| app.clone()),
            env: own.env,
        };
        let (parameters, params_words) = match &self.flow {
            Some(flow) => crate::check_login::login_parameters(
                flow,
                &self.params,
                &self.secret,
                self.params_file.as_deref(),
                env,
            )?,
            None => Default::default(),
        };
        let mut settings = ReplaySettings {
            visual: self.flow_hashes,
            ..ReplaySettings::default()
        };
        if let Some(seconds) = self.step_timeout {
            settings.step_timeout = Duration::try_from_secs_f64(seconds).map_err(|_| {
                RunnerError::Input(format!(
                    "--step-timeout {seconds}: expected a number of seconds, 0 or more"
                ))
            })?;
        }
        let thresholds = self.thresholds.thresholds();
        let out_dir = self.out.unwrap_or_else(|| CheckSpec::default().out_dir);
        let check = WindowCheck {
            window: desktop.window.clone().unwrap_or_default(),
            flow: self.flow.clone(),
            rerun: retrace_check::window_rerun_command(
                &self.target_words,
                &thresholds,
                &params_words,
            ),
            thresholds,
            out_dir: out_dir.clone(),
        };
        Ok(WindowCheckJob {
            desktop,
            baseline: side(self.baseline),
            candidate: side(self.candidate),
            flow: self.flow,
            parameters,
            allow_app_commands: self.allow_app_commands,
            settings,
            check,
            events_log: Some(out_dir.join(EVENTS_LOG)),
        })
    }
}
