//! What waiting for a phase's checks ends with, and why it could not wait.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_vision::Image;

use crate::checks::Look;
use crate::checks::Relocation;

/// How long one screenshot may keep failing before the replay gives up on the screen (an
/// error, not a failed step): generous, because a loaded machine is slow, not broken.
pub const SCREENSHOT_BUDGET: Duration = Duration::from_secs(30);

/// What waiting for a phase's checks ended with.
#[derive(Debug)]
pub struct Verdict {
    /// Each check's last look, in the order the checks were given.
    pub looks: Vec<(&'static str, Look)>,
    /// The repair applied, when the checks passed only at a moved point.
    pub relocation: Option<Relocation>,
    /// How long it took.
    pub waited: Duration,
    /// The last screenshot.
    pub screen: Arc<Image>,
    /// Why it ended before the step's time was up without passing (the page settled), or
    /// what it waited for in vain (a page that never finished loading).
    pub note: Option<String>,
}

impl Verdict {
    /// The verdict of `looks` at `screen`, waited for since `started`: no repair, no note.
    pub(crate) fn looked(
        looks: Vec<(&'static str, Look)>,
        screen: Arc<Image>,
        started: Instant,
    ) -> Verdict {
        Verdict {
            looks,
            relocation: None,
            waited: started.elapsed(),
            screen,
            note: None,
        }
    }

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.looks.iter().all(|(_, look)| look.passed)
    }

    /// The first check that did not pass, with its look.
    pub fn failing(&self) -> Option<&(&'static str, Look)> {
        self.looks.iter().find(|(_, look)| !look.passed)
    }
}

/// The picture handed to checks that read no screenshot.
pub(super) fn blank_screen() -> Result<Arc<Image>, ScreenError> {
    retrace_vision::Image::new(1, 1, retrace_vision::PixelLayout::Gray, vec![0])
        .map(Arc::new)
        .map_err(|error| ScreenError(error.to_string()))
}

/// The screen could not be captured for the whole of a step's time.
#[derive(Debug, thiserror::Error)]
#[error("no screenshot could be taken: {0}")]
pub struct ScreenError(pub String);
