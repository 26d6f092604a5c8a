//! The replay inner loop in real headless Chromium on the demo app at 1280x800:
//!
//! - `screenshot+decode+hash`: take a screenshot (`Backend::screenshot`: `Page.captureScreenshot`,
//!   fresh by construction), decode it, pHash the 100x100 region around an action point (what
//!   replay does before every step);
//! - `screencast+decode+hash`: the same with the screencast grab `Backend::screenshot` used
//!   before (wait for the page's next animation frame, then a one-shot screencast frame),
//!   dropped because its freshness cannot be proven (`chromium::page` module docs); timed here,
//!   alternated with the first so both see the same machine, as the price of freshness;
//! - `clipped capture`: `BrowserBackend::screenshot_part` of the 260x260 square replay's
//!   checks read around an action point before acting (its 100 px region and the 80 px search
//!   around it), alternated with the full capture: what replay saves there by capturing only
//!   that square. The clipped pixels are checked to be the full capture's at that place, so
//!   the saving is not bought with different pixels;
//! - `click dispatch`: one left click (move, press, release) over CDP.
//!
//! Prints p50, p95 and max of each, and PASS or MISS against the targets (replay loop
//! p50 at most 60 ms, click p50 at most 5 ms). Run: `cargo bench -p retrace-drive --bench
//! replay_loop` or `scripts/bench-drive.sh` (`-- --iterations N` to change the sample count,
//! 60 by default). Timings include whatever else the machine is doing: note the load.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::EventScreencastFrame;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastFormat;
use chromiumoxide::cdp::browser_protocol::page::StartScreencastParams;
use chromiumoxide::cdp::browser_protocol::page::StopScreencastParams;
use futures::StreamExt;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_vision::Method;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Prints one line of percentiles and returns the p50.
fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    let p50 = percentile(&samples, 0.50);
    println!(
        "{name:<24} n={:<4} p50={:>7.2} ms  p95={:>7.2} ms  max={:>7.2} ms",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        percentile(&samples, 0.95).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
    p50
}

/// Prints whether a p50 meets its target.
fn verdict(name: &str, p50: Duration, target_ms: f64) {
    let ms = p50.as_secs_f64() * 1e3;
    let mark = if ms <= target_ms { "PASS" } else { "MISS" };
    println!("{mark} {name}: p50 {ms:.2} ms (target <= {target_ms} ms)");
}

/// The screencast grab `Backend::screenshot` used before: the page's next animation frame,
/// then the first screencast frame after the start (the baseline, not used by retrace).
struct ScreencastGrab {
    latest: tokio::sync::watch::Receiver<Option<Arc<EventScreencastFrame>>>,
}

impl ScreencastGrab {
    async fn attach(page: &Page) -> Self {
        let mut frames = page.event_listener::<EventScreencastFrame>().await.unwrap();
        let (sender, latest) = tokio::sync::watch::channel(None);
        tokio::spawn(async move {
            while let Some(frame) = frames.next().await {
                if sender.send(Some(frame)).is_err() {
                    return;
                }
            }
        });
        Self { latest }
    }

    async fn grab(&mut self, page: &retrace_drive::chromium::ChromiumPage) -> Vec<u8> {
        page.evaluate(
            "new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))",
        )
        .await
        .unwrap();
        let seen = self
            .latest
            .borrow_and_update()
            .as_ref()
            .map_or(i64::MIN, |frame| frame.session_id);
        let cdp = page.cdp_page();
        cdp.execute(StartScreencastParams {
            format: Some(StartScreencastFormat::Png),
            every_nth_frame: Some(1),
            ..StartScreencastParams::default()
        })
        .await
        .unwrap();
        let frame = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                self.latest.changed().await.unwrap();
                let frame = self.latest.borrow_and_update().clone();
                if let Some(frame) = frame.filter(|frame| frame.session_id > seen) {
                    return frame;
                }
            }
        })
        .await
        .expect("a screencast frame within 10 s");
        cdp.execute(StopScreencastParams::default()).await.unwrap();
        base64::engine::general_purpose::STANDARD
            .decode(AsRef::<[u8]>::as_ref(&frame.data))
            .unwrap()
    }
}

/// The [`clip`] square as replay captures it before acting, decoded.
async fn clipped_capture(page: &retrace_drive::chromium::ChromiumPage) -> retrace_vision::Image {
    let shot = page.screenshot_part(clip()).await.unwrap();
    retrace_vision::decode_png(&shot.png).unwrap()
}

