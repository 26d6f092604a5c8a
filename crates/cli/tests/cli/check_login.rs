//! `retrace check` behind a login, end to end: demo servers on 127.0.0.1, real headless
//! Chromium, the binary's exit codes, lines and reports. `--login` replays the demo's
//! sign-in (`login_fixtures/demo_login.json`, the bundled demo recording's first six steps)
//! on each side, its password from `RETRACE_PARAM_PASSWORD`: the signed-in dashboard passes
//! against itself and fails against the `rename` layout; a wrong password, or one side's
//! account refusing it, is an error (exit 2) naming the side and the login step, before any
//! page is compared; `--storage-state` signs in from a Playwright file, a state the server
//! does not accept is an ERROR (the dashboard sent to the login page), and a bad file is
//! named with its field (a spec file's `login` takes the same). The password is in no
//! output, report or log.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::process::Output;

use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::demo::Layout;
use retrace_test_support::require;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

fn flow() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/login_fixtures/demo_login.json")
        .display()
        .to_string()
}

/// `retrace check` of `/dashboard` from `baseline` to `candidate` into `out`, no retries
/// unless `extra` asks for them, with `extra` flags and the login's password (when given) in the environment.
fn check(baseline: &str, candidate: &str, out: &Path, extra: &[&str], password: &str) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(["check", "--baseline", baseline, "--candidate", candidate])
        .args(["--page", "/dashboard", "--out"])
        .arg(out)
        .args(extra)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("RETRACE_PARAM_USERNAME");
    if !extra.contains(&"--retries") {
        command.args(["--retries", "0"]);
    }
    if password.is_empty() {
        command.env_remove("RETRACE_PARAM_PASSWORD");
    } else {
        command.env("RETRACE_PARAM_PASSWORD", password);
    }
    command.output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Every file under `dir`, read as text (lossy), with its path.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            found.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    found
}

fn assert_secret_absent(secret: &str, output: &Output, out: &Path) {
    assert!(!text(output).contains(secret), "{}", text(output));
    for (path, content) in files_under(out) {
        assert!(
            !content.contains(secret),
            "{} holds the secret",
            path.display()
        );
    }
}

fn login_args(flow: &str) -> Vec<&str> {
    vec!["--login", flow, "--param", "username=demo"]
}

#[test]
fn signed_in_pages_pass_against_themselves_and_fail_on_a_changed_dashboard() {
    require!(Chromium);
    let baseline = DemoThread::start(DemoConfig::default());
    let renamed = DemoThread::start(DemoConfig {
        layout: Layout::Rename,
        ..DemoConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let flow = flow();
    let password = retrace_demo::DEMO_PASSWORD;
    let mut args = login_args(&flow);
    args.extend(["--report", "html,junit,json"]);

    let out = dir.path().join("same");
    let output = check(baseline.url(), baseline.url(), &out, &args, password);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains("PASS  /dashboard @1280x720"),
        "{}",
        text(&output)
    );
    // The reports' rerun command signs in the same way, the password read from the variable.
    let reruns = files_under(&out)
        .into_iter()
        .filter(|(_, content)| content.contains("--login"))
        .count();
    let rerun_with_variable = files_under(&out)
        .into_iter()
        .filter(|(_, content)| content.contains("password=$RETRACE_PARAM_PASSWORD"))
        .count();
    assert!(
        reruns >= 2 && rerun_with_variable >= 2,
        "{reruns} {rerun_with_variable}"
    );
    assert_secret_absent(password, &output, &out);

    let out = dir.path().join("renamed");
    let output = check(baseline.url(), renamed.url(), &out, &args, password);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let lines = text(&output);
    assert!(lines.contains("FAIL  /dashboard @1280x720"), "{lines}");
    assert!(lines.contains("Add invoice"), "{lines}");
    assert_secret_absent(password, &output, &out);
}

#[test]
fn a_failed_login_is_an_error_naming_the_side_and_the_step() {
    require!(Chromium);
    let baseline = DemoThread::start(DemoConfig::default());
    let mut config = DemoConfig::default();
    config.credentials.password = "another-password-77".to_owned();
    let other = DemoThread::start(config);
    let dir = tempfile::tempdir().unwrap();
    let flow = flow();
    let args = login_args(&flow);

    // A wrong password fails on both sides: an error naming each, never a PASS.
    let wrong = "wrong-password-31";
    let out = dir.path().join("wrong");
    let output = check(baseline.url(), baseline.url(), &out, &args, wrong);
    let lines = text(&output);
    assert_eq!(output.status.code(), Some(2), "{lines}");
    assert!(lines.contains("demo_login.json"), "{lines}");
    assert!(
        lines.contains("baseline (") && lines.contains("candidate ("),
        "{lines}"
    );
    assert!(lines.contains("step 6"), "{lines}");
    assert!(lines.contains("/dashboard"), "{lines}");
    assert!(!lines.contains("PASS"), "{lines}");
    assert_secret_absent(wrong, &output, &out);

    // The candidate's account refuses the password: the candidate is named, not the baseline.
    let out = dir.path().join("candidate");
    let password = retrace_demo::DEMO_PASSWORD;
    let output = check(baseline.url(), other.url(), &out, &args, password);
    let lines = text(&output);
    assert_eq!(output.status.code(), Some(2), "{lines}");
    assert!(
        lines.contains("candidate (") && lines.contains("step 6"),
        "{lines}"
    );
    assert!(!lines.contains("baseline ("), "{lines}");
    assert_secret_absent(password, &output, &out);

    // No password at all: refused before a browser starts, naming the parameter.
    let output = check(baseline.url(), baseline.url(), &out, &args, "");
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("password"), "{}", text(&output));
}

