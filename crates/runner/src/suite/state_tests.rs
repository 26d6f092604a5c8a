#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn trajectory(dir: &Path) -> PathBuf {
    let path = dir.join("flows/login.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, crate::demo::DEMO_RECORDING).unwrap();
    path
}

#[test]
fn runs_are_counted_in_the_store_and_the_trajectory_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = trajectory(dir.path());
    let before = std::fs::read(&file).unwrap();
    let store = StateStore::beside(dir.path());
    store
        .record("flows/login.json", &file, &RunVerdict::Passed)
        .unwrap();
    let failed = RunVerdict::Failed {
        step: 7,
        message: "mismatch".into(),
    };
    let state = store.record("flows/login.json", &file, &failed).unwrap();
    assert_eq!(state.execution_attempts, 2);
    assert_eq!(state.failures.len(), 1);
    assert_eq!(state.failures[0].step_index, 6);
    assert!(state.last_executed_at.is_some());
    assert!(
        store
            .path_of("flows/login.json")
            .starts_with(dir.path().join(STATE_DIR))
    );
    assert_eq!(store.load("flows/login.json", &file), state);
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn validators_read_the_store_and_a_changed_file_starts_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let file = trajectory(dir.path());
    let store = StateStore::beside(dir.path());
    let failed = RunVerdict::Failed {
        step: 7,
        message: "mismatch".into(),
    };
    for _ in 0..2 {
        store.record("login", &file, &failed).unwrap();
        assert_eq!(store.invalid_reason("login", &file), None);
    }
    // askui's StepFailureCount: the third failure at one step retires the file.
    store.record("login", &file, &failed).unwrap();
    let reason = store.invalid_reason("login", &file).unwrap();
    assert!(reason.contains("StepFailureCount"), "{reason}");
    // Re-recorded: other content, so the old state no longer applies.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    assert_eq!(store.invalid_reason("login", &file), None);
    assert_eq!(store.load("login", &file).execution_attempts, 0);
}

#[test]
fn a_file_marked_invalid_in_its_own_metadata_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let file = trajectory(dir.path());
    retrace_cache::update_file(
        &file,
        retrace_cache::DEFAULT_MAX_FILE_SIZE,
        &retrace_cache::MetadataUpdate::Invalidate {
            reason: "replaced by login_v2".into(),
        },
        &Validators::none(),
    )
    .unwrap();
    let store = StateStore::beside(dir.path());
    assert_eq!(
        store.invalid_reason("login", &file).as_deref(),
        Some("replaced by login_v2")
    );
}

#[test]
fn a_failed_step_keeps_its_screen_until_a_run_passes() {
    let dir = tempfile::tempdir().unwrap();
    let file = trajectory(dir.path());
    let store = StateStore::beside(dir.path());
    let id = "flows/login.json";
    let failure = ReplayFailure {
        step: 7,
        kind: FailureKind::Mismatch,
        action: "left_click at (761, 203)".into(),
        message: "Visual validation failed at step 7".into(),
        distance: Some(26),
        threshold: Some(10),
        waited_ms: Some(100),
        expected_crop: None,
        actual_crop: None,
        actual_screen: Some(vec![1, 2, 3].into()),
        actual_element: None,
    };
    store
        .record(
            id,
            &file,
            &RunVerdict::Failed {
                step: 7,
                message: failure.message.clone(),
            },
        )
        .unwrap();
    let state = store.keep_failure(id, &file, &failure).unwrap();
    let kept = state.last_failure.clone().unwrap();
    assert_eq!((kept.step, kept.kind), (7, FailureKind::Mismatch));
    let screen = store.dir().join(kept.screen.unwrap());
    assert_eq!(screen, store.screen_path_of(id));
    assert_eq!(std::fs::read(&screen).unwrap(), vec![1, 2, 3]);
    assert_eq!(store.load(id, &file), state);
    assert_eq!(state.failures.len(), 1, "the failure is still counted once");

    let passed = store.record(id, &file, &RunVerdict::Passed).unwrap();
    assert_eq!(passed.last_failure, None);
    assert!(!screen.exists());
}
