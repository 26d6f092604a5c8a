//! The suite file `retrace.toml` (read by [`super::config_read`]) and the layers over it: the
//! file, then `RETRACE_*` environment variables, then command-line flags (each overriding the
//! one before, for every test), merged with figment. Only reading and checking lives here;
//! [`super::plan`] turns the layers into one plan per test.
//!
//! ```toml
//! [defaults]                 # every test; RETRACE_URL, RETRACE_JOBS... and flags override
//! url = "http://127.0.0.1:8080/"
//! size = "1280x800"
//! threshold = 10
//! wait = "visual"            # visual | stable | fixed:SECONDS
//! step_timeout = 10.0
//! jobs = 4
//! retries = 1
//!
//! secrets = ["pin"]          # parameter names that are secret (password, token, key... are anyway)
//!
//! [parameters]               # values by name for every test
//! username = "demo"
//! password = { env = "DEMO_PASSWORD" }   # a secret: from the environment only
//!
//! [timeouts]                 # seconds, read by every part (see `timeouts`); step is
//! step = 10                  # the same setting as [defaults] step_timeout
//! navigation = 30            # retrace check: load, readiness, stillness, model, page, run
//!
//! [[files]]                  # tests whose path (relative to this file) matches
//! match = "v2/**/*.json"
//! url = "http://127.0.0.1:8080/?layout=v2"
//! tags = ["v2", "smoke"]
//! parameters = { username = "demo" }
//! ```
//!
//! A secret parameter's value never sits in a file (the suite file, a `--params-file`): it
//! comes from the environment (`{ env = "VAR" }`, or `RETRACE_PARAM_<NAME>`) or a `--param`
//! flag, and a literal one is an error naming the field.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use figment::Figment;
use figment::providers::Env;
use figment::providers::Format;
use figment::providers::Serialized;
use figment::providers::Toml;
use retrace_replay::WaitMode;
use serde::Deserialize;
use serde::Serialize;

use super::bad_section::BadSection;
use super::error::SuiteError;
use super::timeouts::SuiteTimeouts;

/// The suite file's name, looked for in the current directory when none is named.
pub const SUITE_FILE: &str = "retrace.toml";

/// The prefix of the environment variables that override the suite file's defaults.
pub const ENV_PREFIX: &str = "RETRACE_";

/// The settings a layer may set, all optional (a missing one leaves the layer below).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The page to open before replaying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The viewport, `WxH`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// The largest Hamming distance that passes a visual check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    /// How to wait before each step: `visual`, `stable` or `fixed:SECONDS`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<String>,
    /// The longest wait for one step's screen, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_timeout: Option<f64>,
}

impl Settings {
    /// The viewport, parsed.
    pub fn parsed_size(&self) -> Result<Option<(u32, u32)>, String> {
        self.size.as_deref().map(parse_size).transpose()
    }

    /// The wait mode, parsed.
    pub fn parsed_wait(&self) -> Result<Option<WaitMode>, String> {
        self.wait.as_deref().map(str::parse::<WaitMode>).transpose()
    }

    /// Checks every value parses, naming the first bad one as `{field}.{name}`.
    pub fn check(&self, field: &str) -> Result<(), String> {
        match self.problem() {
            Some((name, why)) => Err(format!("{field}{name}: {why}")),
            None => Ok(()),
        }
    }

    /// The first setting whose value does not parse: its name and why.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if let Err(why) = self.parsed_size() {
            return Some(("size", why));
        }
        if let Err(why) = self.parsed_wait() {
            return Some(("wait", why));
        }
        match self.step_timeout {
            Some(seconds) if !(seconds.is_finite() && seconds > 0.0) => Some((
                "step_timeout",
                format!("{seconds} is not a positive number of seconds"),
            )),
            _ => None,
        }
    }

    /// `self` with every setting `over` has replacing its own.
    pub fn overridden_by(&self, over: &Settings) -> Settings {
        Settings {
            url: over.url.clone().or_else(|| self.url.clone()),
            size: over.size.clone().or_else(|| self.size.clone()),
            threshold: over.threshold.or(self.threshold),
            wait: over.wait.clone().or_else(|| self.wait.clone()),
            step_timeout: over.step_timeout.or(self.step_timeout),
        }
    }
}

/// The suite-wide settings: per-test ones plus how the suite runs. (Fields are spelled out,
/// not flattened: serde cannot refuse unknown fields of a flattened struct.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// The page to open before replaying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The viewport, `WxH`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// The largest Hamming distance that passes a visual check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    /// How to wait before each step: `visual`, `stable` or `fixed:SECONDS`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<String>,
    /// The longest wait for one step's screen, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_timeout: Option<f64>,
    /// Tests run at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// Attempts after an infrastructure error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

impl Defaults {
    /// `self` with every setting `over` has replacing its own.
    pub fn overridden_by(&self, over: &Defaults) -> Defaults {
        Defaults {
            url: over.url.clone().or_else(|| self.url.clone()),
            size: over.size.clone().or_else(|| self.size.clone()),
            threshold: over.threshold.or(self.threshold),
            wait: over.wait.clone().or_else(|| self.wait.clone()),
            step_timeout: over.step_timeout.or(self.step_timeout),
            jobs: over.jobs.or(self.jobs),
            retries: over.retries.or(self.retries),
        }
    }

