//! `act --cache-dir s3://...`: a run records into a real S3 server (moto, from PyPI) and the
//! recording replays from there; what was already in the prefix is left as it was.

use std::process::Command;
use std::process::Output;

use retrace_runner::store::Key;
use retrace_runner::store::Location;
use retrace_runner::store::Store;
use retrace_test_support::cli::runtime;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::moto::Moto;

use super::PASSWORD;
use super::USERNAME;
use super::login_points;
use super::login_script;

const FOLDER: &str = "s3://retrace-act/flows";

/// `retrace ARGS` with the demo's credentials, against moto and (when given) the fake model.
fn retrace_with_s3(moto: &Moto, args: &[&str], model: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retrace"));
    command
        .args(args)
        .args(["--param", &format!("username={USERNAME}")])
        .args(["--param", &format!("password={PASSWORD}"), "--json"])
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .envs(moto.env());
    if let Some(base_url) = model {
        command
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("RETRACE_ANTHROPIC_BASE_URL", base_url);
    }
    command.output().unwrap()
}

#[test]
fn act_records_into_s3_and_the_recording_replays_from_there() {
    retrace_test_support::require!(Chromium);
    let runtime = runtime();
    let Some(moto) = runtime.block_on(Moto::start()) else {
        return;
    };
    moto.create_bucket("retrace-act");
    let vars = moto.env().into_iter().map(|(k, v)| (k.to_owned(), v));
    let folder: Store = Location::parse(FOLDER).unwrap().open_with(vars).unwrap();
    let other = Key::new("other.json").unwrap();
    let other_bytes = retrace_runner::demo::DEMO_RECORDING.as_bytes();
    runtime
        .block_on(folder.put_create(&other, other_bytes))
        .unwrap();

    let demo = DemoThread::start(DemoConfig::default());
    let points = login_points(&runtime, demo.url());
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let output = retrace_with_s3(
        &moto,
        &[
            "act",
            "Log in as {{username}} with password {{password}}",
            "--url",
            demo.url(),
            "--cache",
            "record",
            "--cache-dir",
            FOLDER,
            "--cache-file",
            "login.json",
        ],
        Some(&fake.base_url()),
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(
        summary["act"]["recorded"], "s3://retrace-act/flows/login.json",
        "{summary}"
    );

    // The recording is in S3 (parameterised, no password); the file already there is not
    // touched.
    let login = Key::new("login.json").unwrap();
    let stored = runtime.block_on(folder.get(&login)).unwrap().unwrap();
    let text = String::from_utf8(stored.bytes).unwrap();
    assert!(text.contains("{{password}}") && !text.contains(PASSWORD));
    let untouched = runtime.block_on(folder.get(&other)).unwrap().unwrap();
    assert_eq!(untouched.bytes, other_bytes);

    // It replays from S3 with no model at all.
    let requests = fake.requests().len();
    let output = retrace_with_s3(
        &moto,
        &[
            "replay",
            "s3://retrace-act/flows/login.json",
            "--url",
            demo.url(),
        ],
        None,
    );
    let replay = summary_after_exit(&output, 0);
    assert_eq!(replay["status"], "passed", "{replay}");
    assert_eq!(replay["replay"]["checks_passed"]["visual"], 3, "{replay}");
    assert_eq!(
        fake.requests().len(),
        requests,
        "replay must not call the model"
    );
}
