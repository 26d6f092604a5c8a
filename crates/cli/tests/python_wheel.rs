//! The Python wheel (`pyproject.toml`, `python/retrace_ui`), as a user without Rust gets it:
//! built with maturin from PyPI, installed into a fresh venv whose PATH holds no Rust
//! toolchain, then `retrace --version`, the Python API and `pytest --retrace` run there
//! against the demo app (a passing flow passes; on `v2` it fails with its step in pytest's
//! output and in `--junitxml`).
//!
//! A test binary of its own: maturin rebuilds the `retrace` binary in the same target folder,
//! which would pull it from under the tests of `tests/cli` if they ran beside this one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

use retrace_demo::DemoConfig;
use retrace_demo::Layout;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;

const MATURIN: &str = "maturin==1.16.0";
const PYTEST: &str = "pytest==9.2.0";
const FLOW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../runner/assets/demo_flow.json"
);
const PASSWORD: &str = "retrace-demo-pw";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The target folder this test's own `retrace` was built in, so maturin's build reuses it.
fn target_dir() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_retrace"));
    binary.ancestors().nth(2).unwrap().to_path_buf()
}

fn checked(mut command: Command, what: &str) -> Output {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({:?})\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Builds the wheel into `out`; returns its path.
fn build_wheel(maturin_python: &Path, out: &Path) -> PathBuf {
    let mut build = Command::new(maturin_python);
    build
        .args(["-m", "maturin", "build", "--out"])
        .arg(out)
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", target_dir());
    checked(build, "maturin build");
    let wheels: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "{wheels:?}");
    wheels[0].clone()
}

/// A PATH of the venv's `bin` and the system folders that hold no `cargo` or `rustc`.
fn path_without_rust(venv_bin: &Path) -> String {
    let system = std::env::var("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&system)
        .filter(|dir| !dir.join("cargo").exists() && !dir.join("rustc").exists());
    std::env::join_paths(std::iter::once(venv_bin.to_path_buf()).chain(kept))
        .unwrap()
        .into_string()
        .unwrap()
}

/// The Python API against the demo app: a pass, a failure at step 7 on v2, an error for a
/// missing file, and a check of a page against itself; printed as JSON.
const API_SCRIPT: &str = r#"
import json, sys
import retrace_ui
v1, v2, flow = sys.argv[1:4]
secrets = {"password": sys.argv[4]}
params = {"username": "demo"}
passed = retrace_ui.replay(flow, v1, params=params, secrets=secrets)
failed = retrace_ui.replay(flow, v2, params=params, secrets=secrets)
try:
    retrace_ui.replay("no-such-flow.json", v1)
    error = None
except retrace_ui.RetraceError as e:
    error = {"exit_code": e.exit_code, "message": e.message}
suite = retrace_ui.run([flow], url=v1, params=params, secrets=secrets)
checked = retrace_ui.check(v1, v1, pages=["/"])
print(json.dumps({
    "passed": [passed.passed, passed.status, passed.steps_total],
    "failed": [failed.passed, failed.failure.step, failed.failure.message],
    "error": error,
    "suite": [suite.passed, [t.status for t in suite.tests]],
    "check": checked.verdict,
}))
"#;

#[test]
fn the_wheel_installs_retrace_with_its_python_api_and_pytest_plugin() {
    retrace_test_support::require!(Chromium);
    let Some(maturin) = retrace_test_support::python::venv(&[MATURIN]) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let wheel = build_wheel(&maturin, &work.path().join("wheels"));

    // A fresh venv, with the wheel and pytest only.
    let venv = work.path().join("venv");
    let mut create = Command::new("python3");
    create.args(["-m", "venv"]).arg(&venv);
    checked(create, "python3 -m venv");
    let bin = venv.join("bin");
    let mut install = Command::new(bin.join("pip"));
    install
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(&wheel)
        .arg(PYTEST);
    checked(install, "pip install the wheel");
    let path = path_without_rust(&bin);
    let user = |program: &str| {
        let mut command = Command::new(bin.join(program));
        command
            .env_clear()
            .env("PATH", &path)
            .env("HOME", work.path())
            .current_dir(work.path());
        command
    };
    let mut no_cargo = Command::new("sh");
    no_cargo.args(["-c", "command -v cargo || command -v rustc || echo none"]);
    no_cargo.env_clear().env("PATH", &path);
    let found = checked(no_cargo, "look for cargo");
    assert_eq!(String::from_utf8_lossy(&found.stdout).trim(), "none");

    let mut version = user("retrace");
    version.arg("--version");
    let version = checked(version, "retrace --version");
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with("retrace "),
        "{version:?}"
    );

    let v1 = DemoThread::start(DemoConfig::default());
    let v2 = DemoThread::start(DemoConfig {
        layout: Layout::V2,
        ..DemoConfig::default()
    });
    let flows = work.path().join("flows");
    std::fs::create_dir(&flows).unwrap();
    std::fs::copy(FLOW, flows.join("sign_in_and_invoice.json")).unwrap();

    // The Python API.
    let mut api = user("python");
    api.args(["-c", API_SCRIPT, v1.url(), v2.url()])
        .arg(flows.join("sign_in_and_invoice.json"))
        .arg(PASSWORD);
    let api = checked(api, "the Python API");
    let results: Value = serde_json::from_slice(&api.stdout).unwrap();
    assert_eq!(results["passed"], serde_json::json!([true, "passed", 13]));
    assert_eq!(results["failed"][0], false, "{results}");
    assert_eq!(results["failed"][1], 7, "{results}");
    assert!(
        results["failed"][2]
            .as_str()
            .unwrap()
            .contains("expected button 'New invoice'"),
        "{results}"
    );
    assert_eq!(results["error"]["exit_code"], 2, "{results}");
    assert!(
        results["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-flow.json"),
        "{results}"
    );
    assert_eq!(results["suite"], serde_json::json!([true, ["passed"]]));
    assert_eq!(results["check"], "PASS");

    // pytest --retrace: a pass on v1, then the failure on v2 in pytest's output and JUnit.
    let pytest = |url: &str, junit: &Path| {
        let mut command = user("pytest");
        command
            .args(["--retrace", "flows", "--retrace-url", url])
            .args(["--retrace-param", "username=demo", "-p", "no:cacheprovider"])
            .arg(format!("--junitxml={}", junit.display()))
            .env("RETRACE_PARAM_PASSWORD", PASSWORD);
        command.output().unwrap()
    };
    let green = pytest(v1.url(), &work.path().join("green.xml"));
    let green_out = String::from_utf8_lossy(&green.stdout);
    assert_eq!(green.status.code(), Some(0), "{green_out}");
    assert!(green_out.contains("1 passed"), "{green_out}");

    let junit = work.path().join("red.xml");
    let red = pytest(v2.url(), &junit);
    let red_out = String::from_utf8_lossy(&red.stdout);
    assert_eq!(red.status.code(), Some(1), "{red_out}");
    assert!(red_out.contains("1 failed"), "{red_out}");
    assert!(red_out.contains("retrace: failed at step 7"), "{red_out}");
    assert!(
        red_out.contains("expected button 'New invoice'"),
        "{red_out}"
    );
    let report = std::fs::read_to_string(&junit).unwrap();
    assert!(report.contains("<failure"), "{report}");
    assert!(report.contains("step 7"), "{report}");
    for text in [&*green_out, &*red_out, &report] {
        assert!(!text.contains(PASSWORD), "the password leaked:\n{text}");
    }
}
