//! The command that reruns one page's check, for its suite report (`rerun`, shown in the HTML,
//! JUnit and JSON reports): `retrace check` with the page, the viewport and every setting of
//! the spec that a flag can express and that differs from the default (the page's masks,
//! global and its own; its ready selector; thresholds; the judge; retries; time limits; the
//! browser), each argument shell-quoted so the line survives copy-paste into a POSIX shell.
//! It is built from the effective spec, not from the files it came from, so it still checks
//! the same thing after a spec file changed. Settings no flag can express are named in a
//! trailing `# ...` comment, so a rerun never silently checks something else.

use crate::judge_options::JudgeOptions;
use crate::judge_options::JudgeWhen;
use crate::spec::CaptureOptions;
use crate::spec::CheckSpec;
use crate::spec::Retry;
use crate::spec::Thresholds;
use crate::spec::Timeouts;
use crate::spec::Viewport;

/// `retrace check ...` reproducing the check of `path` at `viewport` under `spec`.
pub fn rerun_command(spec: &CheckSpec, path: &str, viewport: Viewport) -> String {
    let mut args: Vec<String> = vec!["retrace".into(), "check".into()];
    let mut flag = |name: &str, value: String| {
        args.push(name.to_owned());
        args.push(value);
    };
    flag("--baseline", spec.baseline.clone());
    flag("--candidate", spec.candidate.clone());
    flag("--page", path.to_owned());
    flag("--viewport", viewport.to_string());
    for mask in spec.masks_for(path) {
        flag("--mask", mask);
    }
    if let Some(selector) = spec.ready_selector_for(path) {
        flag("--ready-selector", selector.to_owned());
    }
    args.extend(threshold_flags(&spec.thresholds));
    let mut flag = |name: &str, value: String| {
        args.push(name.to_owned());
        args.push(value);
    };
    let retry = Retry::default();
    if spec.retry.retries != retry.retries {
        flag("--retries", spec.retry.retries.to_string());
    }
    if spec.retry.backoff_ms != retry.backoff_ms {
        let waits: Vec<String> = spec.retry.backoff_ms.iter().map(u64::to_string).collect();
        flag("--backoff-ms", waits.join(","));
    }
    let (limits, default_limits) = (&spec.timeouts, Timeouts::default());
    let one_limit =
        limits.navigation_ms == limits.readiness_ms && limits.readiness_ms == limits.stability_ms;
    if one_limit && limits.navigation_ms != default_limits.navigation_ms {
        flag("--timeout-ms", limits.navigation_ms.to_string());
    }
    if limits.model_ms != default_limits.model_ms {
        flag("--model-timeout-ms", limits.model_ms.to_string());
    }
    let judge = &spec.judge;
    let default_judge = JudgeOptions::default();
    if judge.when != JudgeWhen::Off {
        let when = match judge.when {
            JudgeWhen::Off => "off",
            JudgeWhen::Noise => "noise",
            JudgeWhen::Always => "always",
        };
        args.push(format!("--judge={when}"));
        if judge.min_confidence != default_judge.min_confidence {
            args.push("--min-confidence".into());
            args.push(judge.min_confidence.to_string());
        }
        if judge.ceiling_ratio != default_judge.ceiling_ratio {
            args.push("--judge-ceiling".into());
            args.push(judge.ceiling_ratio.to_string());
        }
        if let Some(context) = &judge.context {
            args.push("--context".into());
            args.push(context.clone());
        }
    }
    if !spec.capture.full_page {
        args.push("--viewport-only".into());
    }
    if spec.chromium != retrace_drive::chromium::default_executable() {
        args.push("--chromium".into());
        args.push(spec.chromium.display().to_string());
    }
    let login = &spec.login;
    let paths = [
        ("--login", &login.flow),
        ("--storage-state", &login.storage_state),
    ];
    for (name, file) in paths {
        if let Some(file) = file {
            args.push(name.into());
            args.push(file.display().to_string());
        }
    }
    if let Some(path) = login.start_path.as_ref().filter(|_| login.flow.is_some()) {
        args.push("--login-path".into());
        args.push(path.clone());
    }
    let mut line = args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
    // Already shell words: a secret is the variable it is read from, never its value.
    for words in &login.rerun_params {
        line.push(' ');
        line.push_str(words);
    }
    let unflagged = without_flags(spec, one_limit);
    if !unflagged.is_empty() {
        line.push_str(&format!(
            "  # also set, with no flag (a --spec file sets them): {}",
            unflagged.join(", ")
        ));
    }
    line
}

