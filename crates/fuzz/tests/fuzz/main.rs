//! Fuzz targets of every reader of user files, one test binary (linked once). Each target
//! runs a fixed number of cases from a fixed seed; `docs/fuzzing.md` says how to run more
//! (`RETRACE_FUZZ_CASES`, `RETRACE_FUZZ_SEED`) and how to replay a failure
//! (`RETRACE_FUZZ_REPLAY`). With the test-only feature `planted-panic` every target instead
//! shows it finds a planted panic within the same budget.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod alloc_limit;
mod harness;
mod mutate;
mod mutate_toml;
mod targets;

use harness::Limits;
use harness::Target;

#[global_allocator]
static ALLOCATOR: alloc_limit::Counting = alloc_limit::Counting;

/// The cases each target runs: its own count, or `RETRACE_FUZZ_CASES`.
fn cases(target: &Target) -> u32 {
    match std::env::var("RETRACE_FUZZ_CASES") {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("RETRACE_FUZZ_CASES={text}: expected a whole number")),
        Err(_) => target.cases,
    }
}

#[cfg(not(feature = "planted-panic"))]
fn fuzz(target: &Target) {
    let cases = cases(target);
    let accepted = harness::fuzz(target, cases).unwrap_or_else(|failure| panic!("{failure}"));
    eprintln!("{}: {cases} inputs, {accepted} accepted", target.name);
    // Mutations that never get past the first check test little: some inputs must be read
    // through to the end.
    assert!(accepted > 0, "{}: no input was accepted", target.name);
}

#[cfg(not(feature = "planted-panic"))]
mod fuzz {
    use super::*;

    #[test]
    fn trajectory() {
        fuzz(&targets::TRAJECTORY);
    }

    #[test]
    fn pages_json() {
        fuzz(&targets::PAGES_JSON);
    }

    #[test]
    fn pages_toml() {
        fuzz(&targets::PAGES_TOML);
    }

    #[test]
    fn check_spec() {
        fuzz(&targets::CHECK_SPEC);
    }

    #[test]
    fn suite_toml() {
        fuzz(&targets::SUITE_TOML);
    }

    #[test]
    fn params_toml() {
        fuzz(&targets::PARAMS_TOML);
    }

    #[test]
    fn baseline() {
        fuzz(&targets::BASELINE);
    }

    #[test]
    fn baseline_elements() {
        fuzz(&targets::BASELINE_ELEMENTS);
    }

    #[test]
    fn baseline_accessibility() {
        fuzz(&targets::BASELINE_ACCESSIBILITY);
    }

    #[test]
    fn report_merge() {
        fuzz(&targets::REPORT_MERGE);
    }
}

/// Every committed corpus file is one the reader accepts: mutations of a refused file would
/// test the first check only.
#[test]
fn every_corpus_file_is_accepted() {
    for target in targets::ALL {
        for (path, bytes) in harness::corpus(target.name) {
            let reading = harness::run_one(target, &bytes, Limits::from_env());
            assert!(
                matches!(reading, Ok(Ok(_))),
                "{}: {}: {reading:?}",
                target.name,
                path.display()
            );
        }
    }
}

/// The limits fail what they should: a reader that allocates without bound or never ends.
#[test]
fn the_limits_catch_a_blow_up_and_a_hang() {
    let greedy = Target {
        name: "greedy",
        form: harness::Form::Json,
        cases: 1,
        file_name: "greedy.json",
        read: |_| Ok(format!("{}", vec![0u8; 64 << 20].len())),
    };
    let limits = Limits {
        time: std::time::Duration::from_secs(600),
        memory: 32 << 20,
    };
    let failure = harness::run_one(&greedy, b"{}", limits).unwrap_err();
    assert!(failure.starts_with("a blow-up"), "{failure}");
    let endless = Target {
        name: "endless",
        form: harness::Form::Json,
        cases: 1,
        file_name: "endless.json",
        read: |_| loop {
            std::thread::park();
        },
    };
    let limits = Limits {
        time: std::time::Duration::from_millis(50),
        memory: 32 << 20,
    };
    let failure = harness::run_one(&endless, b"{}", limits).unwrap_err();
    assert!(failure.starts_with("a hang"), "{failure}");
}

/// `RETRACE_FUZZ_REPLAY=FILE`: runs every target whose file name matches on that input
/// (what a failure saved), printing the reading.
#[test]
fn replay() {
    let Ok(file) = std::env::var("RETRACE_FUZZ_REPLAY") else {
        return;
    };
    let bytes = std::fs::read(&file).unwrap();
    for target in targets::ALL {
        if file.contains(target.name) {
            let reading = harness::run_one(target, &bytes, Limits::from_env());
            eprintln!("{}: {reading:?}", target.name);
            if let Err(failure) = reading {
                panic!("{}: {failure}", target.name);
            }
        }
    }
}

/// Each target finds the planted panic (a reader that panics on accepting a 1000-character
/// run of `a`) within the number of cases `cargo test` runs.
#[cfg(feature = "planted-panic")]
#[test]
fn every_target_finds_its_planted_panic() {
    for target in targets::ALL {
        let failure = harness::fuzz(target, cases(target))
            .err()
            .unwrap_or_else(|| {
                panic!("{}: no panic found in {} cases", target.name, cases(target))
            });
        assert!(
            failure.contains("planted panic"),
            "{}: {failure}",
            target.name
        );
    }
}

/// Writes the report merge corpus from test-support's sample suite (every status, a page
/// check): `cargo test -p retrace-fuzz --test fuzz -- --ignored write_report_corpus`.
#[test]
#[ignore = "regenerates a committed corpus file"]
fn write_report_corpus() {
    use retrace_test_support::suite_report;
    let evidence = tempfile::tempdir().unwrap();
    let mix = suite_report::Mix {
        tests: 6,
        failed: 1,
        error: 1,
        flaky: 1,
        skipped: 1,
    };
    let mut report = suite_report::report(evidence.path(), mix);
    report.tests.push(suite_report::page_check_test());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/report_merge");
    let kinds = [retrace_report::suite::ReportKind::Json];
    retrace_report::suite::write_reports(&report, &kinds, &dir).unwrap();
}
