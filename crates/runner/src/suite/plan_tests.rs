#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use super::*;
use crate::suite::config::FileSection;

fn demo_file(root: &Path, relative: &str) -> PathBuf {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, crate::demo::DEMO_RECORDING).unwrap();
    path
}

fn section(pattern: &str, url: Option<&str>, tags: &[&str]) -> FileSection {
    FileSection {
        pattern: pattern.into(),
        url: url.map(Into::into),
        size: None,
        threshold: None,
        wait: None,
        step_timeout: None,
        parameters: BTreeMap::new(),
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn settings_come_from_defaults_then_matching_sections_then_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let v1 = demo_file(root, "v1/a.json");
    let v2 = demo_file(root, "v2/b.json");
    let mut inputs = PlanInputs {
        root: root.to_owned(),
        ..PlanInputs::default()
    };
    inputs.suite.defaults.url = Some("http://app/".into());
    inputs.suite.defaults.threshold = Some(7);
    inputs.suite.files = vec![
        section("v2/*.json", Some("http://app/?layout=v2"), &["v2"]),
        section("**/*.json", None, &["all", "v2"]),
        section("v1/a.json", None, &["exact"]),
    ];
    inputs.flag_params = vec![
        ("username".into(), "demo".into()),
        ("password".into(), "pw".into()),
    ];
    let plan = inputs.plan(&v2, &no_env);
    assert_eq!(plan.id, "v2/b.json");
    assert_eq!(plan.url.as_deref(), Some("http://app/?layout=v2"));
    assert_eq!(plan.settings.threshold, 7);
    assert_eq!(plan.tags, ["v2", "all"]);
    assert_eq!(plan.problem, None);
    let plan = inputs.plan(&v1, &no_env);
    assert_eq!(plan.url.as_deref(), Some("http://app/"));
    assert_eq!(plan.tags, ["all", "v2", "exact"]);
    // RETRACE_*/flags beat every section.
    inputs.overrides.url = Some("http://flag/".into());
    inputs.overrides.threshold = Some(3);
    let plan = inputs.plan(&v2, &no_env);
    assert_eq!(plan.url.as_deref(), Some("http://flag/"));
    assert_eq!(plan.settings.threshold, 3);
}

#[test]
fn parameters_come_from_file_then_params_file_then_environment_then_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo_file(dir.path(), "a.json");
    let mut inputs = PlanInputs {
        root: dir.path().to_owned(),
        ..PlanInputs::default()
    };
    inputs.suite.defaults.url = Some("http://app/".into());
    inputs.suite.parameters.insert(
        "username".into(),
        ParameterSource::Value("from-file".into()),
    );
    inputs.suite.parameters.insert(
        "password".into(),
        ParameterSource::Env {
            env: "DEMO_PW".into(),
        },
    );
    let env = |name: &str| (name == "DEMO_PW").then(|| "from-env-var".to_owned());
    let value = |plan: &TestPlan, name: &str| {
        plan.parameters
            .pairs()
            .find(|(given, _)| *given == name)
            .map(|(_, value)| value.to_owned())
    };
    let plan = inputs.plan(&file, &env);
    assert_eq!(value(&plan, "username").as_deref(), Some("from-file"));
    assert_eq!(value(&plan, "password").as_deref(), Some("from-env-var"));
    assert!(plan.parameters.is_secret("password"));
    // Where each value came from, for a rerun command that never spells a secret out.
    assert_eq!(
        plan.parameter_vars.get("password").map(String::as_str),
        Some("DEMO_PW")
    );
    assert_eq!(plan.parameter_vars.get("username"), None);
    inputs
        .params_file
        .insert("username".into(), "from-params-file".into());
    assert_eq!(
        value(&inputs.plan(&file, &env), "username").as_deref(),
        Some("from-params-file")
    );
    let env = |name: &str| (name == "RETRACE_PARAM_USERNAME").then(|| "from-env".to_owned());
    let plan = inputs.plan(&file, &env);
    assert_eq!(value(&plan, "username").as_deref(), Some("from-env"));
    // DEMO_PW is not set in this environment: password has no value.
    let problem = plan.problem.unwrap();
    assert!(
        problem.contains("password") && !problem.contains("username"),
        "{problem}"
    );
    inputs.flag_params = vec![
        ("username".into(), "from-flag".into()),
        ("password".into(), "pw".into()),
    ];
    let plan = inputs.plan(&file, &env);
    assert_eq!(value(&plan, "username").as_deref(), Some("from-flag"));
    assert_eq!(plan.problem, None);
    assert!(plan.parameter_vars.is_empty(), "{:?}", plan.parameter_vars);
}

#[test]
fn a_test_with_no_url_cannot_run_and_says_how_to_give_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = demo_file(dir.path(), "a.json");
    let inputs = PlanInputs {
        root: dir.path().to_owned(),
        flag_params: vec![
            ("username".into(), "demo".into()),
            ("password".into(), "pw".into()),
        ],
        ..PlanInputs::default()
    };
    let problem = inputs.plan(&file, &no_env).problem.unwrap();
    assert!(
        problem.contains("no url") && problem.contains("--url"),
        "{problem}"
    );
}

/// A file that does not parse, or that replay refuses, is planned as a test that cannot run,
/// its reason naming the line and column or the step and field (the report puts the file in
/// front), so no browser starts for it.
#[test]
fn a_file_that_does_not_parse_or_is_refused_cannot_run_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut inputs = PlanInputs {
        root: root.to_owned(),
        ..PlanInputs::default()
    };
    inputs.suite.defaults.url = Some("http://app/".into());
    inputs.flag_params = vec![
        ("username".into(), "u".into()),
        ("password".into(), "p".into()),
    ];
    let good = demo_file(root, "good.json");
    assert_eq!(inputs.plan(&good, &no_env).problem, None);
    let truncated = root.join("truncated.json");
    let text = crate::demo::DEMO_RECORDING;
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let problem = inputs.plan(&truncated, &no_env).problem.unwrap();
    assert!(
        problem.starts_with("invalid JSON at line ") && problem.contains("truncated?"),
        "{problem}"
    );
    let refused = root.join("refused.json");
    std::fs::write(&refused, text.replace("\"mouse_move\"", "\"teleport\"")).unwrap();
    let problem = inputs.plan(&refused, &no_env).problem.unwrap();
    assert!(
        problem.starts_with("step 13: trajectory[12].input.action: unknown action `teleport`"),
        "{problem}"
    );
}

#[test]
fn a_bad_section_is_the_problem_of_the_tests_it_matches_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let v1 = demo_file(root, "v1/a.json");
    let v2 = demo_file(root, "v2/b.json");
    let mut inputs = PlanInputs {
        root: root.to_owned(),
        ..PlanInputs::default()
    };
    inputs.suite.defaults.url = Some("http://app/".into());
    inputs.suite.bad_sections = vec![crate::suite::bad_section::BadSection {
        pattern: "v2/*.json".into(),
        problem: "retrace.toml: files[0].wait = \"soon\": unknown wait mode".into(),
    }];
    inputs.flag_params = vec![
        ("username".into(), "demo".into()),
        ("password".into(), "pw".into()),
    ];
    assert_eq!(inputs.plan(&v1, &no_env).problem, None);
    assert_eq!(
        inputs.plan(&v2, &no_env).problem.as_deref(),
        Some("retrace.toml: files[0].wait = \"soon\": unknown wait mode")
    );
}