    /// The per-test part.
    pub fn settings(&self) -> Settings {
        Settings {
            url: self.url.clone(),
            size: self.size.clone(),
            threshold: self.threshold,
            wait: self.wait.clone(),
            step_timeout: self.step_timeout,
        }
    }
}

/// Where a parameter's value comes from, in a file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ParameterSource {
    /// The value itself (never for a secret).
    Value(String),
    /// An environment variable holding it.
    Env {
        /// The variable's name.
        env: String,
    },
}

/// The settings of the tests whose path matches a pattern.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSection {
    /// A path or glob, relative to the suite file's folder.
    #[serde(rename = "match")]
    pub pattern: String,
    /// The page to open before replaying.
    pub url: Option<String>,
    /// The viewport, `WxH`.
    pub size: Option<String>,
    /// The largest Hamming distance that passes a visual check.
    pub threshold: Option<u32>,
    /// How to wait before each step.
    pub wait: Option<String>,
    /// The longest wait for one step's screen, in seconds.
    pub step_timeout: Option<f64>,
    /// Parameter values for these tests.
    #[serde(default)]
    pub parameters: BTreeMap<String, ParameterSource>,
    /// Tags for `--tag`.
    #[serde(default)]
    pub tags: Vec<String>,
}

impl FileSection {
    /// The per-test settings of this section.
    pub fn settings(&self) -> Settings {
        Settings {
            url: self.url.clone(),
            size: self.size.clone(),
            threshold: self.threshold,
            wait: self.wait.clone(),
            step_timeout: self.step_timeout,
        }
    }
}

/// The suite file as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteFile {
    /// Settings for every test.
    pub defaults: Defaults,
    /// Names of parameters that are secret beyond those named like one.
    pub secrets: Vec<String>,
    /// Parameter values for every test.
    pub parameters: BTreeMap<String, ParameterSource>,
    /// Per-file sections, applied in order (a later match overrides an earlier one).
    pub files: Vec<FileSection>,
    /// The time limits every part reads (`[timeouts]`, seconds): see [`super::timeouts`].
    pub timeouts: SuiteTimeouts,
    /// The `[[files]]` sections that cannot be used: the tests they match are errors.
    pub bad_sections: Vec<BadSection>,
}

impl SuiteFile {
    /// Whether `name` is a secret parameter of this suite.
    pub fn is_secret(&self, name: &str) -> bool {
        retrace_report::secrets::is_secret_name(name) || self.secrets.iter().any(|s| s == name)
    }
}

/// The layers over the suite file's defaults: `RETRACE_*` variables, then `flags`.
pub fn overrides(flags: &Defaults) -> Result<Defaults, SuiteError> {
    Figment::new()
        .merge(Env::prefixed(ENV_PREFIX).only(&[
            "url",
            "size",
            "threshold",
            "wait",
            "step_timeout",
            "jobs",
            "retries",
        ]))
        .merge(Serialized::defaults(flags))
        .extract::<Defaults>()
        .map_err(describe)
        .and_then(|over| over.settings().check("").map(|()| over))
        .map_err(|error| SuiteError::config(format!("{ENV_PREFIX}* environment or flags"), error))
}

/// Reads a `--params-file`: a TOML table of `name = "value"`, no secrets.
pub fn load_params_file(
    path: &Path,
    is_secret: impl Fn(&str) -> bool,
) -> Result<BTreeMap<String, String>, SuiteError> {
    if !path.is_file() {
        return Err(SuiteError::config(path, "no such parameters file"));
    }
    let values: BTreeMap<String, String> = Figment::from(Toml::file_exact(path))
        .extract()
        .map_err(|error| SuiteError::config(path, describe(error)))?;
    if let Some(name) = values.keys().find(|name| is_secret(name)) {
        return Err(SuiteError::config(
            path,
            format!(
                "{name}: `{name}` is a secret parameter; pass it in the environment \
                 (RETRACE_PARAM_{}), never in a file",
                name.to_uppercase()
            ),
        ));
    }
    Ok(values)
}

/// The suite file to use: `named`, else `retrace.toml` in the current folder when there is
/// one.
pub fn suite_file_path(named: Option<&Path>) -> Option<PathBuf> {
    named
        .map(Path::to_path_buf)
        .or_else(|| Some(PathBuf::from(SUITE_FILE)).filter(|path| path.is_file()))
}

/// Parses `WIDTHxHEIGHT` (both 1..=10000).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (1..=10_000).contains(&w) && (1..=10_000).contains(&h) => Ok((w, h)),
        _ => Err(format!(
            "`{text}` is not a size: expected WIDTHxHEIGHT such as 1280x800 (1..10000 each)"
        )),
    }
}

/// Every problem figment found, one per line, each with its field.
fn describe(error: figment::Error) -> String {
    error
        .into_iter()
        .map(|error| {
            let field = error.path.join(".");
            let kind = error.kind.to_string();
            if field.is_empty() {
                kind
            } else {
                format!("{field}: {kind}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
