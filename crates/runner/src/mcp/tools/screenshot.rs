//! `screenshot`: a PNG of a page as the server's browser renders it, as `retrace screenshot`
//! does (`crate::browser::open_page`, then a capture), written to a file and sent
//! back shrunk as image content.

use std::path::PathBuf;

use crate::browser::PageLoad;
use crate::browser::open_page;
use crate::browser::write_png;
use rmcp::model::CallToolResult;
use rmcp::model::Tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::declaration::declare;
use super::shared_args::shown;
use crate::mcp::call::CallContext;
use crate::mcp::call::ToolError;
use crate::mcp::call::parse_size;
use crate::mcp::state::SharedState;

/// The tool's name.
pub const NAME: &str = "screenshot";

const DESCRIPTION: &str = "Take a PNG screenshot of a page in headless Chromium at a fixed \
viewport (the page is loaded, then given up to 10 s for its network to go quiet). The file is \
written (its path in the result) and a shrunk copy is attached as an image.";

/// `screenshot`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The page to open (http, https, file or data URL).
    pub url: String,
    /// Viewport `WIDTHxHEIGHT` (default `1280x800`).
    #[serde(default)]
    pub size: Option<String>,
    /// Capture the whole scrollable page, not just the viewport.
    #[serde(default)]
    pub full_page: bool,
    /// Where to write the PNG (default: a fresh folder under the server's `--out`).
    #[serde(default)]
    pub output: Option<String>,
}

/// `screenshot`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The PNG written.
    pub path: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// The declaration.
pub fn tool() -> Tool {
    declare::<Input, Output>(NAME, DESCRIPTION)
}

/// Takes the screenshot.
pub async fn call(
    shared: &SharedState,
    input: Input,
    context: &CallContext,
) -> Result<CallToolResult, ToolError> {
    let size = match &input.size {
        Some(text) => parse_size("size", text)?,
        None => crate::replay::DEFAULT_SIZE,
    };
    let path = input
        .output
        .as_ref()
        .map_or_else(|| shared.call_dir(NAME).join("page.png"), PathBuf::from);
    if path.is_dir() {
        return Err(ToolError::argument(
            "output",
            format!(
                "{} is a folder; give a file name such as page.png",
                path.display()
            ),
        ));
    }
    let browser = shared.warm.run_at(size).await.map_err(ToolError::failed)?;
    let shot = tokio::select! {
        shot = async {
            let page = open_page(&browser, &input.url, PageLoad::Quiet).await?;
            let shot = page.capture(input.full_page).await;
            drop(page);
            Ok::<_, crate::RunnerError>(shot?)
        } => shot,
        () = context.cancel.cancelled() => return Err(ToolError::Failed("cancelled".into())),
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), browser.close()).await;
    let shot = shot.map_err(ToolError::failed)?;
    write_png(&path, &shot.png).map_err(ToolError::failed)?;
    let image = crate::mcp::images::downscale_png(&shot.png, crate::mcp::images::MAX_SIDE)
        .map(|png| crate::mcp::images::png_block(&png))
        .map_err(ToolError::failed)?;
    let output = Output {
        path: shown(&path),
        width: shot.width,
        height: shot.height,
    };
    context.result(&output, vec![image])
}
