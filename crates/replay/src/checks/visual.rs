//! The visual check: before a step acts, is the region around its point the one it was
//! recorded on? The recorded hash (`visual_representation`, askui's) is compared with the
//! hash of the same region now. When it no longer matches, the check can search nearby for
//! the recorded region ([`retrace_vision::search_near`]): a control that moved a little is
//! found and the step acts there (a repair).

use std::sync::Arc;

use async_trait::async_trait;
use retrace_protocol::events::CheckPhase;
use retrace_vision::Image;

use super::step_check::CheckEnv;
use super::step_check::Look;
use super::step_check::Relocation;
use super::step_check::StepCheck;
use super::step_check::distance_look;
use super::step_check::point;
use super::step_check::region_distance;
use crate::plan::PlannedStep;

/// The pre-action hash check, with repair by nearby search.
#[derive(Debug, Clone, Copy, Default)]
pub struct VisualCheck;

/// Its name in events and reports.
pub const VISUAL: &str = "visual";

#[async_trait]
impl StepCheck for VisualCheck {
    fn name(&self) -> &'static str {
        VISUAL
    }

    fn phase(&self) -> CheckPhase {
        CheckPhase::Before
    }

    fn applies(&self, step: &PlannedStep, env: &CheckEnv) -> bool {
        env.hashes_checked() && step.point.is_some() && step.before.is_some()
    }

    async fn look(
        &self,
        step: &PlannedStep,
        at: Option<(i64, i64)>,
        screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Result<Look, String> {
        let at = point(at)?;
        let Some(recorded) = &step.before else {
            return Err("the step has no recorded hash".into());
        };
        let distance = region_distance(screen, at, recorded, env.hashing)?;
        Ok(distance_look(
            distance,
            env.threshold_for(recorded.bits().len()),
            "the screen region differs from the recording",
        ))
    }

    async fn relocate(
        &self,
        step: &PlannedStep,
        at: (i64, i64),
        screen: &Arc<Image>,
        env: &CheckEnv,
    ) -> Option<Relocation> {
        let radius = env.settings.search_radius;
        let recorded = step.before.clone()?;
        if radius == 0 {
            return None;
        }
        let bits = recorded.bits().len() as u64;
        let bound = u32::try_from(u64::from(env.settings.search_bound()) * bits / 64)
            .unwrap_or(u32::MAX)
            .min(env.threshold_for(recorded.bits().len()));
        let (screen, spec) = (Arc::clone(screen), env.hashing);
        let hit = tokio::task::spawn_blocking(move || {
            retrace_vision::search_near(
                &screen,
                &recorded,
                spec.method,
                at,
                spec.region_size,
                radius,
            )
        })
        .await
        .ok()?
        .ok()?;
        (hit.distance <= bound).then_some(Relocation { offset: hit.offset })
    }
}
