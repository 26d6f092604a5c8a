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

use retrace_protocol::events::DemonstrationEvent;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::StepCheckRecord;
use retrace_protocol::events::StepRecord;

use crate::secrets::Secrets;
use crate::timeline::StepAssembler;

/// Prints one line per step (and per model call) to a writer (stdout by default).
pub struct ConsoleSink {
    out: Mutex<Box<dyn Write + Send>>,
    secrets: Secrets,
    /// The step whose line is being put together.
    steps: Mutex<StepAssembler>,
}

impl std::fmt::Debug for ConsoleSink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ConsoleSink")
            .finish_non_exhaustive()
    }
}

/// The line of one step: what it did, each check, the wait, the repair, how long acting took.
pub fn step_line(step: &StepRecord) -> String {
    let mut line = format!(
        "  step {:>3}  {:<36}",
        step.step,
        step.action.as_deref().unwrap_or("")
    );
    for check in &step.checks {
        line.push_str("  ");
        line.push_str(&check_text(check));
    }
    if step.waited_ms > 0 {
        line.push_str(&format!("  waited {:.2} s", step.waited_ms as f64 / 1000.0));
    }
    if step.settled == Some(false) {
        line.push_str("  (screen still changing: acted anyway)");
    }
    if let Some((dx, dy)) = step.repaired {
        line.push_str(&format!("  repaired: acted {dx:+},{dy:+} px away"));
    }
    if let Some(ms) = step.acted_ms {
        line.push_str(&format!("  ({ms} ms)"));
    }
    if let Some(error) = &step.error {
        line.push_str(&format!("  ERROR: {error}"));
    }
    line.trim_end().to_owned()
}

/// `visual 3/10` or `effect 26/10 MISMATCH`.
pub fn check_text(check: &StepCheckRecord) -> String {
    let measure = match (check.distance, check.threshold) {
        (Some(distance), Some(threshold)) => format!(" {distance}/{threshold}"),
        _ => String::new(),
    };
    let verdict = if check.passed { "" } else { " MISMATCH" };
    format!("{}{measure}{verdict}", check.check)
}

/// The lines a demonstration event prints (`retrace record`).
pub fn demonstration_lines(event: &DemonstrationEvent) -> Vec<String> {
    match event {
        DemonstrationEvent::Started { url, viewport } => {
            // A desktop recording names its target (`desktop :99, window `xedit``).
            let place = match url.starts_with("desktop ") {
                true => "the application's window",
                false => "the browser window",
            };
            vec![format!(
                "recording {url} at {}x{}: act in {place}; Ctrl-C here or closing the window stops",
                viewport[0], viewport[1]
            )]
        }
        DemonstrationEvent::Viewport { x, y } => {
            vec![format!("  the viewport is at ({x}, {y}) on the screen")]
        }
        DemonstrationEvent::Input { step, summary } => vec![format!("  step {step:>3}  {summary}")],
        DemonstrationEvent::Finished {
            path,
            steps,
            parameters,
            stopped_by,
        } => {
            let mut lines = vec![format!(
                "stopped ({stopped_by}): recorded {steps} steps to {}",
                path.display()
            )];
            if !parameters.is_empty() {
                let flags: Vec<String> = parameters
                    .iter()
                    .map(|name| format!("--param {name}=..."))
                    .collect();
                lines.push(format!(
                    "  it needs parameters: {} (replay with {})",
                    parameters.join(", "),
                    flags.join(" ")
                ));
            }
            lines
        }
    }
}

impl ConsoleSink {
    /// A sink printing to stdout.
    pub fn stdout(secrets: Secrets) -> std::sync::Arc<Self> {
        Self::to_writer(Box::new(std::io::stdout()), secrets)
    }

    /// A sink printing to `out` (a buffer, in tests).
    pub fn to_writer(out: Box<dyn Write + Send>, secrets: Secrets) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            out: Mutex::new(out),
            secrets,
            steps: Mutex::new(StepAssembler::new()),
        })
    }

    fn print(&self, line: &str) {
        if let Ok(mut out) = self.out.lock() {
            // A closed stdout (a pipe to `head`) must not stop the run.
            let _ = writeln!(out, "{}", self.secrets.scrub(line));
            let _ = out.flush();
        }
    }

    /// Prints the step lines `event` completes (before any line of the event's own).
    fn print_steps(&self, event: &Event) {
        let done = self
            .steps
            .lock()
            .map(|mut steps| steps.apply(event))
            .unwrap_or_default();
        for step in done {
            self.print(&step_line(&step));
        }
    }
}

impl EventSink for ConsoleSink {
    fn emit(&self, event: &Event) {
        self.print_steps(event);
        match event {
            Event::ReplayStarted { checks_off, .. } => {
                for note in checks_off {
                    self.print(&format!("  note: replaying without a check: {note}"));
                }
            }
            Event::ToolCalled {
                step: None,
                tool,
                duration_ms,
                error,
                ..
            } => {
                let status = error
                    .as_ref()
                    .map(|error| format!("  ERROR: {error}"))
                    .unwrap_or_default();
                self.print(&format!("  {tool} ({duration_ms} ms){status}"));
            }
            Event::SpeakerSwitched { from, to, reason } => {
                self.print(&format!("  -> {from} hands over to {to}: {reason}"));
            }
            Event::ModelNotice { message, .. } => {
                self.print(&format!("  warning: {message}"));
            }
            Event::TargetNotice { target, message } => {
                self.print(&format!("  note ({target}): {message}"));
            }
            Event::Retry {
                attempt,
                delay_ms,
                error,
                ..
            } => {
                self.print(&format!(
                    "  model call failed (attempt {attempt}: {error}); retrying in {:.1} s",
                    *delay_ms as f64 / 1000.0
                ));
            }
            Event::ModelCall {
                turn,
                model,
                duration_ms,
                usage,
                ..
            } => {
                self.print(&format!(
                    "  turn {turn:>3}  {model} answered in {:.1} s ({} in / {} out tokens)",
                    *duration_ms as f64 / 1000.0,
                    usage.total_input(),
                    usage.output_tokens
                ));
            }
            Event::StructuredDecision {
                turn,
                decision,
                command,
                message,
                ..
            } => {
                let command = command
                    .as_ref()
                    .map(|command| format!(" {command}"))
                    .unwrap_or_default();
                self.print(&format!("  turn {turn:>3}  {decision}{command}: {message}"));
            }
            Event::StructuredAnswerRejected {
                turn,
                attempt,
                errors,
            } => {
                self.print(&format!(
                    "  turn {turn:>3}  answer {attempt} rejected, sent back: {}",
                    errors.join("; ")
                ));
            }
            Event::CacheWritten {
                path, steps, notes, ..
            } => {
                self.print(&format!("  recorded {steps} steps to {}", path.display()));
                for note in notes {
                    self.print(&format!("    {note}"));
                }
            }
            Event::Demonstration(event) => {
                for line in demonstration_lines(event) {
                    self.print(&line);
                }
            }
            // Step events are the timeline's (printed above, once their step is complete).
            Event::ScreenSettled { .. }
            | Event::CheckFinished(_)
            | Event::ToolCalled { step: Some(_), .. }
            | Event::StepFailed(_)
            | Event::ReplayFinished(_)
            | Event::RunFinished { .. }
            | Event::SessionFinished(_)
            | Event::RunStarted { .. }
            | Event::TurnStarted { .. }
            | Event::Usage { .. }
            | Event::TestStarted { .. }
            | Event::TestFinished(_)
            | Event::CheckAttemptFinished { .. }
            | Event::CheckRetryScheduled { .. }
            | Event::SuiteFinished(_) => {}
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
