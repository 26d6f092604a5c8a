//! Tools that let the model use the trajectory cache: list the recorded trajectories, inspect
//! one, replay one through the cache executor, and say whether a replay reached its goal.
//!
//! Names are askui's ([`retrace_protocol::tool_names`]). Every tool is non-cacheable (a
//! recording leaves them out) and every file name the model gives is resolved inside the
//! cache directory ([`CacheStore::resolve`]); anything else is refused with a message the
//! model can act on. [`CACHE_TOOLS_PROMPT`] is the system prompt section that explains them.

use std::sync::Arc;

use retrace_cache::CacheStore;

use crate::ledger::ReplayLedger;
use retrace_drive::tool::Tool;

mod execute;
mod file_input;
mod inspect;
mod retrieve;
mod verify;

pub use execute::ExecuteCachedTrajectoryTool;
pub use inspect::InspectCacheMetadataTool;
pub use retrieve::RetrieveTrajectoriesTool;
pub use verify::VERIFICATION_FIELD;
pub use verify::VerifyCacheExecutionTool;

/// The system prompt section for the cache tools.
pub const CACHE_TOOLS_PROMPT: &str = "\
Recorded trajectories: earlier successful runs were recorded and can be replayed without you.
1. Before acting, call retrieve_available_trajectories_tool and look for a trajectory whose goal \
matches yours (the same task, perhaps with other parameter values). Use inspect_cache_metadata \
when you need its failures or history.
2. If one matches, call execute_cached_executions_tool with its trajectory_file and a value for \
every parameter it lists (parameter_values: {\"name\": \"value\"}). The replay runs on its own \
and checks the screen before every step.
3. When the replay ends, take a screenshot and check that the goal is reached, then call \
verify_cache_execution with success true or false and a short note on what you saw.
4. If there is no matching trajectory, if it is invalid, or if the replay stops with a message \
(a step did not match the screen, or needs you), continue the task yourself from the current \
screen. To resume a replay after doing one step yourself, call execute_cached_executions_tool \
again with start_from_step_index set to the next step.";

/// All cache tools over `store`, ready to add to a [`retrace_drive::tool::Toolbox`]. `ledger` is the
/// one the run's cache executor notes completed replays in (see
/// [`crate::ReplaySpeaker::with_ledger`]), so that verifying a replay does
/// not count it twice.
pub fn cache_tools(store: Arc<CacheStore>, ledger: Arc<ReplayLedger>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(RetrieveTrajectoriesTool::new(Arc::clone(&store))),
        Arc::new(InspectCacheMetadataTool::new(Arc::clone(&store))),
        Arc::new(ExecuteCachedTrajectoryTool::new(Arc::clone(&store))),
        Arc::new(VerifyCacheExecutionTool::new(store).with_ledger(ledger)),
    ]
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
