//! What a check is asked to do: the two base URLs, the pages, the viewports, the thresholds,
//! the timeouts and the retries, as one [`CheckSpec`]. It is read from a JSON file
//! ([`load_spec`]) or built from flags, and [`CheckSpec::validate`] names the field of any bad
//! value, so a typo never reaches a browser.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;
use serde::Serialize;

use crate::judge_options::JudgeOptions;

/// A viewport, written `WIDTHxHEIGHT` (`1280x720`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Viewport {
    /// CSS pixels.
    pub width: u32,
    /// CSS pixels.
    pub height: u32,
}

impl fmt::Display for Viewport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for Viewport {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let parsed = text.split_once(['x', 'X']).and_then(|(w, h)| {
            Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?))
        });
        match parsed {
            Some((width, height))
                if (1..=10_000).contains(&width) && (1..=10_000).contains(&height) =>
            {
                Ok(Viewport { width, height })
            }
            _ => Err(format!(
                "`{text}` is not a viewport: expected WIDTHxHEIGHT such as 1280x720 (1..10000 each)"
            )),
        }
    }
}

impl Serialize for Viewport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Viewport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// When a page counts as different.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// pixelmatch's `threshold` (YIQ distance, 0 to 1; smaller is more sensitive).
    pub pixel_threshold: f64,
    /// A pixel pixelmatch lets through still differs when its CIEDE2000 colour distance is at
    /// least this (0 turns the floor off).
    pub delta_e: f64,
    /// Count anti-aliased pixels as differences (pixelmatch `includeAA`).
    pub include_aa: bool,
    /// Differing pixels that still pass.
    pub max_diff_pixels: u64,
    /// Differing pixels, as a share of the page (0 to 1), that still pass.
    pub max_diff_ratio: f64,
    /// Differing pixels closer than this end up in the same box.
    pub merge_distance: u32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            pixel_threshold: 0.1,
            delta_e: 5.0,
            include_aa: false,
            max_diff_pixels: 0,
            max_diff_ratio: 0.0,
            merge_distance: 16,
        }
    }
}

/// Every time limit of a check, in milliseconds, in one place: every part reads its limit
/// here, and each page's report echoes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeouts {
    /// A page's load event.
    pub navigation_ms: u64,
    /// Network quiet, fonts, images, after the load event.
    pub readiness_ms: u64,
    /// Screenshots until two in a row are identical.
    pub stability_ms: u64,
    /// How long the network must be quiet to count as idle.
    pub network_idle_ms: u64,
    /// One answer of the model judge.
    pub model_ms: u64,
    /// A whole page at one viewport, every attempt and backoff included.
    pub page_ms: u64,
    /// The whole check: a page still unfinished when it runs out is an ERROR.
    pub run_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            navigation_ms: 30_000,
            readiness_ms: 30_000,
            stability_ms: 30_000,
            network_idle_ms: 500,
            model_ms: 120_000,
            page_ms: 600_000,
            run_ms: 3_600_000,
        }
    }
}

impl Timeouts {
    /// [`Timeouts::navigation_ms`] as a duration.
    pub fn navigation(&self) -> Duration {
        Duration::from_millis(self.navigation_ms)
    }

    /// [`Timeouts::model_ms`] as a duration.
    pub fn model(&self) -> Duration {
        Duration::from_millis(self.model_ms)
    }
}

/// Retries after an ERROR (a FAIL is never retried). By default three, after 2, 4 and 8 s:
/// the seed's exponential backoff, every step of it reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Retry {
    /// Attempts after the first.
    pub retries: u32,
    /// The wait before each retry; the last one repeats.
    pub backoff_ms: Vec<u64>,
}

impl Default for Retry {
    fn default() -> Self {
        Self {
            retries: 3,
            backoff_ms: vec![2_000, 4_000, 8_000],
        }
    }
}

impl Retry {
    /// The wait before retry `n` (1-based).
    pub fn backoff(&self, n: u32) -> Duration {
        let index = (n.saturating_sub(1) as usize).min(self.backoff_ms.len().saturating_sub(1));
        Duration::from_millis(self.backoff_ms.get(index).copied().unwrap_or(0))
    }
}

