//! What the checks share: the [`StepCheck`] trait, what a check consults ([`CheckEnv`]),
//! what it answers ([`Look`], [`Relocation`]) and the helpers that build its answers. In a
//! module of its own so that the checks use it, and the checks' module uses them, without a
//! cycle.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use crate::plan::HashSpec;
use crate::plan::PlannedStep;
use crate::request::ReplaySettings;
use crate::request::WaitMode;
use crate::screen::ElementProbe;
use crate::screen::PageProbe;

/// What every check may consult besides the step and the screen.
#[derive(Debug, Clone)]
pub struct CheckEnv {
    /// The replay's settings (threshold, search radius...).
    pub settings: ReplaySettings,
    /// How the file's regions are hashed.
    pub hashing: HashSpec,
    /// Whether the file asks for visual checks.
    pub visual_enabled: bool,
    /// Whether the step is the last one that acts.
    pub last_acting: bool,
    /// Whether the next step that acts does so on the focused element (types or presses
    /// keys) and waits for a still field before it does (nothing checks it before it acts):
    /// the step's after-action screenshot then also shows the focused field, where that step
    /// waits for a still screen.
    pub focus_next: bool,
    /// The points the next acting step's before-action checks read on the screenshot, at
    /// its recorded point: the step's after-action screenshot also shows the squares around
    /// them, and the next step takes it as its first look when it comes at once (see
    /// [`crate::frame_memory`]).
    pub next_reads: Vec<(i64, i64)>,
    /// The next acting step's before-action checks that ask the page alone (the semantic
    /// check): the step's after-action polls ask them too, so the next step, handed the
    /// screenshot such a poll passed on, is handed their answers from the same moment (see
    /// [`crate::frame_memory`]). `None` when it has none, or there is no next step.
    pub next_page_checks: Option<NextChecks>,
    /// The browser page behind the screen, for checks that ask it; `None` on a desktop.
    pub page: Option<PageProbe>,
    /// The elements on the screen (a page's, or a desktop application's accessibility
    /// tree), for the semantic and state checks; `None` when nothing tells.
    pub elements: Option<ElementProbe>,
}

/// Checks of a step other than the one running, with the step.
#[derive(Debug, Clone)]
pub struct NextChecks {
    /// The step.
    pub step: PlannedStep,
    /// Its checks, in the order they run.
    pub checks: Vec<Arc<dyn StepCheck>>,
}

impl CheckEnv {
    /// Whether hash checks run at all: the settings allow them and the file asks for them.
    pub fn hashes_checked(&self) -> bool {
        self.settings.visual && self.visual_enabled
    }

    /// The threshold for a hash of `bits` bits: the setting is for askui's 64-bit hashes, so
    /// a finer hash (`--hash-size 16`: 256 bits) gets it scaled in proportion.
    pub fn threshold_for(&self, bits: usize) -> u32 {
        let scaled = u64::from(self.settings.threshold) * bits as u64 / 64;
        u32::try_from(scaled.max(u64::from(self.settings.threshold.min(1)))).unwrap_or(u32::MAX)
    }

    /// Whether after-action checks run for this step: in visual and stable modes every step
    /// with an after-action state is checked; a fixed delay (askui's way, which checks only
    /// before each step) checks only the last step, which has no next step to check it.
    pub fn effects_checked(&self) -> bool {
        self.hashes_checked()
            && (self.last_acting || !matches!(self.settings.wait, WaitMode::Fixed(_)))
    }
}

/// One look of a check at one screenshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Look {
    /// Whether the check passed on it.
    pub passed: bool,
    /// What it measured (a Hamming distance), when it measures.
    pub distance: Option<u32>,
    /// The bound the measure must meet.
    pub threshold: Option<u32>,
    /// A note for people when it did not pass.
    pub detail: Option<String>,
    /// The element a check that asks the page found at the point, when it did not pass:
    /// what `retrace approve` records for the step.
    pub found: Option<ElementInfo>,
}

