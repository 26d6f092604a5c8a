//! Every bad input named: a corpus of broken trajectory files (each a valid recording with one
//! defect, see `corpus.rs`) through `cache check`, `replay` and `run`, each naming the file,
//! the step and the field in the same words in the console, `--json` and every report; and a
//! suite of good and broken files that runs the good ones and reports the broken ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
mod bad_section;
mod corpus;

use std::path::Path;
use std::path::PathBuf;
use std::process::Output;

use retrace_test_support::cli::assert_not_bare;
use retrace_test_support::suite_run;
use retrace_test_support::suite_run::stdout_json;
use serde_json::Value;

use corpus::Case;

/// No server listens there: a refused file must never get as far as opening it.
const NOWHERE: &str = "http://127.0.0.1:9/";

fn retrace(cwd: &Path, args: &[&str]) -> Output {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes every case into `dir`.
fn write_corpus(dir: &Path) -> Vec<(Case, PathBuf)> {
    let cases = corpus::cases();
    assert!(cases.len() >= 30, "only {} cases", cases.len());
    cases
        .into_iter()
        .map(|case| {
            let path = dir.join(case.name);
            std::fs::write(&path, &case.bytes).unwrap();
            (case, path)
        })
        .collect()
}

/// Report text (XML, HTML) with the entities a report writer may use turned back into text.
fn unescape(text: &str) -> String {
    [
        ("&quot;", "\""),
        ("&#34;", "\""),
        ("&#x22;", "\""),
        ("&apos;", "'"),
        ("&#39;", "'"),
        ("&#x27;", "'"),
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&#x2f;", "/"),
        ("&#47;", "/"),
        ("&#x60;", "`"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_owned(), |text, (entity, plain)| {
        text.replace(entity, plain)
    })
}

/// The line of `output` naming the case's defect, as `cache check` printed it (on stdout for
/// a problem, on stderr after `retrace: ` for a file it cannot read).
fn named_line(case: &Case, path: &str, output: &str) -> String {
    let line = output
        .lines()
        .find(|line| line.contains(&case.named))
        .map(|line| line.trim_start_matches("retrace: ").to_owned())
        .unwrap_or_else(|| panic!("{}: nothing names {:?}:\n{output}", case.name, case.named));
    assert!(line.starts_with(path), "{line} does not start with {path}");
    line
}

/// Values for the demo flow's parameters.
const DEMO_PARAMS: [&str; 4] = [
    "--param",
    "username=demo",
    "--param",
    "password=s3cret-Value",
];

/// `retrace replay FILE` where nothing listens, with values for the demo flow's parameters.
fn replay_args(file: &str) -> Vec<&str> {
    [&["replay", file, "--url", NOWHERE][..], &DEMO_PARAMS].concat()
}

/// The Done-when table: for every broken file, `cache check` exits 1 (problems) or 2
/// (unreadable) naming the file, step and field; `cache check --json` says the same; `replay`
/// refuses it with exit 2 in the same words, on the console and in `--json`, before any
/// browser starts; `run` over all of them exits 2 with one error test per file naming the
/// same, in the JSON, JUnit and HTML reports.
#[test]
fn every_broken_file_is_named_alike_by_cache_check_replay_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let suite = root.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let files = write_corpus(&suite);
    let mut lines = Vec::new();
    for (case, _) in &files {
        // As the suite names it: relative to the folder the commands run in.
        let shown = format!("suite/{}", case.name);
        let file = shown.as_str();

        let out = retrace(root, &["cache", "check", file]);
        let console = format!("{}{}", text(&out.stdout), text(&out.stderr));
        let want = if case.readable { 1 } else { 2 };
        assert_eq!(out.status.code(), Some(want), "{}: {console}", case.name);
        let line = named_line(case, file, &console);

        let out = retrace(root, &["cache", "check", file, "--json"]);
        assert_eq!(out.status.code(), Some(want), "{}", case.name);
        let doc = stdout_json(&out);
        let checked = &doc["files"][0];
        let said: Vec<String> = match checked["error"].as_str() {
            Some(error) => vec![error.to_owned()],
            None => checked["problems"]
                .as_array()
                .unwrap()
                .iter()
                .map(|problem| {
                    let step = problem["step"]
                        .as_u64()
                        .map(|step| format!("step {step}: "))
                        .unwrap_or_default();
                    format!(
                        "{file}: {step}{}: {}",
                        problem["field"].as_str().unwrap(),
                        problem["message"].as_str().unwrap()
                    )
                })
                .collect(),
        };
        assert!(
            said.contains(&line),
            "{}: {said:#?}\nwanted {line}",
            case.name
        );

        let replay = replay_args(file);
        let out = retrace(root, &replay);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", case.name);
        assert!(
            stderr.contains(&line),
            "{}: {stderr}\nwanted {line}",
            case.name
        );
        assert_not_bare(&stderr, &[file]);

        let log = format!("events-{}l", case.name);
        let out = retrace(root, &[&replay[..], &["--json", "--events", &log]].concat());
        assert_eq!(out.status.code(), Some(2), "{}", case.name);
        let report = stdout_json(&out);
        let error = report["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(&line),
            "{}: {report:#}\nwanted {line}",
            case.name
        );
        assert_eq!(report["status"], "error");
        assert_not_bare(error, &[file]);
        let logged = std::fs::read_to_string(root.join(&log)).unwrap();
        let finished = logged
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|event| event["type"] == "session_finished")
            .unwrap_or_else(|| panic!("{}: no session_finished in {logged}", case.name));
        let logged_error = finished["error"].as_str().unwrap_or_default();
        assert!(
            logged_error.contains(&line),
            "{}: {finished:#}\nwanted {line}",
            case.name
        );
        lines.push((case.name, shown.clone(), line));
    }

    // A folder's JSON that is clearly not meant as a trajectory (a bare string, like a
    // `package.json`) is left out of a folder; named on the command line, it is a test.
    let out = retrace(
        root,
        &[
            &[
                "run",
                "suite",
                "suite/top-level-string.json",
                "--url",
                NOWHERE,
            ][..],
            &DEMO_PARAMS,
            &["--json", "--report", "html,junit,json", "--out", "out"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let report = stdout_json(&out);
    assert_eq!(report["totals"]["error"], files.len(), "{report:#}");
    let junit = unescape(&std::fs::read_to_string(root.join("out/junit.xml")).unwrap());
    let html = unescape(&std::fs::read_to_string(root.join("out/report.html")).unwrap());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(written, report);
    for (name, shown, line) in &lines {
        let test = report["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|test| test["id"] == *shown)
            .unwrap_or_else(|| panic!("no test {name}: {report:#}"));
        assert_eq!(test["status"], "error", "{test:#}");
        let error = test["attempts"][0]["error"].as_str().unwrap();
        assert!(
            error.contains(line.as_str()),
            "{name}: {error}\nwanted {line}"
        );
        assert_not_bare(error, &[shown]);
        assert!(junit.contains(line.as_str()), "{name}: JUnit lacks {line}");
        assert!(html.contains(line.as_str()), "{name}: HTML lacks {line}");
    }
}

/// The Done-when suite: 8 good recordings of the demo flow (one saved with a byte-order mark,
/// which is accepted) and 3 broken ones (not UTF-8, truncated, an unknown action): the 8 run
/// and pass in real Chromium, the 3 are error tests naming their defects, exit 2, and every
/// report is written.
#[cfg(feature = "e2e")] // the end-to-end tier: real Chromium
#[test]
fn a_suite_runs_its_good_files_and_reports_its_broken_ones() {
    retrace_test_support::require!(Chromium);
    let app = retrace_test_support::demo::DemoThread::start(
        retrace_test_support::demo::DemoConfig::default(),
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for index in 1..=8 {
        let path = suite_run::write_recording(
            root,
            &format!("suite/good-{index}.json"),
            retrace_runner::demo::DEMO_RECORDING,
        );
        if index == 8 {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, [b"\xEF\xBB\xBF".as_slice(), &bytes].concat()).unwrap();
        }
    }
    let broken = ["not-utf8.json", "truncated.json", "unknown-action.json"];
    let cases: Vec<Case> = corpus::cases()
        .into_iter()
        .filter(|case| broken.contains(&case.name))
        .collect();
    for case in &cases {
        std::fs::write(root.join("suite").join(case.name), &case.bytes).unwrap();
    }
    let out = retrace(
        root,
        &[
            "run",
            "suite",
            "--url",
            app.url(),
            "--param",
            &format!("username={}", retrace_demo::DEMO_USERNAME),
            "--param",
            &format!("password={}", retrace_demo::DEMO_PASSWORD),
            "--json",
            "--report",
            "html,junit,json",
            "--out",
            "out",
        ],
    );
    let report = stdout_json(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{report:#}\n{}",
        text(&out.stderr)
    );
    assert_eq!(report["totals"]["tests"], 11, "{report:#}");
    assert_eq!(report["totals"]["passed"], 8, "{report:#}");
    assert_eq!(report["totals"]["error"], 3, "{report:#}");
    let junit = unescape(&std::fs::read_to_string(root.join("out/junit.xml")).unwrap());
    let html = unescape(&std::fs::read_to_string(root.join("out/report.html")).unwrap());
    assert!(root.join("out/report.json").is_file());
    for case in &cases {
        let test = report["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|test| test["id"] == format!("suite/{}", case.name))
            .unwrap();
        assert_eq!(test["status"], "error", "{test:#}");
        let error = test["attempts"][0]["error"].as_str().unwrap();
        assert!(error.contains(&case.named), "{}: {error}", case.name);
        assert!(junit.contains(error), "JUnit lacks {error}");
        assert!(html.contains(error), "HTML lacks {error}");
    }
}

/// A value for a parameter the file does not use is refused before any browser starts (it
/// used to reach the replay, which ended with a bare "the replay did not start").
#[test]
fn a_value_for_a_parameter_the_file_does_not_use_is_named_before_the_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = suite_run::write_recording(
        dir.path(),
        "flow.json",
        retrace_runner::demo::DEMO_RECORDING,
    );
    let file = file.to_str().unwrap();
    for json in [false, true] {
        let mut args = replay_args(file);
        args.extend(["--param", "nobody=1"]);
        if json {
            args.push("--json");
        }
        let out = retrace(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2));
        let said = if json {
            stdout_json(&out)["error"].as_str().unwrap().to_owned()
        } else {
            text(&out.stderr)
        };
        let want = format!(
            "{file}: unknown parameters: nobody (this trajectory uses: password, username)"
        );
        assert!(said.contains(&want), "{said}");
        assert_not_bare(&said, &[file]);
    }
}
