//! Stores on a real S3 server (moto's server mode, from PyPI, started by the test): the
//! conditional writes, key confinement, and run records written by eight processes at once.
//!
//! Read-modify-write (`PutMode::Update`) is checked here for its precondition only, not under
//! contention: moto compares `If-Match` and stores the object in two steps without a lock, so
//! concurrent updates can both pass its check (real S3 and the in-memory store do not; the
//! contention test runs against those in `store_tests.rs`). Run records need no such check.
//!
//! The writer processes are this test binary run again with `STORE_WRITER` set: the
//! `writer_process` test then writes its records and exits; in a normal run it does nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_runner::store::Key;
use retrace_runner::store::Location;
use retrace_runner::store::Store;
use retrace_runner::store::StoreError;
use retrace_runner::store::run_records::RunRecords;
use retrace_runner::suite::state::RunVerdict;
use retrace_test_support::moto::Moto;

/// Names the store a writer process writes to (and makes `writer_process` write).
const WRITER_VAR: &str = "STORE_WRITER";
const PROCESSES: usize = 8;
const RUNS_PER_PROCESS: usize = 25;
const TEST_ID: &str = "flows/login.json";

fn trajectory() -> &'static [u8] {
    retrace_runner::demo::DEMO_RECORDING.as_bytes()
}

fn open(moto: &Moto, location: &str) -> Store {
    let vars = moto.env().into_iter().map(|(k, v)| (k.to_owned(), v));
    Location::parse(location).unwrap().open_with(vars).unwrap()
}

async fn moto_with_bucket(bucket: &str) -> Option<Moto> {
    let moto = Moto::start().await?;
    moto.create_bucket(bucket);
    Some(moto)
}

#[tokio::test]
async fn conditional_writes_and_prefixes_hold_on_s3() {
    let Some(moto) = moto_with_bucket("retrace").await else {
        return;
    };
    let store = open(&moto, "s3://retrace/suite/");
    let key = Key::new("flows/login.json").unwrap();
    let first = store.put_create(&key, b"one").await.unwrap();
    let again = store.put_create(&key, b"two").await.unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists { .. }), "{again}");
    let read = store.get(&key).await.unwrap().unwrap();
    assert_eq!(read.bytes, b"one");
    assert_eq!(read.revision.tag, first.tag);
    let second = store
        .put_if_match(&key, b"two", &read.revision)
        .await
        .unwrap();
    let stale = store
        .put_if_match(&key, b"three", &read.revision)
        .await
        .unwrap_err();
    assert!(matches!(stale, StoreError::Changed { .. }), "{stale}");
    store.put_if_match(&key, b"three", &second).await.unwrap();

    // Another prefix of the bucket is out of reach: not listed, not named by `..`.
    let outside = open(&moto, "s3://retrace/other/");
    outside
        .put_create(&Key::new("secret.json").unwrap(), b"{}")
        .await
        .unwrap();
    let listed: Vec<String> = store
        .list(None)
        .await
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(listed, ["flows/login.json"]);
    let escape = Key::new("../other/secret.json").unwrap_err();
    assert!(
        escape.to_string().contains("`../other/secret.json`"),
        "{escape}"
    );
    let escape = Location::parse("s3://retrace/suite/../other").unwrap_err();
    assert!(escape.to_string().contains("`..`"), "{escape}");
}

#[tokio::test]
async fn run_records_from_eight_processes_on_s3_lose_none() {
    let Some(moto) = moto_with_bucket("runs").await else {
        return;
    };
    let location = "s3://runs/suite";
    let exe = std::env::current_exe().unwrap();
    let mut children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "writer_process",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(WRITER_VAR, location)
                .envs(moto.env())
                .spawn()
                .unwrap()
        })
        .collect();
    // Generous: eight processes of 25 requests each on a loaded machine.
    let deadline = Instant::now() + Duration::from_secs(300);
    for child in &mut children {
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "writer processes did not finish: {}",
                moto.log()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(status.success(), "a writer process failed ({status})");
    }
    let records = RunRecords::new(open(&moto, location));
    let state = records.load(TEST_ID, trajectory()).await.unwrap();
    assert_eq!(
        state.execution_attempts as usize,
        PROCESSES * RUNS_PER_PROCESS
    );
    assert_eq!(state.failures.len(), PROCESSES, "one failure per process");
    let folder = records.folder_of(TEST_ID, trajectory()).unwrap();
    let keys = records.store().list(Some(&folder)).await.unwrap();
    assert_eq!(keys.len(), PROCESSES * RUNS_PER_PROCESS);
}

/// One writer process: 25 concurrent run records (one of them a failure) into the store
/// named by `STORE_WRITER`, with S3 settings from the environment as `retrace` reads them.
/// Does nothing in a normal test run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writer_process() {
    let Ok(location) = std::env::var(WRITER_VAR) else {
        return;
    };
    let records = Arc::new(RunRecords::new(Store::open(&location).unwrap()));
    let writes = (0..RUNS_PER_PROCESS).map(|run| {
        let records = Arc::clone(&records);
        tokio::spawn(async move {
            let verdict = if run == 0 {
                RunVerdict::Failed {
                    step: 2,
                    message: "mismatch".into(),
                }
            } else {
                RunVerdict::Passed
            };
            records
                .record(TEST_ID, trajectory(), &verdict)
                .await
                .unwrap();
        })
    });
    for write in futures::future::join_all(writes).await {
        write.unwrap();
    }
}