impl Look {
    /// The same look, naming the element found at the point.
    pub(crate) fn finding(mut self, found: ElementInfo) -> Self {
        self.found = Some(found);
        self
    }
}

/// Where a check found the recorded thing when it had moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    /// The offset `(dx, dy)` from the recorded point.
    pub offset: (i64, i64),
}

/// One thing replay verifies about a step.
#[async_trait]
pub trait StepCheck: Send + Sync + std::fmt::Debug {
    /// The name events and reports give it (`visual`, `effect`).
    fn name(&self) -> &'static str;
    /// Before or after the step acts.
    fn phase(&self) -> CheckPhase;
    /// Whether it has anything to check on `step` (a recorded hash, a point).
    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool;
    /// Whether its look reads the screenshot (a check that asks only the page does not, and
    /// an after-action phase of such checks alone takes no screenshot until it fails and
    /// needs evidence).
    fn reads_screen(&self) -> bool {
        true
    }
    /// The points around which its look at the step acting at `at` reads the screenshot:
    /// within the hashed region of each, and before acting the search radius around it. The
    /// wait engine captures only those squares while the looks pass there.
    fn points_read(&self, _step: &PlannedStep, at: (i64, i64)) -> Vec<(i64, i64)> {
        vec![at]
    }
    /// Looks at `screen` with the step acting at `at` (`None` for a step that acts at no
    /// point, such as typing).
    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String>;
    /// Where the recorded thing is on `screen` when it is no longer at `at`, if this check
    /// can tell; `None` by default.
    async fn relocate(
        &self,
        _step: &PlannedStep,
        _at: (i64, i64),
        _screen: &Arc<Image>,
        _env: &CheckEnv,
    ) -> Option<Relocation> {
        None
    }
}

/// The distance between `recorded` and the hash of the region of `spec` around `at` in
/// `screen`; what both hash checks measure.
pub(crate) fn region_distance(
    screen: &Image,
    at: (i64, i64),
    recorded: &retrace_vision::ImageHash,
    spec: HashSpec,
) -> Result<u32, String> {
    let region =
        retrace_vision::action_region(at, spec.region_size, screen.width(), screen.height());
    let hash_size = (recorded.bits().len() as f64).sqrt() as u32;
    let current = retrace_vision::region_hash(screen, region, spec.method, hash_size)
        .map_err(|error| error.to_string())?;
    current
        .distance(recorded)
        .map_err(|error| error.to_string())
}

/// The point a check that needs one looks at, or the error saying it has none.
pub(crate) fn point(at: Option<(i64, i64)>) -> Result<(i64, i64), String> {
    at.ok_or_else(|| "the step acts at no point".to_owned())
}

/// What an element question's `error` means: when `probe` stopped answering (a desktop's
/// accessibility bus timed out), the check passes and the visual checks carry on alone;
/// otherwise the error stands.
pub(crate) fn unanswered(
    probe: &ElementProbe,
    error: &retrace_drive::DriveError,
) -> Result<Look, String> {
    match probe.available() {
        true => Err(error.to_string()),
        false => Ok(pass()),
    }
}

/// Whether `env` can ask about elements (a page, or an accessibility bus still answering).
pub(crate) fn elements_answer(env: &CheckEnv) -> bool {
    env.elements.as_ref().is_some_and(ElementProbe::available)
}

/// A passing [`Look`] with nothing measured.
pub(crate) fn pass() -> Look {
    Look {
        passed: true,
        distance: None,
        threshold: None,
        detail: None,
        found: None,
    }
}

/// A failing [`Look`] saying why.
pub(crate) fn mismatch(detail: String) -> Look {
    Look {
        passed: false,
        distance: None,
        threshold: None,
        detail: Some(detail),
        found: None,
    }
}

/// A [`Look`] at a distance against a threshold.
pub(crate) fn distance_look(distance: u32, threshold: u32, what: &str) -> Look {
    let passed = distance <= threshold;
    Look {
        passed,
        distance: Some(distance),
        threshold: Some(threshold),
        detail: (!passed).then(|| what.to_owned()),
        found: None,
    }
}
