//! [`ChromiumPage`]'s [`Backend`] half: the display size, whole screenshots, and the pointer
//! and keyboard input every backend takes, sent over CDP.

use async_trait::async_trait;

use super::*;

#[async_trait]
impl Backend for ChromiumPage {
    fn name(&self) -> &str {
        BACKEND
    }

    async fn display_size(&self) -> Result<(u32, u32), DriveError> {
        Ok((self.core.width, self.core.height))
    }

    /// `Page.captureScreenshot` of the viewport: fresh by construction (see the module
    /// docs). It is also the screen as shown, so [`Backend::screenshot_as_shown`] keeps its
    /// default.
    async fn screenshot(&self) -> Result<Screenshot, DriveError> {
        self.capture(false).await
    }

    async fn mouse_move(&self, to: Point) -> Result<(), DriveError> {
        let doing = format!("moving the mouse to ({}, {})", to.x, to.y);
        self.check_open(&doing)?;
        self.input
            .move_to(&self.page, to)
            .await
            .map_err(|e| self.error(&doing, e))
    }

    async fn mouse_down(&self, button: MouseButton) -> Result<(), DriveError> {
        let doing = format!("pressing the {button:?} mouse button");
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .down(&self.page, button, 1)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn mouse_up(&self, button: MouseButton) -> Result<(), DriveError> {
        let doing = format!("releasing the {button:?} mouse button");
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .up(&self.page, button, 1)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn click(&self, at: Point, button: MouseButton, count: u32) -> Result<(), DriveError> {
        let doing = format!("clicking at ({}, {})", at.x, at.y);
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .click(&self.page, at, button, count)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn drag(&self, from: Point, to: Point) -> Result<(), DriveError> {
        let doing = format!(
            "dragging from ({}, {}) to ({}, {})",
            from.x, from.y, to.x, to.y
        );
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .drag(&self.page, from, to)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn scroll(
        &self,
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), DriveError> {
        let doing = format!(
            "scrolling {direction:?} by {amount} at ({}, {})",
            at.x, at.y
        );
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .scroll(&self.page, at, direction, amount)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn type_text(&self, text: &str, delay_ms: Option<u64>) -> Result<(), DriveError> {
        let doing = format!("typing {} characters", text.chars().count());
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .type_text(&self.page, text, delay_ms.map(Duration::from_millis))
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn key(&self, combo: &str) -> Result<(), DriveError> {
        let keys = input::parse(combo)?;
        let doing = format!("pressing `{combo}`");
        self.check_open(&doing)?;
        self.network.touch();
        self.input
            .keys_down(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.input
            .keys_up(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))?;
        self.dialogs.unexpected_error(&doing)
    }

    async fn hold_key(&self, combo: &str, duration_ms: u64) -> Result<(), DriveError> {
        let keys = input::parse(combo)?;
        let doing = format!("holding `{combo}` for {duration_ms} ms");
        self.check_open(&doing)?;
        self.input
            .keys_down(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))?;
        tokio::time::sleep(Duration::from_millis(duration_ms)).await;
        self.input
            .keys_up(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))
    }

    async fn key_down(&self, combo: &str) -> Result<(), DriveError> {
        let keys = input::parse(combo)?;
        let doing = format!("pressing down `{combo}`");
        self.check_open(&doing)?;
        self.input
            .keys_down(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))
    }

    async fn key_up(&self, combo: &str) -> Result<(), DriveError> {
        let keys = input::parse(combo)?;
        let doing = format!("releasing `{combo}`");
        self.check_open(&doing)?;
        self.input
            .keys_up(&self.page, &keys)
            .await
            .map_err(|e| self.error(&doing, e))
    }

    async fn cursor_position(&self) -> Result<Point, DriveError> {
        Ok(self.input.cursor())
    }

    fn as_browser(&self) -> Option<&dyn BrowserBackend> {
        Some(self)
    }
}
