//! The accessibility layer against a real GTK 3 window (the probe of
//! `crates/cli/tests/cli/desktop_a11y`, Debian's Python with `python3-gi`) on the private bus
//! retrace starts for it: the element at a point, the focused field and its text, and a bus
//! that stops answering.

use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::x11::AppProcess;
use retrace_drive::x11::X11Backend;
use retrace_drive::x11::atspi::AccessibilityBus;
use retrace_drive::x11::atspi::AtSpi;
use retrace_drive::x11::atspi::QUERY_TIMEOUT;
use retrace_protocol::element::Tristate;
use retrace_test_support::processes::processes_with_cmdline_containing;
use retrace_test_support::requirements::Need;
use retrace_test_support::requirements::present;

use crate::support::xvfb;

/// The probe window's script, which opens its window at (100, 100).
fn probe() -> String {
    format!(
        "{}/../cli/tests/cli/desktop_a11y/probe.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[tokio::test]
async fn the_bus_tells_the_element_at_a_point_and_the_focused_field_and_a_dead_bus_fails_fast() {
    if !present(Need::PythonGtk) || !present(Need::AtSpi) {
        return;
    }
    let Some(server) = xvfb(800, 600, 24) else {
        return;
    };
    let display = server.display();
    let mut bus = AccessibilityBus::start(&display, Duration::from_secs(20))
        .await
        .unwrap();
    let command = format!("exec /usr/bin/python3 {}", probe());
    let mut app =
        AppProcess::start_with_env(&command, &display, &bus.app_env(), &["NO_AT_BRIDGE"]).unwrap();
    let atspi = AtSpi::connect(bus.address()).await.unwrap();
    assert!(
        atspi
            .wait_for_windows(Duration::from_secs(20), Duration::from_secs(20))
            .await,
        "the probe registered"
    );

    // The element at a point, its box relative to the origin given (here the window's).
    let check = atspi
        .element_at((140, 135), (100, 100))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (check.role.as_str(), check.name.as_str()),
        ("check box", "Remember me")
    );
    assert_eq!(check.checked, Some(Tristate::False));
    assert_eq!((check.bounds.x, check.bounds.y), (24.0, 24.0));
    assert!(!check.disabled && check.receives_events);
    let button = atspi.element_at((157, 179), (0, 0)).await.unwrap().unwrap();
    assert_eq!(
        (button.role.as_str(), button.name.as_str()),
        ("push button", "Save")
    );
    assert_eq!(
        atspi.element_at((700, 500), (0, 0)).await.unwrap(),
        None,
        "off the window"
    );

    // Typed into, the field has the focus and holds the text.
    let field = atspi
        .find_elements("text", "", (0, 0))
        .await
        .unwrap()
        .pop()
        .expect("the probe's field");
    let (x, y) = field.bounds.centre();
    let desktop = X11Backend::connect(Some(&display)).await.unwrap();
    let at = Point {
        x: x as i32,
        y: y as i32,
    };
    desktop.click(at, MouseButton::Left, 1).await.unwrap();
    desktop.type_text("draft", None).await.unwrap();
    let started = Instant::now();
    let focused = loop {
        let focused = atspi.focused_element((0, 0)).await.unwrap();
        let holds = |element: &retrace_protocol::element::ElementInfo| {
            element
                .value
                .as_ref()
                .is_some_and(|value| value.expose() == "draft")
        };
        match focused {
            Some(focused) if holds(&focused) => break focused,
            _ if started.elapsed() > Duration::from_secs(20) => panic!("focus: {focused:?}"),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    assert_eq!(focused.role, "text");
    assert!(focused.focused && focused.editable);
    // A text field says how its text is drawn: its theme's colours and font.
    let style = focused.text_style.as_ref().expect("the field's text style");
    assert!(
        style.foreground.is_some() && style.background.is_some() && style.family.is_some(),
        "{style:?}"
    );

    // A bus that stops answering fails the question within the bound, and every later one
    // at once.
    let address_path = bus.address().split(',').next().unwrap().to_owned();
    let daemons = processes_with_cmdline_containing(address_path.trim_start_matches("unix:path="));
    assert!(!daemons.is_empty(), "the accessibility bus's dbus-daemon");
    signal(&daemons, libc::SIGSTOP);
    let asked = Instant::now();
    assert!(atspi.element_at((140, 135), (0, 0)).await.is_err());
    assert!(asked.elapsed() < QUERY_TIMEOUT * 4, "{:?}", asked.elapsed());
    assert!(!atspi.alive());
    let asked = Instant::now();
    assert!(atspi.focused_element((0, 0)).await.is_err());
    assert!(asked.elapsed() < QUERY_TIMEOUT, "{:?}", asked.elapsed());
    signal(&daemons, libc::SIGCONT);

    assert_eq!(app.end().await, Vec::<u32>::new());
    assert_eq!(
        bus.end().await,
        Vec::<u32>::new(),
        "the buses and registry ended"
    );
    assert!(
        processes_with_cmdline_containing(address_path.trim_start_matches("unix:path=")).is_empty()
    );
}

#[allow(unsafe_code)]
fn signal(pids: &[u32], signal: libc::c_int) {
    for pid in pids {
        // SAFETY: kill(2) takes plain integers and has no memory-safety preconditions.
        unsafe {
            libc::kill(*pid as libc::pid_t, signal);
        }
    }
}
