//! `retrace replay --connect` and `retrace run --connect` against real browser farms, started
//! by the tests: a Selenium Grid 4 (the Grid's jar from npm, Debian's Java and ChromeDriver
//! driving Debian's Chromium) and browserless (npm) guarded by a token. The demo flow replays
//! green through each, a suite runs through each with its verdicts, wrong credentials are
//! refused with an error naming the farm (and never showing the secret), and no browser or
//! driver the farm started is left once retrace is done. On CI these fail, never skip, when
//! Java, npm or ChromeDriver is missing (`retrace_test_support::requirements`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::remote_browser::browserless::Browserless;
use retrace_test_support::remote_browser::browserless::DEBIAN_CHROMIUM;
use retrace_test_support::remote_browser::selenium_grid::SeleniumGrid;
use retrace_test_support::suite_run;
use retrace_test_support::suite_run::stdout_json;

/// The Grid's user and password in the test that wants them.
const GRID_USER: &str = "farm-user";
const GRID_PASSWORD: &str = "grid-pw-7c1e9a";
/// browserless's token.
const BROWSERLESS_TOKEN: &str = "browserless-token-52d8f0";

fn replay(cwd: &Path, url: &str, connect: &str, extra: &[&str]) -> Output {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
        .arg("replay")
        .arg(cwd.join("flow.json"))
        .args(["--url", url, "--connect", connect])
        .args(["--param", "username=demo", "--param"])
        .arg(format!("password={}", retrace_demo::DEMO_PASSWORD))
        .args(extra)
        .env_remove("RETRACE_CONNECT_HEADERS")
        .output()
        .unwrap()
}

/// `retrace run --json` on the suite in `cwd` through `connect`, with `extra` flags.
fn run(cwd: &Path, connect: &str, extra: &[&str]) -> Output {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
        .args(["run", ".", "--jobs", "2", "--json", "--connect", connect])
        .args(extra)
        .env("RETRACE_PARAM_PASSWORD", retrace_demo::DEMO_PASSWORD)
        .env_remove("RETRACE_CONNECT_HEADERS")
        .output()
        .unwrap()
}

fn explain(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A folder with the demo flow as `flow.json` and a suite of three: two flows on the layout
/// they were recorded on (pass) and one on v2 (fails on its changed button).
fn flows(url: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("flow.json"), DEMO_RECORDING).unwrap();
    for name in ["v1/a.json", "v1/b.json", "v2/c.json"] {
        suite_run::write_recording(&dir.path().join("suite"), name, DEMO_RECORDING);
    }
    std::fs::write(
        dir.path().join("suite/retrace.toml"),
        format!(
            "[defaults]\nurl = \"{url}\"\nstep_timeout = 20.0\n\n[parameters]\nusername = \
             \"{}\"\n\n[[files]]\nmatch = \"v2/*.json\"\nurl = \"{url}?layout=v2\"\n",
            retrace_demo::DEMO_USERNAME
        ),
    )
    .unwrap();
    dir
}

/// Asserts the suite's verdicts: the two v1 flows pass, the v2 one fails.
fn assert_two_pass_one_fails(output: &Output) {
    assert_eq!(output.status.code(), Some(1), "{}", explain(output));
    let report = stdout_json(output);
    assert_eq!(report["totals"]["tests"], 3, "{report:#}");
    assert_eq!(report["totals"]["passed"], 2, "{report:#}");
    assert_eq!(report["totals"]["failed"], 1, "{report:#}");
    assert_eq!(report["totals"]["error"], 0, "{report:#}");
}

/// Polls until `browsers` lists no process (generous: a farm ends a browser on its own time).
fn assert_none_left(what: &str, browsers: impl Fn() -> Vec<u32>, log: impl Fn() -> String) {
    let gone = retrace_test_support::cli::poll(Duration::from_secs(60), || {
        browsers().is_empty().then_some(())
    });
    assert!(
        gone.is_some(),
        "{what} still runs {:?} after retrace ended; log:\n{}",
        browsers(),
        log()
    );
}

fn shown(outputs: &[&Output]) -> String {
    outputs.iter().map(|output| explain(output)).collect()
}

