//! [`Screen`]: fresh screenshots for replay's visual checks, decoded and in the coordinate
//! space the trajectory was recorded in; and, for a browser, the [`PageProbe`] that checks ask
//! what is on the page (the element at a point, whether the page is still busy).

use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::DriveError;
use retrace_drive::backend::ElementSource;
use retrace_drive::backend::PageElements;
use retrace_drive::backend::Point;
use retrace_drive::computer::Scaler;
use retrace_drive::readiness::PageActivity;
use retrace_protocol::element::ElementInfo;
use retrace_vision::Image;
use retrace_vision::Region;

use crate::page_location::PageLocation;

/// The browser page behind a screen, in the trajectory's coordinates: what checks ask besides
/// the pixels. A desktop has none, and replays there check pixels only.
#[derive(Clone)]
pub struct PageProbe {
    page: Arc<dyn BrowserBackend>,
    scaler: Option<Scaler>,
}

impl std::fmt::Debug for PageProbe {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PageProbe")
            .field("page", &self.page.name())
            .field("scaler", &self.scaler)
            .finish()
    }
}

impl PageProbe {
    /// A probe of `page`, whose points are the trajectory's own (`scaler` maps them to the
    /// page's when the model saw another size).
    pub fn new(page: Arc<dyn BrowserBackend>, scaler: Option<Scaler>) -> Self {
        Self { page, scaler }
    }

    /// A trajectory point in page pixels; `None` off the screen.
    fn to_page(&self, point: (i64, i64)) -> Option<Point> {
        to_screen(self.scaler.as_ref(), point)
    }

    /// A page point in the trajectory's coordinates.
    pub fn to_trajectory(&self, point: (f64, f64)) -> (i64, i64) {
        to_trajectory(self.scaler.as_ref(), point)
    }

    /// The page's elements, for the checks that ask about elements on any screen.
    pub fn elements(&self) -> ElementProbe {
        ElementProbe::new(Arc::new(PageElements(self.page.clone())), self.scaler)
    }

    /// The element at a trajectory point.
    pub async fn element_at(&self, at: (i64, i64)) -> Result<Option<ElementInfo>, DriveError> {
        match self.to_page(at) {
            Some(point) => self.page.element_at(point).await,
            None => Ok(None),
        }
    }

    /// The element with the keyboard focus.
    pub async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        self.page.focused_element().await
    }

    /// The acting listener types on the element at a trajectory point (the focused one for
    /// `None`) and its ancestors; `None` when no element is there.
    pub async fn listener_types(
        &self,
        at: Option<(i64, i64)>,
    ) -> Result<Option<Vec<String>>, DriveError> {
        match at {
            Some(at) => match self.to_page(at) {
                Some(point) => self.page.listener_types(Some(point)).await,
                None => Ok(None),
            },
            None => self.page.listener_types(None).await,
        }
    }

    /// The visible elements with this role and accessible name.
    pub async fn find_elements(
        &self,
        role: &str,
        name: &str,
    ) -> Result<Vec<ElementInfo>, DriveError> {
        self.page.find_elements(role, name).await
    }

    /// Where the page is: its document's URL path and title.
    pub async fn location(&self) -> Result<PageLocation, DriveError> {
        let value = self.page.evaluate(PageLocation::EXPRESSION).await?;
        serde_json::from_value(value).map_err(|error| {
            DriveError::InvalidInput(format!("the page's location is unreadable: {error}"))
        })
    }

    /// Answers the page's next JavaScript dialogs with `dialogs` (what the step about to act
    /// opened when recorded); any other dialog fails the page's next input.
    pub fn expect_dialogs(&self, dialogs: &[retrace_protocol::dialog::Dialog]) {
        self.page.expect_dialogs(dialogs);
    }

    /// What the page is doing now.
    pub async fn activity(&self) -> Result<PageActivity, DriveError> {
        self.page.page_activity().await
    }
}

/// What is on the screen, element by element, in the trajectory's coordinates: a browser
/// page's DOM, or a desktop application's accessibility tree. The semantic and state checks
/// ask this.
#[derive(Clone)]
pub struct ElementProbe {
    source: Arc<dyn ElementSource>,
    scaler: Option<Scaler>,
}

