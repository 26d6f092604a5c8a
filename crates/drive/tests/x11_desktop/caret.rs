//! Readiness on the desktop with a blinking caret: a focused GTK field whose caret blinks
//! faster than the window is captured (`caret.py`, Debian's Python with `python3-gi`) counts
//! as still by its third capture (within 1 s: captures are 100 ms apart), because a picture
//! that comes back to one seen a moment ago counts as still. Shown by the number of captures
//! the wait took, not by a clock, and by the caret's own pictures: on, off and on again are
//! still at the third.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::backend::Point;
use retrace_drive::x11::DesktopWindow;
use retrace_drive::x11::WindowQuery;
use retrace_drive::x11::X11Backend;
use retrace_drive::x11::frame::Stillness;
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

    // The caret blinks, and each blink comes back to the very same picture: caret on,
    // caret off, caret on again, pixel for pixel. Those real pictures, in that order, are
    // still by the third (a picture seen a moment ago), as the wait judges them. (The first
    // changes may be the field taking the focus, pictures never seen again: the pictures
    // watched are the last three that differed from the one before.) The window alone is
    // captured, small enough to encode many times per blink.
    let [on, off, again] = blink(&window).await;
    let mut stillness = Stillness::default();
    assert!(!stillness.still_after(&on));
    assert!(
        !stillness.still_after(&off),
        "the caret changed the picture"
    );
    assert!(
        stillness.still_after(&again),
        "a caret blinking back counts as still"
    );

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

/// Three pictures of the window in a row, each differing from the one before, the last equal
/// to the first: a blink and its return, polled for at most 30 s.
async fn blink(window: &DesktopWindow) -> [Vec<u8>; 3] {
    let started = Instant::now();
    let mut changes: Vec<Vec<u8>> = Vec::new();
    loop {
        let picture = window.window_screenshot().await.unwrap().png;
        if changes.last() != Some(&picture) {
            changes.push(picture);
        }
        if let [.., first, second, third] = changes.as_slice()
            && first == third
        {
            return [first.clone(), second.clone(), third.clone()];
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the caret did not blink back: {} pictures",
            changes.len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
