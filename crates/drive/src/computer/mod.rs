//! The `computer` tool: Anthropic's computer-use action set (every form's: `zoom` of
//! `computer_20251124` and the toolset included) on any [`Backend`], with coordinates scaled
//! between the size the model sees and the display.
//!
//! ```no_run
//! # async fn demo(page: std::sync::Arc<dyn retrace_drive::Backend>) -> Result<(), retrace_drive::tool::ToolError> {
//! use retrace_drive::computer::{ComputerTool, ComputerToolConfig};
//! use retrace_drive::tool::Tool;
//!
//! let tool = ComputerTool::new(page, ComputerToolConfig::default()).await?;
//! let output = tool
//!     .call(serde_json::json!({"action": "left_click", "coordinate": [640, 400]}))
//!     .await?;
//! assert!(output.screenshot.is_some());
//! # Ok(())
//! # }
//! ```

pub mod action;
pub mod scale;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

pub use self::action::Action;
pub use self::scale::Scaler;
use crate::backend::Backend;
use crate::backend::MouseButton;
use crate::error::DriveError;
use crate::tool::Tool;
use crate::tool::ToolError;
use crate::tool::ToolOutput;
use crate::tool::ToolSpec;

/// How the computer tool behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputerToolConfig {
    /// The screen size the model sees and gives coordinates in; `None` uses the display
    /// size. Anthropic recommends at most 1280x800 (WXGA).
    pub model_size: Option<(u32, u32)>,
    /// Whether every action answers with a screenshot taken after it.
    pub screenshot_after_action: bool,
    /// Before that screenshot, how long the page's network must have been quiet (browsers)
    /// or how long to wait (other backends), in ms.
    pub settle_ms: u64,
    /// The longest wait for the network to go quiet before the screenshot, in ms. Not an
    /// error when it passes: pages with polling never go quiet.
    pub settle_timeout_ms: u64,
}

impl Default for ComputerToolConfig {
    fn default() -> Self {
        Self {
            model_size: None,
            screenshot_after_action: true,
            settle_ms: 100,
            settle_timeout_ms: 2_000,
        }
    }
}

/// The `computer` tool over one backend.
pub struct ComputerTool {
    backend: Arc<dyn Backend>,
    config: ComputerToolConfig,
    scaler: Scaler,
}

impl std::fmt::Debug for ComputerTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComputerTool")
            .field("backend", &self.backend.name())
            .field("config", &self.config)
            .field("scaler", &self.scaler)
            .finish()
    }
}

impl ComputerTool {
    /// A tool acting on `backend`; reads the display size once to set up scaling.
    pub async fn new(
        backend: Arc<dyn Backend>,
        config: ComputerToolConfig,
    ) -> Result<Self, DriveError> {
        let display = backend.display_size().await?;
        if let Some((width, height)) = config.model_size
            && (width == 0 || height == 0)
        {
            return Err(DriveError::InvalidInput(format!(
                "the model screen size {width}x{height} has a zero side"
            )));
        }
        let scaler = Scaler {
            model: config.model_size.unwrap_or(display),
            display,
        };
        Ok(Self {
            backend,
            config,
            scaler,
        })
    }

    /// The size the model sees (width, height): what an API request declares as the
    /// display size of the `computer_20250124` tool.
    pub fn model_size(&self) -> (u32, u32) {
        self.scaler.model
    }

