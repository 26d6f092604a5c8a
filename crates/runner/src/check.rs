//! `retrace check` scheduled by the runner: the check's browsers come from the runner's
//! [`BrowserConfig`] (launched, or a remote browser, a Selenium Grid, a farm behind a token,
//! exactly as `act`, `replay` and `run` reach them), and a sharded run checks only its
//! shard's pages, dealt by the same rule as a suite's tests (see `suite::shard`) from their
//! test ids (`PATH@WxH`), so N CI jobs check every page at every viewport exactly once and
//! `retrace report merge` adds their reports up.

use std::collections::HashSet;
use std::path::PathBuf;

use futures::future::BoxFuture;
use retrace_check::BrowserSource;
use retrace_check::CheckError;
use retrace_check::CheckRun;
use retrace_check::CheckSession;
use retrace_check::CheckSpec;
use retrace_check::Viewport;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_llm::VlmProvider;
use retrace_protocol::events::Events;
use retrace_report::JsonLinesSink;

use crate::browser::BrowserConfig;
use crate::browser::BrowserTarget;
use crate::check_login::LoginFlow;
use crate::error::RunnerError;
use crate::parameters::Parameters;
use crate::suite::shard::ShardSelection;
use crate::suite::shard::assign;

/// The runner's browser configuration as a check's source of browsers: one per viewport,
/// opened at that size (its own size is not used). A farm's retries go to the events given
/// with [`CheckBrowsers::reporting`].
#[derive(Debug, Clone)]
pub struct CheckBrowsers(pub BrowserConfig, pub Events);

impl CheckBrowsers {
    /// `config`'s browsers, a farm's notices sent to `events`.
    pub fn reporting(config: BrowserConfig, events: &Events) -> Self {
        Self(config, events.clone())
    }
}

impl BrowserSource for CheckBrowsers {
    fn open(&self, viewport: Viewport) -> BoxFuture<'_, Result<ChromiumBrowser, String>> {
        Box::pin(async move {
            let config = self.0.clone().at_size((viewport.width, viewport.height));
            config
                .open_reporting(&self.1)
                .await
                .map_err(|error| error.to_string())
        })
    }

    fn describe(&self) -> String {
        match &self.0.target {
            BrowserTarget::Launch { chromium } => {
                retrace_check::LaunchChromium(chromium.clone()).describe()
            }
            BrowserTarget::Connect { endpoint, .. } => format!(
                "the remote browser {}",
                retrace_drive::chromium::remote::redact(endpoint)
            ),
        }
    }
}

/// A check as the runner runs it.
pub struct CheckJob<'a> {
    /// The check.
    pub spec: &'a CheckSpec,
    /// The model judge, when `spec.judge.when` asks for one (unretried: the check's own
    /// retries are logged per attempt).
    pub judge: Option<&'a dyn VlmProvider>,
    /// Where its browsers come from.
    pub browser: BrowserConfig,
    /// The shard to check, when sharded.
    pub shard: Option<ShardSelection>,
    /// Where to write the check's log: every event (each attempt with its verdict,
    /// confidence, differences and evidence, each retry's wait, each page's result) as one
    /// JSON object per line, the seed's validation log.
    pub events_log: Option<PathBuf>,
    /// The values of the login flow's parameters (`spec.login.flow`); secret ones never
    /// reach the log.
    pub login_parameters: Parameters,
}

/// The test ids of `spec` that `shard` checks (every one without a shard).
pub fn shard_ids(spec: &CheckSpec, shard: Option<&ShardSelection>) -> Option<HashSet<String>> {
    let selection = shard?;
    let ids = retrace_check::test_ids(spec);
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let shards = assign(&refs, selection.shard.total, selection.mode);
    Some(
        ids.iter()
            .zip(shards)
            .filter(|(_, shard)| *shard == selection.shard.index)
            .map(|(id, _)| id.clone())
            .collect(),
    )
}