/// The clipped capture holds the full capture's pixels at the same place (the page is still).
fn assert_same_pixels(full: &retrace_vision::Image, clipped: &retrace_vision::Image) {
    let clip = clip();
    assert_eq!(
        (clipped.width(), clipped.height()),
        (clip.width(), clip.height())
    );
    assert_eq!(clipped.layout(), full.layout());
    let channels = full.layout().channels();
    let full_stride = full.width() as usize * channels;
    let clip_stride = clip.width() as usize * channels;
    for row in 0..clip.height() as usize {
        let start = (clip.top as usize + row) * full_stride + clip.left as usize * channels;
        assert_eq!(
            &full.data()[start..start + clip_stride],
            &clipped.data()[row * clip_stride..(row + 1) * clip_stride],
            "row {row} of the clipped capture differs from the full capture's"
        );
    }
}

/// The action point every screenshot here is hashed around.
const ACTION_POINT: (i64, i64) = (551, 467);

/// The square replay's checks read around [`ACTION_POINT`] on the 1280x800 page: its 100 px
/// region and the 80 px search around it.
fn clip() -> retrace_vision::Region {
    retrace_vision::action_region(ACTION_POINT, 100 + 2 * 80, 1280, 800)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iterations = args
        .iter()
        .position(|a| a == "--iterations")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(60usize);
    // `cargo test --benches` runs benches with `--test`: one quick pass proves they work.
    let iterations = if args.iter().any(|a| a == "--test") {
        3
    } else {
        iterations
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let demo = retrace_test_support::demo::start_demo(Default::default()).await;
        let browser = ChromiumBrowser::launch(&ChromiumConfig::default())
            .await
            .unwrap();
        let page = browser.open_page().await.unwrap();
        page.navigate(&demo.url()).await.unwrap();
        page.wait_for_network_idle(200, 5_000).await.unwrap();

        // Warm up the capture path.
        for _ in 0..3 {
            page.screenshot().await.unwrap();
        }
        let mut screencast = ScreencastGrab::attach(page.cdp_page()).await;
        let mut loop_samples = Vec::with_capacity(iterations);
        let mut capture_samples = Vec::with_capacity(iterations);
        let mut baseline_samples = Vec::with_capacity(iterations);
        let decode_and_hash = |png: &[u8]| {
            let image = retrace_vision::decode_png(png).unwrap();
            let region =
                retrace_vision::action_region(ACTION_POINT, 100, image.width(), image.height());
            let hash = retrace_vision::region_hash(&image, region, Method::Phash, 8).unwrap();
            std::hint::black_box(hash);
        };
        let mut clipped_samples = Vec::with_capacity(iterations);
        let mut full_samples = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let started = Instant::now();
            let shot = page.screenshot().await.unwrap();
            capture_samples.push(started.elapsed());
            assert_eq!((shot.width, shot.height), (1280, 800));
            decode_and_hash(&shot.png);
            loop_samples.push(started.elapsed());

            // The full capture decoded against the clipped one decoded, alternated.
            let started = Instant::now();
            let full = retrace_vision::decode_png(&page.screenshot().await.unwrap().png).unwrap();
            full_samples.push(started.elapsed());
            let started = Instant::now();
            let clipped = clipped_capture(&page).await;
            clipped_samples.push(started.elapsed());
            assert_same_pixels(&full, &clipped);

            let started = Instant::now();
            let png = screencast.grab(&page).await;
            decode_and_hash(&png);
            baseline_samples.push(started.elapsed());
        }

        let mut click_samples = Vec::with_capacity(iterations);
        for i in 0..iterations {
            // A blank spot of the page: clicks there change nothing.
            let at = Point {
                x: 20 + (i % 10) as i32,
                y: 780,
            };
            let started = Instant::now();
            page.click(at, MouseButton::Left, 1).await.unwrap();
            click_samples.push(started.elapsed());
        }

        report("screenshot (capture)", capture_samples);
        let loop_p50 = report("screenshot+decode+hash", loop_samples);
        let baseline_p50 = report("screencast+d+h (old)", baseline_samples);
        println!(
            "screenshot+decode+hash takes {:.2}x the time of the old screencast+decode+hash (p50s)",
            loop_p50.as_secs_f64() / baseline_p50.as_secs_f64()
        );
        let full_p50 = report("full capture+decode", full_samples);
        let clipped_p50 = report("260px clip+decode", clipped_samples);
        println!(
            "a capture clipped to the checks' 260 px square takes {:.2}x the time of a full one (p50s)",
            clipped_p50.as_secs_f64() / full_p50.as_secs_f64()
        );
        let click_p50 = report("click dispatch", click_samples);
        verdict("replay inner loop (screenshot+decode+hash)", loop_p50, 60.0);
        verdict("click dispatch", click_p50, 5.0);
    });
}
