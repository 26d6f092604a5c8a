//! What replay's semantic checks cost per step, against a screenshot in the same run, in real
//! headless Chromium on the demo app's dashboard at 1280x800 (signed in, settled):
//!
//! - `element_at`: the element at the "New invoice" button (one isolated-world script call),
//!   right after a screenshot (what replay does: Chromium is still busy with the frame it
//!   just captured, which the call waits for) and `again` right after the first;
//! - `page_activity`: the readiness/settledness probe (one script call plus counters);
//! - `find_elements`: every visible button named "New invoice" (walks the whole DOM);
//! - `listener_types`: the acting event listeners on the "New invoice" button and its
//!   ancestors (what replay asks before a step recorded with them; six CDP round trips);
//! - `screenshot`: `Backend::screenshot` (what replay takes every poll), the baseline;
//! - `captureScreenshot`: `Page.captureScreenshot`, the older baseline.
//!
//! The six are alternated round by round so each sees the same machine. Prints p50, p95 and
//! max of each and the ratio of each p50 to the screenshot's. Run: `cargo bench -p
//! retrace-drive --bench element_at` or `scripts/bench-drive.sh` (`-- --iterations N`, 60 by
//! default). Timings include whatever else the machine is doing: note the load.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::future::Future;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Prints one line of percentiles and returns the p50.
fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    let p50 = percentile(&samples, 0.50);
    println!(
        "{name:<20} n={:<4} p50={:>7.2} ms  p95={:>7.2} ms  max={:>7.2} ms",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        percentile(&samples, 0.95).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
    p50
}

async fn timed<T>(samples: &mut Vec<Duration>, work: impl Future<Output = T>) -> T {
    let started = Instant::now();
    let out = work.await;
    samples.push(started.elapsed());
    out
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
        page.evaluate(&format!(
            "document.cookie = '{}={}; path=/'; true",
            retrace_demo::SESSION_COOKIE,
            retrace_demo::DEMO_USERNAME
        ))
        .await
        .unwrap();
        page.navigate(&format!("{}dashboard", demo.url()))
            .await
            .unwrap();
        let settled =
            retrace_drive::readiness::ReadinessOptions::settled(Duration::from_millis(300));
        assert!(page.wait_until_ready(&settled).await.unwrap().ready);

        let point = Point { x: 761, y: 203 };
        let expected = page.element_at(point).await.unwrap().unwrap();
        assert_eq!(expected.name, "New invoice");
        for _ in 0..3 {
            page.screenshot().await.unwrap();
            page.element_at(point).await.unwrap();
        }
        let mut element = Vec::with_capacity(iterations);
        let mut again = Vec::with_capacity(iterations);
        let mut activity = Vec::with_capacity(iterations);
        let mut find = Vec::with_capacity(iterations);
        let mut listeners = Vec::with_capacity(iterations);
        let mut screenshot = Vec::with_capacity(iterations);
        let mut capture = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let info = timed(&mut element, page.element_at(point)).await;
            assert_eq!(info.unwrap().unwrap().name, "New invoice");
            timed(&mut again, page.element_at(point)).await.unwrap();
            timed(&mut activity, page.page_activity()).await.unwrap();
            let found = timed(&mut find, page.find_elements("button", "New invoice")).await;
            assert_eq!(found.unwrap().len(), 1);
            let types = timed(&mut listeners, page.listener_types(Some(point))).await;
            assert_eq!(types.unwrap().unwrap(), ["click"]);
            timed(&mut screenshot, page.screenshot()).await.unwrap();
            timed(&mut capture, page.capture(false)).await.unwrap();
        }

        let baseline = report("screenshot", screenshot);
        let mut ratios = Vec::new();
        for (name, samples) in [
            ("element_at", element),
            ("element_at again", again),
            ("page_activity", activity),
            ("find_elements", find),
            ("listener_types", listeners),
            ("captureScreenshot", capture),
        ] {
            let p50 = report(name, samples);
            ratios.push((name, p50.as_secs_f64() / baseline.as_secs_f64()));
        }
        for (name, ratio) in ratios {
            println!("{name} takes {ratio:.2} of the time of a screenshot (p50s)");
        }
    });
}
