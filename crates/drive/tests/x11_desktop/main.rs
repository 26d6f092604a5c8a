//! The X11 backend against real X programs under a private Xvfb: xmessage (a button that
//! exits with a chosen code), xedit (a text editor that saves to a file), xev (prints every
//! key and button event it receives). The root window is painted through the X protocol, as
//! `xsetroot -solid` would.
//!
//! Each test starts its own Xvfb; tests skip with a message only when Xvfb is not installed,
//! and fail then under `CI=true`.
#![cfg(feature = "x11")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

mod atspi;
mod caret;
mod support;
mod xev;

use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::DriveError;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::x11::X11Backend;

use crate::support::Rect;
use crate::support::changed_box;
use crate::support::client;
use crate::support::paint_root;
use crate::support::screenshot;
use crate::support::wait_for_exit;
use crate::support::wait_for_window;
use crate::support::xvfb;

#[tokio::test]
async fn clicking_an_xmessage_button_presses_it_and_exits_with_its_code() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let mut xmessage = client(
        &server,
        "xmessage",
        &["-geometry", "+100+100", "-buttons", "Press:7", "Press me"],
    );
    let (window, parts) = wait_for_window(&server.display(), "xmessage").await;
    // The Command widget (the button) is the lowest part; the label sits above it.
    let button = *parts.iter().max_by_key(|r| r.y).unwrap();
    assert!(
        window.contains(button.x, button.y),
        "{button:?} in {window:?}"
    );

    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    assert_eq!(desktop.name(), "x11");
    // No DOM on a desktop: replay asks it no element or readiness questions (visual only).
    assert!(desktop.as_browser().is_none());
    let before = screenshot(&desktop).await;
    // Athena draws a released button as dark text on a light face, a pressed one reversed.
    let idle = before.dark_fraction(button);
    assert!(idle < 0.4, "the idle button is {idle:.2} dark");
    desktop.mouse_move(button.center()).await.unwrap();
    assert_eq!(desktop.cursor_position().await.unwrap(), button.center());
    desktop.mouse_down(MouseButton::Left).await.unwrap();

    // The toolkit redraws the pressed button on its own time: poll for the change.
    let started = Instant::now();
    let changed = loop {
        let now = screenshot(&desktop).await;
        if now.dark_fraction(button) > 0.6 {
            break changed_box(&before, &now).unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the button never looked pressed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let corner = (
        changed.x + changed.width - 1,
        changed.y + changed.height - 1,
    );
    assert!(
        button.contains(changed.x, changed.y) && button.contains(corner.0, corner.1),
        "pixels changed outside the button {button:?}: {changed:?}"
    );
    assert!(
        xmessage.try_wait().unwrap().is_none(),
        "exited before the release"
    );
    desktop.mouse_up(MouseButton::Left).await.unwrap();
    assert_eq!(wait_for_exit(&mut xmessage, "xmessage").await, Some(7));
}

#[tokio::test]
async fn screenshot_has_the_display_size_and_the_root_colour() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    assert_eq!(desktop.display_size().await.unwrap(), (1024, 768));
    let _painter = paint_root(&server.display(), [0x33, 0x66, 0xcc]);

    let shot = screenshot(&desktop).await;
    assert_eq!((shot.width, shot.height), (1024, 768));
    let wrong = shot
        .pixels
        .chunks(3)
        .filter(|px| *px != [0x33, 0x66, 0xcc])
        .count();
    assert_eq!(wrong, 0, "pixels not #3366cc; first is {:?}", shot.at(0, 0));
}

#[tokio::test]
async fn screenshot_reads_a_16_bit_screen() {
    let Some(server) = xvfb(640, 480, 16) else {
        return;
    };
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    let _painter = paint_root(&server.display(), [0x33, 0x66, 0xcc]);

    let shot = screenshot(&desktop).await;
    assert_eq!((shot.width, shot.height), (640, 480));
    // 565 keeps 5, 6 and 5 bits: each channel lands within 8 of what was asked.
    let [r, g, b] = shot.at(320, 240);
    let near = |got: u8, want: u8| got.abs_diff(want) <= 8;
    assert!(
        near(r, 0x33) && near(g, 0x66) && near(b, 0xcc),
        "got {:?}",
        (r, g, b)
    );
    assert_eq!(shot.at(0, 0), shot.at(639, 479), "one colour everywhere");
}

