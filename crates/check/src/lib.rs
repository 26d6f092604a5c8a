//! retrace-check: visual regression of candidate pages against baselines, both rendered by the
//! same headless Chromium in the same run, to a strict verdict per page: PASS, FAIL with typed
//! differences and their boxes, or ERROR when the comparison could not be made.
//!
//! A [`CheckSpec`] (a JSON file read by [`load_spec`], or built from flags) names the two base
//! URLs, the page paths, the viewports, the thresholds, the timeouts and the retries; a pages
//! file ([`load_pages`], TOML or JSON by its extension) lists pages with masks of their own
//! and, where one page needs it, a ready selector of its own in place of the check's.
//! [`run_check`] checks every page at every viewport and reports through the event stream
//! (`TestStarted`, one `CheckAttemptFinished` per attempt, a `CheckRetryScheduled` before
//! each backoff wait, `TestFinished` with the [`PageCheck`]); it is the library entry point an orchestrator calls, and `retrace check` is
//! a thin front end over it.
//!
//! Per page and attempt (module `page_check`), cheapest first:
//! 1. **Capture** (`capture`, `stabilise`): each side in a fresh browser context; the load
//!    event within the navigation timeout; the ready selector (when given) matching a visible
//!    element; network quiet, `document.fonts.ready`, lazy images
//!    loaded (made eager, page scrolled through, decoded) and back at the top; then frozen as
//!    Playwright's screenshotter does (finite animations and transitions finished, infinite
//!    ones cancelled, also those that start later; caret transparent; scrollbars hidden;
//!    masks painted); then screenshots until two in a row are identical (bounded), and the
//!    still page's elements and accessibility tree read together (one round trip). Console
//!    errors and uncaught exceptions are collected throughout.
//! 2. **Pixels** (`pixels`, `cluster`, `colour`): identical bytes end it (PASS); otherwise
//!    retrace-vision's pixelmatch port (YIQ, anti-aliasing aware), a CIEDE2000 floor (ΔE ≥
//!    `thresholds.delta_e` always differs), boxes around the changed pixels.
//! 3. **Typing** (`elements`, `classify`): each box is typed from both sides' DOM (shift,
//!    text, colour, removed, added), and a console error only the candidate logged is a
//!    difference of its own.
//! 4. **Accessibility** (`accessibility`, `accessibility_diff`): both sides' accessibility
//!    trees (controls, links, headings, images, landmarks with role, name, value, states and
//!    box) are matched; a renamed node, a changed value or state, or a named node added or
//!    removed types a box the DOM could not explain, and, when no box covers it, is a FAIL of
//!    its own even under the pixel tolerance. Moves, roles alone changing (a table refactored
//!    into divs, a heading into a styled div) and labels untied from fields whose text
//!    stays do not count; masked elements and nodes off the screenshots are left out.
//! 5. **Verdict and evidence** (`evidence`): any difference above the thresholds is FAIL;
//!    screenshots, the diff image with the boxes outlined and `result.json` (with the
//!    accessibility changes) are written under
//!    `out_dir/<page>@<WxH>/attempt-<n>/`. An ERROR (did not load, not ready, never still) is
//!    retried after the configured backoff; a FAIL never is.
//!
//! **Behind a login** (modules `login`, `storage_state`): with `login.flow` each side is
//! signed in before any page is compared, by the runner's replay of the flow against the side
//! ([`SignIn`]), or with `login.storage_state` by a Playwright `storageState` file; the
//! signed-in state goes into every capture's fresh context, and a page the server redirected
//! elsewhere (its login page) is an ERROR. A failed login is a [`CheckError::Login`].
//!
//! **Stored baselines** (module `baseline`): `baseline` may name a folder of PNG shots
//! instead of a site, taken with their environment's fingerprint (browser version, device
//! scale, fonts digest); a fingerprint that does not match makes every page an ERROR naming
//! what differs. [`approve_baseline`] stores the candidate's shots as the new baseline (with
//! their elements and accessibility trees; shots stored before the accessibility layer are
//! compared without it). The results feed the suite reports (HTML, JUnit, JSON) as tests of
//! kind `check`, each with the command that reruns it (module `rerun`): the page, its
//! viewport, its masks (the check's and its own), its ready selector, and every non-default
//! threshold, judge mode, retry and limit a flag can set, shell-quoted; settings no flag sets
//! are named in a trailing comment.
//!
//! **The model judge** (optional; `judge_options`, `judge`, `judgement`,
//!    `judgement_cache`): given a model ([`run_check_with_judge`]) and asked for
//!    (`judge.when`: `noise` asks only when every difference is pixels that changed under
//!    elements the DOM shows unchanged and the differing pixels are at or under the hard
//!    ceiling `judge.ceiling_ratio` of the page, default 1%; `always` whenever the screenshots
//!    differ; identical bytes never ask), it sees both screenshots, the diff image and the
//!    structural diff (with the accessibility changes), and answers in the comparison schema,
//!    read by the seed's rules (unusable → ERROR; PASS listing differences → FAIL; PASS under
//!    `judge.min_confidence` → ERROR; PASS above the ceiling → ERROR, "the judge disagrees
//!    with the pixels"). A fact the DOM, the accessibility tree or the console confirms
//!    (moved, relabelled, recoloured, removed, added, a changed state, a console error, a new
//!    page size) is a FAIL whatever the judge answers; its PASS clears only the unexplained
//!    pixels, and its ERROR (retried like any other) decides only when there is no fact.
//!    Judgements are cached by (both screenshots, masks, model, prompt version, context), so
//!    an unchanged page is never judged twice.
//!
//! **Desktop windows** (modules `window_check`, `window_tree`): [`run_window_check`] compares
//! two captures of an application's window ([`WindowShot`]: its pixels and its AT-SPI
//! elements), each brought to its state by the caller's [`WindowSource`] (the runner replays a
//! flow on each side), with the same layers, verdicts, typed differences, evidence and events;
//! the accessibility tree stands in for the DOM and its pixels give the elements' colours.
//!
//! One [`Timeouts`] holds every limit (navigation, readiness, stability, the model's answer,
//! a page's total, the run's total) and each page's report echoes it.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod accessibility;
mod accessibility_diff;
mod baseline;
mod browsers;
mod capture;
mod classify;
mod cluster;
mod colour;
mod elements;
mod error;
mod evidence;
mod judge;
mod judge_images;
mod judge_options;
mod judgement;
mod judgement_cache;
mod login;
mod page_check;
mod pages_file;
mod pixels;
mod rerun;
mod run;
mod spec;
mod stabilise;
mod storage_state;
mod window_check;
mod window_tree;

