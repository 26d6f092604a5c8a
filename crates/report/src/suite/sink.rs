//! [`SuiteReportSink`]: a suite's report as the event stream carries it. It keeps every
//! `TestFinished` test and the `SuiteFinished` report, scrubbed of the run's secrets, and when
//! made [`SuiteReportSink::writing`] writes the reports as the suite finishes: the suite runner
//! emits its results and the reports leave the run through this sink, like every other result.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use retrace_protocol::events::SuiteReport;
use retrace_protocol::events::TestReport;
use retrace_protocol::events::Totals;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ReportError;
use super::ReportKind;
use super::write_reports;
use crate::secrets::Secrets;

/// Where and what to write when the suite finishes.
#[derive(Debug)]
struct Destination {
    kinds: Vec<ReportKind>,
    out_dir: PathBuf,
}

#[derive(Debug, Default)]
struct Collected {
    tests: Vec<TestReport>,
    finished: Option<SuiteReport>,
    written: Option<Result<Vec<PathBuf>, ReportError>>,
}

/// Collects a suite's report from the event stream (see the module doc).
#[derive(Debug)]
pub struct SuiteReportSink {
    secrets: Secrets,
    destination: Option<Destination>,
    collected: Mutex<Collected>,
}

impl SuiteReportSink {
    /// A sink that keeps the report for [`SuiteReportSink::report`].
    pub fn new(secrets: Secrets) -> Arc<Self> {
        Arc::new(Self {
            secrets,
            destination: None,
            collected: Mutex::new(Collected::default()),
        })
    }

    /// A sink that also writes `kinds` into `out_dir` when `SuiteFinished` arrives; the
    /// result is read with [`SuiteReportSink::take_written`].
    pub fn writing(
        secrets: Secrets,
        kinds: &[ReportKind],
        out_dir: impl Into<PathBuf>,
    ) -> Arc<Self> {
        Arc::new(Self {
            secrets,
            destination: Some(Destination {
                kinds: kinds.to_vec(),
                out_dir: out_dir.into(),
            }),
            collected: Mutex::new(Collected::default()),
        })
    }

    /// The tests finished so far, in the order they finished.
    pub fn tests(&self) -> Vec<TestReport> {
        self.collected
            .lock()
            .map(|collected| collected.tests.clone())
            .unwrap_or_default()
    }

    /// The suite's report, once `SuiteFinished` arrived.
    pub fn report(&self) -> Option<SuiteReport> {
        self.collected
            .lock()
            .ok()
            .and_then(|collected| collected.finished.clone())
    }

    /// The result of writing the reports (for a [`SuiteReportSink::writing`] sink, once the
    /// suite finished); taken, so a second call gives `None`.
    pub fn take_written(&self) -> Option<Result<Vec<PathBuf>, ReportError>> {
        self.collected
            .lock()
            .ok()
            .and_then(|mut collected| collected.written.take())
    }

    /// The suite's report: `finished`, with the tests this sink collected when it carries
    /// none (a runner may announce the suite's end without repeating every test), and the
    /// totals counted from the tests.
    fn complete(&self, finished: &SuiteReport, collected: &[TestReport]) -> SuiteReport {
        let mut report = finished.clone();
        if report.tests.is_empty() {
            report.tests = collected.to_vec();
        }
        report.totals = Totals::of(&report.tests);
        scrub_report(&mut report, &self.secrets);
        report
    }
}

impl EventSink for SuiteReportSink {
    fn emit(&self, event: &Event) {
        match event {
            Event::TestFinished(test) => {
                let mut test = (**test).clone();
                scrub_test(&mut test, &self.secrets);
                if let Ok(mut collected) = self.collected.lock() {
                    collected.tests.push(test);
                }
            }
            Event::SuiteFinished(finished) => {
                let Ok(mut collected) = self.collected.lock() else {
                    return;
                };
                let report = self.complete(finished, &collected.tests);
                if let Some(destination) = &self.destination {
                    collected.written = Some(write_reports(
                        &report,
                        &destination.kinds,
                        &destination.out_dir,
                    ));
                }
                collected.finished = Some(report);
            }
            _ => {}
        }
    }
}

/// `report` with every secret of `secrets` replaced in its strings (names, messages, commands,
/// paths). Reports are built from events the runner already redacted; this is the last line.
pub fn scrub_report(report: &mut SuiteReport, secrets: &Secrets) {
    report.name = secrets.scrub(&report.name).into_owned();
    report.started_at = secrets.scrub(&report.started_at).into_owned();
    for test in &mut report.tests {
        scrub_test(test, secrets);
    }
}

/// `test` with every secret replaced in its strings; should that ever fail, the test keeps
/// only its id (scrubbed), kind, status and time, and says its details were withheld.
pub fn scrub_test(test: &mut TestReport, secrets: &Secrets) {
    if scrub(test, secrets) {
        return;
    }
    *test = TestReport {
        id: secrets.scrub(&test.id).into_owned(),
        kind: test.kind,
        file: PathBuf::from(secrets.scrub(&test.file.to_string_lossy()).into_owned()),
        status: test.status,
        tags: Vec::new(),
        skip_reason: Some("details withheld: they could not be cleared of secrets".to_owned()),
        step: test.step,
        attempts: Vec::new(),
        steps: Vec::new(),
        check: None,
        artifacts: retrace_protocol::events::Artifacts::default(),
        rerun: String::new(),
        wall_ms: test.wall_ms,
    };
}

/// Fields whose values are a fixed vocabulary (statuses, kinds, phases, verdicts), never
/// user text: left as they are, so a secret that happens to be such a word (`pass`) cannot
/// turn `"passed"` into something the report types cannot read back.
const VOCABULARY_FIELDS: [&str; 6] = ["status", "kind", "phase", "verdict", "type", "severity"];

/// Scrubs any serde value through its JSON form: every string value loses its secrets,
/// except the [`VOCABULARY_FIELDS`]. Object keys are left alone: in the report types they are
/// field names and check names, never user text. Returns whether `value` is now free of
/// secrets.
fn scrub<T: Serialize + DeserializeOwned>(value: &mut T, secrets: &Secrets) -> bool {
    if secrets.is_empty() {
        return true;
    }
    let Ok(mut json) = serde_json::to_value(&*value) else {
        return false;
    };
    if !scrub_values(&mut json, secrets) {
        return true;
    }
    match serde_json::from_value(json) {
        Ok(scrubbed) => {
            *value = scrubbed;
            true
        }
        // Unreachable for the report types (only free-text strings changed).
        Err(_) => false,
    }
}

/// Scrubs the string values of `json` in place; returns whether any changed.
fn scrub_values(json: &mut serde_json::Value, secrets: &Secrets) -> bool {
    use serde_json::Value;
    match json {
        Value::String(text) => {
            let scrubbed = secrets.scrub(text);
            if scrubbed == text.as_str() {
                return false;
            }
            *text = scrubbed.into_owned();
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| scrub_values(item, secrets) | changed),
        Value::Object(fields) => fields
            .iter_mut()
            .filter(|(key, _)| !VOCABULARY_FIELDS.contains(&key.as_str()))
            .fold(false, |changed, (_, value)| {
                scrub_values(value, secrets) | changed
            }),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

#[cfg(test)]
#[path = "sink_tests.rs"]
mod tests;
