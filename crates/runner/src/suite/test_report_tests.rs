#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::ReplayOutcome;
use retrace_protocol::events::ReplayStatus;
use retrace_protocol::events::SessionKind;
use retrace_replay::ReplaySettings;

use super::*;
use crate::parameters::Parameters;

fn plan() -> TestPlan {
    TestPlan {
        id: "flows/login.json".into(),
        file: PathBuf::from("flows/login.json"),
        origin: None,
        url: Some("http://127.0.0.1:8080/?layout=v2".into()),
        size: None,
        settings: ReplaySettings::default(),
        parameters: Parameters::new(
            vec![
                ("username".into(), "demo".into()),
                ("password".into(), "hunter2".into()),
            ],
            Vec::new(),
        ),
        parameter_vars: BTreeMap::new(),
        tags: vec!["smoke".into()],
        problem: None,
        desktop: false,
    }
}

fn attempt(status: SessionStatus, failed_step: Option<usize>) -> SessionReport {
    let mut report = SessionReport::new(SessionKind::Replay, "flows/login.json");
    report.status = status;
    report.replay = failed_step.map(|step| ReplayOutcome {
        file: PathBuf::from("flows/login.json"),
        status: ReplayStatus::Failed,
        steps_total: 13,
        steps_replayed: step - 1,
        checks_passed: BTreeMap::new(),
        repairs: Vec::new(),
        failure: Some(ReplayFailure {
            step,
            kind: FailureKind::Mismatch,
            action: "left_click".into(),
            message: "mismatch".into(),
            distance: Some(26),
            threshold: Some(10),
            waited_ms: None,
            expected_crop: None,
            actual_crop: None,
            actual_screen: None,
            actual_element: None,
        }),
        checks_off: Vec::new(),
        duration_ms: 1,
    });
    report
}

fn status_of(attempts: Vec<SessionReport>) -> (TestStatus, Option<usize>) {
    let report = ran(
        &plan(),
        attempts,
        Vec::new(),
        Artifacts::default(),
        Duration::ZERO,
    );
    (report.status, report.step)
}

#[test]
fn a_pass_after_an_infrastructure_error_is_flaky_and_a_mismatch_fails_at_its_step() {
    use SessionStatus::*;
    assert_eq!(
        status_of(vec![attempt(Passed, None)]),
        (TestStatus::Passed, None)
    );
    assert_eq!(
        status_of(vec![attempt(Error, None), attempt(Passed, None)]),
        (TestStatus::Flaky, None)
    );
    assert_eq!(
        status_of(vec![attempt(Failed, Some(7))]),
        (TestStatus::Failed, Some(7))
    );
    assert_eq!(
        status_of(vec![attempt(Error, None), attempt(Error, None)]),
        (TestStatus::Error, None)
    );
    // Only infrastructure errors are retried, never a failed check.
    assert!(is_retryable(&attempt(Error, None)));
    assert!(!is_retryable(&attempt(Failed, Some(7))));
    assert!(!is_retryable(&attempt(Passed, None)));
}

#[test]
fn the_rerun_command_names_the_file_url_and_parameters_but_never_a_secret() {
    let command = rerun_command(&plan());
    assert!(
        command.starts_with(
            "retrace replay flows/login.json --url 'http://127.0.0.1:8080/?layout=v2'"
        ),
        "{command}"
    );
    assert!(command.contains("--param username=demo"), "{command}");
    assert!(
        command.contains("\"password=$RETRACE_PARAM_PASSWORD\""),
        "{command}"
    );
    assert!(!command.contains("hunter2"), "{command}");
}

#[test]
fn the_rerun_command_reads_a_secret_from_the_variable_the_suite_named() {
    let mut plan = plan();
    plan.parameter_vars
        .insert("password".into(), "DEMO_PASSWORD".into());
    let command = rerun_command(&plan);
    assert!(command.contains("\"password=$DEMO_PASSWORD\""), "{command}");
    assert!(!command.contains("hunter2"), "{command}");
}