impl std::fmt::Debug for ElementProbe {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ElementProbe")
            .field("scaler", &self.scaler)
            .finish_non_exhaustive()
    }
}

impl ElementProbe {
    /// A probe of `source`, whose points are the trajectory's own (`scaler` maps them to the
    /// source's when the model saw another size).
    pub fn new(source: Arc<dyn ElementSource>, scaler: Option<Scaler>) -> Self {
        Self { source, scaler }
    }

    /// A trajectory point in the source's pixels; `None` off the screen.
    fn to_source(&self, point: (i64, i64)) -> Option<Point> {
        to_screen(self.scaler.as_ref(), point)
    }

    /// A source point in the trajectory's coordinates.
    pub fn to_trajectory(&self, point: (f64, f64)) -> (i64, i64) {
        to_trajectory(self.scaler.as_ref(), point)
    }

    /// The element at a trajectory point.
    pub async fn element_at(&self, at: (i64, i64)) -> Result<Option<ElementInfo>, DriveError> {
        match self.to_source(at) {
            Some(point) => self.source.element_at(point).await,
            None => Ok(None),
        }
    }

    /// The element with the keyboard focus.
    pub async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        self.source.focused_element().await
    }

    /// Whether the source still answers (a desktop's accessibility bus may stop).
    pub fn available(&self) -> bool {
        self.source.available()
    }

    /// The shown elements with this role and name.
    pub async fn find_elements(
        &self,
        role: &str,
        name: &str,
    ) -> Result<Vec<ElementInfo>, DriveError> {
        self.source.find_elements(role, name).await
    }
}

/// A source of fresh screenshots.
#[async_trait]
pub trait Screen: Send + Sync {
    /// Takes a screenshot now and decodes it.
    async fn capture(&self) -> Result<Image, String>;

    /// The screen as it is shown now, waiting for nothing pending (see
    /// [`Backend::screenshot_as_shown`]): what a fixed-delay replay looks at.
    async fn capture_as_shown(&self) -> Result<Image, String> {
        self.capture().await
    }

    /// A fresh screenshot of which only `part` is sure to show the screen (the rest may be
    /// blank), in the whole screen's coordinates: for checks that read nothing else. A
    /// browser page shown at the trajectory's size captures just that part, at a fraction of
    /// a whole screenshot's cost; other screens take a whole one.
    async fn capture_part(&self, _part: Region) -> Result<Image, String> {
        self.capture().await
    }

    /// The screen's size when [`Screen::capture_part`] captures less than the whole screen
    /// (so a part is worth asking for, and a failing look at one worth taking again whole);
    /// `None` when it always captures the whole.
    async fn part_capture_size(&self) -> Option<(u32, u32)> {
        None
    }

    /// The page behind the screen, when it is a browser's.
    fn page(&self) -> Option<PageProbe> {
        None
    }

    /// The elements on the screen: the page's, or a desktop application's accessibility
    /// tree; `None` when nothing tells.
    fn elements(&self) -> Option<ElementProbe> {
        self.page().map(|page| page.elements())
    }
}

/// Screenshots straight from a backend, scaled to the model's size when it differs from the
/// display (the coordinates a trajectory holds are the model's).
pub struct BackendScreen {
    backend: Arc<dyn Backend>,
    scaler: Option<Scaler>,
    page: Option<Arc<dyn BrowserBackend>>,
    elements: Option<Arc<dyn ElementSource>>,
}

impl std::fmt::Debug for BackendScreen {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("BackendScreen")
            .field("backend", &self.backend.name())
            .finish()
    }
}

