//! What the desktop target shows: the screen seen from one application's main window. The
//! frame is the size of the screen; the main window's top-left sits at a fixed point of it
//! (the anchor: where it was when the trajectory was recorded), so a window that opens
//! elsewhere looks, and is addressed, the same. Every pixel that is not one of the
//! application's windows (its main window, its menus and dialogs, which are X windows of their
//! own) is blanked: region hashes see the application, never the wallpaper or another program.
//!
//! Pure code over RGB rows, so it is tested without a display.

use super::windows::TopLevel;

/// The colour of whatever is not the application's.
pub const BLANK: [u8; 3] = [0, 0, 0];

/// The part of the screen a frame shows: where the frame's (0, 0) is on the screen, and
/// which client's windows count as the application's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    /// The screen point at the frame's top-left (negative when the window moved up or left
    /// of where it was recorded).
    pub origin: (i32, i32),
    /// The X client whose windows are shown ([`TopLevel::client`]).
    pub client: u32,
}

/// Which screen pixels the application's windows show, from `windows` bottom of the stack
/// first: a pixel is the application's when the topmost shown window there is.
pub fn ownership(windows: &[TopLevel], client: u32, (width, height): (u32, u32)) -> Vec<bool> {
    let (w, h) = (width as usize, height as usize);
    let mut owned = vec![false; w * h];
    for window in windows.iter().filter(|window| window.viewable) {
        let mine = window.client == client;
        let clamp = |value: i64, max: usize| value.clamp(0, max as i64) as usize;
        let left = clamp(i64::from(window.x), w);
        let top = clamp(i64::from(window.y), h);
        let right = clamp(i64::from(window.x) + i64::from(window.width), w);
        let bottom = clamp(i64::from(window.y) + i64::from(window.height), h);
        for row in top..bottom {
            if let Some(cells) = owned.get_mut(row * w + left..row * w + right) {
                cells.fill(mine);
            }
        }
    }
    owned
}

/// The frame of `view` over the screen `rgb` (`size`, packed RGB rows), as packed RGB rows of
/// the screen's size: the application's pixels moved by the view's origin, the rest
/// [`BLANK`].
pub fn compose(rgb: &[u8], size: (u32, u32), owned: &[bool], view: View) -> Vec<u8> {
    let (w, h) = (size.0 as usize, size.1 as usize);
    let mut frame = Vec::with_capacity(w * h * 3);
    for fy in 0..h {
        for fx in 0..w {
            let sx = fx as i64 + i64::from(view.origin.0);
            let sy = fy as i64 + i64::from(view.origin.1);
            let pixel = if (0..w as i64).contains(&sx) && (0..h as i64).contains(&sy) {
                let index = sy as usize * w + sx as usize;
                match (owned.get(index), rgb.get(index * 3..index * 3 + 3)) {
                    (Some(true), Some(pixel)) => [pixel[0], pixel[1], pixel[2]],
                    _ => BLANK,
                }
            } else {
                BLANK
            };
            frame.extend_from_slice(&pixel);
        }
    }
    frame
}

/// How many earlier pictures a still window may come back to: a caret blinking in a focused
/// field alternates between two, and must not hold a wait.
const REMEMBERED_PICTURES: usize = 4;

/// Tells, picture by picture, when a window is still: a picture equal to one of the last few
/// (two identical captures in a row, or a caret blinking back to a picture seen a moment ago).
/// Pictures are remembered by a 64-bit hash, not kept.
#[derive(Debug, Default)]
pub struct Stillness {
    seen: std::collections::VecDeque<u64>,
}

impl Stillness {
    /// Whether, with `picture` (the next capture), the window is still.
    pub fn still_after(&mut self, picture: &[u8]) -> bool {
        use std::hash::Hash as _;
        use std::hash::Hasher as _;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        picture.hash(&mut hasher);
        let hash = hasher.finish();
        if self.seen.contains(&hash) {
            return true;
        }
        self.seen.push_back(hash);
        if self.seen.len() > REMEMBERED_PICTURES {
            self.seen.pop_front();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn still_after_a_repeat_or_a_blink_never_while_it_keeps_changing() {
        let mut steady = Stillness::default();
        assert!(!steady.still_after(b"a"));
        assert!(steady.still_after(b"a"), "two identical captures");

        // A caret: on, off, on: still at the third picture.
        let mut blinking = Stillness::default();
        assert!(!blinking.still_after(b"caret on"));
        assert!(!blinking.still_after(b"caret off"));
        assert!(blinking.still_after(b"caret on"));

        // A progress bar that keeps growing is never still.
        let mut moving = Stillness::default();
        for step in 0..20u8 {
            assert!(!moving.still_after(&[step]), "step {step}");
        }
    }

    fn window(client: u32, x: i32, y: i32, width: u32, height: u32) -> TopLevel {
        TopLevel {
            id: client | 1,
            frame: client | 1,
            x,
            y,
            width,
            height,
            viewable: true,
            override_redirect: false,
            name: String::new(),
            class: (String::new(), String::new()),
            pid: None,
            client,
        }
    }

    /// A 4x3 screen whose pixel at (x, y) is [x, y, 9].
    fn screen() -> Vec<u8> {
        (0..3u8)
            .flat_map(|y| (0..4u8).flat_map(move |x| [x, y, 9]))
            .collect()
    }

    #[test]
    fn only_the_application_pixels_show_and_they_move_with_the_origin() {
        // The app's 2x2 window at (1, 1), another program's 1x1 window on top at (2, 1).
        let windows = [window(0x200000, 1, 1, 2, 2), window(0x400000, 2, 1, 1, 1)];
        let owned = ownership(&windows, 0x200000, (4, 3));
        let view = View {
            origin: (1, 1),
            client: 0x200000,
        };
        let frame = compose(&screen(), (4, 3), &owned, view);
        let at = |x: usize, y: usize| &frame[(y * 4 + x) * 3..(y * 4 + x) * 3 + 3];
        assert_eq!(at(0, 0), [1, 1, 9], "the window's top-left at the frame's");
        assert_eq!(at(1, 0), BLANK, "covered by the other program");
        assert_eq!(at(0, 1), [1, 2, 9]);
        assert_eq!(at(1, 1), [2, 2, 9]);
        assert_eq!(at(2, 0), BLANK, "not a window of the app");
        assert_eq!(at(3, 2), BLANK, "off the screen");
        assert_eq!(frame.len(), 4 * 3 * 3);
    }

    #[test]
    fn hidden_windows_and_negative_origins_are_handled() {
        let mut hidden = window(0x400000, 0, 0, 4, 3);
        hidden.viewable = false;
        let windows = [window(0x200000, 0, 0, 2, 2), hidden];
        let owned = ownership(&windows, 0x200000, (4, 3));
        let frame = compose(
            &screen(),
            (4, 3),
            &owned,
            View {
                origin: (-1, 0),
                client: 0x200000,
            },
        );
        assert_eq!(&frame[0..3], BLANK, "left of the screen");
        assert_eq!(
            &frame[3..6],
            [0, 0, 9],
            "the app's pixel, a hidden window does not cover"
        );
    }
}
