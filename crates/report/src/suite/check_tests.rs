//! [`CheckTests`]: a visual check's pages as a suite, for the reports `retrace check --report
//! html,junit,json` writes into its `--out`: each page check is a suite test (`TestFinished`
//! with its `PageCheck`), collected here into a [`SuiteReport`] (written by
//! [`super::write_reports`], beside the evidence). Paths are made relative to `--out`, so the
//! folder can be moved or archived whole.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::Shard;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::Totals;

/// The check's log in `--out`: every event, one JSON object per line.
pub const EVENTS_LOG: &str = "events.jsonl";

/// Collects every page check's test report as it finishes.
#[derive(Debug)]
pub struct CheckTests {
    started_at: String,
    started: Instant,
    tests: Mutex<Vec<TestReport>>,
}

impl Default for CheckTests {
    fn default() -> Self {
        Self::new()
    }
}

impl CheckTests {
    /// An empty collection, timed from now.
    pub fn new() -> Self {
        Self {
            started_at: jiff::Timestamp::now().to_string(),
            started: Instant::now(),
            tests: Mutex::new(Vec::new()),
        }
    }

    /// The suite report of the checks collected (of `shard`, when sharded), evidence paths
    /// relative to `out`.
    pub fn report(&self, shard: Option<Shard>, out: &Path) -> SuiteReport {
        let mut tests = self.tests.lock().map(|t| t.clone()).unwrap_or_default();
        for test in &mut tests {
            relative_paths(&mut test.artifacts.other, out);
            if let Some(check) = &mut test.check {
                relative_paths(&mut check.evidence, out);
                for attempt in &mut check.attempts {
                    relative_paths(&mut attempt.evidence, out);
                }
            }
        }
        SuiteReport {
            version: SuiteReport::VERSION,
            name: "check".to_owned(),
            shard,
            started_at: self.started_at.clone(),
            wall_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            totals: Totals::of(&tests),
            interrupted: false,
            shards: Vec::new(),
            tests,
        }
    }
}

impl EventSink for CheckTests {
    fn emit(&self, event: &Event) {
        if let Event::TestFinished(test) = event
            && let Ok(mut tests) = self.tests.lock()
        {
            tests.push((**test).clone());
        }
    }
}

/// `out/page@1280x720/attempt-1/diff.png` → `page@1280x720/attempt-1/diff.png`.
fn relative_paths(paths: &mut [PathBuf], out: &Path) {
    for path in paths {
        if let Ok(relative) = path.strip_prefix(out) {
            *path = relative.to_owned();
        }
    }
}
