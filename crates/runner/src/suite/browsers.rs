//! [`BrowserPool`]: the browsers a suite shares. Every test runs in a browser context of its
//! own on one of them (`ChromiumBrowser::new_run`), so tests share no cookies or storage, and a
//! suite pays one browser start per [`TESTS_PER_BROWSER`] tests running at once, not one per
//! test.
//!
//! A launched browser's windows all have its size, so browsers are kept per viewport size.
//! One browser holds [`TESTS_PER_BROWSER`] tests at once; a test asking when every browser
//! of its size is that busy gets a new one, up to what the suite's jobs can fill. One
//! Chromium serves all its pages from one UI thread and composites them in one display
//! compositor, so a wide suite on a machine with many cores is spread over several. On a
//! 2-core machine the cores saturate first: 24 demo-flow tests at `--jobs 4` took 66.8 and
//! 74.3 s on one browser and 71.6 and 75.5 s on two (alternating runs, 2026-11-26), hence
//! four tests per browser and one browser at the default jobs there. A remote browser
//! (`--connect`) is one connection, whatever the load: retrace does not start browsers on
//! someone else's machine.

use retrace_protocol::events::Events;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

use retrace_drive::chromium::ChromiumBrowser;
use tokio::sync::Mutex;

use crate::browser::BrowserConfig;
use crate::browser::BrowserTarget;
use crate::error::RunnerError;

/// The longest wait for a browser to close at the end of a suite.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Tests one launched browser runs at once before the pool starts another.
pub const TESTS_PER_BROWSER: usize = 4;

/// The suite's browsers, by viewport size.
#[derive(Debug)]
pub struct BrowserPool {
    config: BrowserConfig,
    /// The most browsers of one size: enough for every job to run at [`TESTS_PER_BROWSER`].
    most_per_size: usize,
    browsers: Mutex<Vec<Slot>>,
    /// Where a farm's retries and waits for a session are told.
    events: Events,
}

/// One open browser and how many tests are running on it.
#[derive(Debug)]
struct Slot {
    size: (u32, u32),
    browser: ChromiumBrowser,
    running: Arc<AtomicUsize>,
}

/// A browser lent to one test; the test's place on it is given back when this is dropped.
#[derive(Debug)]
pub struct BrowserLease {
    browser: ChromiumBrowser,
    running: Arc<AtomicUsize>,
}

impl std::ops::Deref for BrowserLease {
    type Target = ChromiumBrowser;

    fn deref(&self) -> &ChromiumBrowser {
        &self.browser
    }
}

impl Drop for BrowserLease {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::AcqRel);
    }
}

impl BrowserPool {
    /// No browser yet; they will be `config`'s, at each test's size, for a suite running
    /// `jobs` tests at once.
    pub fn new(config: BrowserConfig, jobs: usize) -> Self {
        let most_per_size = match config.target {
            BrowserTarget::Launch { .. } => jobs.div_ceil(TESTS_PER_BROWSER).max(1),
            BrowserTarget::Connect { .. } => 1,
        };
        Self {
            config,
            most_per_size,
            browsers: Mutex::new(Vec::new()),
            events: Events::none(),
        }
    }

    /// The same pool, telling a farm's retries and waits for a session to `events`.
    pub fn reporting(mut self, events: &Events) -> Self {
        self.events = events.clone();
        self
    }

    /// A browser for a page of `size`: the least busy one of that size, or a new one when
    /// each is running [`TESTS_PER_BROWSER`] tests and another may be started (tests asking
    /// at the same time wait for the one start).
    pub async fn get(&self, size: (u32, u32)) -> Result<BrowserLease, RunnerError> {
        let mut browsers = self.browsers.lock().await;
        let same_size = browsers.iter().filter(|slot| slot.size == size).count();
        let least_busy = browsers
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.size == size)
            .map(|(index, slot)| (index, slot.running.load(Ordering::Acquire)))
            .min_by_key(|(_, running)| *running);
        let index = match least_busy {
            Some((index, running))
                if running < TESTS_PER_BROWSER || same_size >= self.most_per_size =>
            {
                index
            }
            _ => {
                let browser = self
                    .config
                    .clone()
                    .at_size(size)
                    .open_reporting(&self.events)
                    .await?;
                tracing::debug!(
                    ?size,
                    browsers = same_size + 1,
                    "started a browser for the suite"
                );
                browsers.push(Slot {
                    size,
                    browser,
                    running: Arc::new(AtomicUsize::new(0)),
                });
                browsers.len() - 1
            }
        };
        let slot = &browsers[index];
        slot.running.fetch_add(1, Ordering::AcqRel);
        Ok(BrowserLease {
            browser: slot.browser.clone(),
            running: Arc::clone(&slot.running),
        })
    }

    /// How many browsers are open.
    pub async fn open_browsers(&self) -> usize {
        self.browsers.lock().await.len()
    }

    /// Closes every browser (killing the ones launched), each within a bounded time.
    pub async fn close(&self) {
        let browsers = std::mem::take(&mut *self.browsers.lock().await);
        for slot in browsers {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, slot.browser.close()).await;
        }
    }
}
