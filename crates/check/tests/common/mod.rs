//! What the check crate's browser tests share: a spec comparing two demo servers, and a
//! one-line-per-page summary for failure messages.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use retrace_check::CheckSpec;
use retrace_check::Retry;
use retrace_check::Viewport;
use retrace_demo::DemoServer;
use retrace_protocol::events::PageCheck;

/// `pages` of `baseline` against `candidate` at 1280x720, two at once, two retries 100 ms
/// apart, evidence in the returned temporary directory (kept while it lives).
pub fn spec(
    baseline: &DemoServer,
    candidate: &DemoServer,
    pages: &[&str],
) -> (CheckSpec, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let spec = CheckSpec {
        baseline: baseline.url(),
        candidate: candidate.url(),
        pages: pages.iter().map(|p| (*p).to_owned()).collect(),
        viewports: vec![Viewport {
            width: 1280,
            height: 720,
        }],
        jobs: 2,
        out_dir: out.path().to_path_buf(),
        retry: Retry {
            retries: 2,
            backoff_ms: vec![100],
        },
        ..CheckSpec::default()
    };
    (spec, out)
}

/// `path verdict error differences`, a line per page.
pub fn summary(pages: &[PageCheck]) -> String {
    pages
        .iter()
        .map(|p| {
            format!(
                "{} {:?} {:?} {:?}",
                p.path, p.verdict, p.error, p.differences
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