fn state_file(dir: &Path, cookie: &str) -> String {
    let path = dir.join(format!("state-{cookie}.json"));
    let state = serde_json::json!({
        "cookies": [{
            "name": "retrace_demo_session", "value": cookie, "domain": "127.0.0.1",
            "path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"
        }],
        "origins": []
    });
    std::fs::write(&path, state.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn a_storage_state_signs_in_and_a_bad_one_is_named() {
    require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();

    let good = state_file(dir.path(), "demo");
    let out = dir.path().join("good");
    let output = check(
        demo.url(),
        demo.url(),
        &out,
        &["--storage-state", &good],
        "",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(
        text(&output).contains("PASS  /dashboard"),
        "{}",
        text(&output)
    );

    // A session the server does not know: the dashboard redirects to the login form, which
    // is not the page asked for; another attempt would be sent there again, so none is made.
    let stale = state_file(dir.path(), "nobody");
    let out = dir.path().join("stale");
    let retrying = [
        "--storage-state",
        &stale,
        "--retries",
        "2",
        "--backoff-ms",
        "10",
    ];
    let output = check(demo.url(), demo.url(), &out, &retrying, "");
    let lines = text(&output);
    assert_eq!(output.status.code(), Some(2), "{lines}");
    assert!(lines.contains("ERROR /dashboard"), "{lines}");
    assert!(lines.contains("not the signed-in page"), "{lines}");
    assert!(lines.contains("sent the browser to /"), "{lines}");
    assert!(lines.contains("(after 1 attempts)"), "{lines}");

    // A spec file names it the same way (were it ignored, the two login forms would PASS).
    let spec = dir.path().join("check.json");
    let login = serde_json::json!({"login": {"storage_state": stale}});
    std::fs::write(&spec, login.to_string()).unwrap();
    let spec_args = ["--spec", spec.to_str().unwrap()];
    let output = check(demo.url(), demo.url(), &out, &spec_args, "");
    let lines = text(&output);
    assert_eq!(output.status.code(), Some(2), "{lines}");
    assert!(lines.contains("not the signed-in page"), "{lines}");

    let bad = dir.path().join("bad-state.json");
    std::fs::write(
        &bad,
        r#"{"cookies":[{"name":"a","value":"b","domain":"127.0.0.1","path":"/","sameSite":"Sometimes"}]}"#,
    )
    .unwrap();
    let output = check(
        demo.url(),
        demo.url(),
        &out,
        &["--storage-state", bad.to_str().unwrap()],
        "",
    );
    let lines = text(&output);
    assert_eq!(output.status.code(), Some(2), "{lines}");
    assert!(lines.contains("bad-state.json"), "{lines}");
    assert!(lines.contains("cookies[0].sameSite"), "{lines}");
}
