//! The lines of a run (replay, act, do, record): one per step once its checks are done, and
//! one per model turn, retry, hand-over and recording.

use retrace_protocol::events::DemonstrationEvent;
use retrace_protocol::events::Event;
use retrace_protocol::events::StepCheckRecord;
use retrace_protocol::events::StepRecord;

use crate::timeline::StepAssembler;

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
            let (place, stop) = match url.starts_with("desktop ") {
                true => (
                    "the application's window",
                    "Ctrl-C here or closing the window stops",
                ),
                false => (
                    "the browser window",
                    "Ctrl-C here, the Stop button beside it or closing the window stops",
                ),
            };
            vec![format!(
                "recording {url} at {}x{}: act in {place}; {stop}",
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

/// The lines `event` makes in a run: the step lines it completes, then its own.
pub(super) fn run_lines(steps: &mut StepAssembler, event: &Event) -> Vec<String> {
    let mut lines: Vec<String> = steps.apply(event).iter().map(step_line).collect();
    match event {
        Event::ReplayStarted { checks_off, .. } => {
            for note in checks_off {
                lines.push(format!("  note: replaying without a check: {note}"));
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
            lines.push(format!("  {tool} ({duration_ms} ms){status}"));
        }
        Event::SpeakerSwitched { from, to, reason } => {
            lines.push(format!("  -> {from} hands over to {to}: {reason}"));
        }
        Event::ModelNotice { message, .. } => {
            lines.push(format!("  warning: {message}"));
        }
        Event::TargetNotice { target, message } => {
            lines.push(format!("  note ({target}): {message}"));
        }
        Event::Retry {
            attempt,
            delay_ms,
            error,
            ..
        } => {
            lines.push(format!(
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
            lines.push(format!(
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
            lines.push(format!("  turn {turn:>3}  {decision}{command}: {message}"));
        }
        Event::StructuredAnswerRejected {
            turn,
            attempt,
            errors,
        } => {
            lines.push(format!(
                "  turn {turn:>3}  answer {attempt} rejected, sent back: {}",
                errors.join("; ")
            ));
        }
        Event::CacheWritten {
            path, steps, notes, ..
        } => {
            lines.push(format!("  recorded {steps} steps to {}", path.display()));
            for note in notes {
                lines.push(format!("    {note}"));
            }
        }
        Event::Demonstration(event) => {
            for line in demonstration_lines(event) {
                lines.push(line);
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
    lines
}
