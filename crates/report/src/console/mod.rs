//! [`ConsoleSink`]: the terminal view of a run, one line per step as it is verified, built
//! from the event stream.
//!
//! A replayed step's line is printed once its checks are done (the after-action check comes
//! a turn after the action), so it holds the whole account: what it did, each check's
//! distance and bound, how long it waited, the repair. Model turns, retries, hand-overs and
//! recordings get a line each. Every line is scrubbed of the run's secrets. Nothing is
//! printed in `--json` mode: the front end simply does not subscribe this sink.
//!
//! What a step's line holds is the step's [`StepRecord`], put together by the
//! [`crate::timeline`] (the same record a suite's reports keep); this module only words it.

use std::io::Write;
use std::sync::Mutex;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;

use crate::secrets::Secrets;

mod check_lines;
mod render;
mod run_lines;
mod suite_lines;

pub use check_lines::page_line;
pub use render::ConsoleLines;
pub use render::ConsoleView;
pub use run_lines::check_text;
pub use run_lines::demonstration_lines;
pub use run_lines::step_line;
pub use suite_lines::test_line;

/// Prints one line per step (and per model call) to a writer (stdout by default).
pub struct ConsoleSink {
    out: Mutex<Box<dyn Write + Send>>,
    secrets: Secrets,
    /// The lines each event makes.
    lines: Mutex<ConsoleLines>,
}

impl std::fmt::Debug for ConsoleSink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ConsoleSink")
            .finish_non_exhaustive()
    }
}

impl ConsoleSink {
    /// A sink printing a run's lines (replay, act, do, record) to `out`: the binary's stdout
    /// writer, or a buffer in tests.
    pub fn to_writer(out: Box<dyn Write + Send>, secrets: Secrets) -> std::sync::Arc<Self> {
        Self::to_writer_for(ConsoleView::Run, out, secrets)
    }

    /// A sink printing `view`'s lines to `out`.
    pub fn to_writer_for(
        view: ConsoleView,
        out: Box<dyn Write + Send>,
        secrets: Secrets,
    ) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            out: Mutex::new(out),
            secrets,
            lines: Mutex::new(ConsoleLines::new(view)),
        })
    }

    fn print(&self, line: &str) {
        if let Ok(mut out) = self.out.lock() {
            // A closed stdout (a pipe to `head`) must not stop the run.
            let _ = writeln!(out, "{}", self.secrets.scrub(line));
            let _ = out.flush();
        }
    }
}

impl EventSink for ConsoleSink {
    fn emit(&self, event: &Event) {
        let lines = self
            .lines
            .lock()
            .map(|mut lines| lines.lines(event))
            .unwrap_or_default();
        for line in lines {
            self.print(&line);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use retrace_protocol::events::CheckPhase;
    use retrace_protocol::events::CheckResult;

    use super::*;

    /// A writer into shared memory.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn check(step: usize, name: &str, phase: CheckPhase, distance: u32, passed: bool) -> Event {
        Event::CheckFinished(CheckResult {
            step,
            check: name.into(),
            phase,
            passed,
            distance: Some(distance),
            threshold: Some(10),
            waited_ms: if phase == CheckPhase::Before {
                250
            } else {
                120
            },
            shift: None,
            detail: None,
        })
    }

    fn tool(step: usize) -> Event {
        Event::ToolCalled {
            turn: step,
            step: Some(step),
            tool: "computer".into(),
            action: Some("left_click".into()),
            summary: "left_click at (640, 311)".into(),
            duration_ms: 12,
            is_error: false,
            error: None,
        }
    }

    #[test]
    fn a_step_line_holds_its_checks_before_and_after_acting() {
        let buffer = Buffer::default();
        let sink = ConsoleSink::to_writer(Box::new(buffer.clone()), Secrets::default());
        for event in [
            check(5, "visual", CheckPhase::Before, 3, true),
            tool(5),
            Event::TurnStarted {
                turn: 6,
                speaker: "cache_executor".into(),
            },
            check(5, "effect", CheckPhase::After, 1, true),
            check(6, "visual", CheckPhase::Before, 26, false),
        ] {
            sink.emit(&event);
        }
        let printed = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            printed.lines().collect::<Vec<_>>(),
            [
                "  step   5  left_click at (640, 311)              visual 3/10  effect 1/10  waited 0.37 s  (12 ms)"
            ]
        );
        sink.emit(&Event::SessionFinished(Box::new(
            retrace_protocol::events::SessionReport::new(
                retrace_protocol::events::SessionKind::Replay,
                "x",
            ),
        )));
        let printed = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        assert!(
            printed
                .lines()
                .nth(1)
                .unwrap()
                .contains("visual 26/10 MISMATCH"),
            "{printed}"
        );
    }
}
