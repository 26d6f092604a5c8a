//! `retrace check` scheduled by the runner, end to end: checked in a remote browser reached
//! through a real Selenium Grid 4 (the pages' verdicts as in a launched browser, the Grid
//! session created once and deleted at the end; shots approved there checked against there),
//! and split into shards (`--shard`, or the
//! CI's variables) that check disjoint parts of the pages, log their events, name their
//! reports after their shard, and merge with `retrace report merge` into the whole.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::process::Output;

use retrace_test_support::cli::json_summary;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::remote_browser::selenium_grid::SeleniumGrid;
use retrace_test_support::require;

const BIN: &str = env!("CARGO_BIN_EXE_retrace");

/// The CI variables a shard may come from, removed so the machine's never leak in.
const CI_SHARD_VARIABLES: [&str; 6] = [
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "JOB_COMPLETION_INDEX",
    "RETRACE_SHARD_TOTAL",
];

fn retrace(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).env_remove("RETRACE_CONNECT_HEADERS");
    for name in CI_SHARD_VARIABLES {
        command.env_remove(name);
    }
    command.envs(env.iter().copied()).output().unwrap()
}

fn explain(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_check_through_a_selenium_grid_runs_in_the_remote_browser_and_ends_its_session() {
    let Some(grid) = SeleniumGrid::start(None) else {
        return;
    };
    let baseline = DemoThread::variant(retrace_demo::Variant::Baseline);
    let candidate = DemoThread::variant(retrace_demo::Variant::Shift);
    let out = tempfile::tempdir().unwrap();
    let endpoint = grid.endpoint();
    let output = retrace(
        &[
            "check",
            "--connect",
            &endpoint,
            "--baseline",
            baseline.url(),
            "--candidate",
            candidate.url(),
            "--page",
            "/site/pricing",
            "--page",
            "/site/about",
            "--retries",
            "0",
            "--out",
            out.path().to_str().unwrap(),
            "--json",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(1), "{}", explain(&output));
    let document = json_summary(&output);
    let pages = document["pages"].as_array().unwrap();
    let verdict = |path: &str| {
        pages
            .iter()
            .find(|p| p["path"] == path)
            .map(|p| p["verdict"].clone())
    };
    assert_eq!(verdict("/site/pricing"), Some("FAIL".into()), "{document}");
    assert_eq!(verdict("/site/about"), Some("PASS".into()), "{document}");
    let shift = &pages.iter().find(|p| p["path"] == "/site/pricing").unwrap()["differences"][0];
    assert_eq!(shift["change"], "shift", "{shift}");
    let (created, quit) = grid.sessions();
    assert_eq!(
        created.len(),
        1,
        "one browser for the viewport: {}",
        grid.log()
    );
    assert_eq!(quit, created, "{}", grid.log());

    // Shots approved in the remote browser carry its fingerprint, so a check in that same
    // browser compares with them: the unchanged page passes, the shifted one fails.
    let shots = out.path().join("shots");
    let shots = shots.to_str().unwrap();
    let stored = |action: Option<&str>, candidate: &str| {
        let mut args: Vec<&str> = vec!["check"];
        args.extend(action);
        args.extend([
            "--connect",
            &endpoint,
            "--baseline",
            shots,
            "--candidate",
            candidate,
            "--page",
            "/site/pricing",
            "--retries",
            "0",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        retrace(&args, &[])
    };
    let approved = stored(Some("approve"), baseline.url());
    assert_eq!(approved.status.code(), Some(0), "{}", explain(&approved));
    let unchanged = stored(None, baseline.url());
    assert_eq!(unchanged.status.code(), Some(0), "{}", explain(&unchanged));
    let shifted = stored(None, candidate.url());
    assert_eq!(shifted.status.code(), Some(1), "{}", explain(&shifted));
    assert!(
        String::from_utf8_lossy(&shifted.stdout).contains("layout/shift"),
        "{}",
        explain(&shifted)
    );
    let (created, quit) = grid.sessions();
    assert_eq!(created.len(), 4, "{}", grid.log());
    assert_eq!(quit, created, "{}", grid.log());
}

/// The pages each shard's JSON document checked, as `PATH@WxH`.
fn checked(output: &Output) -> BTreeSet<String> {
    let document = json_summary(output);
    document["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}@{}x{}",
                p["path"].as_str().unwrap(),
                p["viewport"][0],
                p["viewport"][1]
            )
        })
        .collect()
}

#[test]
fn shards_check_disjoint_parts_whose_reports_merge_into_the_whole() {
    require!(Chromium);
    let site = DemoThread::variant(retrace_demo::Variant::Baseline);
    let refactor = DemoThread::variant(retrace_demo::Variant::IdenticalMarkup);
    let root = tempfile::tempdir().unwrap();
    let pages = ["/site/", "/site/pricing", "/site/about", "/site/features"];
    let out = |name: &str| root.path().join(name).to_str().unwrap().to_owned();
    let check = |shard: Option<&str>, dir: &str, env: &[(&str, &str)]| {
        let mut args = vec![
            "check",
            "--baseline",
            site.url(),
            "--candidate",
            refactor.url(),
            "--viewport",
            "1280x720",
            "--viewport",
            "800x600",
            "--shard-mode",
            "slice",
            "--retries",
            "0",
            "--report",
            "json",
            "--out",
            dir,
            "--json",
        ];
        for page in &pages {
            args.extend(["--page", page]);
        }
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        let output = retrace(&args, env);
        assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
        output
    };
    let (one, two) = (out("shard-1"), out("shard-2"));
    let first = checked(&check(Some("1/2"), &one, &[]));
    let second = checked(&check(Some("2/2"), &two, &[]));
    assert_eq!((first.len(), second.len()), (4, 4), "{first:?} {second:?}");
    assert!(first.is_disjoint(&second), "{first:?} {second:?}");
    let whole: BTreeSet<String> = first.union(&second).cloned().collect();
    assert_eq!(whole.len(), 8, "every page at every viewport: {whole:?}");

    // GitLab's variables pick the same shard as the flag.
    let gitlab = checked(&check(
        None,
        &out("gitlab"),
        &[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "2")],
    ));
    assert_eq!(gitlab, second);

    assert!(Path::new(&one).join("report-shard-1-of-2.json").exists());
    // The check's log: each of this shard's pages attempted once and finished, in order.
    let log = std::fs::read_to_string(Path::new(&one).join("events.jsonl")).unwrap();
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of_type = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(of_type("check_attempt_finished"), 4, "{log}");
    assert_eq!(of_type("test_finished"), 4, "{log}");
    let merged = out("merged");
    let output = retrace(
        &[
            "report", "merge", &one, &two, "--out", &merged, "--report", "json",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", explain(&output));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(&merged).join("report.json")).unwrap())
            .unwrap();
    let ids: BTreeSet<String> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, whole, "{report}");
    assert_eq!(report["totals"]["passed"], 8, "{}", report["totals"]);
    assert_eq!(
        report["shards"].as_array().unwrap().len(),
        2,
        "{}",
        report["shards"]
    );
}
