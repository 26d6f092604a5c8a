#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use super::*;

fn suite_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(SUITE_FILE);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_suite_file_reads_defaults_parameters_and_sections() {
    let (_dir, path) = suite_file(
        r#"
secrets = ["pin"]
[defaults]
url = "http://127.0.0.1:1/"
size = "800x600"
jobs = 3
retries = 2
[parameters]
username = "demo"
password = { env = "DEMO_PW" }
[[files]]
match = "v2/*.json"
url = "http://127.0.0.1:1/?layout=v2"
tags = ["v2"]
"#,
    );
    let file = SuiteFile::load(&path).unwrap();
    assert_eq!(file.defaults.jobs, Some(3));
    assert_eq!(file.defaults.settings().parsed_size(), Ok(Some((800, 600))));
    assert_eq!(
        file.parameters["password"],
        ParameterSource::Env {
            env: "DEMO_PW".into()
        }
    );
    assert_eq!(file.files[0].tags, ["v2"]);
    assert!(file.is_secret("pin") && file.is_secret("password") && !file.is_secret("username"));
}

#[test]
fn bad_suite_files_are_errors_naming_the_file_and_the_field() {
    let cases = [
        ("[defaults]\njobs = \"many\"\n", "defaults.jobs"),
        ("[defaults]\nsize = \"big\"\n", "defaults.size"),
        // A section whose pattern cannot be read applies to tests nobody can tell.
        ("[[files]]\nwait = \"soon\"\n", "files[0].match"),
        ("[[files]]\nmatch = \"a/[*.json\"\n", "files[0].match"),
        ("[defaults]\nurll = \"x\"\n", "urll"),
        (
            "[parameters]\npassword = \"hunter2\"\n",
            "parameters.password",
        ),
        (
            "[[files]]\nmatch = \"*.json\"\nparameters = { api_token = \"t\" }\n",
            "files[0].parameters.api_token",
        ),
        (
            "secrets = [\"pin\"]\n[parameters]\npin = \"1234\"\n",
            "parameters.pin",
        ),
        ("[timeouts]\npage = -1\n", "timeouts.page"),
        ("[timeouts]\nnavigaton = 3\n", "navigaton"),
        (
            "[defaults]\nstep_timeout = 5.0\n[timeouts]\nstep = 8\n",
            "timeouts.step",
        ),
    ];
    for (text, field) in cases {
        let (_dir, path) = suite_file(text);
        let error = SuiteFile::load(&path).unwrap_err().to_string();
        assert!(
            error.contains(&path.display().to_string()),
            "{text}: {error}"
        );
        assert!(error.contains(field), "{text}: {error}");
        assert!(!error.contains("hunter2"), "a secret leaked: {error}");
    }
}

/// A bad top-level setting stops the suite, named with its value, line and column.
#[test]
fn a_bad_top_level_setting_names_its_value_line_and_column() {
    let cases = [
        (
            "[defaults]\nurl = \"http://app/\"\nthreshold = \"ten\"\n",
            "defaults.threshold (line 3, column 13): invalid type: string \"ten\", expected u32",
        ),
        (
            "[defaults]\nwait = \"soon\"\n",
            "defaults.wait = \"soon\" (line 2, column 8): unknown wait mode `soon`",
        ),
        (
            "[timeouts]\n\npage = -1\n",
            "timeouts.page = -1 (line 3, column 8): ",
        ),
        ("[defaults\n", "line 1, column 10: "),
    ];
    for (text, expected) in cases {
        let (_dir, path) = suite_file(text);
        let error = SuiteFile::load(&path).unwrap_err().to_string();
        let named = format!("{}: {expected}", path.display());
        assert!(error.starts_with(&named), "{text}\n{error}\nlacks\n{named}");
    }
}

