//! A whole check: a browser per viewport (opened at that size by a [`BrowserSource`]: launched
//! here by default, or whatever the runner gives, such as a remote browser), every page
//! checked at each (or only the test ids a [`CheckSession`] selects, such as one shard's),
//! `jobs` pages at once, each reported through the event stream as a suite test
//! (`TestStarted`, its attempts, `TestFinished` with the [`PageCheck`]); the results come back
//! in the spec's order.

use std::collections::HashSet;

use std::time::Instant;

use futures::StreamExt;
use retrace_llm::VlmProvider;
use retrace_protocol::events::Artifacts;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::TestKind;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Verdict;

use crate::browsers::BrowserSource;
use crate::browsers::LaunchChromium;
use crate::browsers::open_at;
use crate::error::CheckError;
use crate::judge_options::JudgeWhen;
use crate::login::SignIn;
use crate::page_check::PageContext;
use crate::page_check::check_page;
use crate::spec::CheckSpec;
use crate::spec::SpecError;
use crate::spec::Viewport;

/// Every page's result, in the spec's order (viewport by viewport).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CheckRun {
    /// One per page and viewport.
    pub pages: Vec<PageCheck>,
}

impl CheckRun {
    /// The run's verdict: FAIL when any page failed, else ERROR when any erred, else PASS.
    pub fn verdict(&self) -> Verdict {
        let any = |verdict| self.pages.iter().any(|page| page.verdict == verdict);
        if any(Verdict::Fail) {
            Verdict::Fail
        } else if any(Verdict::Error) {
            Verdict::Error
        } else {
            Verdict::Pass
        }
    }
}

/// The suite test id of a page check: `PATH@WxH`.
pub fn test_id(path: &str, viewport: Viewport) -> String {
    format!("{path}@{viewport}")
}

/// The longest wait for a viewport's browser to close once its pages are checked.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// One run of a check, as the runner schedules it: the spec, the judge, where browsers come
/// from, and which tests to run.
#[derive(Clone, Copy)]
pub struct CheckSession<'a> {
    /// The check.
    pub spec: &'a CheckSpec,
    /// The model asked when `spec.judge.when` calls for it (used as given: wrap it in no
    /// retrying provider, the check's own retries are logged per attempt).
    pub judge: Option<&'a dyn VlmProvider>,
    /// Where the browsers come from.
    pub browsers: &'a dyn BrowserSource,
    /// The test ids ([`test_id`], `PATH@WxH`) to check, such as one shard's; `None` checks
    /// every page at every viewport. A viewport none of whose pages is selected opens no
    /// browser.
    pub only: Option<&'a HashSet<String>>,
    /// Replays `spec.login.flow` on a side, when the caller can (the runner).
    pub sign_in: Option<&'a dyn SignIn>,
}

/// Every test id of `spec`, in its order (viewport by viewport, then page by page).
pub fn test_ids(spec: &CheckSpec) -> Vec<String> {
    spec.viewports
        .iter()
        .flat_map(|&viewport| spec.pages.iter().map(move |path| test_id(path, viewport)))
        .collect()
}

/// Runs the check `spec` describes (validated first), with no model judge, in the spec's
/// Chromium.
pub async fn run_check(spec: &CheckSpec, events: &Events) -> Result<CheckRun, CheckError> {
    run_check_with_judge(spec, None, events).await
}

/// Runs the check `spec` describes (validated first) in the spec's Chromium; `judge` is the
/// model asked when `spec.judge.when` calls for it.
pub async fn run_check_with_judge(
    spec: &CheckSpec,
    judge: Option<&dyn VlmProvider>,
    events: &Events,
) -> Result<CheckRun, CheckError> {
    let browsers = LaunchChromium(spec.chromium.clone());
    let session = CheckSession {
        spec,
        judge,
        browsers: &browsers,
        only: None,
        sign_in: None,
    };
    run_session(session, events).await
}

