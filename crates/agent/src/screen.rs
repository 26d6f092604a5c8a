//! [`Screen`]: fresh screenshots for replay's visual checks, decoded and in the coordinate
//! space the trajectory was recorded in.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::Backend;
use retrace_drive::computer::Scaler;
use retrace_vision::Image;
use retrace_vision::Region;
use retrace_vision::action_region;

/// How long a region capture may take before a whole screenshot is taken instead.
const REGION_CAPTURE_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1500);

/// A screenshot, or the part of one a check needs: `image` and where the asked region lies
/// in it (all of `image` when only the region was captured).
#[derive(Debug, Clone)]
pub struct RegionCapture {
    /// The pixels captured.
    pub image: Image,
    /// The asked region, in `image`'s coordinates.
    pub region: Region,
}

/// A source of fresh screenshots.
#[async_trait]
pub trait Screen: Send + Sync {
    /// Takes a screenshot now and decodes it.
    async fn capture(&self) -> Result<Image, String>;

    /// The region of `region_size` around `point` (the askui rules of
    /// [`retrace_vision::action_region`]), captured now. A screen that can capture only that
    /// part (a browser) does, which makes a visual check several times cheaper than a whole
    /// screenshot; the default takes a whole screenshot and points into it.
    async fn capture_region(
        &self,
        point: (i64, i64),
        region_size: u32,
    ) -> Result<RegionCapture, String> {
        let image = self.capture().await?;
        let region = action_region(point, region_size, image.width(), image.height());
        Ok(RegionCapture { image, region })
    }
}

/// Screenshots straight from a backend, scaled to the model's size when it differs from the
/// display (the coordinates a trajectory holds are the model's).
pub struct BackendScreen {
    backend: Arc<dyn Backend>,
    scaler: Option<Scaler>,
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
        }
    }

    /// Screenshots of `backend` scaled by `scaler` to the model's size.
    pub fn scaled(backend: Arc<dyn Backend>, scaler: Scaler) -> Self {
        Self {
            backend,
            scaler: Some(scaler),
        }
    }
}

#[async_trait]
impl Screen for BackendScreen {
    async fn capture(&self) -> Result<Image, String> {
        let shot = self
            .backend
            .screenshot()
            .await
            .map_err(|error| error.to_string())?;
        let shot = match &self.scaler {
            Some(scaler) => scaler
                .screenshot_for_model(shot)
                .map_err(|error| error.to_string())?,
            None => shot,
        };
        decode(shot.png).await
    }

    async fn capture_region(
        &self,
        point: (i64, i64),
        region_size: u32,
    ) -> Result<RegionCapture, String> {
        // A scaled screen's regions are in the model's pixels: cut from a scaled whole.
        if self.scaler.is_none() {
            let (width, height) = self
                .backend
                .display_size()
                .await
                .map_err(|error| error.to_string())?;
            let region = action_region(point, region_size, width, height);
            let asked = retrace_drive::Region {
                left: region.left,
                top: region.top,
                width: region.width(),
                height: region.height(),
            };
            // A clipped capture can stall while a page navigates (Chromium waits for a frame
            // of the new document); a failed, stalled or odd-sized one (a device pixel ratio
            // other than 1) gives way to cutting from a whole screenshot.
            let shot = tokio::time::timeout(
                REGION_CAPTURE_TIMEOUT,
                self.backend.screenshot_region(asked),
            )
            .await;
            if let Ok(Ok(Some(shot))) = shot
                && (shot.width, shot.height) == (asked.width, asked.height)
            {
                let image = decode(shot.png).await?;
                let region = Region::full(image.width(), image.height());
                return Ok(RegionCapture { image, region });
            }
        }
        let image = self.capture().await?;
        let region = action_region(point, region_size, image.width(), image.height());
        Ok(RegionCapture { image, region })
    }
}

/// Decodes a PNG off the async threads.
async fn decode(png: Vec<u8>) -> Result<Image, String> {
    tokio::task::spawn_blocking(move || retrace_vision::decode_png(&png))
        .await
        .map_err(|error| format!("decoding a screenshot: {error}"))?
        .map_err(|error| format!("decoding a screenshot: {error}"))
}