impl BackendScreen {
    /// Screenshots of `backend` as they come (model size = display size).
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Self {
            backend,
            scaler: None,
            page: None,
            elements: None,
        }
    }

    /// Screenshots of a browser page, whose checks may also ask the page.
    pub fn browser(page: Arc<dyn BrowserBackend>) -> Self {
        Self {
            backend: page.clone(),
            scaler: None,
            page: Some(page),
            elements: None,
        }
    }

    /// The same screen, whose elements `elements` tells (a desktop application's
    /// accessibility tree).
    pub fn with_elements(mut self, elements: Arc<dyn ElementSource>) -> Self {
        self.elements = Some(elements);
        self
    }

    /// The same screen scaled by `scaler` to the model's size (the trajectory's coordinates).
    pub fn scaled(mut self, scaler: Scaler) -> Self {
        self.scaler = (!scaler.is_identity()).then_some(scaler);
        self
    }

    /// Scales `shot` to the model's size when needed and decodes it.
    async fn decode(&self, shot: retrace_drive::backend::Screenshot) -> Result<Image, String> {
        let shot = match &self.scaler {
            Some(scaler) => scaler
                .screenshot_for_model(shot)
                .map_err(|error| error.to_string())?,
            None => shot,
        };
        tokio::task::spawn_blocking(move || retrace_vision::decode_png(&shot.png))
            .await
            .map_err(|error| format!("decoding a screenshot: {error}"))?
            .map_err(|error| format!("decoding a screenshot: {error}"))
    }
}

#[async_trait]
impl Screen for BackendScreen {
    async fn capture(&self) -> Result<Image, String> {
        let shot = self.backend.screenshot().await;
        self.decode(shot.map_err(|error| error.to_string())?).await
    }

    async fn capture_as_shown(&self) -> Result<Image, String> {
        let shot = self.backend.screenshot_as_shown().await;
        self.decode(shot.map_err(|error| error.to_string())?).await
    }

    async fn capture_part(&self, part: Region) -> Result<Image, String> {
        // A page shown at another size than the trajectory's is captured whole and scaled.
        let (Some(page), None) = (&self.page, &self.scaler) else {
            return self.capture().await;
        };
        let (width, height) = page
            .display_size()
            .await
            .map_err(|error| error.to_string())?;
        if !part.fits(width, height) {
            return self.capture().await;
        }
        let shot = match page.screenshot_part(part).await {
            Ok(shot) => shot,
            Err(DriveError::Unsupported { .. }) => return self.capture().await,
            Err(error) => return Err(error.to_string()),
        };
        if (shot.width, shot.height) != (part.width(), part.height()) {
            // Not the pixels asked for (a page scaled on its own): the whole screen is.
            return self.capture().await;
        }
        tokio::task::spawn_blocking(move || {
            retrace_vision::decode_png(&shot.png)?.placed(part, width, height)
        })
        .await
        .map_err(|error| format!("decoding a screenshot: {error}"))?
        .map_err(|error| format!("decoding a screenshot: {error}"))
    }

    async fn part_capture_size(&self) -> Option<(u32, u32)> {
        match (&self.page, &self.scaler) {
            (Some(page), None) => page.display_size().await.ok(),
            _ => None,
        }
    }

    fn page(&self) -> Option<PageProbe> {
        self.page
            .as_ref()
            .map(|page| PageProbe::new(page.clone(), self.scaler))
    }

    fn elements(&self) -> Option<ElementProbe> {
        match &self.elements {
            Some(source) => Some(ElementProbe::new(source.clone(), self.scaler)),
            None => self.page().map(|page| page.elements()),
        }
    }
}

/// A trajectory point in the screen's pixels (through `scaler` when the model saw another
/// size); `None` off the screen.
fn to_screen(scaler: Option<&Scaler>, (x, y): (i64, i64)) -> Option<Point> {
    match scaler {
        Some(scaler) => scaler.to_display((x, y)).ok(),
        None => Some(Point {
            x: i32::try_from(x).ok()?,
            y: i32::try_from(y).ok()?,
        }),
    }
}

/// A screen point in the trajectory's coordinates.
fn to_trajectory(scaler: Option<&Scaler>, (x, y): (f64, f64)) -> (i64, i64) {
    let point = Point {
        x: x.round() as i32,
        y: y.round() as i32,
    };
    match scaler {
        Some(scaler) => scaler.to_model(point),
        None => (i64::from(point.x), i64::from(point.y)),
    }
}
