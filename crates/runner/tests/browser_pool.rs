//! The suite's browser pool on real headless Chromium: a browser holds `TESTS_PER_BROWSER`
//! tests at once, one more running at the same time gets a browser of its own, a place given
//! back is taken again, and closing the pool leaves no browser process behind.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use retrace_drive::chromium::default_executable;
use retrace_runner::browser::BrowserConfig;
use retrace_runner::suite::browsers::BrowserLease;
use retrace_runner::suite::browsers::BrowserPool;
use retrace_runner::suite::browsers::TESTS_PER_BROWSER;

const SIZE: (u32, u32) = (800, 600);

/// Whether process `pid` runs (a zombie waiting to be reaped does not).
fn is_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

async fn leases(pool: &BrowserPool, count: usize) -> Vec<BrowserLease> {
    let mut leases = Vec::new();
    for _ in 0..count {
        leases.push(pool.get(SIZE).await.unwrap());
    }
    leases
}

fn on(leases: &[BrowserLease], pid: Option<u32>) -> usize {
    leases.iter().filter(|lease| lease.pid() == pid).count()
}

#[tokio::test]
async fn a_saturated_browser_gets_a_sibling_and_a_freed_place_is_reused() {
    retrace_test_support::require!(Chromium);
    let jobs = 2 * TESTS_PER_BROWSER;
    let pool = BrowserPool::new(BrowserConfig::launch(default_executable(), SIZE), jobs);
    let first = leases(&pool, TESTS_PER_BROWSER).await;
    let first_pid = first[0].pid();
    assert_eq!(
        on(&first, first_pid),
        TESTS_PER_BROWSER,
        "one browser holds them"
    );
    assert_eq!(pool.open_browsers().await, 1);

    let mut second = leases(&pool, 1).await;
    let second_pid = second[0].pid();
    assert_ne!(
        second_pid, first_pid,
        "one more at once gets another browser"
    );
    assert_eq!(pool.open_browsers().await, 2);

    // With both full, a place given back on the second is taken by the next test there.
    second.extend(leases(&pool, TESTS_PER_BROWSER - 1).await);
    assert_eq!(on(&second, second_pid), TESTS_PER_BROWSER);
    assert_eq!(pool.open_browsers().await, 2);
    second.pop();
    let refill = leases(&pool, 1).await;
    assert_eq!(
        refill[0].pid(),
        second_pid,
        "the least busy browser is used"
    );
    // Both full and the jobs' worth of browsers open: one more test shares one of them.
    let extra = leases(&pool, 1).await;
    assert_eq!(pool.open_browsers().await, 2);
    assert!([first_pid, second_pid].contains(&extra[0].pid()));

    // Another viewport size is another browser.
    let other = pool.get((640, 480)).await.unwrap();
    assert_eq!(pool.open_browsers().await, 3);

    let pids: Vec<u32> = [first_pid, second_pid, other.pid()]
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert!(pids.iter().all(|pid| is_alive(*pid)));
    drop((first, second, refill, extra, other));
    pool.close().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while pids.iter().any(|pid| is_alive(*pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "a browser outlived the pool"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn jobs_that_fit_one_browser_never_start_a_second() {
    retrace_test_support::require!(Chromium);
    let pool = BrowserPool::new(
        BrowserConfig::launch(default_executable(), SIZE),
        TESTS_PER_BROWSER,
    );
    let leases = leases(&pool, TESTS_PER_BROWSER + 2).await;
    assert_eq!(pool.open_browsers().await, 1);
    drop(leases);
    pool.close().await;
}
