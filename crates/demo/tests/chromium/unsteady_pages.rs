//! The site's unsteady pages do what makes them hard to screenshot: the web font swaps in
//! late, lazy images wait for a scroll, the transition ends, the animation never does, the
//! caret's field has the focus, the header sticks.

use retrace_demo::DemoConfig;
use retrace_drive::BrowserBackend;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsteady_pages_behave_as_documented() {
    let server = common::serve(DemoConfig::default()).await;
    let base = server.url();
    let base = base.trim_end_matches('/');
    let browser = retrace_test_support::chromium!(1280, 800);
    let page = common::open(&browser, "about:blank").await;

    // The web font: requested after `load`, it swaps in later and changes the text's pixels.
    // (Should a loaded machine be so slow that it is in before the first screenshot, that
    // attempt tells nothing and the page is loaded again.)
    let font =
        "([...document.fonts].find(f=>f.family.includes('Ledgerline Display'))||{status:'absent'})";
    let mut observed_swap = false;
    for _ in 0..3 {
        page.navigate(&format!("{base}/site/web-font"))
            .await
            .unwrap();
        let before = common::capture_now(&page).await;
        let early = common::js(&page, &format!("{font}.status")).await;
        common::wait_for_js(&page, &format!("{font}.status==='loaded'")).await;
        let after = common::settled(&page, false).await;
        if early != "loaded" {
            let changed = common::diff_box(&before, &after).expect("the font swap changed nothing");
            assert!(changed.y >= 64, "the swap touched the header: {changed:?}");
            observed_swap = true;
            break;
        }
    }
    assert!(
        observed_swap,
        "the web font was always in before the first screenshot"
    );

    // Lazy images: the last ones load only when scrolled to.
    page.navigate(&format!("{base}/site/lazy-images"))
        .await
        .unwrap();
    let last = "document.getElementById('tile-12')";
    assert_eq!(
        common::js(&page, &format!("{last}.loading+' '+{last}.naturalWidth")).await,
        "lazy 0"
    );
    common::js(&page, &format!("{last}.scrollIntoView();true")).await;
    common::wait_for_js(
        &page,
        &format!("{last}.complete&&{last}.naturalWidth===480"),
    )
    .await;

    // The transition ends fully opaque.
    page.navigate(&format!("{base}/site/transition"))
        .await
        .unwrap();
    common::wait_for_js(
        &page,
        "getComputedStyle(document.getElementById('entering')).opacity==='1'",
    )
    .await;

    // The animation is infinite and running.
    page.navigate(&format!("{base}/site/animation"))
        .await
        .unwrap();
    let running = common::js(
        &page,
        "document.getAnimations().map(a=>[a.playState,a.effect.getTiming().iterations])",
    )
    .await;
    assert_eq!(
        running,
        serde_json::json!([["running", null], ["running", null]]),
        "Infinity serialises as null"
    );

    // The caret's field has the focus.
    page.navigate(&format!("{base}/site/caret")).await.unwrap();
    common::wait_for_js(&page, "document.activeElement.id==='help-search'").await;

    // The header sticks to the top of the long page.
    page.navigate(&format!("{base}/site/sticky-header"))
        .await
        .unwrap();
    common::js(&page, "window.scrollTo(0,3000);true").await;
    common::wait_for_js(
        &page,
        "scrollY===3000&&document.querySelector('.site-header').getBoundingClientRect().top===0\
         &&document.documentElement.scrollHeight>5000",
    )
    .await;
}
