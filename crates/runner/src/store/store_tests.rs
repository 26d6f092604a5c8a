#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use super::run_records::RunRecords;
use super::*;
use crate::suite::state::RunVerdict;

fn key(name: &str) -> Key {
    Key::new(name).unwrap()
}

/// The two backends, so every behaviour is checked on both.
fn stores() -> Vec<(Store, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    vec![
        (Store::in_memory(), None),
        (
            Store::Local(LocalStore::new(dir.path().join("store"))),
            Some(dir),
        ),
    ]
}

#[test]
fn keys_that_would_leave_the_store_are_refused_naming_the_key() {
    for bad in [
        "../escape.json",
        "a/../../escape.json",
        "a/..",
        "/etc/passwd",
        "\\\\server\\share",
        "a\\..\\b",
        "C:/x",
        "",
        "a//b",
        "a/./b",
        "a/",
        "a\0b",
    ] {
        let error = Key::new(bad).unwrap_err();
        assert!(
            matches!(&error, StoreError::KeyRefused { key, .. } if key == bad),
            "{bad:?}: {error}"
        );
        assert!(error.to_string().contains(&format!("`{bad}`")), "{error}");
    }
    assert_eq!(key("flows/login.json").file_name(), "login.json");
    assert_eq!(key(".retrace_state/a..b").as_str(), ".retrace_state/a..b");
    let error = key("suite").join("../../x").unwrap_err();
    assert!(error.to_string().contains("`../../x`"), "{error}");
}

#[test]
fn locations_parse_to_buckets_prefixes_or_paths() {
    assert_eq!(
        Location::parse("s3://bucket/suite/flows/").unwrap(),
        Location::S3 {
            bucket: "bucket".into(),
            prefix: "suite/flows".into()
        }
    );
    assert_eq!(
        Location::parse("s3://bucket").unwrap(),
        Location::S3 {
            bucket: "bucket".into(),
            prefix: String::new()
        }
    );
    assert_eq!(
        Location::parse("suite/flows").unwrap(),
        Location::Local("suite/flows".into())
    );
    for (bad, says) in [
        ("s3:///prefix", "bucket name is missing"),
        ("s3://bucket/a/../../other", "`..`"),
        ("gs://bucket/x", "only s3://"),
        ("ftp://host/x", "unknown URL scheme"),
    ] {
        let error = Location::parse(bad).unwrap_err().to_string();
        assert!(error.contains(says), "{bad}: {error}");
    }
}

#[tokio::test]
async fn create_refuses_an_existing_key_and_update_a_stale_revision() {
    for (store, _dir) in stores() {
        let name = store.name();
        let k = key("flows/login.json");
        assert!(store.get(&k).await.unwrap().is_none(), "{name}");
        let first = store.put_create(&k, b"one").await.unwrap();
        let again = store.put_create(&k, b"two").await.unwrap_err();
        assert!(
            matches!(again, StoreError::AlreadyExists { .. }),
            "{name}: {again}"
        );
        let read = store.get(&k).await.unwrap().unwrap();
        assert_eq!(read.bytes, b"one", "{name}");
        assert_eq!(read.revision.tag, first.tag, "{name}");
        let second = store
            .put_if_match(&k, b"two", &read.revision)
            .await
            .unwrap();
        let stale = store
            .put_if_match(&k, b"three", &read.revision)
            .await
            .unwrap_err();
        assert!(
            matches!(stale, StoreError::Changed { .. }),
            "{name}: {stale}"
        );
        store.put_if_match(&k, b"three", &second).await.unwrap();
        assert_eq!(
            store.get(&k).await.unwrap().unwrap().bytes,
            b"three",
            "{name}"
        );
        // An update of a key that does not exist is a change too (it was deleted).
        let gone = store
            .put_if_match(&key("nope.json"), b"x", &second)
            .await
            .unwrap_err();
        assert!(matches!(gone, StoreError::Changed { .. }), "{name}: {gone}");
    }
}

