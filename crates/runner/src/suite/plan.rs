//! One [`TestPlan`] per discovered file: the suite file's defaults, then every `[[files]]`
//! section whose pattern matches the test's path (in order), then the `RETRACE_*` variables
//! and flags; parameters from the suite file, a `--params-file`, the environment and
//! `--param`, in that order. A test that cannot run as planned (no url, a parameter without
//! a value, a `[[files]]` section matching it that cannot be used, a file that cannot be read
//! or parsed, or that replay refuses) carries the reason in [`TestPlan::problem`]: it is
//! reported as an error without starting a browser and never retried.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use retrace_replay::ReplaySettings;

use super::config::Defaults;
use super::config::ParameterSource;
use super::config::Settings;
use super::config::SuiteFile;
use super::discover::glob_matcher;
use super::discover::is_glob;
use crate::parameters::Parameters;

/// The prefix of the environment variables holding parameter values
/// (`RETRACE_PARAM_PASSWORD` for `{{password}}`).
pub const PARAM_ENV_PREFIX: &str = "RETRACE_PARAM_";

/// Everything tests are planned from.
#[derive(Debug, Clone, Default)]
pub struct PlanInputs {
    /// The folder test ids and `[[files]]` patterns are relative to (the suite file's).
    pub root: PathBuf,
    /// The suite file (empty when there is none).
    pub suite: SuiteFile,
    /// The `RETRACE_*` variables over the flags.
    pub overrides: Defaults,
    /// Values from `--params-file`.
    pub params_file: BTreeMap<String, String>,
    /// `--param NAME=VALUE` values.
    pub flag_params: Vec<(String, String)>,
    /// `--secret NAME` names.
    pub flag_secrets: Vec<String>,
}

/// One test, resolved.
#[derive(Debug, Clone)]
pub struct TestPlan {
    /// The file's path relative to the suite root, `/`-separated.
    pub id: String,
    /// The trajectory file.
    pub file: PathBuf,
    /// Where the file lives when `file` is a private copy of it: its URL in object storage
    /// (`s3://bucket/suite/flows/login.json`), which reports and the rerun command name.
    pub origin: Option<String>,
    /// The page to open.
    pub url: Option<String>,
    /// The viewport, when set; else the file's recorded size.
    pub size: Option<(u32, u32)>,
    /// How to replay.
    pub settings: ReplaySettings,
    /// Parameter values.
    pub parameters: Parameters,
    /// The environment variable each parameter's value was read from, when it came from one:
    /// a rerun command names it instead of spelling a secret out.
    pub parameter_vars: BTreeMap<String, String>,
    /// Tags from the matching sections.
    pub tags: Vec<String>,
    /// Why it cannot run, if it cannot.
    pub problem: Option<String>,
    /// The file was recorded on a desktop (`metadata.target`): it replays there, not in the
    /// suite's browser, and needs no url.
    pub desktop: bool,
}

impl TestPlan {
    /// The file as users know it: its origin when it was copied from a store, else its path.
    pub fn shown_file(&self) -> String {
        self.origin
            .clone()
            .unwrap_or_else(|| self.file.display().to_string())
    }
}

impl PlanInputs {
    /// The suite-wide settings (jobs, retries) after every layer.
    pub fn defaults(&self) -> Defaults {
        self.suite.defaults.overridden_by(&self.overrides)
    }