/// Runs `job`: its shard's pages, in its browsers; results through `events` (and the job's
/// log) as the check reports them.
pub async fn run_check_job(job: CheckJob<'_>, events: &Events) -> Result<CheckRun, RunnerError> {
    let browsers = CheckBrowsers::reporting(job.browser.clone(), events);
    run_check_job_in(job, &browsers, events).await
}

/// Like [`run_check_job`], with the browsers from `browsers` instead of `job.browser`'s
/// (the MCP server's warm browser, in which each viewport gets a run of its own).
pub async fn run_check_job_in(
    job: CheckJob<'_>,
    browsers: &dyn BrowserSource,
    events: &Events,
) -> Result<CheckRun, RunnerError> {
    let mut events = events.clone();
    if let Some(path) = &job.events_log {
        // The login's secret values are scrubbed; the judge's key never reaches an event.
        let sink = JsonLinesSink::create(path, job.login_parameters.secrets())
            .map_err(|source| RunnerError::io(path, source))?;
        events.subscribe(sink);
    }
    let only = shard_ids(job.spec, job.shard.as_ref());
    let login = job.spec.login.flow.as_ref().map(|file| LoginFlow {
        file: file.clone(),
        options: &job.spec.login,
        parameters: &job.login_parameters,
        browsers,
        browser: &job.browser,
    });
    let session = CheckSession {
        spec: job.spec,
        judge: job.judge,
        browsers,
        only: only.as_ref(),
        sign_in: login
            .as_ref()
            .map(|flow| flow as &dyn retrace_check::SignIn),
    };
    Ok(retrace_check::run_session(session, &events).await?)
}

/// `retrace check approve`: the candidate's shots stored in `dir` as the baseline, taken in
/// `browser` (so a remote browser's shots carry its fingerprint).
pub async fn approve_check_baseline(
    spec: &CheckSpec,
    dir: &std::path::Path,
    browser: BrowserConfig,
) -> Result<Vec<std::path::PathBuf>, CheckError> {
    retrace_check::approve_baseline_in(spec, dir, &CheckBrowsers(browser, Events::none())).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use retrace_protocol::events::Shard;

    use super::*;
    use crate::suite::shard::ShardMode;

    fn selection(index: u32, total: u32, mode: ShardMode) -> ShardSelection {
        ShardSelection {
            shard: Shard { index, total },
            mode,
            source: "--shard".to_owned(),
        }
    }

    #[test]
    fn the_shards_of_a_check_cover_every_page_at_every_viewport_once() {
        let spec = CheckSpec {
            pages: (1..=9).map(|n| format!("/page-{n}")).collect(),
            viewports: vec!["1280x720".parse().unwrap(), "375x812".parse().unwrap()],
            ..CheckSpec::default()
        };
        assert_eq!(shard_ids(&spec, None), None, "unsharded checks everything");
        let all: HashSet<String> = retrace_check::test_ids(&spec).into_iter().collect();
        assert_eq!(all.len(), 18);
        for mode in [ShardMode::Hash, ShardMode::Slice] {
            let parts: Vec<HashSet<String>> = (1..=3)
                .map(|i| shard_ids(&spec, Some(&selection(i, 3, mode))).unwrap())
                .collect();
            let mut union = HashSet::new();
            for part in &parts {
                assert!(part.is_disjoint(&union), "{mode:?}: shards overlap");
                union.extend(part.iter().cloned());
            }
            assert_eq!(union, all, "{mode:?}");
            assert!(parts.iter().all(|p| !p.is_empty()), "{mode:?}: {parts:?}");
        }
        // The same rule as a suite's tests: FNV-1a of the id.
        let one = shard_ids(&spec, Some(&selection(2, 3, ShardMode::Hash))).unwrap();
        let expected = (retrace_protocol::stable_hash::fnv1a64(b"/page-1@1280x720") % 3 + 1) == 2;
        assert_eq!(one.contains("/page-1@1280x720"), expected);
    }
}