/// How pages are captured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureOptions {
    /// The whole scrollable page (true) or the viewport only.
    pub full_page: bool,
    /// CSS selectors painted over identically on both sides (dates, ads...), on every page.
    pub masks: Vec<String>,
    /// CSS selectors painted over on one page only (by path), in addition to `masks`; a
    /// pages file (`--pages`) fills it.
    pub page_masks: BTreeMap<String, Vec<String>>,
    /// A CSS selector an element must match, and be visible, before a page counts as ready
    /// (within `timeouts.readiness_ms`).
    pub ready_selector: Option<String>,
    /// A page's own ready selector (by path), in place of `ready_selector` on that page only;
    /// a pages file (`--pages`) fills it.
    pub page_ready_selectors: BTreeMap<String, String>,
    /// Screenshots taken at most while waiting for two identical ones in a row.
    pub max_shots: u32,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        Self {
            full_page: true,
            masks: Vec::new(),
            page_masks: BTreeMap::new(),
            ready_selector: None,
            page_ready_selectors: BTreeMap::new(),
            max_shots: 10,
        }
    }
}

/// A whole check: every page at every viewport, baseline against candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckSpec {
    /// The baseline's base URL ("production").
    pub baseline: String,
    /// The candidate's base URL ("refactored").
    pub candidate: String,
    /// Page paths, joined to both base URLs (`/pricing`, `/site/?variant=x`).
    pub pages: Vec<String>,
    /// Viewports, each page is checked at each.
    pub viewports: Vec<Viewport>,
    /// Pages checked at once.
    pub jobs: usize,
    /// Where evidence goes.
    pub out_dir: PathBuf,
    /// The Chromium executable.
    pub chromium: PathBuf,
    /// When pages count as different.
    pub thresholds: Thresholds,
    /// Every time limit.
    pub timeouts: Timeouts,
    /// Retries after an ERROR.
    pub retry: Retry,
    /// How pages are captured.
    pub capture: CaptureOptions,
    /// The model judge.
    pub judge: JudgeOptions,
    /// How each side is signed in before its pages are captured (module `login`).
    pub login: LoginOptions,
}

impl Default for CheckSpec {
    fn default() -> Self {
        Self {
            baseline: String::new(),
            candidate: String::new(),
            pages: vec!["/".to_owned()],
            viewports: vec![Viewport {
                width: 1280,
                height: 720,
            }],
            jobs: 1,
            out_dir: PathBuf::from("retrace-check"),
            chromium: retrace_drive::chromium::default_executable(),
            thresholds: Thresholds::default(),
            timeouts: Timeouts::default(),
            retry: Retry::default(),
            capture: CaptureOptions::default(),
            judge: JudgeOptions::default(),
            login: LoginOptions::default(),
        }
    }
}

/// A spec that cannot be used: which file (when read from one), which field, what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{field}: {message}", file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default())]
pub struct SpecError {
    /// The spec file, when there is one.
    pub file: Option<PathBuf>,
    /// The field (`thresholds.pixel_threshold`, `pages[2]`), or `-` for the whole document.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl SpecError {
    fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: None,
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Reads a JSON spec file and validates it.
pub fn load_spec(path: &Path) -> Result<CheckSpec, SpecError> {
    let spec = load_spec_over(path, &CheckSpec::default())?;
    spec.validate().map_err(|mut error| {
        error.file = Some(path.to_path_buf());
        error
    })?;
    Ok(spec)
}

/// Parses a JSON spec (not validated).
pub fn parse_spec(text: &str) -> Result<CheckSpec, SpecError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    from_json(serde_path_to_error::deserialize(&mut deserializer))
}

