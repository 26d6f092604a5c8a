//! [`StepCheck`]: one thing replay verifies about a step, before or after acting.
//!
//! A check looks at one screenshot (and, for checks that need it, the page) with the step
//! acting at a point, and says pass or mismatch with a measure. The wait engine
//! ([`crate::wait`]) polls the screen until every check of a phase passes, the screen has
//! settled without them passing, or the step's time is up; a check that can find where the
//! recorded thing moved ([`StepCheck::relocate`]) makes a repair possible. Adding a check is
//! one file here and one line in [`default_checks`].
//!
//! - [`visual::VisualCheck`]: before acting, the region around the point hashes within the
//!   threshold of the hash recorded before the action; relocates by searching nearby.
//! - [`navigation::NavigationCheck`] (browsers): after a step that started a navigation
//!   when recorded, the page reached the recorded URL path and title.
//! - [`effect::EffectCheck`]: after acting, the region around the point the step acted at
//!   (or the point the recording re-centred it on) hashes within the threshold of the hash
//!   recorded after the action; only when nothing better was recorded (no navigation) and the
//!   recorded region is not blank.
//! - [`semantic::SemanticCheck`] (browsers, and desktops with accessibility): before acting, the element at the point is the
//!   recorded one (same role and accessible name), enabled and reachable by a click;
//!   relocates a control that moved further than the hash search reaches by role and name.
//!   Before typing or keys, the focus is on the recorded element.
//! - [`crate::wait::listening::ListeningCheck`] (browsers): before acting, the element has
//!   the event listeners recorded on it and its ancestors (the page's scripts have run).
//! - [`state::StateCheck`] (browsers, and desktops with accessibility): after acting, the element acted on is in the recorded
//!   state (checked, expanded, selected, pressed), and after typing the focused field holds
//!   the text typed.

use std::sync::Arc;

pub mod effect;
pub mod navigation;
pub mod semantic;
pub mod state;
pub mod step_check;
pub mod visual;

pub use step_check::CheckEnv;
pub use step_check::Look;
pub use step_check::NextChecks;
pub use step_check::Relocation;
pub use step_check::StepCheck;

/// The checks every replay runs, in the order they run within a phase.
pub fn default_checks() -> Vec<Arc<dyn StepCheck>> {
    vec![
        Arc::new(visual::VisualCheck),
        Arc::new(semantic::SemanticCheck),
        Arc::new(crate::wait::listening::ListeningCheck),
        Arc::new(navigation::NavigationCheck),
        Arc::new(effect::EffectCheck),
        Arc::new(state::StateCheck),
    ]
}
