//! The readers under test, each as retrace reads the user's file: from a file on disk,
//! through every step a command takes before it acts on what it read.

use std::error::Error;
use std::path::Path;

use retrace_cache::DEFAULT_MAX_FILE_SIZE;
use retrace_cache::ParameterValues;
use retrace_replay::ReplayRequest;
use retrace_replay::plan::Plan;
use retrace_report::suite::ReportKind;

use crate::harness::Form;
use crate::harness::Reading;
use crate::harness::Target;

/// An error with its causes, as the console prints it.
fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// A trajectory in any format, as `cache check`, `cache export --format askui` and
/// `replay` (its plan, with a value for every parameter) read it.
fn trajectory(path: &Path) -> Reading {
    let file = retrace_cache::read_cache_file(path, DEFAULT_MAX_FILE_SIZE)
        .map_err(|error| chain(&error))?;
    let problems = retrace_cache::check(&file);
    let export = retrace_cache::export_askui(&file).map(|export| {
        retrace_cache::to_askui_json(&export.file.to_json(), 2).map(|text| text.len())
    });
    let mut values = ParameterValues::new();
    for name in retrace_cache::params::parameters_in_trajectory(&file.trajectory) {
        values.insert(name, "value");
    }
    let request = ReplayRequest::new(path).with_parameters(values);
    let plan = Plan::from_file(&request, &file).map_err(|error| chain(&error))?;
    Ok(format!(
        "{:?} {problems:?} {export:?} {}",
        file.trajectory,
        plan.steps.len()
    ))
}

fn pages(path: &Path) -> Reading {
    retrace_check::load_pages(path)
        .map(|pages| format!("{pages:?}"))
        .map_err(|error| chain(&error))
}

/// A `retrace check --spec` file, laid over the defaults and validated.
fn check_spec(path: &Path) -> Reading {
    retrace_check::load_spec(path)
        .map(|spec| format!("{spec:?}"))
        .map_err(|error| chain(&error))
}

fn suite_file(path: &Path) -> Reading {
    retrace_runner::suite::config::SuiteFile::load(path)
        .map(|file| format!("{file:?}"))
        .map_err(|error| chain(&error))
}

fn params_file(path: &Path) -> Reading {
    let is_secret = retrace_report::secrets::is_secret_name;
    retrace_runner::suite::config::load_params_file(path, is_secret)
        .map(|values| format!("{values:?}"))
        .map_err(|error| chain(&error))
}

/// A stored baseline's `fingerprint.json`, as `retrace check --baseline-dir` reads it.
fn baseline(path: &Path) -> Reading {
    let dir = path.parent().unwrap_or(Path::new("."));
    retrace_check::load_fingerprint(dir).map(|fingerprint| format!("{fingerprint:?}"))
}

/// A stored shot's elements or accessibility tree (`index@1280x800.elements.json`,
/// `...accessibility.json`), read with the shot as `retrace check --baseline-dir` reads it.
fn baseline_shot(path: &Path) -> Reading {
    let dir = path.parent().unwrap_or(Path::new("."));
    let viewport = retrace_check::Viewport {
        width: 1280,
        height: 800,
    };
    let png = retrace_vision::encode_png_rgba(2, 2, &[255; 16]).map_err(|e| e.to_string())?;
    std::fs::write(retrace_check::shot_path(dir, "/", viewport), png).map_err(|e| e.to_string())?;
    retrace_check::stored_capture(dir, "/", viewport)
        .map(|capture| format!("{:?} {:?}", capture.elements, capture.accessibility))
}

/// A report `retrace report merge` reads, merged and written as every report kind.
fn report_merge(path: &Path) -> Reading {
    let out = tempfile::tempdir().map_err(|error| error.to_string())?;
    let merged = retrace_report::suite::merge_dirs(&[path.to_path_buf()], out.path())
        .map_err(|error| chain(&error))?;
    retrace_report::suite::write_reports(&merged, &ReportKind::ALL, out.path())
        .map_err(|error| format!("{}: {}", path.display(), chain(&error)))?;
    Ok(format!("{merged:?}"))
}

pub const TRAJECTORY: Target = Target {
    name: "trajectory",
    form: Form::Json,
    cases: 1500,
    file_name: "trajectory.json",
    read: trajectory,
};

pub const PAGES_JSON: Target = Target {
    name: "pages_json",
    form: Form::Json,
    cases: 1500,
    file_name: "pages.json",
    read: pages,
};

pub const PAGES_TOML: Target = Target {
    name: "pages_toml",
    form: Form::Toml,
    cases: 1500,
    file_name: "pages.toml",
    read: pages,
};

pub const CHECK_SPEC: Target = Target {
    name: "check_spec",
    form: Form::Json,
    cases: 1000,
    file_name: "spec.json",
    read: check_spec,
};

pub const SUITE_TOML: Target = Target {
    name: "suite_toml",
    form: Form::Toml,
    cases: 1500,
    file_name: "retrace.toml",
    read: suite_file,
};

pub const PARAMS_TOML: Target = Target {
    name: "params_toml",
    form: Form::Toml,
    cases: 1500,
    file_name: "params.toml",
    read: params_file,
};

pub const BASELINE: Target = Target {
    name: "baseline",
    form: Form::Json,
    cases: 1500,
    file_name: "fingerprint.json",
    read: baseline,
};

pub const BASELINE_ELEMENTS: Target = Target {
    name: "baseline_elements",
    form: Form::Json,
    cases: 1000,
    file_name: "index@1280x800.elements.json",
    read: baseline_shot,
};

pub const BASELINE_ACCESSIBILITY: Target = Target {
    name: "baseline_accessibility",
    form: Form::Json,
    cases: 1000,
    file_name: "index@1280x800.accessibility.json",
    read: baseline_shot,
};

pub const REPORT_MERGE: Target = Target {
    name: "report_merge",
    form: Form::Json,
    cases: 800,
    file_name: "report.json",
    read: report_merge,
};

/// Every target, in the order `cargo test` lists them.
pub const ALL: [&Target; 10] = [
    &TRAJECTORY,
    &PAGES_JSON,
    &PAGES_TOML,
    &CHECK_SPEC,
    &SUITE_TOML,
    &PARAMS_TOML,
    &BASELINE,
    &BASELINE_ELEMENTS,
    &BASELINE_ACCESSIBILITY,
    &REPORT_MERGE,
];