/// Reads a JSON spec file over `base` (every field the file sets replaces `base`'s, nested
/// tables field by field: a file that sets `timeouts.page_ms` keeps `base`'s other limits).
/// What a suite file sets for every part sits under the spec. Not validated: flags may
/// still complete it (the caller validates the result).
pub fn load_spec_over(path: &Path, base: &CheckSpec) -> Result<CheckSpec, SpecError> {
    let in_file = |mut error: SpecError| {
        error.file = Some(path.to_path_buf());
        error
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| in_file(SpecError::field("-", format!("cannot read it: {e}"))))?;
    let over: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| in_file(SpecError::field("-", format!("not JSON: {e}"))))?;
    let mut merged =
        serde_json::to_value(base).map_err(|e| in_file(SpecError::field("-", e.to_string())))?;
    merge_json(&mut merged, over);
    from_json(serde_path_to_error::deserialize(merged)).map_err(in_file)
}

/// `over` laid on `base`: objects field by field, anything else replaced.
fn merge_json(base: &mut serde_json::Value, over: serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(base), serde_json::Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(slot) => merge_json(slot, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (slot, value) => *slot = value,
    }
}

/// A deserialised spec, its error naming the field.
fn from_json<E: std::fmt::Display>(
    result: Result<CheckSpec, serde_path_to_error::Error<E>>,
) -> Result<CheckSpec, SpecError> {
    result.map_err(|error| {
        let field = error.path().to_string();
        let field = if field == "." { "-".to_owned() } else { field };
        SpecError::field(field, error.into_inner().to_string())
    })
}

impl CheckSpec {
    /// Checks every value, naming the first bad field.
    pub fn validate(&self) -> Result<(), SpecError> {
        for (field, url) in [("baseline", &self.baseline), ("candidate", &self.candidate)] {
            if field == "baseline" && self.stored_baseline().is_some() {
                continue;
            }
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(SpecError::field(
                    field,
                    format!("`{url}` is not an http(s) URL"),
                ));
            }
        }
        if self.pages.is_empty() {
            return Err(SpecError::field("pages", "no page to check"));
        }
        for (index, page) in self.pages.iter().enumerate() {
            if !page.starts_with('/') {
                return Err(SpecError::field(
                    format!("pages[{index}]"),
                    format!("`{page}` is not a path (it must start with `/`)"),
                ));
            }
        }
        if self.viewports.is_empty() {
            return Err(SpecError::field("viewports", "no viewport"));
        }
        if self.jobs == 0 {
            return Err(SpecError::field("jobs", "must be at least 1"));
        }
        let t = &self.thresholds;
        let ranges = [
            ("thresholds.pixel_threshold", t.pixel_threshold, 0.0, 1.0),
            ("thresholds.max_diff_ratio", t.max_diff_ratio, 0.0, 1.0),
            ("thresholds.delta_e", t.delta_e, 0.0, 100.0),
            ("judge.ceiling_ratio", self.judge.ceiling_ratio, 0.0, 1.0),
            (
                "judge.min_confidence",
                f64::from(self.judge.min_confidence),
                0.0,
                100.0,
            ),
        ];
        for (field, value, low, high) in ranges {
            if !(low..=high).contains(&value) {
                return Err(SpecError::field(
                    field,
                    format!("{value} is outside {low}..={high}"),
                ));
            }
        }
        let timeouts = [
            ("timeouts.navigation_ms", self.timeouts.navigation_ms),
            ("timeouts.readiness_ms", self.timeouts.readiness_ms),
            ("timeouts.stability_ms", self.timeouts.stability_ms),
            ("timeouts.model_ms", self.timeouts.model_ms),
            ("timeouts.page_ms", self.timeouts.page_ms),
            ("timeouts.run_ms", self.timeouts.run_ms),
        ];
        for (field, value) in timeouts {
            if value == 0 {
                return Err(SpecError::field(field, "must be more than 0"));
            }
        }
        let masks = self
            .capture
            .masks
            .iter()
            .map(|m| ("capture.masks".to_owned(), m));
        let page_masks = self.capture.page_masks.iter().flat_map(|(page, masks)| {
            masks
                .iter()
                .map(move |m| (format!("capture.page_masks.\"{page}\""), m))
        });
        for (field, selector) in masks.chain(page_masks) {
            if selector.trim().is_empty() {
                return Err(SpecError::field(field, "an empty CSS selector"));
            }
        }
        let ready = self
            .capture
            .ready_selector
            .iter()
            .map(|s| ("capture.ready_selector".to_owned(), s));
        let page_ready = self
            .capture
            .page_ready_selectors
            .iter()
            .map(|(page, s)| (format!("capture.page_ready_selectors.\"{page}\""), s));
        for (field, selector) in ready.chain(page_ready) {
            if selector.trim().is_empty() {
                return Err(SpecError::field(field, "an empty CSS selector"));
            }
        }
        self.login.validate()?;
        if self.capture.max_shots < 2 {
            return Err(SpecError::field(
                "capture.max_shots",
                "must be at least 2 (two identical screenshots in a row)",
            ));
        }
        Ok(())
    }

    /// Where judgements are kept.
    pub fn judgement_dir(&self) -> PathBuf {
        self.judge
            .cache_dir
            .clone()
            .unwrap_or_else(|| self.out_dir.join("judgements"))
    }

    /// The masks painted on the page at `path`: the check's, then the page's own.
    pub fn masks_for(&self, path: &str) -> Vec<String> {
        let own = self.capture.page_masks.get(path).into_iter().flatten();
        self.capture.masks.iter().chain(own).cloned().collect()
    }

    /// The selector the page at `path` waits for before it is made still: its own, else the
    /// check's.
    pub fn ready_selector_for(&self, path: &str) -> Option<&str> {
        let own = self.capture.page_ready_selectors.get(path);
        own.or(self.capture.ready_selector.as_ref())
            .map(String::as_str)
    }

    /// The folder of stored baseline shots, when `baseline` names one (a path: no `://`)
    /// rather than a site.
    pub fn stored_baseline(&self) -> Option<&std::path::Path> {
        let url = self.baseline.as_str();
        (!url.is_empty() && !url.contains("://")).then(|| std::path::Path::new(url))
    }

    /// `base` + `path`, without a doubled slash.
    pub fn url(base: &str, path: &str) -> String {
        format!("{}{path}", base.trim_end_matches('/'))
    }
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;

