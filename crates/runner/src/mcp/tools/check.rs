//! `check`: candidate pages against a baseline, pixel by pixel, in the server's browser, as
//! `retrace check` does (`crate::check`): a verdict per page, its typed differences,
//! its evidence files, and each failed page's diff image as image content.

use std::path::PathBuf;
use std::sync::Arc;

use crate::BrowserTarget;
use crate::check::CheckJob;
use crate::check::run_check_job_in;
use futures::future::BoxFuture;
use retrace_check::BrowserSource;
use retrace_check::CheckSpec;
use retrace_check::Viewport;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;
use retrace_protocol::events::PageCheck;
use retrace_protocol::events::Verdict;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::declaration::declare;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;
use crate::mcp::call::on_own_thread;
use crate::mcp::call::wire_name;
use crate::mcp::state::SharedState;
use crate::mcp::warm::WarmBrowser;

/// The tool's name.
pub const NAME: &str = "check";

const DESCRIPTION: &str = "Compare candidate pages with a baseline in headless Chromium \
(pixel diff, anti-aliasing aware, every changed box typed: layout shift, text, colour, \
removed, added; console errors too). Each page gets a verdict: PASS (looks the same), FAIL \
(differences listed; its diff image is attached), ERROR (the comparison could not be made: \
the page did not load or settle; not a pass). The baseline is a base URL (production) or a \
folder of stored shots (made by `approve` with `baseline_dir`). Evidence (both screenshots, \
the diff, result.json) is written under `out`. Sends a progress notification as each page is \
done (when the call asks for progress).";

/// `check`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The baseline: a base URL (`https://prod.example`), or a folder of stored shots.
    pub baseline: String,
    /// The candidate's base URL (`http://127.0.0.1:8000`).
    pub candidate: String,
    /// Page paths joined to both base URLs (default `["/"]`).
    #[serde(default)]
    pub pages: Vec<String>,
    /// Viewports, `WIDTHxHEIGHT` (default `["1280x720"]`).
    #[serde(default)]
    pub viewports: Vec<String>,
    /// CSS selectors painted over on both sides (dates, ads).
    #[serde(default)]
    pub masks: Vec<String>,
    /// Differing pixels, as a share of the page, that still pass (default 0).
    #[serde(default)]
    pub max_diff_ratio: Option<f64>,
    /// Retries after an ERROR (default 3; a FAIL is never retried).
    #[serde(default)]
    pub retries: Option<u32>,
    /// Shoot the viewport only, not the whole page.
    #[serde(default)]
    pub viewport_only: bool,
    /// Where evidence goes (default: a fresh folder under the server's `--out`).
    #[serde(default)]
    pub out: Option<String>,
    /// A login trajectory replayed on each side before any page is compared; its parameters
    /// come from the server's environment (`RETRACE_PARAM_<NAME>`). A login that fails is an
    /// error naming the side and the step.
    #[serde(default)]
    pub login: Option<String>,
    /// Where the login starts on each side, a path under its base URL (default: the base URL).
    #[serde(default)]
    pub login_path: Option<String>,
    /// A Playwright storageState file loaded into each side instead of a login.
    #[serde(default)]
    pub storage_state: Option<String>,
}

/// `check`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// `PASS`, `FAIL` (any page failed) or `ERROR` (any page could not be compared, none
    /// failed).
    pub verdict: String,
    /// One per page and viewport.
    pub pages: Vec<PageOutput>,
    /// The evidence folder.
    pub out: String,
}

/// One page at one viewport.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PageOutput {
    /// The page's path.
    pub path: String,
    /// `WIDTHxHEIGHT`.
    pub viewport: String,
    /// `PASS`, `FAIL` or `ERROR`.
    pub verdict: String,
    /// The differences of a FAIL.
    pub differences: Vec<DifferenceOutput>,
    /// Why it was an ERROR.
    pub error: Option<String>,
    /// Attempts made (more than one after ERRORs).
    pub attempts: usize,
    /// Evidence files: baseline, candidate and diff images, result.json.
    pub evidence: Vec<String>,
    /// The diff image (changed pixels in red, boxes drawn), when there is one.
    pub diff_image: Option<String>,
}

/// One typed difference.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DifferenceOutput {
    /// `layout`, `styling`, `content`, `interaction` or `console_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `critical`, `major` or `minor`.
    pub severity: String,
    /// The kind of change (`shift`, `text`, `colour`, `removed`, `added`...), when known.
    pub change: Option<String>,
    /// What changed.
    pub description: String,
    /// Where, in page pixels.
    pub region: Option<Region>,
}

/// A box in page pixels.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Region {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// The server's browser as a check's source: each viewport a run of its own in it.
struct WarmSource<'a>(&'a WarmBrowser);

impl BrowserSource for WarmSource<'_> {
    fn open(&self, viewport: Viewport) -> BoxFuture<'_, Result<ChromiumBrowser, String>> {
        Box::pin(async move {
            self.0
                .run_at((viewport.width, viewport.height))
                .await
                .map_err(|error| error.to_string())
        })
    }

    fn describe(&self) -> String {
        crate::check::CheckBrowsers(self.0.config().clone(), Events::none()).describe()
    }
}

