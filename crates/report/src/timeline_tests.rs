use pretty_assertions::assert_eq;
use retrace_protocol::events::CheckResult;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;

use super::*;

fn check(step: usize, name: &str, phase: CheckPhase, waited_ms: u64, passed: bool) -> Event {
    Event::CheckFinished(CheckResult {
        step,
        check: name.into(),
        phase,
        passed,
        distance: Some(if passed { 2 } else { 26 }),
        threshold: Some(10),
        waited_ms,
        shift: None,
        detail: None,
    })
}

fn tool(step: usize, summary: &str) -> Event {
    Event::ToolCalled {
        turn: step,
        step: Some(step),
        tool: "computer".into(),
        action: Some("left_click".into()),
        summary: summary.into(),
        duration_ms: 12,
        is_error: false,
        error: None,
    }
}

fn record(step: usize) -> StepRecord {
    PendingStep::new(step).record
}

fn check_record(name: &str, phase: CheckPhase, passed: bool) -> StepCheckRecord {
    StepCheckRecord {
        check: name.into(),
        phase,
        passed,
        distance: Some(if passed { 2 } else { 26 }),
        threshold: Some(10),
        detail: None,
    }
}

#[test]
fn one_record_per_step_with_its_checks_in_order_and_each_wait_counted_once() {
    let mut repaired = check(2, "visual", CheckPhase::Before, 300, true);
    if let Event::CheckFinished(result) = &mut repaired {
        result.shift = Some((4, -3));
    }
    let events = [
        Event::TurnStarted {
            turn: 1,
            speaker: "cache_executor".into(),
        },
        check(1, "visual", CheckPhase::Before, 250, true),
        check(1, "semantic", CheckPhase::Before, 250, true),
        tool(1, "left_click at (640, 311)"),
        check(1, "effect", CheckPhase::After, 100, true),
        repaired,
        tool(2, ""),
        Event::ScreenSettled {
            step: 3,
            settled: false,
            waited_ms: 40,
        },
        tool(3, "type text of 4 characters"),
    ];
    let steps = timeline_of(&events);
    let first = StepRecord {
        action: Some("left_click at (640, 311)".into()),
        checks: vec![
            check_record("visual", CheckPhase::Before, true),
            check_record("semantic", CheckPhase::Before, true),
            check_record("effect", CheckPhase::After, true),
        ],
        // 250 before acting (one verdict, two checks) + 100 after.
        waited_ms: 350,
        acted_ms: Some(12),
        ..record(1)
    };
    let second = StepRecord {
        action: Some("computer".into()),
        checks: vec![check_record("visual", CheckPhase::Before, true)],
        waited_ms: 300,
        repaired: Some((4, -3)),
        acted_ms: Some(12),
        ..record(2)
    };
    let third = StepRecord {
        action: Some("type text of 4 characters".into()),
        waited_ms: 40,
        acted_ms: Some(12),
        settled: Some(false),
        ..record(3)
    };
    assert_eq!(steps, vec![first, second, third]);
}

#[test]
fn a_step_failing_before_anything_was_said_of_it_still_gets_a_record() {
    let failure = ReplayFailure {
        step: 2,
        kind: FailureKind::MissingParameter,
        action: "type text of {{password}}".into(),
        message: "Step 2 needs the parameter `password`, which has no value.".into(),
        distance: None,
        threshold: None,
        waited_ms: None,
        expected_crop: None,
        actual_crop: None,
        actual_screen: None,
        actual_element: None,
    };
    let mut assembler = StepAssembler::new();
    assert!(
        assembler
            .apply(&check(1, "visual", CheckPhase::Before, 0, true))
            .is_empty()
    );
    let done = assembler.apply(&Event::StepFailed(failure));
    assert_eq!(
        done.iter().map(|step| step.step).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(done[1].action.as_deref(), Some("type text of {{password}}"));
    assert_eq!(assembler.pending(), None);
}

#[test]
fn a_new_attempt_starts_the_timeline_afresh_and_the_sink_shows_the_pending_step() {
    let sink = TimelineSink::new();
    for event in [
        Event::TestStarted {
            id: "login.json".into(),
            attempt: 1,
        },
        check(1, "visual", CheckPhase::Before, 0, true),
        check(2, "visual", CheckPhase::Before, 0, false),
        Event::TestStarted {
            id: "login.json".into(),
            attempt: 2,
        },
        check(1, "visual", CheckPhase::Before, 5, true),
    ] {
        sink.emit(&event);
    }
    let steps = sink.steps();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert_eq!(steps[0].waited_ms, 5);
}

#[test]
fn turn_starts_do_not_complete_a_step_but_model_calls_do() {
    let mut assembler = StepAssembler::new();
    assembler.apply(&tool(4, "scroll down"));
    assert!(
        assembler
            .apply(&Event::TurnStarted {
                turn: 5,
                speaker: "agent".into()
            })
            .is_empty()
    );
    let done = assembler.apply(&Event::SpeakerSwitched {
        from: "cache_executor".into(),
        to: "agent".into(),
        reason: "step 5 needs the model".into(),
    });
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].step, 4);
}