/// How the sides are signed in (the spec's `login`): a flow, or a state file, or neither.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoginOptions {
    /// A trajectory replayed on each side before its pages are captured (`--login`).
    pub flow: Option<PathBuf>,
    /// Where the flow starts on each side, a path joined to the side's base URL (`--login-path`;
    /// default: the base URL itself, as `retrace replay --url BASE` starts).
    pub start_path: Option<String>,
    /// A Playwright `storageState` file loaded into each side instead (`--storage-state`).
    pub storage_state: Option<PathBuf>,
    /// The flow's `--param` words for the rerun command, secret values spelled as the
    /// variable they are read from (set by whoever read them; never from a file).
    #[serde(skip)]
    pub rerun_params: Vec<String>,
}

impl LoginOptions {
    /// Whether the sides are signed in at all.
    pub fn any(&self) -> bool {
        self.flow.is_some() || self.storage_state.is_some()
    }

    /// The URL the flow starts at on the side at `base`.
    pub fn start_url(&self, base: &str) -> String {
        match &self.start_path {
            Some(path) => CheckSpec::url(base, path),
            None => base.to_owned(),
        }
    }

    /// Names the first bad field.
    pub(crate) fn validate(&self) -> Result<(), SpecError> {
        let field = |field: &str, message: &str| SpecError {
            file: None,
            field: field.to_owned(),
            message: message.to_owned(),
        };
        if self.flow.is_some() && self.storage_state.is_some() {
            return Err(field(
                "login",
                "give a login flow or a storage state file, not both",
            ));
        }
        if let Some(path) = &self.start_path
            && !path.starts_with('/')
        {
            return Err(field(
                "login.start_path",
                &format!("`{path}` is not a path (it must start with `/`)"),
            ));
        }
        Ok(())
    }
}
