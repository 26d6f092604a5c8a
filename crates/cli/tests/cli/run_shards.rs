//! `retrace run --shard` end to end: the real binary, the real demo app, real headless
//! Chromium. Four shard processes (their shard given by `--shard` and by each CI's variables,
//! one of them on a real browserless farm that wants a token)
//! write their reports into one folder; `retrace report merge` adds them up to exactly what
//! one unsharded run reports. These are the README's "Running at scale" examples.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::process::Output;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::remote_browser::browserless::Browserless;
use retrace_test_support::suite_run;
use retrace_test_support::suite_run::stdout_json;
use serde_json::Value;

/// The browserless farm's token.
const FARM_TOKEN: &str = "shard-farm-token-3b9d27";

fn retrace(cwd: &Path) -> Command {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
}

fn explain(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A suite of 8 demo recordings: 6 against the layout they were recorded on (pass) and 2
/// against v2, whose changed button fails them. The suite file gives the url and user name.
fn eight_recordings(suite: &Path, url: &str) {
    for index in 1..=6 {
        suite_run::write_recording(suite, &format!("v1/flow-{index:02}.json"), DEMO_RECORDING);
    }
    for index in 7..=8 {
        suite_run::write_recording(suite, &format!("v2/flow-{index:02}.json"), DEMO_RECORDING);
    }
    std::fs::write(
        suite.join("retrace.toml"),
        format!(
            r#"
[defaults]
url = "{url}"
step_timeout = 20.0

[parameters]
username = "{user}"

[[files]]
match = "v2/*.json"
url = "{url}?layout=v2"
"#,
            user = retrace_demo::DEMO_USERNAME
        ),
    )
    .unwrap();
}

/// Each test's id and status.
fn statuses(report: &Value) -> BTreeMap<String, String> {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| {
            (
                test["id"].as_str().unwrap().to_owned(),
                test["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn four_shards_merged_report_what_one_unsharded_run_reports() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    eight_recordings(suite, app.url());
    let password = retrace_demo::DEMO_PASSWORD;

    let whole = retrace(suite)
        .args(["run", ".", "--jobs", "2", "--json"])
        .env("RETRACE_PARAM_PASSWORD", password)
        .output()
        .unwrap();
    assert_eq!(whole.status.code(), Some(1), "{}", explain(&whole));
    let whole = stdout_json(&whole);
    assert_eq!(whole["totals"]["tests"], 8, "{whole:#}");
    assert_eq!(whole["totals"]["passed"], 6, "{whole:#}");
    assert_eq!(whole["totals"]["failed"], 2, "{whole:#}");
    assert_eq!(whole["shard"], Value::Null);

    // Shard 4 runs on a real browserless farm that wants a token.
    let Some(farm) = Browserless::start(FARM_TOKEN) else {
        return;
    };
    let farm_url = format!("{}/?token={FARM_TOKEN}", farm.url());

    // The four shards run side by side, each told its shard as its CI would tell it, all
    // writing into one folder as a CI's artefact download collects them.
    let shard_env: [&[(&str, &str)]; 4] = [
        &[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "4")],
        &[("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "4")],
        &[("JOB_COMPLETION_INDEX", "2"), ("RETRACE_SHARD_TOTAL", "4")],
        &[],
    ];
    // Collected so all four start before any is waited for.
    #[allow(clippy::needless_collect)]
    let children: Vec<_> = shard_env
        .iter()
        .enumerate()
        .map(|(position, env)| {
            let mut command = retrace(suite);
            command
                .args(["run", ".", "--jobs", "2", "--json"])
                .args(["--report", "json,junit,html", "--out", "collected"])
                .env("RETRACE_PARAM_PASSWORD", password)
                .envs(env.iter().copied());
            if position == 3 {
                command.args([
                    "--shard",
                    "4/4",
                    "--connect",
                    &farm_url,
                    "--max-sessions",
                    "2",
                ]);
            }
            command
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .collect();

    let shown: String = outputs.iter().map(explain).collect();
    assert!(
        !shown.contains(FARM_TOKEN),
        "the farm's token leaked: {shown}"
    );
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (position, output) in outputs.iter().enumerate() {
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "shard {}: {}",
            position + 1,
            explain(output)
        );
        let report = stdout_json(output);
        let index = position + 1;
        assert_eq!(report["shard"]["index"], index, "{report:#}");
        assert_eq!(report["shard"]["total"], 4, "{report:#}");
        for id in statuses(&report).into_keys() {
            assert!(seen.insert(id.clone()), "{id} ran in two shards");
        }
        for name in [
            format!("report-shard-{index}-of-4.json"),
            format!("junit-shard-{index}-of-4.xml"),
            format!("report-shard-{index}-of-4.html"),
        ] {
            assert!(suite.join("collected").join(&name).is_file(), "{name}");
        }
    }
    assert_eq!(
        seen,
        statuses(&whole).into_keys().collect(),
        "the shards cover the suite"
    );
    // The hash deals these eight files two to a shard: every shard ran, including the remote.
    assert!(
        farm.sessions() > 0,
        "shard 4 used the remote browser: {}",
        farm.log()
    );

    let merged = retrace(suite)
        .args(["report", "merge", "collected", "--out", "merged"])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", explain(&merged));
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("merged/report.json")).unwrap())
            .unwrap();
    assert_eq!(merged["totals"], whole["totals"], "{merged:#}");
    assert_eq!(statuses(&merged), statuses(&whole));
    assert_eq!(merged["shards"].as_array().unwrap().len(), 4);
    for name in ["junit.xml", "report.html"] {
        assert!(suite.join("merged").join(name).is_file(), "{name}");
    }
    for folder in ["collected", "merged"] {
        assert!(
            !suite_run::all_text_below(&suite.join(folder)).contains(FARM_TOKEN),
            "the farm's token reached a report in {folder}/"
        );
    }
}

/// `--list` shows every test's shard, the same whichever CI names it; wrong bases and bad
/// flags are refused before anything runs (exit 2), naming what is wrong.
#[test]
fn list_shows_the_assignment_and_wrong_bases_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    for index in 1..=8 {
        suite_run::write_recording(suite, &format!("flow-{index:02}.json"), DEMO_RECORDING);
    }
    let list = |args: &[&str], env: &[(&str, &str)]| {
        let output = retrace(suite)
            .args(["run", ".", "--list", "--url", "http://127.0.0.1:9/"])
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            output,
        )
    };
    let (code, gitlab, output) = list(&[], &[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "4")]);
    assert_eq!(code, Some(0), "{}", explain(&output));
    let (_, kubernetes, _) = list(
        &[],
        &[("JOB_COMPLETION_INDEX", "0"), ("RETRACE_SHARD_TOTAL", "4")],
    );
    let (_, flag, _) = list(&["--shard", "1/4"], &[]);
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&gitlab), body(&kubernetes));
    assert_eq!(body(&gitlab), body(&flag));
    assert!(
        gitlab.starts_with("shard 1/4 by hash (from CI_NODE_INDEX=1, CI_NODE_TOTAL=4): 2 of 8"),
        "{gitlab}"
    );
    // The pinned FNV-1a assignment of these names: 2 3 4 1 2 3 4 1.
    let expected = [2, 3, 4, 1, 2, 3, 4, 1];
    for (index, shard) in expected.iter().enumerate() {
        let id = format!("flow-{:02}.json", index + 1);
        let line = gitlab
            .lines()
            .find(|line| line.starts_with(&id))
            .unwrap_or_else(|| panic!("{id} listed: {gitlab}"));
        assert!(line.contains(&format!("shard {shard}/4")), "{line}");
        assert_eq!(line.contains("run here"), *shard == 1, "{line}");
    }
    // Slice mode deals the sorted list round-robin.
    let (_, slice, _) = list(&["--shard", "2/4", "--shard-mode", "slice"], &[]);
    let here: Vec<&str> = slice
        .lines()
        .filter(|line| line.contains("run here"))
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(here, ["flow-02.json", "flow-06.json"], "{slice}");

    for (env, named) in [
        (
            &[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "4")][..],
            "CI_NODE_INDEX=0",
        ),
        (
            &[("CIRCLE_NODE_INDEX", "4"), ("CIRCLE_NODE_TOTAL", "4")][..],
            "CIRCLE_NODE_INDEX=4",
        ),
        (
            &[("JOB_COMPLETION_INDEX", "1")][..],
            "RETRACE_SHARD_TOTAL is not",
        ),
    ] {
        let (code, _, output) = list(&[], env);
        assert_eq!(code, Some(2), "{named}: {}", explain(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(named), "{named}: {stderr}");
    }
    let (code, _, output) = list(&["--shard", "0/4"], &[]);
    assert_eq!(code, Some(2), "{}", explain(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("numbered from 1"),
        "{}",
        explain(&output)
    );
}
