use std::path::Path;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::target::GetTargetsParams;
use pretty_assertions::assert_eq;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::DriveError;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::FULL_CHROMIUM;
use retrace_drive::chromium::HEADLESS_SHELL;
use retrace_drive::chromium::default_executable;
use retrace_test_support::processes::processes_in_group;
use retrace_test_support::processes::processes_with_cmdline_containing;
use retrace_test_support::processes::wait_until_group_is_empty;

use crate::common;

/// The process group of a launched browser: every process it starts stays in it.
fn group(browser: &ChromiumBrowser) -> u32 {
    browser.pid().unwrap()
}

#[tokio::test]
async fn a_browser_killed_mid_run_is_a_clear_error_and_leaves_no_process() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let (browser, page) = common::page_at(&server.url("/square")).await;
    let group = group(&browser);
    assert!(processes_in_group(group).len() > 1);

    let pid = browser.pid().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    let error = page.screenshot().await.unwrap_err();
    assert!(
        matches!(&error, DriveError::BackendGone { doing, .. } if doing == "taking a screenshot"),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("the chromium backend died while taking a screenshot"),
        "{error}"
    );
    let error = page.navigate(&server.url("/login")).await.unwrap_err();
    assert!(matches!(error, DriveError::BackendGone { .. }), "{error:?}");
    assert!(error.to_string().contains("opening http://"), "{error}");

    drop(page);
    drop(browser);
    let left = wait_until_group_is_empty(group, Duration::from_secs(10)).await;
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "chromium processes outlived the browser"
    );
}

#[tokio::test]
async fn dropping_the_last_handle_kills_every_browser_process_and_removes_the_profile() {
    retrace_test_support::require!(Chromium);
    let browser = common::launch(640, 480).await;
    let page = browser.open_page().await.unwrap();
    let group = group(&browser);
    let profile = browser.profile_dir().unwrap();
    assert!(profile.join("profile").is_dir());
    assert!(processes_in_group(group).len() > 1);

    // A page keeps the browser alive; the last handle takes it down.
    drop(browser);
    assert_eq!(page.screenshot().await.unwrap().width, 640);
    drop(page);
    let left = wait_until_group_is_empty(group, Duration::from_secs(10)).await;
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "chromium processes outlived the last handle"
    );
    assert!(!profile.exists(), "{} was not removed", profile.display());
}

