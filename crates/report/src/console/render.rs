//! [`ConsoleLines`]: the terminal's lines for an event stream, a function of the events
//! alone (no terminal, no clock), so every command words its events one way and a test reads
//! the lines without a terminal.

use retrace_protocol::events::Event;

use super::check_lines::check_lines;
use super::run_lines::run_lines;
use super::suite_lines::suite_lines;
use crate::timeline::StepAssembler;

/// Which command's view of the event stream: the same events read differently by a run of one
/// trajectory, a suite and a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleView {
    /// `replay`, `act`, `do`, `record`: a line per step and per model turn.
    Run,
    /// `run`: a line per finished test and per retry.
    Suite,
    /// `check`: a line per page and per retry.
    Check,
}

/// Turns events into lines for one view; keeps the step being put together (a step's line is
/// complete only once its after-action check has come).
#[derive(Debug)]
pub struct ConsoleLines {
    view: ConsoleView,
    steps: StepAssembler,
}

impl ConsoleLines {
    /// Lines for `view`.
    pub fn new(view: ConsoleView) -> Self {
        Self {
            view,
            steps: StepAssembler::new(),
        }
    }

    /// The lines `event` makes (none for most events).
    pub fn lines(&mut self, event: &Event) -> Vec<String> {
        match self.view {
            ConsoleView::Run => run_lines(&mut self.steps, event),
            ConsoleView::Suite => suite_lines(event),
            ConsoleView::Check => check_lines(event),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use retrace_protocol::events::TestStatus;
    use retrace_test_support::suite_report as sample;

    use super::*;

    fn lines(view: ConsoleView, event: &Event) -> Vec<String> {
        ConsoleLines::new(view).lines(event)
    }

    #[test]
    fn each_view_words_the_events_it_is_about() {
        let passed = Event::TestFinished(Box::new(sample::test(1, TestStatus::Passed)));
        let page = Event::TestFinished(Box::new(sample::page_check_test()));
        let retried = Event::TestStarted {
            id: "flows/a.json".into(),
            attempt: 2,
        };
        assert_eq!(
            lines(ConsoleView::Suite, &passed),
            ["passed  flows/flow-001.json (1.5 s)"]
        );
        assert_eq!(
            lines(ConsoleView::Suite, &retried),
            ["retry   flows/a.json (attempt 2)"]
        );
        assert_eq!(
            lines(ConsoleView::Check, &page),
            [
                "FAIL  /settings @1280x800: 1 differences\n    styling/colour at 10,20 80x24: the Save button turned grey"
            ]
        );
        // A suite's test or a check's page is no line of a run, nor a replay test a page.
        assert!(lines(ConsoleView::Run, &passed).is_empty());
        assert!(lines(ConsoleView::Check, &passed).is_empty());
        assert!(lines(ConsoleView::Check, &retried).is_empty());
    }
}
