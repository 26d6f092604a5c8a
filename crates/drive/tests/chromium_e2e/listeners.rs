use retrace_drive::BrowserBackend;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumPage;

use crate::common;

/// Listeners on an element, its ancestors, the document and the window; one not for acting
/// (`scroll`); a shadow root's inside.
const PAGE: &str = r#"<!doctype html><html><body style="margin: 0">
<div id="outer" style="padding: 20px"><button id="inner" style="font-size: 30px"><span id="label">Go</span></button></div>
<input id="field" style="font-size: 30px">
<div id="host"></div>
<script>
const noop = () => {};
document.getElementById('outer').addEventListener('click', noop);
document.getElementById('inner').addEventListener('pointerdown', noop);
document.getElementById('field').addEventListener('input', noop);
document.addEventListener('scroll', noop);
window.addEventListener('keyup', noop);
const host = document.getElementById('host');
host.addEventListener('focusin', noop);
host.attachShadow({mode: 'open'}).innerHTML = '<button id="deep" style="font-size: 30px">Deep</button>';
host.shadowRoot.getElementById('deep').addEventListener('keydown', noop);
</script></body></html>"#;

async fn centre(page: &ChromiumPage, expression: &str) -> Point {
    let value = page
        .evaluate(&format!(
            "(() => {{ const r = {expression}.getBoundingClientRect(); \
             return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; }})()"
        ))
        .await
        .unwrap();
    Point {
        x: value[0].as_i64().unwrap() as i32,
        y: value[1].as_i64().unwrap() as i32,
    }
}

async fn types(page: &ChromiumPage, at: Option<Point>) -> Option<Vec<String>> {
    page.listener_types(at).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn listener_types_are_the_pages_own_on_the_element_and_its_ancestors() {
    retrace_test_support::require!(Chromium);
    let server = retrace_test_support::html_server::serve_html(&[("/listeners", PAGE)]);
    let (_browser, page) = common::page_at(&server.url("/listeners")).await;
    // Retrace's own tracker listens for `input` and `focusin` on the document, in its world.
    page.page_activity().await.unwrap();
    let label = centre(&page, "document.getElementById('label')").await;
    assert_eq!(
        types(&page, Some(label)).await.unwrap(),
        ["click", "keyup", "pointerdown"],
        "the span's button, the div around it and the window; not the document's scroll"
    );
    let deep = centre(
        &page,
        "document.getElementById('host').shadowRoot.firstChild",
    )
    .await;
    assert_eq!(
        types(&page, Some(deep)).await.unwrap(),
        ["focusin", "keydown", "keyup"],
        "inside a shadow root: the host is an ancestor"
    );
    assert_eq!(types(&page, None).await, None, "nothing has the focus");
    page.evaluate("document.getElementById('field').focus(); true")
        .await
        .unwrap();
    assert_eq!(types(&page, None).await.unwrap(), ["input", "keyup"]);
    assert_eq!(types(&page, Some(Point { x: -5, y: -5 })).await, None);
}
