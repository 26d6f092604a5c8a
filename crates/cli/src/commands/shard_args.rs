//! `--shard` and `--shard-mode`, declared once for the commands that split their tests
//! across CI jobs (`run`: trajectory files; `check`: pages at viewports).

use retrace_protocol::events::Shard;
use retrace_runner::suite::shard;
use retrace_runner::suite::shard::ShardMode;
use retrace_runner::suite::shard::ShardSelection;

/// Which part of the tests this job runs.
#[derive(Debug, Clone, clap::Args)]
pub struct ShardArgs {
    /// Run only shard INDEX of TOTAL (1-based: 2/4 is the second of four); default: from the
    /// CI's variables (GitLab, CircleCI, a Kubernetes Indexed Job), else every test.
    #[arg(long, value_name = "INDEX/TOTAL", value_parser = shard::parse_shard)]
    pub shard: Option<Shard>,
    /// How tests are dealt to shards: `hash` (a test keeps its shard as others come and go)
    /// or `slice` (round-robin over the sorted list: the evenest split).
    #[arg(long, value_name = "MODE", default_value = "hash", value_parser = parse_shard_mode)]
    pub shard_mode: ShardMode,
}

impl ShardArgs {
    /// The shard to run: the flag, else the CI's variables, else none.
    pub fn resolve(&self) -> anyhow::Result<Option<ShardSelection>> {
        Ok(shard::resolve(self.shard, self.shard_mode, &|name| {
            std::env::var(name).ok()
        })?)
    }
}

fn parse_shard_mode(text: &str) -> Result<ShardMode, String> {
    text.parse()
}
