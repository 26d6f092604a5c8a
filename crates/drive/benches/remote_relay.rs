//! What reaching a browser remotely costs, in real headless Chromium, each figure against a
//! baseline measured alternately in the same run:
//!
//! - `round trip`: one CDP command (`Runtime.evaluate("1")`) through the local relay (the path
//!   of every endpoint with headers or TLS) against the same on a direct connection;
//! - `screenshot`: a 1280x800 viewport screenshot (a large message) likewise;
//! - `page in a new run`: a new run's first page (creating its browser context) and the run's
//!   end (disposing it), against opening and closing a page in an existing run: the price of
//!   one context per run, launched browsers included.
//!
//! Prints p50 and p95 of each and the ratios of the p50s. Run: `cargo bench -p retrace-drive
//! --bench remote_relay` (`-- --iterations N`, 40 by default). Wall-clock timings: note the
//! machine's load.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ConnectOptions;
use retrace_drive::chromium::process::BrowserProcess;
use retrace_drive::chromium::remote::parse_header_lines;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Prints one line of percentiles and returns the p50.
fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    let p50 = percentile(&samples, 0.50);
    println!(
        "{name:<32} n={:<4} p50={:>8.3} ms  p95={:>8.3} ms",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        percentile(&samples, 0.95).as_secs_f64() * 1e3,
    );
    p50
}

fn ratio(what: &str, measured: Duration, baseline: Duration) {
    println!(
        "{what}: {:.2}x the baseline (p50s)",
        measured.as_secs_f64() / baseline.as_secs_f64()
    );
}

async fn timed<T>(samples: &mut Vec<Duration>, work: impl Future<Output = T>) -> T {
    let started = Instant::now();
    let value = work.await;
    samples.push(started.elapsed());
    value
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iterations = args
        .iter()
        .position(|a| a == "--iterations")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(40usize);
    // `cargo test --benches` runs benches with `--test`: one quick pass proves they work.
    let iterations = if args.iter().any(|a| a == "--test") {
        2
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
        let chromium = BrowserProcess::spawn(
            Path::new("/usr/bin/chromium"),
            1280,
            800,
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        let direct = ChromiumBrowser::connect(chromium.ws_url(), 1280, 800)
            .await
            .unwrap();
        // Any header sends the connection through the relay.
        let mut options = ConnectOptions::parse(chromium.ws_url()).unwrap();
        options.headers = parse_header_lines("X-Bench: relay").unwrap();
        let relayed = ChromiumBrowser::connect_with(&options, 1280, 800)
            .await
            .unwrap();
        let direct_page = direct.open_page().await.unwrap();
        let relayed_page = relayed.open_page().await.unwrap();
        for page in [&direct_page, &relayed_page] {
            page.navigate(&demo.url()).await.unwrap();
            page.wait_for_network_idle(200, 5_000).await.unwrap();
            page.screenshot().await.unwrap();
        }

        let (mut direct_trip, mut relayed_trip) = (Vec::new(), Vec::new());
        let (mut direct_shot, mut relayed_shot) = (Vec::new(), Vec::new());
        for _ in 0..iterations * 5 {
            timed(&mut direct_trip, direct_page.evaluate("1"))
                .await
                .unwrap();
            timed(&mut relayed_trip, relayed_page.evaluate("1"))
                .await
                .unwrap();
        }
        for _ in 0..iterations {
            timed(&mut direct_shot, direct_page.capture(false))
                .await
                .unwrap();
            timed(&mut relayed_shot, relayed_page.capture(false))
                .await
                .unwrap();
        }

        let (mut same_run, mut new_run) = (Vec::new(), Vec::new());
        for _ in 0..iterations {
            timed(&mut same_run, async {
                let page = direct.open_page().await.unwrap();
                page.close().await.unwrap();
            })
            .await;
            timed(&mut new_run, async {
                let run = direct.new_run();
                let page = run.open_page().await.unwrap();
                drop(page);
                run.close().await.unwrap();
            })
            .await;
        }

        let direct_p50 = report("round trip, direct", direct_trip);
        let relayed_p50 = report("round trip, relayed", relayed_trip);
        ratio("relayed round trip", relayed_p50, direct_p50);
        let direct_p50 = report("screenshot, direct", direct_shot);
        let relayed_p50 = report("screenshot, relayed", relayed_shot);
        ratio("relayed screenshot", relayed_p50, direct_p50);
        let same_p50 = report("page open+close, same run", same_run);
        let new_p50 = report("page in a new run (+context)", new_run);
        ratio("page in a new run", new_p50, same_p50);
    });
}
