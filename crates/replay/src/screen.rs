//! [`Screen`]: fresh screenshots for replay's visual checks, decoded and in the coordinate
//! space the trajectory was recorded in.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::Backend;
use retrace_drive::computer::Scaler;
use retrace_vision::Image;

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
}