#[test]
fn a_replay_through_a_real_selenium_grid_passes_and_ends_its_session() {
    let Some(grid) = SeleniumGrid::start(None) else {
        return;
    };
    let demo = DemoThread::start(DemoConfig::default());
    let dir = flows(demo.url());

    let output = replay(dir.path(), demo.url(), &grid.endpoint(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
    let (created, quit) = grid.sessions();
    assert_eq!(created.len(), 1, "one session: {}", grid.log());
    assert_eq!(quit, created, "retrace ended it: {}", grid.log());
    // The session is deleted, so ChromeDriver quits its Chromium (else both would wait
    // for the Grid's 300 s session timeout).
    assert_none_left(
        "the Grid's ChromeDriver or Chromium",
        || grid.browsers(),
        || grid.log(),
    );
}

#[test]
fn a_suite_runs_on_a_real_selenium_grid_that_wants_a_password() {
    let Some(grid) = SeleniumGrid::start(Some((GRID_USER, GRID_PASSWORD))) else {
        return;
    };
    let demo = DemoThread::start(DemoConfig::default());
    let dir = flows(demo.url());
    let suite = dir.path().join("suite");

    let wrong = grid.endpoint_with(&format!("{GRID_USER}:not-the-password@"));
    let refused = replay(dir.path(), demo.url(), &wrong, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", explain(&refused));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let hub = grid.endpoint_with("");
    assert!(stderr.contains(&hub), "the error names the hub: {stderr}");
    assert!(stderr.contains("HTTP 401"), "and its answer: {stderr}");
    assert!(
        stderr.contains("credentials"),
        "and what to check: {stderr}"
    );

    let suite_run = run(&suite, &grid.endpoint(), &[]);
    assert_two_pass_one_fails(&suite_run);
    let (mut created, mut quit) = grid.sessions();
    assert!(!created.is_empty(), "{}", grid.log());
    created.sort();
    quit.sort();
    assert_eq!(quit, created, "every session ended: {}", grid.log());
    let shown = shown(&[&refused, &suite_run]);
    assert!(
        !shown.contains(GRID_PASSWORD),
        "the password leaked: {shown}"
    );
    assert!(!shown.contains("not-the-password"), "{shown}");
    assert_none_left(
        "the Grid's ChromeDriver or Chromium",
        || grid.browsers(),
        || grid.log(),
    );
}

#[test]
fn a_replay_and_a_suite_run_on_a_real_browserless_with_its_token() {
    let Some(farm) = Browserless::start(BROWSERLESS_TOKEN) else {
        return;
    };
    let demo = DemoThread::start(DemoConfig::default());
    let dir = flows(demo.url());

    let wrong = format!("{}/?token=not-the-token", farm.url());
    let refused = replay(dir.path(), demo.url(), &wrong, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", explain(&refused));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!("{}/?token=***", farm.url())),
        "the error names the farm: {stderr}"
    );
    assert!(stderr.contains("HTTP 401"), "and its answer: {stderr}");

    let with_token = format!("{}/?token={BROWSERLESS_TOKEN}", farm.url());
    let replayed = replay(dir.path(), demo.url(), &with_token, &[]);
    assert_eq!(replayed.status.code(), Some(0), "{}", explain(&replayed));
    let proxied = farm.sessions();
    assert!(
        proxied > 0,
        "the replay went through the farm: {}",
        farm.log()
    );

    let header = format!("Authorization: Bearer {BROWSERLESS_TOKEN}");
    let suite_run = run(
        &dir.path().join("suite"),
        &farm.url(),
        &["--connect-header", &header],
    );
    assert_two_pass_one_fails(&suite_run);
    assert!(farm.sessions() > proxied, "so did the run: {}", farm.log());
    // browserless launched Debian's Chromium, and nothing downloaded another.
    let files = farm.browser_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        std::fs::read_link(&files[0]).unwrap(),
        Path::new(DEBIAN_CHROMIUM)
    );
    let launched = format!("executablePath: '{}'", files[0].display());
    assert!(farm.log().contains(&launched), "{launched}: {}", farm.log());
    let shown = shown(&[&refused, &replayed, &suite_run]);
    assert!(
        !shown.contains(BROWSERLESS_TOKEN),
        "the token leaked: {shown}"
    );
    assert!(!shown.contains("not-the-token"), "{shown}");
    assert_none_left("browserless's Chromium", || farm.browsers(), || farm.log());
}
