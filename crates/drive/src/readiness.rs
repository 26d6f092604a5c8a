//! Is a page ready to act on, and is anything still happening on it?
//!
//! A browser backend reports a [`PageActivity`] on each poll (cheap: counters kept from CDP
//! events plus one small page-side script): requests in flight, a navigation pending, the
//! document's load state and fonts, and whether what is rendered is still changing (running
//! animations and transitions, playing media, DOM mutations). [`Readiness::assess`] judges one
//! activity against [`ReadinessOptions`] and says, condition by condition, what held and what
//! did not; `BrowserBackend::wait_until_ready` polls until every required condition holds or the timeout
//! passes, and returns the last judgement either way (a timeout is a "not ready" report, not
//! an error), so a caller's failure message can name the condition that did not settle.
//!
//! Two uses, two presets:
//! - [`ReadinessOptions::ready_to_act`]: before acting, wait for the load event, fonts, a
//!   quiet network and no pending navigation (scripts that arrive after `load` keep a request
//!   in flight, so a half-loaded page is not acted on).
//! - [`ReadinessOptions::settled`]: when a step's screen does not match, "is anything still
//!   happening?": no request in flight, no navigation, nothing rendering differently for a
//!   while. A settled page will not change by itself, so the caller can fail at once instead
//!   of waiting out its timeout; a slow server keeps it waiting (a request is in flight).
//!
//! "Rendering" is seen from the DOM side: running CSS animations and transitions and Web
//! Animations (`document.getAnimations()`), playing `<video>`/`<audio>`, and DOM mutations
//! (attributes, style, text, nodes) through a `MutationObserver`. Pixels a script draws on a
//! `<canvas>` are not seen here; comparing successive screenshots (the vision crate's
//! stability check) covers those.

use std::time::Duration;

use serde::Serialize;

/// What a page is doing at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct PageActivity {
    /// Requests in flight (WebSockets, EventSource and `data:` URLs are not counted).
    pub requests_in_flight: usize,
    /// How long the request count has not changed (and no input was sent to the page).
    pub network_quiet_for: Duration,
    /// Whether a frame of the page is loading a document (a navigation is under way).
    pub navigation_pending: bool,
    /// How long since a frame last started or stopped loading.
    pub navigation_quiet_for: Duration,
    /// The document's own report, or why the page did not give one (its main thread is busy,
    /// the document was being replaced).
    pub document: Result<DocumentActivity, String>,
}

/// What the document says about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentActivity {
    /// `document.readyState`: `loading`, `interactive` or `complete`.
    pub ready_state: String,
    /// Whether every font the page uses has loaded (`document.fonts.status`).
    pub fonts_ready: bool,
    /// How many animations and transitions are running.
    pub animations_running: usize,
    /// A few of them, described (`spin on div#loader`).
    pub animations: Vec<String>,
    /// How many `<video>`/`<audio>` elements are playing.
    pub media_playing: usize,
    /// How long the DOM has not changed (counted from when observation began, at the
    /// document's start or at the first probe).
    pub dom_quiet_for: Duration,
    /// How many DOM mutations have been observed in this document so far: two polls with the
    /// same count saw no change in between (an action's effect, or its absence, without any
    /// timing).
    pub dom_mutations: u64,
    /// How long neither the DOM nor anything else the page's script sees paint differently
    /// (a scroll, a load, a focus move, a field's input, an animation starting) has changed:
    /// with no request, navigation, animation or media, and no [`Self::opaque_painters`], a
    /// screenshot taken longer ago than this still shows the page.
    pub render_quiet_for: Duration,
    /// Elements that can change the picture unseen by the DOM (`canvas`, `iframe`, `frame`,
    /// `embed`, `object`, `video`).
    pub opaque_painters: usize,
    /// How long ago the document started a navigation away from itself that it did not cancel
    /// (a form submitted, a link followed): the browser may not have begun loading it yet.
    pub leaving_for: Option<Duration>,
}

/// Which conditions to require, and how long to wait for them.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadinessOptions {
    /// Require `document.readyState == "complete"` (the load event has fired).
    pub load: bool,
    /// Require every font to have loaded.
    pub fonts: bool,
    /// Require no request in flight for this long.
    pub network_idle: Option<Duration>,
    /// Require that no frame is loading a document.
    pub no_navigation: bool,
    /// Require no running animation or playing media, and no DOM change for this long.
    pub rendering_quiet: Option<Duration>,
    /// How long `BrowserBackend::wait_until_ready` polls before it reports "not ready".
    pub timeout: Duration,
    /// The pause between polls.
    pub poll: Duration,
}

impl ReadinessOptions {
    /// Before acting: loaded, fonts ready, no request for 500 ms, no navigation; 30 s.
    pub fn ready_to_act() -> Self {
        Self {
            load: true,
            fonts: true,
            network_idle: Some(Duration::from_millis(500)),
            no_navigation: true,
            rendering_quiet: None,
            timeout: Duration::from_secs(30),
            poll: Duration::from_millis(50),
        }
    }

    /// Nothing happening for `quiet`: no request in flight, no navigation, nothing rendering
    /// differently; 30 s.
    pub fn settled(quiet: Duration) -> Self {
        Self {
            load: false,
            fonts: false,
            network_idle: Some(quiet),
            no_navigation: true,
            rendering_quiet: Some(quiet),
            timeout: Duration::from_secs(30),
            poll: Duration::from_millis(50),
        }
    }

