//! Helpers for the desktop tests: a private Xvfb, X clients, window geometry, screenshots.

use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::backend::Point;
use retrace_drive::x11::X11Backend;
use retrace_test_support::requirements::Need;
use retrace_test_support::xvfb::Xvfb;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::AtomEnum;
use x11rb::protocol::xproto::ChangeWindowAttributesAux;
use x11rb::protocol::xproto::ConnectionExt as _;

/// Starts Xvfb; without it, `None` after saying why the test is skipped (a failure under
/// `CI=true`, see [`retrace_test_support::requirements`]).
pub fn xvfb(width: u32, height: u32, depth: u32) -> Option<Xvfb> {
    let server = Xvfb::start(width, height, depth);
    if server.is_none() {
        retrace_test_support::requirements::missing(Need::Xvfb);
    }
    server
}

/// An X client on `server`, killed if the test ends before it does.
pub fn client(server: &Xvfb, program: &str, args: &[&str]) -> tokio::process::Child {
    tokio::process::Command::from(server.command(program))
        .args(args)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"))
}

/// A window's rectangle in root coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl Rect {
    pub fn center(self) -> Point {
        Point {
            x: self.x + self.width / 2,
            y: self.y + self.height / 2,
        }
    }

    pub fn contains(self, x: i32, y: i32) -> bool {
        (self.x..self.x + self.width).contains(&x) && (self.y..self.y + self.height).contains(&y)
    }
}

/// Waits until a viewable top-level window titled `title` exists; returns it and all its
/// descendant windows (root coordinates). Athena widgets are windows, so buttons show up here.
pub async fn wait_for_window(display: &str, title: &str) -> (Rect, Vec<Rect>) {
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let root = conn.setup().roots[screen].root;
    let started = Instant::now();
    loop {
        for &window in &conn.query_tree(root).unwrap().reply().unwrap().children {
            let name = conn
                .get_property(false, window, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 256)
                .unwrap()
                .reply()
                .unwrap();
            let viewable = conn
                .get_window_attributes(window)
                .unwrap()
                .reply()
                .unwrap()
                .map_state
                == x11rb::protocol::xproto::MapState::VIEWABLE;
            if viewable && name.value == title.as_bytes() {
                let rect = |w| {
                    let g = conn.get_geometry(w).unwrap().reply().unwrap();
                    let t = conn
                        .translate_coordinates(w, root, 0, 0)
                        .unwrap()
                        .reply()
                        .unwrap();
                    Rect {
                        x: i32::from(t.dst_x),
                        y: i32::from(t.dst_y),
                        width: i32::from(g.width),
                        height: i32::from(g.height),
                    }
                };
                let mut parts = Vec::new();
                let mut todo = vec![window];
                while let Some(w) = todo.pop() {
                    for &child in &conn.query_tree(w).unwrap().reply().unwrap().children {
                        parts.push(rect(child));
                        todo.push(child);
                    }
                }
                return (rect(window), parts);
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no window {title:?} appeared"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Paints the root window one colour, as `xsetroot -solid` does: allocates the colour in the
/// default colormap, sets it as the root background and clears the root. Returns the
/// connection, to keep while the colour matters.
pub fn paint_root(display: &str, [r, g, b]: [u8; 3]) -> x11rb::rust_connection::RustConnection {
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let (root, colormap) = {
        let screen = &conn.setup().roots[screen];
        (screen.root, screen.default_colormap)
    };
    let wide = |c: u8| u16::from(c) * 0x101;
    let pixel = conn
        .alloc_color(colormap, wide(r), wide(g), wide(b))
        .unwrap()
        .reply()
        .unwrap()
        .pixel;
    let attributes = ChangeWindowAttributesAux::new().background_pixel(pixel);
    conn.change_window_attributes(root, &attributes).unwrap();
    conn.clear_area(false, root, 0, 0, 0, 0).unwrap();
    conn.get_input_focus().unwrap().reply().unwrap();
    conn
}

/// A decoded RGB screenshot.
pub struct Rgb {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Rgb {
    pub fn at(&self, x: i32, y: i32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// The share of pixels inside `rect` darker than mid-grey.
    pub fn dark_fraction(&self, rect: Rect) -> f64 {
        let mut dark = 0;
        for y in rect.y..rect.y + rect.height {
            for x in rect.x..rect.x + rect.width {
                let [r, g, b] = self.at(x, y);
                if u32::from(r) + u32::from(g) + u32::from(b) < 384 {
                    dark += 1;
                }
            }
        }
        f64::from(dark) / f64::from(rect.width * rect.height)
    }
}

pub async fn screenshot(backend: &X11Backend) -> Rgb {
    let shot = backend.screenshot().await.unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(shot.png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!((info.width, info.height), (shot.width, shot.height));
    pixels.truncate(info.buffer_size());
    Rgb {
        width: info.width,
        height: info.height,
        pixels,
    }
}

/// The bounding box of pixels that differ between two screenshots, if any.
pub fn changed_box(a: &Rgb, b: &Rgb) -> Option<Rect> {
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, -1, -1);
    for y in 0..a.height as i32 {
        for x in 0..a.width as i32 {
            if a.at(x, y) != b.at(x, y) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    (x1 >= 0).then(|| Rect {
        x: x0,
        y: y0,
        width: x1 - x0 + 1,
        height: y1 - y0 + 1,
    })
}

pub async fn wait_for_exit(child: &mut tokio::process::Child, what: &str) -> Option<i32> {
    tokio::time::timeout(Duration::from_secs(15), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{what} did not exit"))
        .unwrap()
        .code()
}