/// The spec `input` asks for (an unusable value named as the argument it came from).
pub(crate) fn spec_of(shared: &SharedState, input: &Input) -> Result<CheckSpec, ToolError> {
    let mut spec = CheckSpec {
        baseline: input.baseline.clone(),
        candidate: input.candidate.clone(),
        out_dir: input
            .out
            .as_ref()
            .map_or_else(|| shared.call_dir(NAME), PathBuf::from),
        ..CheckSpec::default()
    };
    if let BrowserTarget::Launch { chromium } = &shared.settings.browser.target {
        spec.chromium = chromium.clone();
    }
    if !input.pages.is_empty() {
        spec.pages = input.pages.clone();
    }
    if !input.viewports.is_empty() {
        spec.viewports = input
            .viewports
            .iter()
            .enumerate()
            .map(|(index, text)| {
                text.parse::<Viewport>()
                    .map_err(|message| ToolError::argument(format!("viewports[{index}]"), message))
            })
            .collect::<Result<_, _>>()?;
    }
    spec.capture.masks = input.masks.clone();
    spec.capture.full_page = !input.viewport_only;
    if let Some(ratio) = input.max_diff_ratio {
        spec.thresholds.max_diff_ratio = ratio;
    }
    if let Some(retries) = input.retries {
        spec.retry.retries = retries;
    }
    spec.login.flow = input.login.as_ref().map(PathBuf::from);
    spec.login.start_path = input.login_path.clone();
    spec.login.storage_state = input.storage_state.as_ref().map(PathBuf::from);
    spec.validate()
        .map_err(|error| ToolError::argument(error.field, error.message))?;
    Ok(spec)
}

/// Runs the check.
pub async fn call(
    shared: &SharedState,
    input: Input,
    context: &CallContext,
) -> Result<CallToolResult, ToolError> {
    let mut spec = spec_of(shared, &input)?;
    let (login_parameters, rerun_params) = match &spec.login.flow {
        Some(flow) => crate::check_login::login_parameters(flow, &[], &[], None, &|name| {
            std::env::var(name).ok()
        })
        .map_err(|error| ToolError::argument("login", error.to_string()))?,
        None => Default::default(),
    };
    spec.login.rerun_params = rerun_params;
    let browser = shared.settings.browser.clone();
    let warm = Arc::clone(&shared.warm);
    let total = spec.pages.len() * spec.viewports.len();
    let (sink, notifier) = crate::mcp::progress::forward(context, total, |event| match event {
        Event::TestFinished(test) => test.check.as_ref().map(page_line),
        _ => None,
    });
    let cancel = context.cancel.clone();
    let checked = on_own_thread({
        let spec = spec.clone();
        move || async move {
            let job = CheckJob {
                spec: &spec,
                judge: None,
                browser,
                shard: None,
                events_log: Some(spec.out_dir.join("events.jsonl")),
                login_parameters,
            };
            let source = WarmSource(&warm);
            let events = Events::none().with(sink);
            tokio::select! {
                run = run_check_job_in(job, &source, &events) => Some(run),
                () = cancel.cancelled() => None,
            }
        }
    })
    .await?;
    let _ = notifier.await;
    let Some(run) = checked else {
        return Err(ToolError::Failed("cancelled".into()));
    };
    let run = run.map_err(ToolError::failed)?;
    let pages: Vec<PageOutput> = run.pages.iter().map(page_output).collect();
    let images = pages
        .iter()
        .filter(|page| page.verdict == "FAIL")
        .filter_map(|page| page.diff_image.as_deref())
        .filter_map(|path| crate::mcp::images::image_block(std::path::Path::new(path)))
        .collect();
    let output = Output {
        verdict: label(run.verdict()).to_owned(),
        pages,
        out: shown(&spec.out_dir),
    };
    context.result(&output, images)
}

fn page_output(page: &PageCheck) -> PageOutput {
    let (width, height) = page.viewport;
    PageOutput {
        path: page.path.clone(),
        viewport: format!("{width}x{height}"),
        verdict: label(page.verdict).to_owned(),
        differences: page
            .differences
            .iter()
            .map(|difference| DifferenceOutput {
                kind: wire_name(&difference.kind),
                severity: wire_name(&difference.severity),
                change: difference.change.as_ref().map(wire_name),
                description: difference.description.clone(),
                region: difference.region.map(|r| Region {
                    x: r.x,
                    y: r.y,
                    width: r.width,
                    height: r.height,
                }),
            })
            .collect(),
        error: page.error.clone(),
        attempts: page.attempts.len(),
        evidence: page.evidence.iter().map(|path| shown(path)).collect(),
        diff_image: page
            .evidence
            .iter()
            .rfind(|path| path.file_name().is_some_and(|name| name == "diff.png"))
            .map(|path| shown(path)),
    }
}

/// `FAIL /pricing @1280x720: 2 differences`, a page's progress line.
fn page_line(page: &PageCheck) -> String {
    let (width, height) = page.viewport;
    let head = format!("{} {} @{width}x{height}", label(page.verdict), page.path);
    match page.verdict {
        Verdict::Pass => head,
        Verdict::Fail => format!("{head}: {} differences", page.differences.len()),
        Verdict::Error => format!(
            "{head}: {}",
            page.error.as_deref().unwrap_or("no reason given")
        ),
    }
}

/// `PASS`, `FAIL`, `ERROR`.
pub fn label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Error => "ERROR",
    }
}