    /// The backend this tool acts on.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// The tool as Anthropic's API declares its built-in computer tool.
    pub fn api_definition(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "computer_20250124",
            "name": retrace_protocol::tool_names::COMPUTER,
            "display_width_px": self.scaler.model.0,
            "display_height_px": self.scaler.model.1,
        })
    }

    /// Runs one parsed action.
    pub async fn run(&self, action: &Action) -> Result<ToolOutput, ToolError> {
        let backend = self.backend.as_ref();
        let point = |p: (i64, i64)| self.scaler.to_display(p).map_err(ToolError::ForModel);
        match action {
            Action::Screenshot => return self.screenshot_output(false).await,
            Action::Zoom { from, to } => return self.zoom(*from, *to).await,
            Action::CursorPosition => {
                let (x, y) = self.scaler.to_model(backend.cursor_position().await?);
                return Ok(ToolOutput::text(format!("X={x},Y={y}")));
            }
            Action::Click {
                button,
                count,
                at,
                modifiers,
            } => {
                let at = match at {
                    Some(at) => point(*at)?,
                    None => backend.cursor_position().await?,
                };
                self.with_modifiers(modifiers.as_deref(), backend.click(at, *button, *count))
                    .await?;
            }
            Action::MouseMove(to) => backend.mouse_move(point(*to)?).await?,
            Action::Drag { from, to } => backend.drag(point(*from)?, point(*to)?).await?,
            Action::MouseDown => backend.mouse_down(MouseButton::Left).await?,
            Action::MouseUp => backend.mouse_up(MouseButton::Left).await?,
            Action::Scroll {
                at,
                direction,
                amount,
                modifiers,
            } => {
                let at = match at {
                    Some(at) => point(*at)?,
                    None => backend.cursor_position().await?,
                };
                self.with_modifiers(
                    modifiers.as_deref(),
                    backend.scroll(at, *direction, *amount),
                )
                .await?;
            }
            Action::SelectOption { at, option } => {
                let Some(browser) = backend.as_browser() else {
                    return Err(ToolError::ForModel(
                        "select_option needs a browser page; on a desktop, click the dropdown \
                         and then its option"
                            .to_owned(),
                    ));
                };
                let at = point(*at)?;
                browser
                    .select_option(at, option)
                    .await
                    .map_err(for_model_if_input)?;
            }
            Action::Type(text) => backend.type_text(text, None).await?,
            Action::Key { combo, repeat } => {
                for _ in 0..*repeat {
                    backend.key(combo).await.map_err(for_model_if_input)?;
                }
            }
            Action::HoldKey { combo, seconds } => backend
                .hold_key(combo, (seconds * 1000.0).round() as u64)
                .await
                .map_err(for_model_if_input)?,
            Action::Wait(seconds) => {
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
            }
        }
        if self.config.screenshot_after_action {
            self.screenshot_output(true).await
        } else {
            Ok(ToolOutput::default())
        }
    }

    /// Runs `act` with the `modifiers` combo held down, releasing it even when `act` fails.
    async fn with_modifiers(
        &self,
        modifiers: Option<&str>,
        act: impl Future<Output = Result<(), DriveError>>,
    ) -> Result<(), ToolError> {
        let Some(combo) = modifiers else {
            return Ok(act.await?);
        };
        self.backend
            .key_down(combo)
            .await
            .map_err(for_model_if_input)?;
        let acted = act.await;
        let released = self.backend.key_up(combo).await;
        acted?;
        Ok(released?)
    }

    /// Waits for the screen to settle after an action: on a browser, the network quiet and
    /// no navigation under way (a form submission's document load is one even when its
    /// request was not seen in flight), each for `settle_ms`, within `settle_timeout_ms` in
    /// all. The screenshot that follows is what a recording stores as the action's effect,
    /// so it must not show the page the action is leaving.
    async fn settle(&self) {
        match self.backend.as_browser() {
            // Not an error when it times out: some pages poll forever.
            Some(browser) => {
                let started = std::time::Instant::now();
                let timeout = Duration::from_millis(self.config.settle_timeout_ms);
                let quiet = Duration::from_millis(self.config.settle_ms);
                let _ = browser
                    .wait_for_network_idle(self.config.settle_ms, self.config.settle_timeout_ms)
                    .await;
                while started.elapsed() < timeout {
                    match browser.page_activity().await {
                        Ok(activity)
                            if activity.navigation_pending
                                || activity.navigation_quiet_for < quiet =>
                        {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        _ => break,
                    }
                }
            }
            // A desktop window tells when its content is still; elsewhere, a short pause.
            None => {
                let timeout = Duration::from_millis(self.config.settle_timeout_ms);
                if !matches!(self.backend.wait_still(timeout).await, Ok(Some(_))) {
                    tokio::time::sleep(Duration::from_millis(self.config.settle_ms)).await;
                }
            }
        }
    }

    /// A screenshot at the model size, after letting the screen settle when `settle`.
    async fn screenshot_output(&self, settle: bool) -> Result<ToolOutput, ToolError> {
        if settle {
            self.settle().await;
        }
        let shot = self.backend.screenshot().await?;
        let shot = self.scaler.screenshot_for_model(shot).map_err(|e| {
            ToolError::Fatal(DriveError::Operation {
                backend: self.backend.name().to_owned(),
                doing: "resizing a screenshot to the model size".to_owned(),
                detail: e.to_string(),
            })
        })?;
        Ok(ToolOutput {
            screenshot: Some(shot),
            ..ToolOutput::default()
        })
    }
}