/// The flags of the thresholds that differ from the defaults.
fn threshold_flags(t: &Thresholds) -> Vec<String> {
    let default = Thresholds::default();
    let mut args = Vec::new();
    for (name, value, default) in [
        ("--threshold", t.pixel_threshold, default.pixel_threshold),
        ("--delta-e", t.delta_e, default.delta_e),
        ("--max-diff-ratio", t.max_diff_ratio, default.max_diff_ratio),
    ] {
        if value != default {
            args.extend([name.to_owned(), value.to_string()]);
        }
    }
    if t.max_diff_pixels != default.max_diff_pixels {
        args.extend([
            "--max-diff-pixels".to_owned(),
            t.max_diff_pixels.to_string(),
        ]);
    }
    args
}

/// `retrace check ...` reproducing a window check: its desktop flags and values as given
/// (`--display`, the apps, `--window`, `--flow`...), its thresholds that differ from the
/// defaults, then `params` (already shell words: a secret is the variable it is read from).
pub fn window_rerun_command(
    target: &[String],
    thresholds: &Thresholds,
    params: &[String],
) -> String {
    let mut args: Vec<String> = vec!["retrace".into(), "check".into()];
    args.extend(target.iter().cloned());
    args.extend(threshold_flags(thresholds));
    let mut words: Vec<String> = args.iter().map(|a| quote(a)).collect();
    words.extend(params.iter().cloned());
    words.join(" ")
}

/// The settings of `spec` that differ from the default and that no flag of `retrace check`
/// sets, as `field=value`.
fn without_flags(spec: &CheckSpec, one_limit: bool) -> Vec<String> {
    let mut found = Vec::new();
    let (t, default) = (&spec.thresholds, Thresholds::default());
    if t.include_aa != default.include_aa {
        found.push(format!("thresholds.include_aa={}", t.include_aa));
    }
    if t.merge_distance != default.merge_distance {
        found.push(format!("thresholds.merge_distance={}", t.merge_distance));
    }
    let (limits, default_limits) = (&spec.timeouts, Timeouts::default());
    let mut limit = |name: &str, value: u64, default: u64, flagged: bool| {
        if value != default && !flagged {
            found.push(format!("timeouts.{name}={value}"));
        }
    };
    for (name, value, default) in [
        (
            "navigation_ms",
            limits.navigation_ms,
            default_limits.navigation_ms,
        ),
        (
            "readiness_ms",
            limits.readiness_ms,
            default_limits.readiness_ms,
        ),
        (
            "stability_ms",
            limits.stability_ms,
            default_limits.stability_ms,
        ),
    ] {
        limit(name, value, default, one_limit);
    }
    for (name, value, default) in [
        (
            "network_idle_ms",
            limits.network_idle_ms,
            default_limits.network_idle_ms,
        ),
        ("page_ms", limits.page_ms, default_limits.page_ms),
        ("run_ms", limits.run_ms, default_limits.run_ms),
    ] {
        limit(name, value, default, false);
    }
    let capture = CaptureOptions::default();
    if spec.capture.max_shots != capture.max_shots {
        found.push(format!("capture.max_shots={}", spec.capture.max_shots));
    }
    found
}

/// `arg` as one word of a POSIX shell: as is when every character is plain, else in single
/// quotes (a single quote inside written `'\''`).
fn quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
#[path = "rerun_tests.rs"]
mod tests;