pub use baseline::FINGERPRINT_FILE;
pub use baseline::Fingerprint;
pub use baseline::approve_baseline;
pub use baseline::approve_baseline_in;
pub use baseline::load_fingerprint;
pub use baseline::shot_path;
pub use baseline::stored_capture;
pub use browsers::BrowserSource;
pub use browsers::LaunchChromium;
pub use capture::CaptureError;
pub use classify::classify;
pub use cluster::PixelBox;
pub use cluster::cluster;
pub use colour::delta_e;
pub use elements::PageElement;
pub use error::CheckError;
pub use evidence::page_slug;
pub use judge_options::JudgeOptions;
pub use judge_options::JudgeWhen;
pub use judgement::DEFAULT_MIN_CONFIDENCE;
pub use judgement::ImageRegion;
pub use judgement::JUDGE_PROMPT_VERSION;
pub use judgement::Judgement;
pub use judgement::VERDICT_SCHEMA_VERSION;
pub use judgement::judge_prompt;
pub use judgement::judgement_cache_key;
pub use judgement::read_judgement;
pub use login::SignIn;
pub use pages_file::PageEntry;
pub use pages_file::load_pages;
pub use pixels::Frame;
pub use pixels::PixelComparison;
pub use pixels::compare;
pub use rerun::window_rerun_command;
pub use run::CheckRun;
pub use run::CheckSession;
pub use run::run_check;
pub use run::run_check_with_judge;
pub use run::run_session;
pub use run::test_id;
pub use run::test_ids;
pub use spec::CaptureOptions;
pub use spec::CheckSpec;
pub use spec::LoginOptions;
pub use spec::Retry;
pub use spec::SpecError;
pub use spec::Thresholds;
pub use spec::Timeouts;
pub use spec::Viewport;
pub use spec::load_spec;
pub use spec::load_spec_over;
pub use spec::parse_spec;
pub use stabilise::NotReady;
pub use storage_state::StorageState;
pub use storage_state::load_storage_state;
pub use window_check::WindowCheck;
pub use window_check::WindowShot;
pub use window_check::WindowSource;
pub use window_check::run_window_check;
