//! What a replay is asked to do: [`ReplayRequest`] (which file, with which parameter values,
//! from which step) and [`ReplaySettings`] (how to wait, how strict to be, what to do when a
//! step fails).
//!
//! The request is the typed context the replay speaker is activated with, built by the runner
//! (`retrace replay`), by the model's `execute_cached_executions_tool` and by structured act;
//! nobody builds or parses a hand-made JSON object for it. A model that hands over with the
//! `switch_speaker` tool passes JSON, which is read into the same type by serde.

use std::path::PathBuf;
use std::time::Duration;

use retrace_cache::ParameterValues;
use serde::Deserialize;

/// How replay waits before acting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WaitMode {
    /// Poll until the region matches its recorded hash; a step with no hash waits until the
    /// screen stops changing (the default).
    Visual,
    /// Poll until the screen stops changing, then check once.
    Stable,
    /// Sleep this long, then check once, looking at the screen as shown (askui's behaviour).
    Fixed(Duration),
}

impl std::str::FromStr for WaitMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "visual" => Ok(WaitMode::Visual),
            "stable" => Ok(WaitMode::Stable),
            _ => {
                let seconds = text
                    .strip_prefix("fixed:")
                    .and_then(|s| s.parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("unknown wait mode `{text}`: use visual, stable or fixed:SECONDS (e.g. fixed:1.0)"))?;
                Ok(WaitMode::Fixed(Duration::from_secs_f64(seconds)))
            }
        }
    }
}

/// What replay does when a step fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnMismatch {
    /// End the run (exit 1 from the CLI) with the failure message.
    Fail,
    /// Hand the run to this speaker (the model) with the failure message.
    HandTo(String),
}

/// Replay settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySettings {
    /// The largest Hamming distance that passes a visual check.
    pub threshold: u32,
    /// How long to wait for a step's screen before giving up on it.
    pub step_timeout: Duration,
    /// Time between polls while waiting.
    pub poll_interval: Duration,
    /// How to wait before acting.
    pub wait: WaitMode,
    /// Whether visual checks run at all.
    pub visual: bool,
    /// How far (in pixels, each way) to search for a moved region; 0 disables repairs.
    pub search_radius: u32,
    /// How long the screen must have stood still, mismatched, before replay searches for a
    /// moved region instead of waiting on (so a moved control is repaired in about this
    /// time, not after the whole step timeout); also how long a browser page must have been
    /// settled before a step that does not match fails early (see `wait::settling`).
    pub search_after: Duration,
    /// The largest distance a search hit may have. Stricter than `threshold`: a search
    /// compares thousands of places, so a loose bound would find look-alikes. Never looser
    /// than `threshold` (see [`ReplaySettings::search_bound`]).
    pub search_threshold: u32,
    /// On a browser, how long a step whose checks pass waits for its page to stop loading
    /// (requests in flight, a navigation) before it acts anyway.
    pub ready_timeout: Duration,
    /// What to do when a step fails.
    pub on_mismatch: OnMismatch,
    /// Whether a completed replay hands back to the model (to verify the goal) instead of
    /// ending the run.
    pub hand_back_on_completion: Option<String>,
    /// Whether the replay's result (an attempt, a failure) is written into the trajectory
    /// file's metadata, as askui does. A suite run turns it off and keeps that state in its
    /// own store instead, so committed trajectories stay unchanged.
    pub write_metadata: bool,
}

impl Default for ReplaySettings {
    fn default() -> Self {
        Self {
            threshold: 10,
            step_timeout: Duration::from_secs(10),
            poll_interval: Duration::from_millis(50),
            wait: WaitMode::Visual,
            visual: true,
            search_radius: 80,
            search_after: Duration::from_millis(500),
            search_threshold: 4,
            ready_timeout: Duration::from_secs(5),
            on_mismatch: OnMismatch::Fail,
            hand_back_on_completion: None,
            write_metadata: true,
        }
    }
}

impl ReplaySettings {
    /// The bound a search hit must meet: the search's own bound, never looser than the check's
    /// threshold (a hit the check itself would reject is no repair).
    pub fn search_bound(&self) -> u32 {
        self.search_threshold.min(self.threshold)
    }
}

/// A replay to run: the typed context of the replay speaker.
#[derive(Debug, Clone, Deserialize)]
pub struct ReplayRequest {
    /// The trajectory file.
    pub file: PathBuf,
    /// A value for every `{{name}}` the trajectory holds.
    #[serde(default, deserialize_with = "parameters_from_json")]
    pub parameters: ParameterValues,
    /// The 0-based trajectory index to start at (0: the beginning).
    #[serde(default)]
    pub start: usize,
}

impl ReplayRequest {
    /// A request to replay `file` from the beginning with no parameter values.
    pub fn new(file: impl Into<PathBuf>) -> Self {
        Self {
            file: file.into(),
            parameters: ParameterValues::new(),
            start: 0,
        }
    }

    /// The same request with these parameter values.
    pub fn with_parameters(mut self, parameters: ParameterValues) -> Self {
        self.parameters = parameters;
        self
    }

    /// The same request starting at the 0-based trajectory index `start`.
    pub fn starting_at(mut self, start: usize) -> Self {
        self.start = start;
        self
    }
}

/// `{"name": "value"}` from JSON; numbers and booleans are taken as their text, as askui
/// does.
fn parameters_from_json<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<ParameterValues, D::Error> {
    use serde::de::Error;
    let given = Option::<serde_json::Map<String, serde_json::Value>>::deserialize(deserializer)?;
    let mut values = ParameterValues::new();
    for (name, value) in given.unwrap_or_default() {
        let text = match value {
            serde_json::Value::String(text) => text,
            serde_json::Value::Number(number) => number.to_string(),
            serde_json::Value::Bool(flag) => flag.to_string(),
            other => {
                return Err(D::Error::custom(format!(
                    "parameter `{name}` must be a string, not {other}"
                )));
            }
        };
        values.insert(name, text);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_modes_parse_and_bad_ones_say_what_is_valid() {
        assert_eq!("visual".parse::<WaitMode>(), Ok(WaitMode::Visual));
        assert_eq!(
            "fixed:1.5".parse::<WaitMode>(),
            Ok(WaitMode::Fixed(Duration::from_millis(1500)))
        );
        let error = "fixed:-1".parse::<WaitMode>().unwrap_err();
        assert!(error.contains("visual, stable or fixed:SECONDS"), "{error}");
    }

    #[test]
    fn a_request_reads_from_a_models_json() {
        let request: ReplayRequest = serde_json::from_value(serde_json::json!({
            "file": "login.json", "parameters": {"user": "demo", "pin": 1234}, "start": 2
        }))
        .unwrap();
        assert_eq!(request.file, PathBuf::from("login.json"));
        assert_eq!(request.start, 2);
        let mut names: Vec<&str> = request.parameters.names().collect();
        names.sort_unstable();
        assert_eq!(names, ["pin", "user"]);
        let error = serde_json::from_value::<ReplayRequest>(serde_json::json!({
            "file": "a.json", "parameters": {"user": ["x"]}
        }))
        .unwrap_err();
        assert!(
            error.to_string().contains("`user` must be a string"),
            "{error}"
        );
    }

    #[test]
    fn the_search_bound_is_never_looser_than_the_threshold() {
        let settings = ReplaySettings {
            threshold: 2,
            ..ReplaySettings::default()
        };
        assert_eq!(settings.search_bound(), 2);
        assert_eq!(ReplaySettings::default().search_bound(), 4);
    }
}
