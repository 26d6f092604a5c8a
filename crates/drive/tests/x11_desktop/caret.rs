//! Readiness on the desktop with a blinking caret: a focused GTK field whose caret blinks
//! faster than the window is captured (`caret.py`, Debian's Python with `python3-gi`) counts
//! as still by its third capture (within 1 s: captures are 100 ms apart), because a picture
//! that comes back to one seen a moment ago counts as still. Shown by the number of captures
//! the wait took, not by a clock.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::backend::Point;
use retrace_drive::x11::DesktopWindow;
use retrace_drive::x11::WindowQuery;
use retrace_drive::x11::X11Backend;
use retrace_test_support::requirements::Need;
use retrace_test_support::requirements::present;

use crate::support::client;
use crate::support::xvfb;

#[tokio::test]
async fn a_focused_field_with_a_blinking_caret_is_still_by_the_third_capture() {
    if !present(Need::PythonGtk) {
        return;
    }
    let Some(server) = xvfb(640, 480, 24) else {
        return;
    };
    let script = format!("{}/tests/x11_desktop/caret.py", env!("CARGO_MANIFEST_DIR"));
    let _window = client(&server, "/usr/bin/python3", &[&script]);
    let desktop = Arc::new(X11Backend::connect(Some(&server.display())).await.unwrap());
    let window = DesktopWindow::find(
        Arc::clone(&desktop),
        WindowQuery("Caret".into()),
        None,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    // Without a window manager the keyboard focus follows the pointer: inside the window,
    // the field has the focus and its caret blinks.
    desktop.mouse_move(Point { x: 150, y: 80 }).await.unwrap();

    // The caret blinks: the window shows two pictures in turn.
    let started = Instant::now();
    let first = window.screenshot().await.unwrap().png;
    while window.screenshot().await.unwrap().png == first {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the caret never blinked"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Every wait is still by its third capture: the first two pictures may differ (caret
    // on, caret off), the third is one of them.
    for round in 1..=5 {
        let captures = window
            .captures_until_still(Duration::from_secs(10))
            .await
            .unwrap();
        assert!(
            captures.is_some_and(|captures| captures <= 3),
            "round {round}: {captures:?} captures"
        );
    }
}