#[tokio::test]
async fn typing_into_xedit_and_clicking_save_writes_the_file() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "").unwrap();
    let _xedit = client(
        &server,
        "xedit",
        &["-geometry", "500x400+0+0", file.to_str().unwrap()],
    );
    let (window, parts) = wait_for_window(&server.display(), "xedit").await;
    // xedit's top bar holds Quit, Save and Load buttons (same size, left to right) and then
    // the file name; the text area is the largest part.
    let mut buttons: Vec<Rect> = parts
        .iter()
        .copied()
        .filter(|r| r.y < window.y + 4 && r.width < window.width / 4)
        .collect();
    buttons.sort_by_key(|r| r.x);
    let [_quit, save, _load] = buttons[..] else {
        panic!("expected Quit, Save and Load buttons, found {buttons:?} in {window:?}: {parts:?}");
    };
    let text_area = *parts
        .iter()
        .filter(|r| r.height < window.height * 3 / 4)
        .max_by_key(|r| r.width * r.height)
        .unwrap();

    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    desktop
        .click(text_area.center(), MouseButton::Left, 1)
        .await
        .unwrap();
    desktop.type_text("world\n", None).await.unwrap();
    desktop.key("Up ctrl+a").await.unwrap(); // Athena Text: ctrl+a is start of line
    desktop.type_text("Hello, ", None).await.unwrap();
    desktop.key("ctrl+e").await.unwrap(); // end of line
    desktop.type_text("!?", None).await.unwrap();
    desktop.key("BackSpace").await.unwrap();
    desktop.key("Down").await.unwrap();
    desktop.type_text("Tab:\tA_Z", None).await.unwrap();
    desktop
        .click(save.center(), MouseButton::Left, 1)
        .await
        .unwrap();

    let want = "Hello, world!\nTab:\tA_Z";
    let started = Instant::now();
    loop {
        // xedit saves by moving the old file aside and writing a new one: in between, there is
        // no file, which is "not saved yet", not an error.
        let got = match std::fs::read_to_string(&file) {
            Ok(got) => got,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => panic!("cannot read {}: {error}", file.display()),
        };
        if got == want {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "file holds {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn bad_input_is_an_error_that_names_it() {
    let Some(server) = xvfb(640, 480, 24) else {
        return;
    };
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();

    let err = desktop.key("ctrl+Hyperdrive").await.unwrap_err();
    assert!(matches!(err, DriveError::InvalidInput(_)), "{err:?}");
    assert!(err.to_string().contains("\"Hyperdrive\""), "{err}");

    let err = desktop
        .mouse_move(Point { x: 640, y: 10 })
        .await
        .unwrap_err();
    assert!(matches!(err, DriveError::InvalidInput(_)), "{err:?}");
    assert!(
        err.to_string().contains("(640, 10)") && err.to_string().contains("640x480"),
        "{err}"
    );

    let err = desktop.type_text("bell\u{7}", None).await.unwrap_err();
    assert!(err.to_string().contains("U+0007"), "{err}");
}

#[tokio::test]
async fn a_display_that_dies_is_a_clear_error() {
    let Some(server) = xvfb(640, 480, 24) else {
        return;
    };
    let display = server.display();
    let desktop = X11Backend::connect(Some(&display)).await.unwrap();
    desktop.screenshot().await.unwrap();
    drop(server);

    let err = desktop.screenshot().await.unwrap_err();
    assert!(matches!(err, DriveError::BackendGone { .. }), "{err:?}");
    assert!(err.to_string().contains("taking a screenshot"), "{err}");

    let err = X11Backend::connect(Some(&display)).await.unwrap_err();
    assert!(matches!(err, DriveError::Launch { .. }), "{err:?}");
    assert!(err.to_string().contains(&display), "{err}");
}
