//! [`DesktopWindow`]: one application's window on an X display as a [`Backend`]. Points are
//! relative to the main window (see [`super::frame`]: the frame is the screen seen from the
//! window, anchored where it was recorded), screenshots show only the application's windows
//! (main window, menus, dialogs), and the main window is looked up again before each action,
//! so a window that opened elsewhere or moved is followed.

use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use async_trait::async_trait;

use super::backend::X11Backend;
use super::display::Display;
use super::frame;
use super::frame::Stillness;
use super::frame::View;
use super::windows::TopLevel;
use crate::backend::Backend;
use crate::backend::ElementInfo;
use crate::backend::MouseButton;
use crate::backend::Point;
use crate::backend::Screenshot;
use crate::backend::ScrollDirection;
use crate::error::DriveError;

/// Which window to target: a title containing the text, or a `WM_CLASS` instance or class
/// equal to it (both ignoring case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowQuery(pub String);

impl WindowQuery {
    /// Whether `window` is a shown, application-placed window this query names.
    pub fn matches(&self, window: &TopLevel) -> bool {
        let wanted = self.0.to_lowercase();
        window.viewable
            && !window.override_redirect
            && (window.name.to_lowercase().contains(&wanted)
                || window.class.0.to_lowercase() == wanted
                || window.class.1.to_lowercase() == wanted)
    }

    /// The main window among `windows`: the largest one the query names.
    pub fn main_window<'a>(&self, windows: &'a [TopLevel]) -> Option<&'a TopLevel> {
        windows
            .iter()
            .filter(|window| self.matches(window))
            .max_by_key(|window| u64::from(window.width) * u64::from(window.height))
    }
}

