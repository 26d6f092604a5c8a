//! [`SuiteProgress`]: the suite's live display, a sink of its event stream. On a terminal,
//! one progress bar (indicatif) with a line above it per finished test and its time; when
//! not a terminal, the same lines with no bar. `retrace run --json` subscribes none.

use std::io::Write;
use std::sync::Arc;

use indicatif::ProgressBar;
use indicatif::ProgressStyle;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::TestStatus;

/// Prints a line per finished test, with a bar on a terminal.
#[derive(Debug)]
pub struct SuiteProgress {
    bar: Option<ProgressBar>,
}

impl SuiteProgress {
    /// A display for `tests` tests; with a bar when `terminal`.
    pub fn new(tests: usize, terminal: bool) -> Arc<Self> {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(tests as u64);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:30} {pos}/{len} tests  {elapsed}  {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Arc::new(Self { bar })
    }

    fn print(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                // A reader that went away is not this sink's business: the summary's write
                // will end the command.
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{line}");
                let _ = stdout.flush();
            }
        }
    }
}

/// One line for a finished test: its status, id, time, and why when it did not pass.
pub fn test_line(test: &TestReport) -> String {
    let seconds = test.wall_ms as f64 / 1000.0;
    let why = match test.status {
        TestStatus::Passed => String::new(),
        TestStatus::Flaky => format!(" (passed on attempt {})", test.attempts.len()),
        TestStatus::Failed => {
            let failure = test
                .attempts
                .last()
                .and_then(|attempt| attempt.replay.as_ref())
                .and_then(|replay| replay.failure.as_ref());
            match failure {
                Some(failure) => format!(": step {} {}", failure.step, failure.message),
                None => String::new(),
            }
        }
        TestStatus::Error => {
            let error = test
                .attempts
                .last()
                .and_then(|attempt| attempt.error.as_deref());
            format!(": {}", error.unwrap_or("could not run"))
        }
        TestStatus::Skipped => format!(": {}", test.skip_reason.as_deref().unwrap_or("skipped")),
    };
    format!(
        "{:<7} {} ({seconds:.1} s){why}",
        test.status.label(),
        test.id
    )
}

impl EventSink for SuiteProgress {
    fn emit(&self, event: &Event) {
        match event {
            Event::TestStarted { id, attempt } if *attempt > 1 => {
                self.print(&format!("retry   {id} (attempt {attempt})"));
            }
            Event::TestFinished(test) => {
                self.print(&test_line(test));
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            Event::SuiteFinished(_) => {
                if let Some(bar) = &self.bar {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }
}
