//! `[timeouts]` in `retrace.toml`: one set of time limits, in seconds, that every part of a
//! run reads, so a slow environment is described once: replay's wait for one step's screen
//! (`step`, what `[defaults] step_timeout` also sets) and `retrace check`'s page load
//! (`navigation`), readiness (`readiness`), stillness (`stability`), model judge (`model`),
//! whole page (`page`) and whole check (`run`).
//!
//! ```toml
//! [timeouts]
//! navigation = 30
//! readiness = 30
//! stability = 30
//! step = 10
//! model = 120
//! page = 600
//! run = 3600
//! ```

use serde::Deserialize;
use serde::Serialize;

/// The time limits a suite file sets, in seconds; a missing one keeps each part's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteTimeouts {
    /// A page's load event (`retrace check`).
    pub navigation: Option<f64>,
    /// Network quiet, fonts and images after the load event (`retrace check`).
    pub readiness: Option<f64>,
    /// Screenshots until two in a row are identical (`retrace check`).
    pub stability: Option<f64>,
    /// The longest wait for one step's screen (replay: `retrace run`, `retrace replay`).
    pub step: Option<f64>,
    /// One answer of a model (`retrace check`'s judge).
    pub model: Option<f64>,
    /// A whole page at one viewport, every attempt included (`retrace check`).
    pub page: Option<f64>,
    /// A whole check (`retrace check`).
    pub run: Option<f64>,
}

impl SuiteTimeouts {
    /// Each limit that is set, by its name in the file.
    pub fn named(&self) -> [(&'static str, Option<f64>); 7] {
        [
            ("navigation", self.navigation),
            ("readiness", self.readiness),
            ("stability", self.stability),
            ("step", self.step),
            ("model", self.model),
            ("page", self.page),
            ("run", self.run),
        ]
    }

    /// Checks every limit is a positive number of seconds (at most a week), naming the first
    /// one that is not as `timeouts.NAME`.
    pub fn check(&self) -> Result<(), String> {
        const WEEK: f64 = 7.0 * 24.0 * 3600.0;
        for (name, seconds) in self.named() {
            if let Some(seconds) = seconds
                && !(seconds.is_finite() && seconds > 0.0 && seconds <= WEEK)
            {
                return Err(format!(
                    "timeouts.{name}: {seconds} is not a positive number of seconds (at most a \
                     week)"
                ));
            }
        }
        Ok(())
    }

    /// A limit in whole milliseconds (rounded up, so a limit is never shortened to zero).
    pub fn millis(seconds: f64) -> u64 {
        (seconds * 1000.0).ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_that_are_not_positive_seconds_are_refused_by_name() {
        let good = SuiteTimeouts {
            navigation: Some(0.5),
            run: Some(3600.0),
            ..SuiteTimeouts::default()
        };
        assert_eq!(good.check(), Ok(()));
        for (bad, name) in [
            (
                SuiteTimeouts {
                    page: Some(0.0),
                    ..SuiteTimeouts::default()
                },
                "timeouts.page: 0 ",
            ),
            (
                SuiteTimeouts {
                    model: Some(f64::NAN),
                    ..SuiteTimeouts::default()
                },
                "timeouts.model: NaN ",
            ),
            (
                SuiteTimeouts {
                    step: Some(1e9),
                    ..SuiteTimeouts::default()
                },
                "timeouts.step: 1000000000 ",
            ),
        ] {
            let error = bad.check().unwrap_err();
            assert!(error.starts_with(name), "{error}");
        }
        assert_eq!(SuiteTimeouts::millis(0.0005), 1);
        assert_eq!(SuiteTimeouts::millis(2.5), 2500);
    }
}
