//! `retrace check --login FLOW.json`: each side signed in by replaying a login trajectory
//! with the replay engine `retrace replay` uses (its checks, its parameters), before any page
//! is compared (retrace-check's `SignIn`).
//!
//! The flow replays in a browser of its own at the size it was recorded at (a check's
//! viewports need not be the login's), starting at the side's base URL (or `--login-path`
//! under it): a recording holds no origin of its own, only paths (a navigation's `page_after`),
//! so it replays on any side as `retrace replay --url BASE` would. Once it passed, the
//! context's cookies and the start origin's local storage are what every capture of that side
//! is given. Its parameters come as `retrace run` takes them: a parameters file (no secrets),
//! then `RETRACE_PARAM_<NAME>` for each name the flow uses, then `--param`; no secret value
//! reaches a message, a log or a rerun command.

use std::path::Path;
use std::path::PathBuf;

use futures::future::LocalBoxFuture;
use retrace_check::BrowserSource;
use retrace_check::LoginOptions;
use retrace_check::SignIn;
use retrace_check::StorageState;
use retrace_check::Viewport;
use retrace_protocol::events::Events;
use retrace_protocol::events::SessionReport;
use retrace_protocol::events::SessionStatus;
use retrace_replay::ReplaySettings;

use crate::browser::BrowserConfig;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use crate::replay::ReplayJob;
use crate::replay::run_replay_keeping;
use crate::suite::plan::PARAM_ENV_PREFIX;

/// The longest wait for the login's browser to close.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A login flow replayed on each side, in browsers from `browsers`.
pub struct LoginFlow<'a> {
    /// The trajectory.
    pub file: PathBuf,
    /// Where it starts.
    pub options: &'a LoginOptions,
    /// Its `{{name}}` values.
    pub parameters: &'a Parameters,
    /// Where its browsers come from (opened at the flow's recorded size).
    pub browsers: &'a dyn BrowserSource,
    /// The runner's browser configuration (a replay job carries one; unused here).
    pub browser: &'a BrowserConfig,
}

impl LoginFlow<'_> {
    fn job(&self, url: String) -> ReplayJob {
        ReplayJob {
            file: self.file.clone(),
            url,
            parameters: self.parameters.clone(),
            size: None,
            settings: ReplaySettings {
                write_metadata: false,
                ..ReplaySettings::default()
            },
            browser: self.browser.clone(),
            events_log: None,
            final_screenshot: None,
            final_screenshot_when_passed: false,
            desktop: None,
            allow_app_commands: false,
        }
    }

    async fn sign_in_at(&self, base: &str) -> Result<StorageState, String> {
        let url = self.options.start_url(base);
        let job = self.job(url.clone());
        job.check().map_err(|error| error.to_string())?;
        let (width, height) = job.viewport();
        let run = self.browsers.open(Viewport { width, height }).await?;
        let report = run_replay_keeping(&job, &run, &Events::none()).await;
        let state = match report.status {
            SessionStatus::Passed => StorageState::read_from(&run, &url).await,
            _ => Err(failure(&report)),
        };
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, run.close()).await;
        state
    }
}

impl SignIn for LoginFlow<'_> {
    fn sign_in<'a>(
        &'a self,
        _side: &'a str,
        base: &'a str,
    ) -> LocalBoxFuture<'a, Result<StorageState, String>> {
        Box::pin(async move {
            let secrets = self.parameters.secrets();
            self.sign_in_at(base)
                .await
                .map_err(|reason| secrets.scrub(&reason).into_owned())
        })
    }
}

/// Why a login replay did not pass: the step, what it does and the reason, else the
/// session's error.
fn failure(report: &SessionReport) -> String {
    let failed = report.replay.as_ref().and_then(|r| r.failure.as_ref());
    match (failed, &report.error) {
        // The message names the step and its action itself.
        (Some(failure), _) => format!("the login failed: {}", failure.message),
        (None, Some(error)) => format!("the login could not run: {error}"),
        (None, None) => "the login did not pass, for no reason it gave".to_owned(),
    }
}

