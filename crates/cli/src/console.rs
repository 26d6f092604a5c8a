//! The terminal view of a run: one line per step as it happens, built from the event stream.
//! In `--json` mode nothing is printed live; the command prints one summary object at the end.

use std::io::Write;
use std::sync::Mutex;

use retrace_agent::events::Event;
use retrace_agent::events::EventSink;

/// Prints one line per step to stdout.
#[derive(Debug, Default)]
pub struct ConsoleSink {
    /// The visual check of the step about to act, printed with its tool call.
    pending_check: Mutex<Option<String>>,
}

impl ConsoleSink {
    /// A console sink.
    pub fn new() -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self::default())
    }

    fn print(&self, line: &str) {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (a pipe to `head`) must not stop the run.
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }
}

impl EventSink for ConsoleSink {
    fn emit(&self, event: &Event) {
        match event {
            Event::VisualCheck {
                trajectory_index,
                distance,
                threshold,
                passed,
                waited_ms,
                shift,
                ..
            } => {
                let verdict = if *passed { "ok" } else { "MISMATCH" };
                let shifted = shift
                    .map(|(dx, dy)| format!("  repaired: shifted {dx:+},{dy:+} px"))
                    .unwrap_or_default();
                let text = format!(
                    "#{trajectory_index:<3} distance {distance:>2}/{threshold:<2} {verdict:<8} waited {:>5.2} s{shifted}",
                    *waited_ms as f64 / 1000.0
                );
                if *passed {
                    if let Ok(mut pending) = self.pending_check.lock() {
                        *pending = Some(text);
                    }
                } else {
                    self.print(&format!("  {text}"));
                }
            }
            Event::ToolCalled {
                step,
                tool,
                action,
                duration_ms,
                is_error,
                error,
            } => {
                let check = self
                    .pending_check
                    .lock()
                    .ok()
                    .and_then(|mut pending| pending.take());
                let what = action
                    .as_ref()
                    .map_or_else(|| tool.clone(), |action| format!("{tool}.{action}"));
                let status = if *is_error {
                    format!("  ERROR: {}", error.clone().unwrap_or_default())
                } else {
                    String::new()
                };
                match check {
                    Some(check) => {
                        self.print(&format!("  {check}  {what} ({duration_ms} ms){status}"))
                    }
                    None => self.print(&format!(
                        "  step {step:<3} {what} ({duration_ms} ms){status}"
                    )),
                }
            }
            Event::EffectCheck {
                trajectory_index,
                distance,
                threshold,
                passed,
                waited_ms,
                ..
            } => {
                let verdict = if *passed { "ok" } else { "MISMATCH" };
                self.print(&format!(
                    "  #{trajectory_index:<3} distance {distance:>2}/{threshold:<2} {verdict:<8} waited {:>5.2} s  effect of the last step",
                    *waited_ms as f64 / 1000.0
                ));
            }
            Event::SpeakerSwitched { from, to, reason } => {
                self.print(&format!("  -> {from} hands over to {to}: {reason}"))
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
                step,
                model,
                duration_ms,
                usage,
                ..
            } => self.print(&format!(
                "  step {step:<3} {model} answered in {:.1} s ({} in / {} out tokens)",
                *duration_ms as f64 / 1000.0,
                usage.total_input(),
                usage.output_tokens
            )),
            Event::CacheWritten { path, steps } => {
                self.print(&format!("  recorded {steps} steps to {}", path.display()))
            }
            _ => {}
        }
    }
}
