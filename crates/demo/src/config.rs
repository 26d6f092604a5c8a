//! What a demo app instance is configured with: response latency, page layout, the one
//! account that can sign in, and the opt-in awkward parts (faults, late scripts, the content
//! site's variant). A `?parameter=` of a request overrides the app-wide value for that request
//! (see `page_options`).

use std::fmt;
use std::str::FromStr;

use rand::Rng;

use crate::faults::Faults;
use crate::site::Variant;

/// The demo account's user name.
pub const DEMO_USERNAME: &str = "demo";
/// The demo account's password. Public on purpose: it is shown on the login page.
pub const DEMO_PASSWORD: &str = "retrace-demo-pw";

/// How long the app takes to answer its deliberately slow requests (the login submit and the
/// "Generate report" action), so replays have something real to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Latency {
    /// Answer at once.
    #[default]
    None,
    /// Always wait this many milliseconds.
    Fixed(u64),
    /// Wait a uniformly random number of milliseconds in `min_ms..=max_ms`, drawn per request.
    Range {
        /// The shortest wait.
        min_ms: u64,
        /// The longest wait (inclusive).
        max_ms: u64,
    },
}

impl Latency {
    /// Draws the wait for one request, in milliseconds.
    pub fn sample_ms(&self) -> u64 {
        match *self {
            Latency::None => 0,
            Latency::Fixed(ms) => ms,
            Latency::Range { min_ms, max_ms } => rand::rng().random_range(min_ms..=max_ms),
        }
    }

    /// The shortest wait this latency can produce.
    pub fn min_ms(&self) -> u64 {
        match *self {
            Latency::None => 0,
            Latency::Fixed(ms) => ms,
            Latency::Range { min_ms, .. } => min_ms,
        }
    }

    /// The longest wait this latency can produce.
    pub fn max_ms(&self) -> u64 {
        match *self {
            Latency::None => 0,
            Latency::Fixed(ms) => ms,
            Latency::Range { max_ms, .. } => max_ms,
        }
    }
}

/// A latency given on the command line was not `MS` or `A..B`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid latency {value:?}: {reason}; expected milliseconds as `MS` (e.g. `250`) or a range \
     `A..B` with A <= B (e.g. `100..1500`)"
)]
pub struct LatencyParseError {
    /// The text that was given.
    pub value: String,
    /// What was wrong with it.
    pub reason: String,
}

impl FromStr for Latency {
    type Err = LatencyParseError;

    /// Parses `0`, `250` (fixed) or `100..1500` (random range, both ends inclusive; `..=` is
    /// accepted too).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason: &str| LatencyParseError {
            value: text.to_owned(),
            reason: reason.to_owned(),
        };
        let number = |part: &str, which: &str| -> Result<u64, LatencyParseError> {
            part.trim()
                .parse::<u64>()
                .map_err(|_| error(&format!("{which} {:?} is not a whole number", part.trim())))
        };
        match text.split_once("..") {
            None => match number(text, "the value")? {
                0 => Ok(Latency::None),
                ms => Ok(Latency::Fixed(ms)),
            },
            Some((low, high)) => {
                let high = high.strip_prefix('=').unwrap_or(high);
                let min_ms = number(low, "the lower bound")?;
                let max_ms = number(high, "the upper bound")?;
                if min_ms > max_ms {
                    return Err(error("the lower bound is above the upper bound"));
                }
                Ok(Latency::Range { min_ms, max_ms })
            }
        }
    }
}

impl fmt::Display for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Latency::None => write!(f, "0"),
            Latency::Fixed(ms) => write!(f, "{ms}"),
            Latency::Range { min_ms, max_ms } => write!(f, "{min_ms}..{max_ms}"),
        }
    }
}

/// Which version of the UI the app renders. See the crate docs for exactly what `V2` and
/// `Rename` change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// The layout recordings are made on.
    #[default]
    V1,
    /// The changed layout: the Sign in button moved; the report and New invoice buttons
    /// relabelled and recoloured.
    V2,
    /// `v1` with one change: the New invoice button reads "Add invoice" in the v1 style and
    /// keeps v1's width, so nothing moves.
    Rename,
}

impl Layout {
    /// The name used in `?layout=` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::V1 => "v1",
            Layout::V2 => "v2",
            Layout::Rename => "rename",
        }
    }
}

