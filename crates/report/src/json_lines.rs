//! [`JsonLinesSink`]: every event as one JSON object per line, the machine-readable log of a
//! run, with secrets scrubbed value by value so every line stays valid JSON.

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;

use retrace_files::AtomicLog;
use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;

use crate::secrets::Secrets;

/// Writes one JSON object per event to a file.
#[derive(Debug)]
pub struct JsonLinesSink {
    file: Mutex<AtomicLog>,
    secrets: Secrets,
}

impl JsonLinesSink {
    /// Starts the log file at `path`, which replaces any earlier log there once its first line
    /// is whole ([`AtomicLog`]); every line is scrubbed of `secrets`.
    pub fn create(path: &Path, secrets: Secrets) -> std::io::Result<Arc<Self>> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let file = AtomicLog::create(path)?;
        Ok(Arc::new(Self {
            file: Mutex::new(file),
            secrets,
        }))
    }
}

impl EventSink for JsonLinesSink {
    fn emit(&self, event: &Event) {
        let Ok(mut value) = serde_json::to_value(event) else {
            return;
        };
        self.secrets.scrub_json(&mut value);
        let Ok(mut file) = self.file.lock() else {
            return;
        };
        // A log write that fails must not stop the run; the run's result is unaffected.
        let _ = file.write_line(&value.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses_and_holds_no_secret() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("events.jsonl");
        let sink = JsonLinesSink::create(&path, Secrets::new(["hunter2", "1"])).unwrap();
        sink.emit(&Event::StructuredDecision {
            turn: 1,
            attempt: 1,
            decision: "PROCEED".into(),
            command: Some("INPUT_TEXT".into()),
            message: "typing hunter2 into #password".into(),
        });
        sink.emit(&Event::ScreenSettled {
            step: 1,
            settled: true,
            waited_ms: 11,
        });
        let log = std::fs::read_to_string(&path).unwrap();
        assert!(!log.contains("hunter2"), "{log}");
        for line in log.lines() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(value.get("type").is_some(), "{line}");
        }
        assert!(log.contains("typing <redacted> into #password"), "{log}");
        assert!(log.contains(r#""step":1"#), "{log}");
        assert!(log.contains(r#""waited_ms":11"#), "{log}");
    }
}