/// Headless Chromium would build, for every window, its address-bar popup (two `browser_ui`
/// targets, `chrome://omnibox-popup.top-chrome/`, in a renderer process of their own), and at
/// launch a first window with a page nobody drives. Every page retrace opens is a window, so
/// that was one more renderer per test, costing about as much CPU as the page's own. It would
/// also keep a spare renderer started for the next navigation, which, belonging to one browser
/// context while every run has its own, was thrown away about twice per test. All three are
/// off (`CHROMIUM_FLAGS`): the browser's targets are the pages we opened, and each page has
/// one renderer process and no other renderer runs.
async fn holds_only_the_pages_we_open(executable: &Path) {
    let server = common::serve_pages();
    let browser = common::launch_executable(executable, 640, 480).await;
    let other_run = browser.new_run();
    let url = server.url("/square");
    let pages = [
        browser.open_page().await.unwrap(),
        other_run.open_page().await.unwrap(),
    ];
    for page in &pages {
        page.navigate(&url).await.unwrap();
        page.screenshot().await.unwrap();
    }

    let targets = browser
        .cdp_browser()
        .execute(GetTargetsParams::default())
        .await
        .unwrap()
        .result
        .target_infos;
    let mut seen: Vec<(String, String)> = targets
        .iter()
        .map(|target| (target.r#type.clone(), target.url.clone()))
        .collect();
    seen.sort();
    let page = ("page".to_owned(), url.clone());
    assert_eq!(seen, vec![page.clone(), page], "{}", executable.display());

    let ours = processes_in_group(group(&browser));
    let ours_containing = |text: &str| -> Vec<u32> {
        processes_with_cmdline_containing(text)
            .into_iter()
            .filter(|pid| ours.contains(pid))
            .collect()
    };
    assert_eq!(
        ours_containing("--top-chrome-webui"),
        Vec::<u32>::new(),
        "renderers of browser UI in {}",
        executable.display()
    );
    // A renderer of the blank pages may still be on its way out: wait (generously) until only
    // the pages' own remain. A spare renderer would stay, and fail this.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let renderers = loop {
        let renderers = ours_containing("--type=renderer");
        if renderers.len() <= pages.len() || std::time::Instant::now() > deadline {
            break renderers;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        renderers.len(),
        pages.len(),
        "renderer processes in {}: {renderers:?}",
        executable.display()
    );
}

#[tokio::test]
async fn the_full_browser_holds_only_the_pages_we_open() {
    retrace_test_support::require!(Chromium);
    holds_only_the_pages_we_open(Path::new(FULL_CHROMIUM)).await;
}

#[tokio::test]
async fn the_headless_shell_holds_only_the_pages_we_open() {
    retrace_test_support::require!(HeadlessShell);
    holds_only_the_pages_we_open(Path::new(HEADLESS_SHELL)).await;
}

const CRASH_HELPER_ENV: &str = "RETRACE_TEST_CRASH_HELPER_FILE";

/// Not a test by itself: `our_process_dying_takes_the_browser_with_it` runs this in a child
/// process, which launches a browser, writes the browser's process group to a file and waits
/// to be killed.
#[tokio::test]
#[ignore = "helper process of our_process_dying_takes_the_browser_with_it"]
async fn crash_helper_launches_a_browser_and_waits_to_be_killed() {
    let file = std::env::var(CRASH_HELPER_ENV).unwrap();
    let browser = common::launch(320, 240).await;
    std::fs::write(format!("{file}.tmp"), group(&browser).to_string()).unwrap();
    std::fs::rename(format!("{file}.tmp"), &file).unwrap();
    tokio::time::sleep(Duration::from_secs(120)).await;
    drop(browser);
}

#[tokio::test]
async fn our_process_dying_takes_the_browser_with_it() {
    retrace_test_support::require!(Chromium);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("group");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "lifecycle::crash_helper_launches_a_browser_and_waits_to_be_killed",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CRASH_HELPER_ENV, &file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let group: u32 = loop {
        if let Ok(group) = std::fs::read_to_string(&file) {
            break group.parse().unwrap();
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the helper exited early"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the helper never launched"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(processes_in_group(group).len() > 1);

    // SIGKILL: no destructor runs in the helper; only the kernel can clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    let left = wait_until_group_is_empty(group, Duration::from_secs(10)).await;
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "chromium outlived the process that launched it"
    );
}

#[tokio::test]
async fn connects_to_a_running_browser_by_its_ws_url() {
    retrace_test_support::require!(Chromium);
    let server = common::serve_pages();
    let running = common::launch(1280, 800).await;
    assert!(
        running.ws_url().starts_with("ws://127.0.0.1:"),
        "{}",
        running.ws_url()
    );

    let connected = ChromiumBrowser::connect(running.ws_url(), 640, 480)
        .await
        .unwrap();
    assert_eq!(connected.pid(), None);
    let page = connected.open_page().await.unwrap();
    page.navigate(&server.url("/square")).await.unwrap();
    let shot = page.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (640, 480));
    let image = retrace_vision::decode_png(&shot.png).unwrap();
    assert_eq!(&image.to_rgba()[..3], &[255, 0, 0]);

    // Going away from a connected browser leaves it running.
    drop(page);
    drop(connected);
    let page = running.open_page().await.unwrap();
    page.navigate(&server.url("/login")).await.unwrap();
    assert_eq!(page.current_url().await.unwrap(), server.url("/login"));

    let error = ChromiumBrowser::connect("ws://127.0.0.1:9/devtools/browser/x", 640, 480)
        .await
        .unwrap_err();
    assert!(matches!(error, DriveError::Launch { .. }), "{error:?}");
    assert!(error.to_string().contains("ws://127.0.0.1:9"), "{error}");
}

#[tokio::test]
async fn a_missing_executable_is_a_launch_error_naming_it() {
    let error = ChromiumBrowser::launch(&retrace_drive::chromium::ChromiumConfig {
        executable: "/nonexistent/chromium".into(),
        ..Default::default()
    })
    .await
    .unwrap_err();
    assert!(matches!(error, DriveError::Launch { .. }), "{error:?}");
    assert!(
        error.to_string().contains("/nonexistent/chromium"),
        "{error}"
    );
}

#[tokio::test]
async fn a_closed_page_says_so() {
    retrace_test_support::require!(Chromium);
    let browser = common::launch(320, 240).await;
    let page = browser.open_page().await.unwrap();
    page.close().await.unwrap();
    let error = page.screenshot().await.unwrap_err();
    assert!(error.to_string().contains("the page was closed"), "{error}");
}

/// With the headless shell installed, retrace launches it (not the full browser): the browser
/// it starts says it is the shell.
#[tokio::test]
async fn the_default_browser_is_the_headless_shell_when_installed() {
    retrace_test_support::require!(HeadlessShell);
    assert_eq!(default_executable(), Path::new(HEADLESS_SHELL));
    let browser = common::launch(320, 240).await;
    let version = browser.cdp_browser().version().await.unwrap();
    assert!(
        version.product.starts_with("HeadlessChrome/"),
        "{}",
        version.product
    );
}