/// A layout name other than `v1`, `v2` or `rename`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown layout {0:?}; expected `v1`, `v2` or `rename`")]
pub struct LayoutParseError(pub String);

impl FromStr for Layout {
    type Err = LayoutParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "v1" | "1" => Ok(Layout::V1),
            "v2" | "2" => Ok(Layout::V2),
            "rename" => Ok(Layout::Rename),
            _ => Err(LayoutParseError(text.to_owned())),
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The account that may sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The user name typed into the login form.
    pub username: String,
    /// The password typed into the login form.
    pub password: String,
}

impl Default for Credentials {
    fn default() -> Self {
        Credentials {
            username: DEMO_USERNAME.to_owned(),
            password: DEMO_PASSWORD.to_owned(),
        }
    }
}

/// Everything a demo app instance is configured with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DemoConfig {
    /// Delay of the login submit and of the report action.
    pub latency: Latency,
    /// The layout served when a request does not ask for one with `?layout=`.
    pub layout: Layout,
    /// The one account that can sign in (default `demo` / `retrace-demo-pw`).
    pub credentials: Credentials,
    /// Controls that misbehave when a request does not ask with `?fault=` (default none).
    pub faults: Faults,
    /// Whether the New invoice modal has the "Mark as sent" checkbox when a request does not
    /// say with `?mark_sent=` (default no; the `mark-sent-ignores-clicks` fault adds it too).
    pub mark_sent: bool,
    /// `Some(ms)`: the login page's and the dashboard's scripts arrive late, inserted after the
    /// `load` event and answered `ms` later; `None` (default): inline. `?script_delay_ms=`
    /// overrides it.
    pub script_delay_ms: Option<u64>,
    /// The content site's variant (`/site/...`) when a request does not ask with `?variant=`
    /// (default the baseline).
    pub variant: Variant,
    /// Whether saved drafts are also stored on the server and every dashboard shows the latest
    /// in a "Recently saved" card (see `recent_drafts`; default no).
    pub recent_drafts: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_parses_fixed_ranges_and_zero() {
        assert_eq!("0".parse::<Latency>().unwrap(), Latency::None);
        assert_eq!("250".parse::<Latency>().unwrap(), Latency::Fixed(250));
        assert_eq!(
            "100..1500".parse::<Latency>().unwrap(),
            Latency::Range {
                min_ms: 100,
                max_ms: 1500
            }
        );
        assert_eq!(
            " 5..=7".parse::<Latency>().unwrap(),
            Latency::Range {
                min_ms: 5,
                max_ms: 7
            }
        );
    }

    #[test]
    fn latency_rejects_bad_text_naming_the_value() {
        let error = "1500..100".parse::<Latency>().unwrap_err();
        assert!(error.to_string().contains("\"1500..100\""), "{error}");
        assert!(
            error.to_string().contains("above the upper bound"),
            "{error}"
        );
        let error = "fast".parse::<Latency>().unwrap_err();
        assert!(error.to_string().contains("\"fast\""), "{error}");
        assert!("10..x".parse::<Latency>().is_err());
    }

    #[test]
    fn latency_display_round_trips() {
        for text in ["0", "250", "100..1500"] {
            assert_eq!(text.parse::<Latency>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn range_samples_stay_inside_and_vary() {
        let latency = Latency::Range {
            min_ms: 10,
            max_ms: 20,
        };
        let samples: Vec<u64> = (0..500).map(|_| latency.sample_ms()).collect();
        assert!(samples.iter().all(|ms| (10..=20).contains(ms)));
        assert!(samples.iter().any(|&ms| ms != samples[0]), "never varied");
        assert_eq!(Latency::Fixed(42).sample_ms(), 42);
        assert_eq!(Latency::None.sample_ms(), 0);
    }

    #[test]
    fn layout_parses_names() {
        assert_eq!("v2".parse::<Layout>().unwrap(), Layout::V2);
        assert_eq!("V1".parse::<Layout>().unwrap(), Layout::V1);
        assert_eq!("rename".parse::<Layout>().unwrap(), Layout::Rename);
        for layout in [Layout::V1, Layout::V2, Layout::Rename] {
            assert_eq!(layout.as_str().parse::<Layout>().unwrap(), layout);
        }
        let error = "v3".parse::<Layout>().unwrap_err();
        assert!(error.to_string().contains("\"v3\""));
        assert!(error.to_string().contains("`rename`"));
    }
}