impl std::fmt::Display for WindowQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`", self.0)
    }
}

/// One application's main window on a display, as a backend.
pub struct DesktopWindow {
    desktop: Arc<X11Backend>,
    query: WindowQuery,
    /// The main window found first; followed while it is shown.
    main: TopLevel,
    /// Where the main window's top-left sits in the frame.
    anchor: Point,
    /// The application's accessibility tree, when it publishes one.
    accessibility: Option<super::atspi::AtSpi>,
}

impl std::fmt::Debug for DesktopWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesktopWindow")
            .field("query", &self.query)
            .field("main", &format_args!("{:#x}", self.main.id))
            .field("anchor", &self.anchor)
            .finish_non_exhaustive()
    }
}

/// How often the window and its pictures are polled while waiting.
const POLL: Duration = Duration::from_millis(100);

impl DesktopWindow {
    /// Waits up to `timeout` for a shown window `query` names on `desktop`. Its top-left sits
    /// at `anchor` in the frame; `None`: where it is now (the frame is then the screen).
    /// Fails naming the window looked for and the windows that were there.
    pub async fn find(
        desktop: Arc<X11Backend>,
        query: WindowQuery,
        anchor: Option<Point>,
        timeout: Duration,
    ) -> Result<Self, DriveError> {
        let started = Instant::now();
        loop {
            let windows = desktop
                .run("listing the windows".to_owned(), Display::top_levels)
                .await?;
            if let Some(main) = query.main_window(&windows) {
                let anchor = anchor.unwrap_or(Point {
                    x: main.x,
                    y: main.y,
                });
                return Ok(Self {
                    main: main.clone(),
                    desktop,
                    query,
                    anchor,
                    accessibility: None,
                });
            }
            if started.elapsed() >= timeout {
                return Err(DriveError::Operation {
                    backend: super::backend::NAME.to_owned(),
                    doing: format!("waiting for a window {query}"),
                    detail: format!(
                        "none was shown within {:.1} s on display {:?} (shown: {})",
                        timeout.as_secs_f64(),
                        desktop.display_name(),
                        shown_windows(&windows)
                    ),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The same window, whose elements are read from `accessibility` (see
    /// [`crate::backend::ElementSource`]).
    pub fn with_accessibility(mut self, accessibility: super::atspi::AtSpi) -> Self {
        self.accessibility = Some(accessibility);
        self
    }

    /// Whether its elements can be read.
    pub fn has_accessibility(&self) -> bool {
        self.accessibility.is_some()
    }

    /// The accessibility client and the screen position of the frame's origin.
    async fn accessible(&self) -> Result<(&super::atspi::AtSpi, (i32, i32)), DriveError> {
        let Some(accessibility) = &self.accessibility else {
            return Err(DriveError::Unsupported {
                backend: super::backend::NAME.to_owned(),
                what: "the elements of an application without accessibility".to_owned(),
            });
        };
        let (view, _) = self.view().await?;
        Ok((accessibility, view.origin))
    }

    /// Every shown element of the application (its accessibility tree), boxes relative to the
    /// main window's top-left as [`Self::window_screenshot`] shows it; `None` when it
    /// publishes none.
    pub async fn window_elements(&self) -> Result<Option<Vec<ElementInfo>>, DriveError> {
        let Some(accessibility) = &self.accessibility else {
            return Ok(None);
        };
        let (view, _) = self.view().await?;
        let origin = (view.origin.0 + self.anchor.x, view.origin.1 + self.anchor.y);
        accessibility.elements(origin).await.map(Some)
    }

    /// The main window as found.
    pub fn main_window(&self) -> &TopLevel {
        &self.main
    }

    /// Where the main window's top-left sits in the frame.
    pub fn anchor(&self) -> Point {
        self.anchor
    }

    /// The display this window is on.
    pub fn desktop(&self) -> &Arc<X11Backend> {
        &self.desktop
    }

    /// The view now: the main window's place, or an error when it is no longer shown.
    async fn view(&self) -> Result<(View, Vec<TopLevel>), DriveError> {
        let windows = self
            .desktop
            .run("listing the windows".to_owned(), Display::top_levels)
            .await?;
        let Some(main) = windows
            .iter()
            .find(|window| window.id == self.main.id && window.viewable)
        else {
            return Err(DriveError::BackendGone {
                backend: super::backend::NAME.to_owned(),
                doing: format!("finding the window {}", self.query),
                detail: format!(
                    "its main window {:#x} ({:?}) is no longer shown",
                    self.main.id, self.main.name
                ),
            });
        };
        let view = View {
            origin: (main.x - self.anchor.x, main.y - self.anchor.y),
            client: self.main.client,
        };
        Ok((view, windows))
    }

    /// A frame point on the screen.
    async fn on_screen(&self, at: Point) -> Result<Point, DriveError> {
        let (view, _) = self.view().await?;
        Ok(Point {
            x: at.x + view.origin.0,
            y: at.y + view.origin.1,
        })
    }

    /// Where the screen point `on_screen` is in the frame: a point the person acted at, as
    /// replay addresses it.
    pub async fn frame_point(&self, on_screen: Point) -> Result<Point, DriveError> {
        let (view, _) = self.view().await?;
        Ok(Point {
            x: on_screen.x - view.origin.0,
            y: on_screen.y - view.origin.1,
        })
    }

    /// The frame now as packed RGB rows of the screen's size.
    async fn frame_rgb(&self) -> Result<Vec<u8>, DriveError> {
        let (view, windows) = self.view().await?;
        self.desktop
            .run("taking a screenshot of the window".to_owned(), move |d| {
                let (rgb, width, height) = d.capture_rgb()?;
                let owned = frame::ownership(&windows, view.client, (width, height));
                Ok(frame::compose(&rgb, (width, height), &owned, view))
            })
            .await
    }

    /// A screenshot of the main window's rectangle alone (its size as found), with what else
    /// of the application's shows there: what `retrace screenshot --window` writes.
    pub async fn window_screenshot(&self) -> Result<Screenshot, DriveError> {
        let rgb = self.frame_rgb().await?;
        let (screen_width, _) = self.desktop.display_size().await?;
        let (width, height) = (self.main.width, self.main.height);
        let mut cropped = Vec::with_capacity(width as usize * height as usize * 3);
        for row in 0..height as usize {
            for column in 0..width as usize {
                let x = i64::from(self.anchor.x) + column as i64;
                let y = i64::from(self.anchor.y) + row as i64;
                let index = usize::try_from(y * i64::from(screen_width) + x).ok();
                let pixel = index
                    .filter(|_| x >= 0 && x < i64::from(screen_width))
                    .and_then(|index| rgb.get(index * 3..index * 3 + 3))
                    .unwrap_or(&frame::BLANK);
                cropped.extend_from_slice(pixel);
            }
        }
        let png = super::capture::encode_png(&cropped, width, height).map_err(|detail| {
            DriveError::Operation {
                backend: super::backend::NAME.to_owned(),
                doing: "encoding a screenshot".to_owned(),
                detail,
            }
        })?;
        Ok(Screenshot { png, width, height })
    }

    /// Waits until the window's content is still: a picture equal to one of the last few
    /// (two identical captures; a caret blinking between two pictures does not hold it), for
    /// at most `timeout`. Returns whether it became still.
    pub async fn wait_until_still(&self, timeout: Duration) -> Result<bool, DriveError> {
        self.captures_until_still(timeout)
            .await
            .map(|captures| captures.is_some())
    }

    /// [`DesktopWindow::wait_until_still`], saying how many captures it took to be still
    /// (`None`: it was not within `timeout`): 2 for a window that does not change, 3 for a
    /// caret that blinked between the first two.
    pub async fn captures_until_still(&self, timeout: Duration) -> Result<Option<u32>, DriveError> {
        let started = Instant::now();
        let mut stillness = Stillness::default();
        let mut captures = 0;
        loop {
            let picture = self.frame_rgb().await?;
            captures += 1;
            if stillness.still_after(&picture) {
                return Ok(Some(captures));
            }
            if started.elapsed() >= timeout {
                return Ok(None);
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// The shown windows, for an error: `"title" (class)` each, or `none`.
fn shown_windows(windows: &[TopLevel]) -> String {
    let shown: Vec<String> = windows
        .iter()
        .filter(|window| window.viewable && !window.override_redirect)
        .map(|window| format!("{:?} ({})", window.name, window.class.1))
        .collect();
    if shown.is_empty() {
        "none".to_owned()
    } else {
        shown.join(", ")
    }
}

#[async_trait]
impl Backend for DesktopWindow {
    fn name(&self) -> &str {
        super::backend::NAME
    }

    async fn display_size(&self) -> Result<(u32, u32), DriveError> {
        self.desktop.display_size().await
    }

    async fn screenshot(&self) -> Result<Screenshot, DriveError> {
        let rgb = self.frame_rgb().await?;
        let (width, height) = self.desktop.display_size().await?;
        let png = super::capture::encode_png(&rgb, width, height).map_err(|detail| {
            DriveError::Operation {
                backend: super::backend::NAME.to_owned(),
                doing: "encoding a screenshot".to_owned(),
                detail,
            }
        })?;
        Ok(Screenshot { png, width, height })
    }

    async fn mouse_move(&self, to: Point) -> Result<(), DriveError> {
        self.desktop.mouse_move(self.on_screen(to).await?).await
    }

    async fn mouse_down(&self, button: MouseButton) -> Result<(), DriveError> {
        self.desktop.mouse_down(button).await
    }

    async fn mouse_up(&self, button: MouseButton) -> Result<(), DriveError> {
        self.desktop.mouse_up(button).await
    }

    async fn click(&self, at: Point, button: MouseButton, count: u32) -> Result<(), DriveError> {
        let at = self.on_screen(at).await?;
        self.desktop.click(at, button, count).await
    }

    async fn drag(&self, from: Point, to: Point) -> Result<(), DriveError> {
        let (from, to) = (self.on_screen(from).await?, self.on_screen(to).await?);
        self.desktop.drag(from, to).await
    }

    async fn scroll(
        &self,
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), DriveError> {
        let at = self.on_screen(at).await?;
        self.desktop.scroll(at, direction, amount).await
    }

    async fn type_text(&self, text: &str, delay_ms: Option<u64>) -> Result<(), DriveError> {
        self.desktop.type_text(text, delay_ms).await
    }

    async fn key(&self, combo: &str) -> Result<(), DriveError> {
        self.desktop.key(combo).await
    }

    async fn hold_key(&self, combo: &str, duration_ms: u64) -> Result<(), DriveError> {
        self.desktop.hold_key(combo, duration_ms).await
    }

    async fn key_down(&self, combo: &str) -> Result<(), DriveError> {
        self.desktop.key_down(combo).await
    }

    async fn key_up(&self, combo: &str) -> Result<(), DriveError> {
        self.desktop.key_up(combo).await
    }

    async fn wait_still(&self, timeout: Duration) -> Result<Option<bool>, DriveError> {
        self.wait_until_still(timeout).await.map(Some)
    }

    async fn cursor_position(&self) -> Result<Point, DriveError> {
        let on_screen = self.desktop.cursor_position().await?;
        let (view, _) = self.view().await?;
        Ok(Point {
            x: on_screen.x - view.origin.0,
            y: on_screen.y - view.origin.1,
        })
    }
}

#[async_trait]
impl crate::backend::ElementSource for DesktopWindow {
    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError> {
        let (accessibility, origin) = self.accessible().await?;
        let on_screen = (at.x + origin.0, at.y + origin.1);
        accessibility.element_at(on_screen, origin).await
    }

    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        let (accessibility, origin) = self.accessible().await?;
        accessibility.focused_element(origin).await
    }

    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError> {
        let (accessibility, origin) = self.accessible().await?;
        accessibility.find_elements(role, name, origin).await
    }

    fn available(&self) -> bool {
        self.accessibility
            .as_ref()
            .is_some_and(super::atspi::AtSpi::alive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(name: &str, class: &str, size: (u32, u32)) -> TopLevel {
        TopLevel {
            id: 1,
            frame: 1,
            x: 0,
            y: 0,
            width: size.0,
            height: size.1,
            viewable: true,
            override_redirect: false,
            name: name.to_owned(),
            class: (class.to_lowercase(), class.to_owned()),
            pid: None,
            client: 0,
        }
    }

    #[test]
    fn a_query_names_a_title_part_or_a_class_and_the_main_window_is_the_largest() {
        let main = window("Untitled 1 - Mousepad", "Mousepad", (800, 600));
        let mut menu = window("Mousepad", "Mousepad", (300, 350));
        menu.override_redirect = true;
        let mut hidden = window("Mousepad", "Mousepad", (1000, 1000));
        hidden.viewable = false;
        let small = window("Mousepad", "Mousepad", (10, 10));
        let other = window("xmessage", "Xmessage", (2000, 2000));
        let windows = [small, menu, hidden, main.clone(), other];
        let query = WindowQuery("mousepad".into());
        assert_eq!(query.main_window(&windows), Some(&main));
        assert!(
            WindowQuery("untitled".into()).matches(&main),
            "part of the title"
        );
        assert!(
            !WindowQuery("Mouse".into()).matches(&window("x", "Mousepad", (1, 1))),
            "a class is whole"
        );
        assert_eq!(WindowQuery("gedit".into()).main_window(&windows), None);
    }
}