impl ComputerTool {
    /// The region from `from` to `to` (model coordinates, `to` exclusive) cut from a
    /// screenshot of the display at its own resolution: the detail a downscaled screenshot
    /// loses.
    async fn zoom(&self, from: (i64, i64), to: (i64, i64)) -> Result<ToolOutput, ToolError> {
        let (mw, mh) = self.scaler.model;
        if to.0 > i64::from(mw) || to.1 > i64::from(mh) {
            return Err(ToolError::ForModel(format!(
                "the zoom region [{}, {}, {}, {}] leaves the {mw}x{mh} screenshot",
                from.0, from.1, to.0, to.1
            )));
        }
        let shot = self.backend.screenshot().await?;
        let fail = |detail: String| {
            ToolError::Fatal(DriveError::Operation {
                backend: self.backend.name().to_owned(),
                doing: "cutting a zoomed region from a screenshot".to_owned(),
                detail,
            })
        };
        let scale = |v: i64, model: u32, display: u32| -> u32 {
            let scaled = (v as f64 * f64::from(display) / f64::from(model)).round();
            (scaled.max(0.0) as u32).min(display)
        };
        let (w, h) = (shot.width.max(1), shot.height.max(1));
        let x0 = scale(from.0, mw, w).min(w - 1);
        let y0 = scale(from.1, mh, h).min(h - 1);
        let x1 = scale(to.0, mw, w).clamp(x0 + 1, w);
        let y1 = scale(to.1, mh, h).clamp(y0 + 1, h);
        let (width, height) = (x1 - x0, y1 - y0);
        let image = retrace_vision::decode_png(&shot.png).map_err(|e| fail(e.to_string()))?;
        let rgba = image.to_rgba();
        let row = w as usize * 4;
        let mut region = Vec::with_capacity(width as usize * height as usize * 4);
        for y in y0..y1 {
            let start = y as usize * row + x0 as usize * 4;
            let end = y as usize * row + x1 as usize * 4;
            let Some(pixels) = rgba.get(start..end) else {
                return Err(fail(format!(
                    "the screenshot has fewer pixels than its {w}x{h} size"
                )));
            };
            region.extend_from_slice(pixels);
        }
        let png = retrace_vision::encode_png_rgba(width, height, &region)
            .map_err(|e| fail(e.to_string()))?;
        Ok(ToolOutput {
            text: Some(format!(
                "zoom of [{}, {}, {}, {}]: {width}x{height} pixels",
                from.0, from.1, to.0, to.1
            )),
            screenshot: Some(crate::backend::Screenshot { png, width, height }),
            switch_to: None,
        })
    }
}

/// Bad key names come from the model: they go back to it rather than ending the run.
fn for_model_if_input(error: DriveError) -> ToolError {
    match error {
        DriveError::InvalidInput(message) => ToolError::ForModel(message),
        other => ToolError::from(other),
    }
}

#[async_trait]
impl Tool for ComputerTool {
    fn name(&self) -> &str {
        retrace_protocol::tool_names::COMPUTER
    }

    fn description(&self) -> &str {
        retrace_protocol::computer_tool::description()
    }

    fn input_schema(&self) -> serde_json::Value {
        action::input_schema()
    }

    fn cacheable(&self) -> bool {
        true
    }

    /// Offered as the computer-use tool at the size the model sees.
    fn spec(&self) -> ToolSpec {
        let (width, height) = self.model_size();
        ToolSpec::computer(width, height)
    }

    async fn call(&self, input: serde_json::Value) -> Result<ToolOutput, ToolError> {
        let action = action::parse(&input).map_err(ToolError::ForModel)?;
        self.run(&action).await
    }
}
