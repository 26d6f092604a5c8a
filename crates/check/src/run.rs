//! A whole check: a browser per viewport (launched at that size), every page checked at each,
//! `jobs` pages at once, each reported through the event stream as a suite test
//! (`TestStarted`, its attempts, `TestFinished` with the [`PageCheck`]); the results come back
//! in the spec's order.

use std::time::Instant;

use futures::StreamExt;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_llm::VlmProvider;
use retrace_protocol::events::Artifacts;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::TestKind;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;
use retrace_protocol::events::Verdict;

use crate::judge_options::JudgeWhen;
use crate::page_check::PageContext;
use crate::page_check::check_page;
use crate::spec::CheckSpec;
use crate::spec::SpecError;
use crate::spec::Viewport;

/// Why a check could not run at all (not one page's ERROR).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The spec is not usable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A stored baseline could not be written.
    #[error("storing the baseline: {0}")]
    Baseline(String),
    /// The browser did not start.
    #[error("cannot start Chromium ({}) at {viewport}: {detail}", executable.display())]
    Browser {
        /// The executable.
        executable: std::path::PathBuf,
        /// The viewport.
        viewport: Viewport,
        /// Why.
        detail: String,
    },
}

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

/// Runs the check `spec` describes (validated first), with no model judge.
pub async fn run_check(spec: &CheckSpec, events: &Events) -> Result<CheckRun, CheckError> {
    run_check_with_judge(spec, None, events).await
}

/// The check's Chromium at `viewport`: launched from `spec.chromium`, a failure naming the
/// executable and the viewport.
pub(crate) async fn launch_at(
    spec: &CheckSpec,
    viewport: Viewport,
) -> Result<ChromiumBrowser, CheckError> {
    let config = ChromiumConfig {
        executable: spec.chromium.clone(),
        width: viewport.width,
        height: viewport.height,
        ..ChromiumConfig::default()
    };
    ChromiumBrowser::launch(&config)
        .await
        .map_err(|error| CheckError::Browser {
            executable: spec.chromium.clone(),
            viewport,
            detail: error.to_string(),
        })
}

/// Runs the check `spec` describes (validated first); `judge` is the model asked when
/// `spec.judge.when` calls for it (used as given: wrap it in no retrying provider, the
/// check's own retries are logged per attempt). The whole run has `timeouts.run_ms`.
pub async fn run_check_with_judge(
    spec: &CheckSpec,
    judge: Option<&dyn VlmProvider>,
    events: &Events,
) -> Result<CheckRun, CheckError> {
    spec.validate()?;
    if spec.judge.when != JudgeWhen::Off && judge.is_none() {
        return Err(CheckError::Spec(SpecError {
            file: None,
            field: "judge.when".to_owned(),
            message: "a model judge is asked for but no model was given".to_owned(),
        }));
    }
    let run_deadline =
        tokio::time::Instant::now() + std::time::Duration::from_millis(spec.timeouts.run_ms);
    let mut pages = Vec::new();
    for &viewport in &spec.viewports {
        let browser = launch_at(spec, viewport).await?;
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
        };
        let checked: Vec<PageCheck> = futures::stream::iter(spec.pages.iter())
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
    }
    Ok(CheckRun { pages })
}

/// The suite report of one page check.
fn test_report(spec: &CheckSpec, id: String, check: &PageCheck, wall_ms: u64) -> TestReport {
    let passed_after_error = check.attempts.len() > 1;
    let status = match check.verdict {
        Verdict::Pass if passed_after_error => TestStatus::Flaky,
        Verdict::Pass => TestStatus::Passed,
        Verdict::Fail => TestStatus::Failed,
        Verdict::Error => TestStatus::Error,
    };
    let (width, height) = check.viewport;
    TestReport {
        id,
        kind: TestKind::Check,
        file: check.path.clone().into(),
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
        rerun: crate::rerun::rerun_command(spec, &check.path, Viewport { width, height }),
        wall_ms,
    }
}
