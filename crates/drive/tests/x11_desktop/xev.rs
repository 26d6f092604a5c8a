//! Tests that read back what a real X client received, through `xev`'s event log.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::ScrollDirection;
use retrace_drive::x11::X11Backend;
use retrace_test_support::xvfb::Xvfb;
use tokio::io::AsyncBufReadExt;

use crate::support::Rect;
use crate::support::wait_for_window;
use crate::support::xvfb;

/// Runs `xev` on `server` in a window at (300, 300) and collects what it prints.
struct Xev {
    _child: tokio::process::Child,
    output: Arc<Mutex<String>>,
    window: Rect,
}

impl Xev {
    async fn start(server: &Xvfb) -> Self {
        let mut child = tokio::process::Command::from(server.command("xev"))
            .args([
                "-geometry",
                "200x200+300+300",
                "-event",
                "keyboard",
                "-event",
                "button",
            ])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let output = Arc::new(Mutex::new(String::new()));
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let sink = Arc::clone(&output);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let mut text = sink.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let (window, _) = wait_for_window(&server.display(), "Event Tester").await;
        Self {
            _child: child,
            output,
            window,
        }
    }

    /// Waits until xev has printed a `kind` event for keysym `sentinel`, and returns the
    /// keysym names of the `kind` events before it.
    async fn keys_before(&self, kind: &str, sentinel: &str) -> Vec<String> {
        let started = Instant::now();
        loop {
            let names: Vec<String> = self
                .events(kind, 0)
                .await
                .into_iter()
                .map(|(_, name)| name)
                .collect();
            if let Some(end) = names.iter().position(|n| n == sentinel) {
                return names[..end].to_vec();
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no {sentinel}: {names:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until xev has printed `count` events of `kind` and returns all events of that
    /// kind as (state, detail) pairs: detail is the keysym name for keys, the button number
    /// for buttons.
    async fn events(&self, kind: &str, count: usize) -> Vec<(u32, String)> {
        let started = Instant::now();
        loop {
            let events: Vec<(u32, String)> = {
                let text = self.output.lock().unwrap();
                text.split("\n\n")
                    .filter(|block| block.trim_start().starts_with(&format!("{kind} event")))
                    .map(parse_event)
                    .collect()
            };
            if events.len() >= count || started.elapsed() > Duration::from_secs(10) {
                return events;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// One xev event block to (state, keysym name or button number).
fn parse_event(block: &str) -> (u32, String) {
    let after = |key: &str| block.split(key).nth(1).unwrap_or_default();
    let state = after("state 0x")
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()
        .unwrap();
    let state = u32::from_str_radix(state, 16).unwrap();
    let detail = if block.contains("keysym 0x") {
        after("keysym 0x")
            .split(", ")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap()
            .to_owned()
    } else {
        after("button ")
            .split(',')
            .next()
            .unwrap()
            .trim()
            .to_owned()
    };
    (state, detail)
}

const SHIFT: u32 = 0x1;
const CONTROL: u32 = 0x4;

#[tokio::test]
async fn key_combos_arrive_with_their_modifiers() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let xev = Xev::start(&server).await;
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    // No window manager: the keyboard follows the pointer.
    desktop.mouse_move(xev.window.center()).await.unwrap();

    desktop.key("ctrl+a").await.unwrap();
    desktop.key("shift+Tab").await.unwrap();
    desktop.key("Return BackSpace").await.unwrap();
    desktop.key("ctrl+A").await.unwrap();
    desktop.hold_key("Escape", 50).await.unwrap();

    let presses = xev.events("KeyPress", 10).await;
    let expect = |state, name: &str| (state, name.to_owned());
    assert_eq!(
        presses,
        vec![
            expect(0, "Control_L"),
            expect(CONTROL, "a"),
            expect(0, "Shift_L"),
            expect(SHIFT, "ISO_Left_Tab"),
            expect(0, "Return"),
            expect(0, "BackSpace"),
            expect(0, "Control_L"),
            expect(CONTROL, "Shift_L"),
            expect(CONTROL | SHIFT, "A"),
            expect(0, "Escape"),
        ]
    );
    // Every key pressed was released again.
    assert_eq!(xev.events("KeyRelease", 10).await.len(), 10);
}

#[tokio::test]
async fn typed_text_arrives_as_the_same_characters() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let xev = Xev::start(&server).await;
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    desktop.mouse_move(xev.window.center()).await.unwrap();

    // 'é' and '€' are on no key of Xvfb's US keyboard: they go through a spare keycode.
    let text = "Hi, World! 42 ~_é€";
    desktop.type_text(text, None).await.unwrap();
    desktop.type_text("ok", Some(20)).await.unwrap();
    desktop.type_text("ñ", None).await.unwrap();
    desktop.key("F12").await.unwrap();

    let typed: String = xev
        .keys_before("KeyPress", "F12")
        .await
        .into_iter()
        .filter(|name| name != "Shift_L")
        .map(|name| match name.as_str() {
            "space" => ' ',
            "comma" => ',',
            "exclam" => '!',
            "asciitilde" => '~',
            "underscore" => '_',
            "eacute" => 'é',
            "ntilde" => 'ñ',
            // X names Unicode keysyms with no legacy name by code point.
            unicode if unicode.starts_with('U') && unicode.len() > 1 => {
                char::from_u32(u32::from_str_radix(&unicode[1..], 16).unwrap()).unwrap()
            }
            one if one.chars().count() == 1 => one.chars().next().unwrap(),
            other => panic!(
                "unexpected keysym {other} in {:?}",
                xev.output.lock().unwrap()
            ),
        })
        .collect();
    assert_eq!(typed, format!("{text}okñ"));
}

#[tokio::test]
async fn clicks_and_scrolls_send_the_right_buttons() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let xev = Xev::start(&server).await;
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    let at = xev.window.center();

    desktop.click(at, MouseButton::Right, 1).await.unwrap();
    desktop.click(at, MouseButton::Left, 2).await.unwrap();
    desktop.scroll(at, ScrollDirection::Down, 3).await.unwrap();
    desktop.scroll(at, ScrollDirection::Up, 1).await.unwrap();
    desktop.scroll(at, ScrollDirection::Left, 1).await.unwrap();
    desktop.scroll(at, ScrollDirection::Right, 1).await.unwrap();
    desktop.mouse_down(MouseButton::Middle).await.unwrap();
    desktop.mouse_up(MouseButton::Middle).await.unwrap();

    let buttons: Vec<String> = xev
        .events("ButtonPress", 10)
        .await
        .into_iter()
        .map(|(_, button)| button)
        .collect();
    assert_eq!(buttons, ["3", "1", "1", "5", "5", "5", "4", "6", "7", "2"]);
    assert_eq!(xev.events("ButtonRelease", 10).await.len(), 10);
    assert_eq!(desktop.cursor_position().await.unwrap(), at);
}

#[tokio::test]
async fn keys_held_down_modify_later_keys_and_clicks_until_released() {
    let Some(server) = xvfb(1024, 768, 24) else {
        return;
    };
    let xev = Xev::start(&server).await;
    let desktop = X11Backend::connect(Some(&server.display())).await.unwrap();
    let at = xev.window.center();
    desktop.mouse_move(at).await.unwrap();

    desktop.key_down("ctrl").await.unwrap();
    desktop.key("a").await.unwrap();
    desktop.click(at, MouseButton::Left, 1).await.unwrap();
    desktop.key_down("shift").await.unwrap();
    desktop.key("b").await.unwrap();
    desktop.key_up("shift").await.unwrap();
    desktop.key_up("ctrl").await.unwrap();
    desktop.key("c").await.unwrap();
    // A release with no matching press sends nothing the client sees.
    desktop.key_up("alt").await.unwrap();
    desktop.key("F12").await.unwrap();

    let presses = xev.events("KeyPress", 6).await;
    let expect = |state, name: &str| (state, name.to_owned());
    assert_eq!(
        presses,
        vec![
            expect(0, "Control_L"),
            expect(CONTROL, "a"),
            expect(CONTROL, "Shift_L"),
            expect(CONTROL | SHIFT, "B"),
            expect(0, "c"),
            expect(0, "F12"),
        ]
    );
    let releases: Vec<(u32, String)> = xev.events("KeyRelease", 6).await;
    assert_eq!(
        releases,
        vec![
            expect(CONTROL, "a"),
            expect(CONTROL | SHIFT, "B"),
            expect(CONTROL | SHIFT, "Shift_L"),
            expect(CONTROL, "Control_L"),
            expect(0, "c"),
            expect(0, "F12"),
        ]
    );
    // The click came while ctrl was held.
    let clicks = xev.events("ButtonPress", 1).await;
    assert_eq!(clicks, vec![(CONTROL, "1".to_owned())]);
}
