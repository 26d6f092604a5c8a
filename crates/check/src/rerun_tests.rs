//! Unit tests of `rerun`: the command is read back by a real bash, word for word.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// The words bash passes to `retrace` when it runs `line` (a function stands in for it).
fn words_bash_sees(line: &str) -> Vec<String> {
    let script = format!("retrace() {{ printf '%s\\0' \"$@\"; }}\n{line}");
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(output.status.success(), "{line}: {output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_owned)
        .collect()
}

fn spec() -> CheckSpec {
    CheckSpec {
        baseline: "http://127.0.0.1:8080/".to_owned(),
        candidate: "http://127.0.0.1:8082/".to_owned(),
        ..CheckSpec::default()
    }
}

const VIEWPORT: Viewport = Viewport {
    width: 800,
    height: 600,
};

#[test]
fn the_default_check_reruns_with_the_page_and_viewport_only() {
    let line = rerun_command(&spec(), "/site/pricing", VIEWPORT);
    assert_eq!(
        line,
        "retrace check --baseline http://127.0.0.1:8080/ --candidate http://127.0.0.1:8082/ \
         --page /site/pricing --viewport 800x600"
    );
}

#[test]
fn masks_selector_thresholds_and_judge_survive_a_shell_word_for_word() {
    let mut spec = spec();
    spec.capture.masks = vec![
        ".ad [data-x=\"1\"]".to_owned(),
        "#it's $HOME `x`".to_owned(),
    ];
    spec.capture
        .page_masks
        .insert("/a b".to_owned(), vec!["#own > p".to_owned()]);
    spec.capture
        .page_masks
        .insert("/other".to_owned(), vec!["#not-this-page".to_owned()]);
    spec.capture.ready_selector = Some("#chart[data-ready]".to_owned());
    spec.thresholds.pixel_threshold = 0.2;
    spec.thresholds.max_diff_pixels = 7;
    spec.retry = Retry {
        retries: 1,
        backoff_ms: vec![100, 200],
    };
    spec.timeouts.navigation_ms = 5_000;
    spec.timeouts.readiness_ms = 5_000;
    spec.timeouts.stability_ms = 5_000;
    spec.judge.when = JudgeWhen::Always;
    spec.judge.context = Some("icons.css:12 & more".to_owned());
    spec.capture.full_page = false;

    let line = rerun_command(&spec, "/a b", VIEWPORT);
    let expected = [
        "check",
        "--baseline",
        "http://127.0.0.1:8080/",
        "--candidate",
        "http://127.0.0.1:8082/",
        "--page",
        "/a b",
        "--viewport",
        "800x600",
        "--mask",
        ".ad [data-x=\"1\"]",
        "--mask",
        "#it's $HOME `x`",
        "--mask",
        "#own > p",
        "--ready-selector",
        "#chart[data-ready]",
        "--threshold",
        "0.2",
        "--max-diff-pixels",
        "7",
        "--retries",
        "1",
        "--backoff-ms",
        "100,200",
        "--timeout-ms",
        "5000",
        "--judge=always",
        "--context",
        "icons.css:12 & more",
        "--viewport-only",
    ];
    assert_eq!(words_bash_sees(&line), expected, "{line}");
}

#[test]
fn settings_no_flag_sets_are_named_in_a_comment_the_shell_ignores() {
    let mut spec = spec();
    spec.thresholds.include_aa = true;
    spec.timeouts.page_ms = 3_000;
    spec.timeouts.readiness_ms = 1_500;
    let line = rerun_command(&spec, "/", VIEWPORT);
    assert!(
        line.ends_with(
            "# also set, with no flag (a --spec file sets them): thresholds.include_aa=true, \
             timeouts.readiness_ms=1500, timeouts.page_ms=3000"
        ),
        "{line}"
    );
    assert_eq!(words_bash_sees(&line).last().unwrap(), "800x600", "{line}");
}

#[test]
fn a_pages_own_ready_selector_is_the_one_its_rerun_waits_for() {
    let mut spec = spec();
    spec.capture.ready_selector = Some("main".to_owned());
    spec.capture
        .page_ready_selectors
        .insert("/late".to_owned(), "#chart[data-ready]".to_owned());
    let late = words_bash_sees(&rerun_command(&spec, "/late", VIEWPORT));
    let other = words_bash_sees(&rerun_command(&spec, "/other", VIEWPORT));
    assert_eq!(
        late[late.len() - 2..],
        ["--ready-selector", "#chart[data-ready]"]
    );
    assert_eq!(other[other.len() - 2..], ["--ready-selector", "main"]);
}

#[test]
fn a_login_reruns_with_its_flow_and_parameters_and_no_secret_value() {
    let mut spec = spec();
    spec.login.flow = Some("flows/login.json".into());
    spec.login.start_path = Some("/login".into());
    spec.login.rerun_params = vec![
        "--param username=demo".to_owned(),
        "--param \"password=$RETRACE_PARAM_PASSWORD\"".to_owned(),
    ];
    let line = rerun_command(&spec, "/dashboard", VIEWPORT);
    assert!(!line.contains("hunter2"));
    let script = format!("RETRACE_PARAM_PASSWORD=hunter2; {line}");
    let words = words_bash_sees(&script);
    let after = |flag: &str| {
        let at = words.iter().position(|w| w == flag).unwrap();
        words[at + 1].clone()
    };
    assert_eq!(after("--login"), "flows/login.json");
    assert_eq!(after("--login-path"), "/login");
    assert!(words.contains(&"password=hunter2".to_owned()), "{words:?}");
    assert!(words.contains(&"username=demo".to_owned()), "{words:?}");
}
