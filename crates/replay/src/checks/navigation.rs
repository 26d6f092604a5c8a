//! The navigation check (browsers): after a step that started a navigation when it was
//! recorded (a link, a form's submit), did the page reach the document it reached then?
//!
//! The recording stores where the step led (a
//! [`PageLocation`](crate::page_location::PageLocation), the step's `page_after`: the
//! document's URL path and title, read after the action, stored only when either differs
//! from before the action). Replay waits for the page's path and title to be those: a login
//! that fails stays on (or returns to) the form and fails at its own step, naming both paths,
//! and a dashboard whose content differs from the recording's (other users' records) still
//! passes, because the pixels around the old click are not what the step was for. Such a
//! step's after-action pixels are not compared (see [`super::effect`]).
//!
//! **The rule for the rest of the URL**: the path is compared exactly (parameter values
//! filled in); the query and the fragment are not compared, because they carry what changes
//! from run to run or from one environment to another (ids, tokens, options carried along
//! such as the demo's `?layout=`); the title is compared exactly, so a page that keeps its path
//! but shows another document (an error page) is told apart.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use super::step_check::CheckEnv;
use super::step_check::Look;
use super::step_check::StepCheck;
use super::step_check::mismatch;
use super::step_check::pass;
use crate::plan::PlannedStep;

/// The navigation check.
#[derive(Debug, Clone, Copy, Default)]
pub struct NavigationCheck;

/// Its name in events and reports.
pub const NAVIGATION: &str = "navigation";

#[async_trait]
impl StepCheck for NavigationCheck {
    fn name(&self) -> &'static str {
        NAVIGATION
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::After
    }

    /// It asks the page, not the pixels.
    fn reads_screen(&self) -> bool {
        false
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        env.page.is_some() && env.effects_checked() && step.page_after.is_some()
    }

    async fn look(
        &self,
        step: &PlannedStep,
        _at: Option<(i64, i64)>,
        _screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let (Some(expected), Some(page)) = (&step.page_after, &env.page) else {
            return Err("the step has no recorded navigation".into());
        };
        // A page between two documents may not answer: that is no answer yet, not an error.
        Ok(match page.location().await {
            Ok(reached) if &reached == expected => pass(),
            Ok(reached) if reached.path == expected.path => mismatch(format!(
                "the page should have reached {expected}, but its title is '{}'",
                reached.title
            )),
            Ok(reached) => mismatch(format!(
                "the page should have reached the path {}, but reached {} instead",
                expected.path, reached
            )),
            Err(error) => mismatch(format!(
                "the page should have reached {expected}, but did not say where it is: {error}"
            )),
        })
    }
}