#[tokio::test]
async fn list_finds_the_keys_under_a_prefix_and_no_bookkeeping_files() {
    for (store, _dir) in stores() {
        let name = store.name();
        for k in [
            "a.json",
            "flows/login.json",
            "flows/deep/x.json",
            "flowsx.json",
        ] {
            store.put_create(&key(k), b"{}").await.unwrap();
        }
        // A conditional write leaves a lock file behind locally: it is not a key.
        let read = store.get(&key("a.json")).await.unwrap().unwrap();
        store
            .put_if_match(&key("a.json"), b"[]", &read.revision)
            .await
            .unwrap();
        let all: Vec<String> = store
            .list(None)
            .await
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            all,
            [
                "a.json",
                "flows/deep/x.json",
                "flows/login.json",
                "flowsx.json"
            ],
            "{name}"
        );
        let flows: Vec<String> = store
            .list(Some(&key("flows")))
            .await
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(flows, ["flows/deep/x.json", "flows/login.json"], "{name}");
        let child = store.child(&key("flows"));
        assert_eq!(
            child.get(&key("login.json")).await.unwrap().unwrap().bytes,
            b"{}",
            "{name}"
        );
        assert!(
            child.list(Some(&key("none"))).await.unwrap().is_empty(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn an_identical_rewrite_still_moves_the_revision_on() {
    // Without the counter, writing the same bytes back would bring the old ETag back and a
    // writer holding that old revision would overwrite a newer state.
    for (store, _dir) in stores() {
        let k = key("counter.json");
        store.update_json(&k, |_: Option<u64>| 1).await.unwrap();
        let old = store.get(&k).await.unwrap().unwrap().revision;
        store.update_json(&k, |_: Option<u64>| 2).await.unwrap();
        store.update_json(&k, |_: Option<u64>| 1).await.unwrap();
        let stale = store.put_if_match(&k, b"x", &old).await.unwrap_err();
        assert!(
            matches!(stale, StoreError::Changed { .. }),
            "{}: {stale}",
            store.name()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_read_modify_writes_lose_nothing() {
    for (store, _dir) in stores() {
        let store = Arc::new(store);
        let k = key("state/count.json");
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (store, k) = (Arc::clone(&store), k.clone());
            tasks.push(tokio::spawn(async move {
                for _ in 0..25 {
                    store
                        .update_json(&k, |n: Option<u64>| n.unwrap_or(0) + 1)
                        .await
                        .unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let total = store
            .update_json(&k, |n: Option<u64>| n.unwrap_or(0))
            .await
            .unwrap();
        assert_eq!(total, 200, "{}", store.name());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_run_records_are_all_counted() {
    for (store, _dir) in stores() {
        let records = Arc::new(RunRecords::new(store));
        let trajectory = crate::demo::DEMO_RECORDING.as_bytes();
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let records = Arc::clone(&records);
            tasks.push(tokio::spawn(async move {
                for _ in 0..25 {
                    records
                        .record("flows/login.json", trajectory, &RunVerdict::Passed)
                        .await
                        .unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let state = records.load("flows/login.json", trajectory).await.unwrap();
        assert_eq!(state.execution_attempts, 200, "{}", records.store().name());
        assert!(state.is_valid);
        assert!(state.last_executed_at.is_some());
    }
}

#[tokio::test]
async fn run_records_feed_the_validators_and_a_changed_file_starts_afresh() {
    for (store, _dir) in stores() {
        let records = RunRecords::new(store);
        let trajectory = crate::demo::DEMO_RECORDING.as_bytes();
        let failed = RunVerdict::Failed {
            step: 7,
            message: "mismatch".into(),
        };
        records
            .record("login", trajectory, &RunVerdict::Passed)
            .await
            .unwrap();
        for _ in 0..2 {
            records.record("login", trajectory, &failed).await.unwrap();
            assert!(records.load("login", trajectory).await.unwrap().is_valid);
        }
        // askui's StepFailureCount: the third failure at one step retires the file.
        let key = records.record("login", trajectory, &failed).await.unwrap();
        assert!(key.as_str().starts_with(".retrace_state/login/"), "{key}");
        let state = records.load("login", trajectory).await.unwrap();
        assert_eq!(state.execution_attempts, 4);
        assert_eq!(
            state
                .failures
                .iter()
                .map(|f| f.failure_count_at_step)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert!(!state.is_valid);
        let reason = state.invalidation_reason.unwrap();
        assert!(reason.contains("StepFailureCount"), "{reason}");
        let mut changed = trajectory.to_vec();
        changed.push(b'\n');
        let fresh = records.load("login", &changed).await.unwrap();
        assert_eq!((fresh.execution_attempts, fresh.is_valid), (0, true));
    }
}
