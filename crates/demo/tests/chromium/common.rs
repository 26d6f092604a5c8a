//! Shared setup: a browser, signing in, settled screenshots and exact pixel comparison.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_demo::DemoConfig;
use retrace_demo::DemoServer;
use retrace_demo::site::Rect;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumPage;

/// Generous: CI machines are loaded.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The demo app with `config` on 127.0.0.1 and a free port.
pub async fn serve(config: DemoConfig) -> DemoServer {
    retrace_demo::start(config, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// A new page in `browser`, at `url`.
pub async fn open(browser: &ChromiumBrowser, url: &str) -> Arc<ChromiumPage> {
    let page = Arc::new(browser.open_page().await.unwrap());
    page.navigate(url).await.unwrap();
    page
}

/// Polls a JavaScript expression until it returns `true`. Errors while polling (a navigation
/// replacing the document) count as "not yet".
pub async fn wait_for_js(page: &ChromiumPage, expression: &str) {
    let started = Instant::now();
    loop {
        let answer = page.evaluate(expression).await;
        if matches!(&answer, Ok(value) if *value == serde_json::json!(true)) {
            return;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "`{expression}` never became true (last answer: {answer:?})"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Evaluates `expression` and returns its JSON value.
pub async fn js(page: &ChromiumPage, expression: &str) -> serde_json::Value {
    page.evaluate(expression).await.unwrap()
}

/// Signs in through the login form at `{base}{query}` and waits for the dashboard's script.
pub async fn sign_in(page: &ChromiumPage, base: &str, query: &str) {
    page.navigate(&format!("{base}{query}")).await.unwrap();
    js(
        page,
        &format!(
            "document.getElementById('username').value='{}';\
             document.getElementById('password').value='{}';\
             document.getElementById('login-form').submit();true",
            retrace_demo::DEMO_USERNAME,
            retrace_demo::DEMO_PASSWORD
        ),
    )
    .await;
    wait_for_js(
        page,
        "location.pathname==='/dashboard'&&document.readyState==='complete'&&window.ledgerlineReady===true",
    )
    .await;
}

/// Decoded RGBA pixels of a screenshot.
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

fn decode(png: &[u8]) -> Pixels {
    let image = retrace_vision::decode_png(png).unwrap();
    Pixels {
        width: image.width(),
        height: image.height(),
        rgba: image.to_rgba().into_owned(),
    }
}

/// A screenshot (the whole page with `full_page`) taken once two in a row are identical on a
/// page with no animation running and its fonts loaded: near the end of an ease-out animation
/// (the dashboard's progress bar), or on a loaded machine, two frames 100 ms apart can be the
/// same in the middle of it.
pub async fn settled(page: &ChromiumPage, full_page: bool) -> Pixels {
    let started = Instant::now();
    let mut last = decode(&page.capture(full_page).await.unwrap().png);
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let activity = page.page_activity().await.unwrap();
        let quiet = activity
            .document
            .as_ref()
            .is_ok_and(|document| document.animations_running == 0 && document.fonts_ready);
        let next = decode(&page.capture(full_page).await.unwrap().png);
        if quiet && next.rgba == last.rgba && (next.width, next.height) == (last.width, last.height)
        {
            return next;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the page never settled: {activity:?}"
        );
        last = next;
    }
}

/// The tightest box around every pixel that differs, or `None` when the images are the same.
/// Images of different sizes fail the test.
pub fn diff_box(a: &Pixels, b: &Pixels) -> Option<Rect> {
    assert_eq!((a.width, a.height), (b.width, b.height), "sizes differ");
    let (mut left, mut top, mut right, mut bottom) = (u32::MAX, u32::MAX, 0, 0);
    for y in 0..a.height {
        for x in 0..a.width {
            let at = ((y * a.width + x) * 4) as usize;
            if a.rgba[at..at + 4] != b.rgba[at..at + 4] {
                left = left.min(x);
                top = top.min(y);
                right = right.max(x + 1);
                bottom = bottom.max(y + 1);
            }
        }
    }
    (left != u32::MAX).then(|| Rect {
        x: left,
        y: top,
        width: right - left,
        height: bottom - top,
    })
}

/// The page box (document coordinates) of the first element matching `selector`.
pub async fn element_box(page: &ChromiumPage, selector: &str) -> (f64, f64, f64, f64) {
    let value = js(
        page,
        &format!(
            "(function(){{var r=document.querySelector({selector:?}).getBoundingClientRect();\
             return [r.left+scrollX,r.top+scrollY,r.width,r.height];}})()"
        ),
    )
    .await;
    let number = |i: usize| value[i].as_f64().unwrap();
    (number(0), number(1), number(2), number(3))
}

/// Clicks the middle of the first element matching `selector` with a real mouse click.
pub async fn click_on(page: &ChromiumPage, selector: &str) {
    use retrace_drive::Backend;
    use retrace_drive::backend::MouseButton;
    use retrace_drive::backend::Point;
    let value = js(
        page,
        &format!(
            "(function(){{var r=document.querySelector({selector:?}).getBoundingClientRect();\
             return [r.left+r.width/2,r.top+r.height/2];}})()"
        ),
    )
    .await;
    let at = Point {
        x: value[0].as_f64().unwrap().round() as i32,
        y: value[1].as_f64().unwrap().round() as i32,
    };
    page.click(at, MouseButton::Left, 1).await.unwrap();
}

/// Types `text` with real key events into the focused element.
pub async fn type_text(page: &ChromiumPage, text: &str) {
    use retrace_drive::Backend;
    page.type_text(text, None).await.unwrap();
}

/// Counts clicks on `selector` from the document's capture phase (before any listener of the
/// page can swallow them) in `window.clicksSeen`.
pub async fn count_clicks(page: &ChromiumPage, selector: &str) {
    js(
        page,
        &format!(
            "window.clicksSeen=0;document.addEventListener('click',function(e){{\
             if(e.target.closest({selector:?})){{window.clicksSeen++;}}}},true);true"
        ),
    )
    .await;
}

/// A viewport screenshot as it is now.
pub async fn capture_now(page: &ChromiumPage) -> Pixels {
    decode(&page.capture(false).await.unwrap().png)
}
