//! [`ActJob`]: one model run to make, as the CLI, a suite or the MCP server asks for it, with
//! the checks made before any browser starts; shared by the browser ([`crate::act`]) and the
//! desktop ([`crate::desktop_run`]) runs.

use crate::act_cache::CacheMode;
use crate::browser::BrowserConfig;
use crate::desktop::DesktopConfig;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use crate::provider::ProviderConfig;
use crate::record::Recording;
use crate::record::ToolFormat;
use retrace_agent::RunReport;
use retrace_cache::params::Template;
use retrace_drive::computer::Scaler;
use retrace_drive::tool::Toolbox;
use retrace_replay::observe::Observations;
use std::path::PathBuf;

/// The trajectory directory when none is named.
pub const DEFAULT_CACHE_DIR: &str = retrace_replay::recorder::DEFAULT_CACHE_DIR;

/// How the model acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActMode {
    /// Screenshots and the computer-use tool.
    Computer,
    /// One JSON decision per turn, carried out by the web executor.
    Structured {
        /// Answers asked for per turn before the run fails.
        max_attempts: u32,
        /// Whether the model sees a screenshot besides the page text.
        screenshots: bool,
    },
}

/// One model run to make.
#[derive(Debug, Clone)]
pub struct ActJob {
    /// The goal, `{{name}}` placeholders unfilled.
    pub goal: String,
    /// The page to open first.
    pub url: String,
    /// How the model acts.
    pub mode: ActMode,
    /// The model.
    pub provider: ProviderConfig,
    /// Turns before the run stops.
    pub max_steps: usize,
    /// Output token limit per model turn.
    pub max_tokens: u32,
    /// Which browser, at what viewport size.
    pub browser: BrowserConfig,
    /// The screen size the model sees; `None`: [`recommended_model_size`] of the viewport.
    pub model_size: Option<(u32, u32)>,
    /// Hash size of the recorded regions (8: askui's 64-bit hashes; 16: finer).
    pub hash_size: u32,
    /// The tool vocabulary a recording is written in.
    pub tool_format: ToolFormat,
    /// How the trajectory cache is used.
    pub cache: CacheMode,
    /// The trajectory directory.
    pub cache_dir: PathBuf,
    /// A trajectory directory in a store instead (`s3://bucket/flows`): read into a private
    /// folder before the run, what the run records written back after it
    /// ([`StoredCacheDir`]); `cache_dir` is then not used.
    pub cache_store: Option<String>,
    /// The file to record to (or, structured with execute, to replay first).
    pub cache_file: Option<String>,
    /// Parameter values.
    pub parameters: Parameters,
    /// Where to log every event as JSON Lines.
    pub events_log: Option<PathBuf>,
    /// Act on a desktop instead of a browser (`url` is then not opened).
    pub desktop: Option<DesktopConfig>,
}

impl ActJob {
    /// The goal with its placeholders filled.
    pub fn filled_goal(&self) -> Result<String, RunnerError> {
        Template::parse(&self.goal)
            .render(&self.parameters.values())
            .map_err(|error| {
                RunnerError::Input(format!(
                    "filling the goal's {{{{placeholders}}}} from --param: {error}"
                ))
            })
    }

    /// Checks, before any browser starts, that the goal fills, the key is there and a
    /// trajectory to replay exists.
    pub fn check(&self) -> Result<(), RunnerError> {
        self.filled_goal()?;
        self.provider.api_key()?;
        if self.tool_format == ToolFormat::Askui && self.hash_size != 8 {
            return Err(RunnerError::Input(format!(
                "--tool-format askui records askui's 64-bit hashes: drop --hash-size {} (askui \
                 checks 8 only)",
                self.hash_size
            )));
        }
        if matches!(self.mode, ActMode::Structured { .. })
            && self.cache.executes()
            && !self.cache.records()
        {
            let Some(name) = &self.cache_file else {
                return Err(RunnerError::Input(
                    "--mode structured --cache execute replays the trajectory named by --cache-file"
                        .into(),
                ));
            };
            let path = self.cache_dir.join(name);
            if !path.is_file() {
                return Err(RunnerError::Input(format!(
                    "{}: no such trajectory to replay",
                    path.display()
                )));
            }
        }
        Ok(())
    }

    /// The screen size the model sees and the trajectory's coordinates are in.
    pub fn model_size(&self) -> (u32, u32) {
        self.model_size
            .unwrap_or_else(|| recommended_model_size(self.browser.size))
    }

    /// Scales between what the model sees and the viewport.
    pub(crate) fn scaler(&self) -> Scaler {
        Scaler {
            model: self.model_size(),
            display: self.browser.size,
        }
    }

    pub(crate) fn recording(&self, observations: Observations) -> Recording {
        Recording {
            goal_template: self.goal.clone(),
            cache_dir: self.cache_dir.clone(),
            cache_file: self.cache_file.clone(),
            display_size: self.model_size(),
            viewport: self.browser.size,
            hash_size: self.hash_size,
            tool_format: self.tool_format,
            observations,
            parameters: self.parameters.clone(),
            target: None,
        }
    }
}

/// The largest screen a computer-use model is shown: Anthropic recommends keeping screenshots
/// at or under 1280x800 (XGA/WXGA class); larger ones are downscaled by the API anyway, and
/// its coordinates then miss.
pub const MAX_MODEL_SIZE: (u32, u32) = (1280, 800);

/// `viewport` scaled down, aspect kept, to fit [`MAX_MODEL_SIZE`]; unchanged when it fits.
pub fn recommended_model_size((width, height): (u32, u32)) -> (u32, u32) {
    let (max_width, max_height) = MAX_MODEL_SIZE;
    if width <= max_width && height <= max_height {
        return (width, height);
    }
    let scale = f64::min(
        f64::from(max_width) / f64::from(width),
        f64::from(max_height) / f64::from(height),
    );
    let side = |value: u32| ((f64::from(value) * scale).round() as u32).max(1);
    (side(width), side(height))
}

/// What a conversation left behind, before the session's report is put together.
pub(crate) struct Ended {
    pub(crate) run: RunReport,
    pub(crate) toolbox: Toolbox,
    pub(crate) observations: Observations,
    pub(crate) model: String,
    pub(crate) pricing: Option<retrace_llm::Pricing>,
    pub(crate) final_url: Option<String>,
    /// A desktop run's target (`metadata.target`) and frame size.
    pub(crate) desktop: Option<(serde_json::Value, (u32, u32))>,
}