/// The login flow's parameters: the `params_file`'s values (no secrets), then
/// `RETRACE_PARAM_<NAME>` (read through `env`) for each name `flow` uses, then `pairs`
/// (`--param`); `secret` names are secret whatever their name. Also the rerun command's
/// `--param` words, a secret spelled as the variable it is read from.
pub fn login_parameters(
    flow: &Path,
    pairs: &[(String, String)],
    secret: &[String],
    params_file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Parameters, Vec<String>), RunnerError> {
    let marked = Parameters::new(Vec::new(), secret.to_vec());
    let mut values: Vec<(String, String)> = Vec::new();
    if let Some(path) = params_file {
        let file = crate::suite::config::load_params_file(path, |name| marked.is_secret(name))
            .map_err(|error| RunnerError::Input(error.to_string()))?;
        values.extend(file);
    }
    let cache = retrace_cache::read_cache_file(flow, retrace_cache::DEFAULT_MAX_FILE_SIZE)?;
    for name in retrace_cache::params::parameters_in_trajectory(&cache.trajectory) {
        let variable = format!("{PARAM_ENV_PREFIX}{}", name.to_uppercase());
        if let Some(value) = env(&variable) {
            values.push((name, value));
        }
    }
    values.extend(pairs.iter().cloned());
    let parameters = Parameters::new(values, secret.to_vec());
    let words = parameters
        .pairs()
        .map(|(name, value)| {
            if parameters.is_secret(name) {
                let variable = format!("{PARAM_ENV_PREFIX}{}", name.to_uppercase());
                format!("--param \"{name}=${variable}\"")
            } else {
                format!("--param {}", shell_word(&format!("{name}={value}")))
            }
        })
        .collect();
    Ok((parameters, words))
}

/// `text` as one word of a POSIX shell.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn login_parameters_come_from_the_file_the_environment_then_the_flags() {
        let dir = tempfile::tempdir().unwrap();
        let flow = dir.path().join("login.json");
        let demo = include_str!("../assets/demo_flow.json");
        std::fs::write(&flow, demo).unwrap();
        let params = dir.path().join("params.toml");
        std::fs::write(&params, "username = \"from-file\"\n").unwrap();
        let env = |name: &str| match name {
            "RETRACE_PARAM_PASSWORD" => Some("hunter2".to_owned()),
            "RETRACE_PARAM_USERNAME" => Some("from-env".to_owned()),
            _ => None,
        };
        let (parameters, words) =
            login_parameters(&flow, &[], &[], Some(params.as_path()), &env).unwrap();
        let value = |p: &Parameters, name: &str| {
            p.pairs()
                .find(|(known, _)| *known == name)
                .map(|(_, v)| v.to_owned())
        };
        assert_eq!(value(&parameters, "username").as_deref(), Some("from-env"));
        assert_eq!(value(&parameters, "password").as_deref(), Some("hunter2"));
        let line = words.join(" ");
        assert!(!line.contains("hunter2"), "{line}");
        assert!(
            line.contains("\"password=$RETRACE_PARAM_PASSWORD\""),
            "{line}"
        );
        let flags = [("username".to_owned(), "it's me".to_owned())];
        let (parameters, words) = login_parameters(&flow, &flags, &[], None, &env).unwrap();
        assert_eq!(value(&parameters, "username").as_deref(), Some("it's me"));
        assert!(words.contains(&"--param 'username=it'\\''s me'".to_owned()));
        // A secret in the parameters file is refused, naming it.
        std::fs::write(&params, "password = \"x\"\n").unwrap();
        let error = login_parameters(&flow, &[], &[], Some(params.as_path()), &env)
            .unwrap_err()
            .to_string();
        assert!(error.contains("password"), "{error}");
    }
}