/// A bad `[[files]]` section does not stop the suite: it is kept with its pattern and a
/// problem naming the file, the section, the field, the value and its line and column; the
/// good sections are read as ever.
#[test]
fn a_bad_files_section_is_kept_apart_and_named() {
    let (_dir, path) = suite_file(
        r#"[defaults]
url = "http://127.0.0.1:1/"

[[files]]
match = "a/*.json"
tags = ["a"]

[[files]]
match = "b/*.json"
wait = "soon"

[[files]]
match = "c.json"
threshold = "ten"

[[files]]
match = "d.json"
colour = "red"
"#,
    );
    let file = SuiteFile::load(&path).unwrap();
    let good: Vec<&str> = file.files.iter().map(|s| s.pattern.as_str()).collect();
    assert_eq!(good, ["a/*.json"]);
    let shown = path.display();
    let expected = [
        (
            "b/*.json",
            format!(
                "{shown}: files[1].wait = \"soon\" (line 10, column 8, in the section matching \
                 \"b/*.json\"): unknown wait mode `soon`"
            ),
        ),
        (
            "c.json",
            format!(
                "{shown}: files[2].threshold = \"ten\" (line 14, column 13, in the section \
                 matching \"c.json\"): invalid type: string \"ten\", expected u32"
            ),
        ),
        (
            "d.json",
            format!(
                "{shown}: files[3].colour = \"red\" (line 18, column 10, in the section \
                 matching \"d.json\"): unknown field `colour`"
            ),
        ),
    ];
    assert_eq!(
        file.bad_sections.len(),
        expected.len(),
        "{:#?}",
        file.bad_sections
    );
    for (bad, (pattern, start)) in file.bad_sections.iter().zip(expected) {
        assert_eq!(bad.pattern, pattern);
        assert!(
            bad.problem.starts_with(&start),
            "{}\nlacks\n{start}",
            bad.problem
        );
    }
}

#[test]
fn a_params_file_gives_values_but_never_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("params.toml");
    std::fs::write(&path, "username = \"demo\"\n").unwrap();
    let values = load_params_file(&path, |name| name == "password").unwrap();
    assert_eq!(values["username"], "demo");
    std::fs::write(&path, "password = \"hunter2\"\n").unwrap();
    let error = load_params_file(&path, |name| name == "password")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("password") && !error.contains("hunter2"),
        "{error}"
    );
    let error = load_params_file(Path::new("/nowhere/params.toml"), |_| false).unwrap_err();
    assert!(
        error.to_string().contains("/nowhere/params.toml"),
        "{error}"
    );
}

#[test]
fn flags_override_and_bad_flag_values_are_named() {
    let flags = Defaults {
        jobs: Some(4),
        url: Some("http://flag/".into()),
        ..Defaults::default()
    };
    let over = overrides(&flags).unwrap();
    let file = Defaults {
        jobs: Some(2),
        retries: Some(1),
        ..Defaults::default()
    };
    let merged = file.overridden_by(&over);
    assert_eq!(merged.jobs, Some(4));
    assert_eq!(merged.retries, Some(1));
    assert_eq!(merged.url.as_deref(), Some("http://flag/"));
    let bad = Defaults {
        wait: Some("whenever".into()),
        ..Defaults::default()
    };
    let error = overrides(&bad).unwrap_err().to_string();
    assert!(
        error.contains("wait") && error.contains("whenever"),
        "{error}"
    );
}

#[test]
fn timeouts_are_read_and_the_step_limit_is_the_replay_step_timeout() {
    let (_dir, path) = suite_file("[timeouts]\nstep = 7.5\nnavigation = 2\nrun = 60\n");
    let file = SuiteFile::load(&path).unwrap();
    assert_eq!(file.defaults.step_timeout, Some(7.5));
    assert_eq!(
        (
            file.timeouts.navigation,
            file.timeouts.run,
            file.timeouts.model
        ),
        (Some(2.0), Some(60.0), None)
    );
    // Written in both places, the same value is accepted.
    let (_dir, path) = suite_file("[defaults]\nstep_timeout = 4.0\n[timeouts]\nstep = 4\n");
    assert_eq!(
        SuiteFile::load(&path).unwrap().defaults.step_timeout,
        Some(4.0)
    );
}
