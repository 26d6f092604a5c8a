//! How a model run uses the trajectory cache: [`CacheMode`], and for a mode that executes,
//! the cache tools and the replay speaker a computer-mode run (in a browser or on a desktop)
//! adds to its conversation ([`cache_replayer`]).

use std::path::Path;
use std::sync::Arc;

use retrace_agent::AGENT_SPEAKER;
use retrace_agent::AgentSettings;
use retrace_cache::CacheStore;
use retrace_drive::tool::Toolbox;
use retrace_replay::OnMismatch;
use retrace_replay::ReplaySettings;
use retrace_replay::ReplaySpeaker;
use retrace_replay::cache_tools::CACHE_TOOLS_PROMPT;
use retrace_replay::ledger::ReplayLedger;
use retrace_replay::screen::Screen;

/// How a run uses the trajectory cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// No caching.
    None,
    /// Record a successful run.
    Record,
    /// Let the model replay recorded trajectories.
    Execute,
    /// Both: replay, and record what was new or repaired.
    Auto,
}

impl CacheMode {
    /// Whether a successful run is recorded.
    pub fn records(self) -> bool {
        matches!(self, CacheMode::Record | CacheMode::Auto)
    }

    /// Whether recorded trajectories are replayed.
    pub fn executes(self) -> bool {
        matches!(self, CacheMode::Execute | CacheMode::Auto)
    }
}

impl std::str::FromStr for CacheMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "none" | "no" => Ok(CacheMode::None),
            "record" | "write" => Ok(CacheMode::Record),
            "execute" | "read" => Ok(CacheMode::Execute),
            "auto" | "both" => Ok(CacheMode::Auto),
            _ => Err(format!(
                "unknown cache mode `{text}`: use record, execute, auto or none"
            )),
        }
    }
}

/// With a `cache` mode that executes: the cache tools (over the trajectories in `cache_dir`)
/// added to `toolbox` and their prompt to `settings`, and the replay speaker (on the screen
/// `screen` makes) that replays what the model asks for and hands back to it when a step
/// fails or the replay ends. `None`, and nothing added, otherwise.
pub fn cache_replayer(
    cache: CacheMode,
    cache_dir: &Path,
    toolbox: &mut Toolbox,
    settings: &mut AgentSettings,
    screen: impl FnOnce() -> Arc<dyn Screen>,
) -> Option<ReplaySpeaker> {
    if !cache.executes() {
        return None;
    }
    let ledger = ReplayLedger::new();
    let store = Arc::new(CacheStore::new(cache_dir));
    for tool in retrace_replay::cache_tools::cache_tools(store, ledger.clone()) {
        toolbox.add(tool);
    }
    settings.system_sections.push(CACHE_TOOLS_PROMPT.to_owned());
    let replay_settings = ReplaySettings {
        on_mismatch: OnMismatch::HandTo(AGENT_SPEAKER.to_owned()),
        hand_back_on_completion: Some(AGENT_SPEAKER.to_owned()),
        ..ReplaySettings::default()
    };
    Some(ReplaySpeaker::new(replay_settings, screen()).with_ledger(ledger))
}
