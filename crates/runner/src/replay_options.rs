//! [`ReplayOptions`]: the replay settings a user sets on the command line (`retrace replay`),
//! in the runner's terms, turned into the replay engine's settings for a [`crate::ReplayJob`].

use std::time::Duration;

use retrace_replay::OnMismatch;
use retrace_replay::ReplaySettings;
use retrace_replay::WaitMode;

/// How replay waits before each step: `visual` (until the screen matches), `stable` (until it
/// stops changing) or `fixed:SECONDS`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wait(WaitMode);

impl std::str::FromStr for Wait {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        text.parse().map(Wait)
    }
}

/// What a user sets about one replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayOptions {
    /// The largest Hamming distance that passes a visual check.
    pub threshold: u32,
    /// The longest wait for one step's screen.
    pub step_timeout: Duration,
    /// How to wait before each step.
    pub wait: Wait,
    /// Whether visual checks run at all.
    pub visual: bool,
    /// Pixels to search around a step's point for a moved element (0: no repair).
    pub search_radius: u32,
    /// Whether the result is written into the trajectory's metadata.
    pub write_metadata: bool,
}

impl ReplayOptions {
    /// The replay engine's settings: these, failing at the first step that does not match,
    /// the rest as the engine's defaults.
    pub fn settings(&self) -> ReplaySettings {
        ReplaySettings {
            threshold: self.threshold,
            step_timeout: self.step_timeout,
            wait: self.wait.0,
            visual: self.visual,
            search_radius: self.search_radius,
            on_mismatch: OnMismatch::Fail,
            write_metadata: self.write_metadata,
            ..ReplaySettings::default()
        }
    }
}