/// Runs `session` (its spec validated first). The whole run has `timeouts.run_ms`.
pub async fn run_session(
    session: CheckSession<'_>,
    events: &Events,
) -> Result<CheckRun, CheckError> {
    let CheckSession {
        spec,
        judge,
        browsers,
        only,
        sign_in,
    } = session;
    spec.validate()?;
    if spec.judge.when != JudgeWhen::Off && judge.is_none() {
        return Err(CheckError::Spec(SpecError {
            file: None,
            field: "judge.when".to_owned(),
            message: "a model judge is asked for but no model was given".to_owned(),
        }));
    }
    // Signed in before any page is compared: a failed login is no verdict on the pages.
    let states = crate::login::sign_in_sides(spec, sign_in).await?;
    let states = states.as_ref();
    let run_deadline =
        tokio::time::Instant::now() + std::time::Duration::from_millis(spec.timeouts.run_ms);
    let mut pages = Vec::new();
    for &viewport in &spec.viewports {
        let selected: Vec<&String> = spec
            .pages
            .iter()
            .filter(|path| only.is_none_or(|ids| ids.contains(&test_id(path, viewport))))
            .collect();
        if selected.is_empty() {
            continue;
        }
        let browser = open_at(browsers, viewport).await?;
        // Stored shots are only comparable in the environment they were taken in.
        let refused = match spec.stored_baseline() {
            Some(dir) => crate::baseline::environment_mismatch(dir, &browser).await,
            None => None,
        };
        let refused = refused.as_deref();
        let context = PageContext {
            browser: &browser,
            spec,
            judge,
            run_deadline,
            states,
        };
        let checked: Vec<PageCheck> = futures::stream::iter(selected)
            .map(|path| async move {
                let id = test_id(path, viewport);
                events.emit(Event::TestStarted {
                    id: id.clone(),
                    attempt: 1,
                });
                let started = Instant::now();
                let check = match refused {
                    Some(reason) => crate::page_check::refused(spec, path, viewport, reason),
                    None => check_page(context, path, viewport, events).await,
                };
                events.emit(Event::TestFinished(Box::new(test_report(
                    spec,
                    id,
                    &check,
                    started.elapsed().as_millis() as u64,
                ))));
                check
            })
            .buffered(spec.jobs)
            .collect()
            .await;
        pages.extend(checked);
        // Closing ends a remote session (a Grid session deleted, a farm's slot freed) now,
        // not whenever the last handle goes.
        match tokio::time::timeout(CLOSE_TIMEOUT, browser.close()).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::debug!(%error, %viewport, "closing the check's browser"),
            Err(_) => tracing::debug!(%viewport, "the check's browser did not close in time"),
        }
    }
    Ok(CheckRun { pages })
}

/// The suite report of one page check.
fn test_report(spec: &CheckSpec, id: String, check: &PageCheck, wall_ms: u64) -> TestReport {
    let (width, height) = check.viewport;
    let rerun = crate::rerun::rerun_command(spec, &check.path, Viewport { width, height });
    check_report(id, check, check.path.clone().into(), rerun, wall_ms)
}

/// The suite report of a check (a page's, or a window's), with the file it names and the
/// command that reruns it.
pub(crate) fn check_report(
    id: String,
    check: &PageCheck,
    file: std::path::PathBuf,
    rerun: String,
    wall_ms: u64,
) -> TestReport {
    let passed_after_error = check.attempts.len() > 1;
    let status = match check.verdict {
        Verdict::Pass if passed_after_error => TestStatus::Flaky,
        Verdict::Pass => TestStatus::Passed,
        Verdict::Fail => TestStatus::Failed,
        Verdict::Error => TestStatus::Error,
    };
    TestReport {
        id,
        kind: TestKind::Check,
        file,
        status,
        tags: Vec::new(),
        skip_reason: None,
        step: None,
        attempts: Vec::new(),
        steps: Vec::new(),
        check: Some(check.clone()),
        artifacts: Artifacts {
            other: check.evidence.clone(),
            ..Artifacts::default()
        },
        rerun,
        wall_ms,
    }
}
