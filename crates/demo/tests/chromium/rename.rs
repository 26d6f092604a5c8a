//! The `rename` layout: the New invoice button reads "Add invoice" in the v1 style at v1's
//! width, and nothing else on the dashboard or the login page changes.

use retrace_demo::DemoConfig;
use retrace_demo::site::Rect;
use retrace_drive::BrowserBackend;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_keeps_the_width_and_changes_only_the_button() {
    let server = common::serve(DemoConfig::default()).await;
    let browser = retrace_test_support::chromium!(1280, 800);
    let v1 = common::open(&browser, "about:blank").await;
    let rename = common::open(&browser, "about:blank").await;
    common::sign_in(&v1, &server.url(), "").await;
    common::sign_in(&rename, &server.url(), "?layout=rename").await;

    let label = common::js(&rename, "document.getElementById('new-invoice').innerText").await;
    assert_eq!(label, "Add invoice");
    let before = common::element_box(&v1, "#new-invoice").await;
    let after = common::element_box(&rename, "#new-invoice").await;
    // The documented box: x 702..819, y 185..221 (x 702.08, width 116.92 exactly).
    assert_eq!(
        (before.0.round(), before.1.round()),
        (702.0, 185.0),
        "{before:?}"
    );
    assert_eq!((before.2.round(), before.3), (117.0, 36.0), "{before:?}");
    assert!(
        (after.2 - before.2).abs() <= 4.0,
        "rename width {} vs v1 {}",
        after.2,
        before.2
    );
    assert!(
        (after.0 - before.0).abs() < 0.01 && after.1 == before.1,
        "{after:?}"
    );

    let v1_pixels = common::settled(&v1, false).await;
    let rename_pixels = common::settled(&rename, false).await;
    let changed = common::diff_box(&v1_pixels, &rename_pixels).expect("the label did not change");
    let button = Rect {
        x: 702,
        y: 185,
        width: 117,
        height: 36,
    };
    assert!(
        button.contains(&changed),
        "pixels changed outside the button {button:?}: {changed:?}"
    );

    // The login page of the rename layout is v1's, pixel for pixel.
    v1.navigate(&server.url()).await.unwrap();
    rename
        .navigate(&format!("{}?layout=rename", server.url()))
        .await
        .unwrap();
    let v1_login = common::settled(&v1, false).await;
    let rename_login = common::settled(&rename, false).await;
    assert_eq!(common::diff_box(&v1_login, &rename_login), None);
}
