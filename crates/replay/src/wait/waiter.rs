//! The poller of one screen for one replay; its waits are in the modules beside it.

use std::sync::Arc;

use crate::checks::CheckEnv;
use crate::checks::StepCheck;
use crate::frame_memory::FrameMemory;
use crate::screen::Screen;

/// Polls one screen for one replay.
pub struct Waiter<'a> {
    /// The screen.
    pub screen: &'a dyn Screen,
    /// The settings and file facts the checks read.
    pub env: &'a CheckEnv,
    /// The last verified screenshot, looked at again while the page says it still shows
    /// (see [`crate::frame_memory`]).
    pub memory: &'a FrameMemory,
}

/// Whether a phase polls without screenshots: after acting (`repair` is for the phase before
/// it), when none of `checks` looks at the screenshot. Before acting the screenshots are taken
/// all the same: a change near the control keeps a failing step waiting instead of failing it
/// as settled.
pub(super) fn polls_without_screenshots(checks: &[Arc<dyn StepCheck>], repair: bool) -> bool {
    !repair && !checks.iter().any(|check| check.reads_screen())
}