    /// The same conditions with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Default for ReadinessOptions {
    fn default() -> Self {
        Self::ready_to_act()
    }
}

/// One condition of readiness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// The page answered the probe (always required).
    Responsive,
    /// The load event has fired.
    Loaded,
    /// Fonts have loaded.
    FontsReady,
    /// No request in flight for the required time.
    NetworkQuiet,
    /// No frame loading a document.
    NoNavigation,
    /// No animation, no media, no DOM change for the required time.
    RenderingSettled,
}

/// Whether one condition held, and the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConditionReport {
    /// Which condition.
    pub condition: Condition,
    /// Whether it held.
    pub held: bool,
    /// What was seen, e.g. `2 requests in flight`, `spin on div#loader running`.
    pub detail: String,
}

/// The judgement of a page's readiness: every required condition, held or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Readiness {
    /// Whether every condition held.
    pub ready: bool,
    /// How long `BrowserBackend::wait_until_ready` waited (0 for a single assessment).
    pub waited_ms: u64,
    /// Each required condition, in a fixed order.
    pub conditions: Vec<ConditionReport>,
}

impl Readiness {
    /// Judges one `activity` against the conditions `options` require.
    pub fn assess(activity: &PageActivity, options: &ReadinessOptions) -> Self {
        let mut conditions = Vec::new();
        let mut push = |condition, held, detail: String| {
            conditions.push(ConditionReport {
                condition,
                held,
                detail,
            });
        };
        match &activity.document {
            Ok(_) => push(Condition::Responsive, true, "the page answered".to_owned()),
            Err(why) => push(
                Condition::Responsive,
                false,
                format!("the page did not answer: {why}"),
            ),
        }
        let document = activity.document.as_ref().ok();
        if options.load {
            let state = document.map_or("unknown", |d| d.ready_state.as_str());
            push(
                Condition::Loaded,
                state == "complete",
                format!("document.readyState is {state}"),
            );
        }
        if options.fonts {
            let ready = document.is_some_and(|d| d.fonts_ready);
            let detail = if ready {
                "fonts loaded"
            } else {
                "fonts not loaded"
            };
            push(Condition::FontsReady, ready, detail.to_owned());
        }
        if let Some(idle) = options.network_idle {
            let (held, detail) = network(activity, idle);
            push(Condition::NetworkQuiet, held, detail);
        }
        if options.no_navigation {
            let detail = if activity.navigation_pending {
                "a navigation is pending".to_owned()
            } else {
                "no navigation pending".to_owned()
            };
            push(
                Condition::NoNavigation,
                !activity.navigation_pending,
                detail,
            );
        }
        if let Some(quiet) = options.rendering_quiet {
            let (held, detail) = match document {
                Some(document) => rendering(document, quiet),
                None => (false, "unknown: the page did not answer".to_owned()),
            };
            push(Condition::RenderingSettled, held, detail);
        }
        let ready = conditions.iter().all(|c| c.held);
        Self {
            ready,
            waited_ms: 0,
            conditions,
        }
    }

    /// The conditions that did not hold.
    pub fn unmet(&self) -> impl Iterator<Item = &ConditionReport> {
        self.conditions.iter().filter(|c| !c.held)
    }

    /// The report on `condition`, when it was required.
    pub fn condition(&self, condition: Condition) -> Option<&ConditionReport> {
        self.conditions.iter().find(|c| c.condition == condition)
    }
}

impl std::fmt::Display for Readiness {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |reports: Vec<&ConditionReport>| {
            reports
                .iter()
                .map(|c| c.detail.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        if self.ready {
            let held = list(self.conditions.iter().collect());
            write!(formatter, "ready after {} ms: {held}", self.waited_ms)
        } else {
            let unmet = list(self.unmet().collect());
            write!(formatter, "not ready after {} ms: {unmet}", self.waited_ms)
        }
    }
}

fn network(activity: &PageActivity, idle: Duration) -> (bool, String) {
    let quiet = activity.network_quiet_for.as_millis();
    match activity.requests_in_flight {
        0 if activity.network_quiet_for >= idle => {
            (true, format!("no request in flight for {quiet} ms"))
        }
        0 => (
            false,
            format!(
                "the network was busy {quiet} ms ago (needs {} ms quiet)",
                idle.as_millis()
            ),
        ),
        1 => (false, "1 request in flight".to_owned()),
        n => (false, format!("{n} requests in flight")),
    }
}

fn rendering(document: &DocumentActivity, quiet: Duration) -> (bool, String) {
    if document.animations_running > 0 {
        let shown = document.animations.join(", ");
        let detail = match document.animations_running {
            1 => format!("an animation is running ({shown})"),
            n => format!("{n} animations are running ({shown})"),
        };
        return (false, detail);
    }
    if document.media_playing > 0 {
        return (false, format!("{} media playing", document.media_playing));
    }
    let unchanged = document.dom_quiet_for.as_millis();
    if document.dom_quiet_for < quiet {
        return (
            false,
            format!(
                "the page changed {unchanged} ms ago (needs {} ms unchanged)",
                quiet.as_millis()
            ),
        );
    }
    (
        true,
        format!("no animation running, page unchanged for {unchanged} ms"),
    )
}

#[cfg(test)]
#[path = "readiness_tests.rs"]
mod tests;
