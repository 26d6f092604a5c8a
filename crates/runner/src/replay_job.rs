//! [`ReplayJob`]: one replay to run, with the checks made before any browser starts and the
//! sizes a file was recorded at; shared by the browser ([`crate::replay`]) and the desktop
//! ([`crate::desktop_run`]) replays.

use crate::browser::BrowserConfig;
use crate::desktop::DesktopConfig;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use retrace_replay::ReplaySettings;
use std::path::Path;
use std::path::PathBuf;

/// The viewport used when neither the user nor the file says.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 800);

/// One replay to run.
#[derive(Debug, Clone)]
pub struct ReplayJob {
    /// The trajectory file.
    pub file: PathBuf,
    /// The page to open before replaying.
    pub url: String,
    /// Parameter values.
    pub parameters: Parameters,
    /// The viewport; `None`: the size the file was recorded at, else [`DEFAULT_SIZE`].
    pub size: Option<(u32, u32)>,
    /// How to replay.
    pub settings: ReplaySettings,
    /// Which browser (its size is replaced by the viewport above).
    pub browser: BrowserConfig,
    /// Where to log every event as JSON Lines.
    pub events_log: Option<PathBuf>,
    /// Where to save a screenshot of the page when the replay ends.
    pub final_screenshot: Option<PathBuf>,
    /// Whether that screenshot is taken when the replay passes too (the demo shows it); a
    /// suite keeps it only for a test that did not pass, so it is not taken for one that did
    /// (a whole screenshot and a file write a test).
    pub final_screenshot_when_passed: bool,
    /// Replay on a desktop instead of a browser (`url` is then not opened).
    pub desktop: Option<DesktopConfig>,
    /// Whether the application command a desktop trajectory names may be started.
    pub allow_app_commands: bool,
}

impl ReplayJob {
    /// The viewport the replay runs at: the one asked for, else the file's recorded size, else
    /// [`DEFAULT_SIZE`].
    pub fn viewport(&self) -> (u32, u32) {
        self.size
            .or_else(|| recorded_sizes(&self.file).map(|sizes| sizes.viewport))
            .unwrap_or(DEFAULT_SIZE)
    }

    /// The size of the trajectory's coordinates (what the model saw when it was recorded):
    /// the file's display size, else the viewport.
    pub fn model_size(&self) -> (u32, u32) {
        recorded_sizes(&self.file)
            .map(|sizes| sizes.display)
            .unwrap_or_else(|| self.viewport())
    }

    /// Checks, before any browser starts, that the file reads, that nothing in it makes
    /// replay refuse it (`retrace cache check`'s errors, in its words:
    /// [`retrace_cache::refuse`]), and that every parameter it uses has a value (all missing
    /// names in one message) and every value given is for a parameter it uses.
    pub fn check(&self) -> Result<(), RunnerError> {
        let file =
            retrace_cache::read_cache_file(&self.file, retrace_cache::DEFAULT_MAX_FILE_SIZE)?;
        retrace_cache::refuse(&self.file, &file)?;
        if self.desktop.is_none()
            && let Some(target) = crate::desktop::RecordedTarget::of(&file.metadata)
        {
            return Err(RunnerError::Input(format!(
                "{} was recorded on a desktop (window {}): replay it with --display :N or \
                 --desktop instead of --url",
                self.file.display(),
                target.window.as_deref().unwrap_or("none")
            )));
        }
        let missing = self.parameters.missing_for(&file.trajectory);
        if !missing.is_empty() {
            return Err(RunnerError::Input(format!(
                "{} needs values for its parameters: {} (pass --param NAME=VALUE for each)",
                self.file.display(),
                missing.join(", ")
            )));
        }
        // Values for names the file does not use: refused as the replay would refuse them.
        retrace_cache::params::substitute_trajectory(&file.trajectory, &self.parameters.values())
            .map_err(|error| RunnerError::Input(format!("{}: {error}", self.file.display())))?;
        Ok(())
    }
}

/// The sizes a file was recorded at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedSizes {
    /// The screen the model saw: the trajectory's coordinates (`metadata.display_size`).
    pub display: (u32, u32),
    /// The browser viewport (`metadata.viewport`, else the display size).
    pub viewport: (u32, u32),
}

/// The sizes a file was recorded at, if it says.
pub fn recorded_sizes(file: &Path) -> Option<RecordedSizes> {
    let cache = retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE).ok()?;
    let display = retrace_cache::fields::display_size(&cache.metadata)?;
    Some(RecordedSizes {
        display,
        viewport: retrace_cache::fields::viewport(&cache.metadata).unwrap_or(display),
    })
}