    /// Plans the test of `file`, reading the environment through `env`.
    pub fn plan(&self, file: &Path, env: &dyn Fn(&str) -> Option<String>) -> TestPlan {
        let id = test_id(&self.root, file);
        let sections: Vec<_> = self
            .suite
            .files
            .iter()
            .filter(|section| section_matches(&section.pattern, &id))
            .collect();
        let mut settings: Settings = self.suite.defaults.settings();
        let mut tags: Vec<String> = Vec::new();
        for section in &sections {
            settings = settings.overridden_by(&section.settings());
            for tag in &section.tags {
                if !tags.contains(tag) {
                    tags.push(tag.clone());
                }
            }
        }
        settings = settings.overridden_by(&self.overrides.settings());
        // A section that cannot be used spoils the tests it would have set up.
        let mut problems: Vec<String> = (self.suite.bad_sections.iter())
            .filter(|bad| section_matches(&bad.pattern, &id))
            .map(|bad| bad.problem.clone())
            .collect();
        let desktop = retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE)
            .ok()
            .and_then(|cache| crate::desktop::RecordedTarget::of(&cache.metadata))
            .is_some();
        if settings.url.is_none() && !desktop {
            problems.push(
                "no url: set `url` in retrace.toml ([defaults] or a [[files]] section), \
                 RETRACE_URL or --url"
                    .to_owned(),
            );
        }
        let mut replay = ReplaySettings::default();
        if let Some(threshold) = settings.threshold {
            replay.threshold = threshold;
        }
        if let Some(seconds) = settings.step_timeout {
            replay.step_timeout = Duration::from_secs_f64(seconds.max(0.0));
        }
        match settings.parsed_wait() {
            Ok(Some(wait)) => replay.wait = wait,
            Ok(None) => {}
            Err(error) => problems.push(error),
        }
        let size = settings.parsed_size().unwrap_or_else(|error| {
            problems.push(error);
            None
        });
        let needed = match read_replayable(file) {
            Ok(needed) => needed,
            Err(error) => {
                problems.push(error);
                Default::default()
            }
        };
        let (parameters, parameter_vars, missing) = self.parameters(needed, &sections, env);
        if !missing.is_empty() {
            problems.push(format!(
                "needs values for its parameters: {} (set them in retrace.toml [parameters], a \
                 --params-file, {PARAM_ENV_PREFIX}<NAME> or --param NAME=VALUE)",
                missing.join(", ")
            ));
        }
        TestPlan {
            id,
            file: file.to_owned(),
            origin: None,
            url: settings.url,
            size,
            settings: replay,
            parameters,
            parameter_vars,
            tags,
            problem: (!problems.is_empty()).then(|| problems.join("; ")),
            desktop,
        }
    }

    /// The values of the parameters `needed`, and the names with none.
    fn parameters(
        &self,
        needed: BTreeSet<String>,
        sections: &[&super::config::FileSection],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Parameters, BTreeMap<String, String>, Vec<String>) {
        // A value, and the variable it was read from when it came from the environment.
        let from_source = |source: &ParameterSource| match source {
            ParameterSource::Value(value) => Some((value.clone(), None)),
            ParameterSource::Env { env: variable } => {
                env(variable).map(|value| (value, Some(variable.clone())))
            }
        };
        let mut pairs = Vec::new();
        let mut vars = BTreeMap::new();
        let mut missing = Vec::new();
        for name in needed {
            let mut value = self.suite.parameters.get(&name).and_then(from_source);
            for section in sections {
                if let Some(found) = section.parameters.get(&name).and_then(from_source) {
                    value = Some(found);
                }
            }
            if let Some(found) = self.params_file.get(&name) {
                value = Some((found.clone(), None));
            }
            let variable = format!("{PARAM_ENV_PREFIX}{}", name.to_uppercase());
            if let Some(found) = env(&variable) {
                value = Some((found, Some(variable)));
            }
            if let Some((_, found)) = self
                .flag_params
                .iter()
                .rev()
                .find(|(given, _)| *given == name)
            {
                value = Some((found.clone(), None));
            }
            match value {
                Some((value, variable)) => {
                    if let Some(variable) = variable {
                        vars.insert(name.clone(), variable);
                    }
                    pairs.push((name, value));
                }
                None => missing.push(name),
            }
        }
        let mut secrets = self.suite.secrets.clone();
        secrets.extend(self.flag_secrets.iter().cloned());
        (Parameters::new(pairs, secrets), vars, missing)
    }
}

/// The parameters of the trajectory `file`, or why it cannot be replayed: it cannot be read
/// or parsed (with the line and column, or the field), or replay refuses it
/// ([`retrace_cache::refuse`], in `retrace cache check`'s words). The reason leaves out the
/// file's name in front, which the test's report puts there.
fn read_replayable(file: &Path) -> Result<BTreeSet<String>, String> {
    retrace_cache::read_cache_file(file, retrace_cache::DEFAULT_MAX_FILE_SIZE)
        .and_then(|cache| {
            retrace_cache::refuse(file, &cache)?;
            Ok(retrace_cache::params::parameters_in_trajectory(
                &cache.trajectory,
            ))
        })
        .map_err(|error| {
            let text = error.to_string();
            let named = format!("{}: ", file.display());
            text.strip_prefix(&named)
                .map_or(text.clone(), str::to_owned)
        })
}

/// `file`'s path relative to `root`, `/`-separated; the path as given when it is elsewhere.
pub fn test_id(root: &Path, file: &Path) -> String {
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let (root, whole) = (absolute(root), absolute(file));
    let relative = whole.strip_prefix(&root).unwrap_or(file);
    relative
        .components()
        .filter(|component| !matches!(component, std::path::Component::CurDir))
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a `[[files]]` pattern matches the test `id`: a glob, or the exact path.
fn section_matches(pattern: &str, id: &str) -> bool {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    if is_glob(pattern) {
        glob_matcher(pattern).is_ok_and(|matcher| matcher.is_match(id))
    } else {
        pattern == id
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
