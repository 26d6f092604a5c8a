//! `retrace do`'s work: computer-tool actions run on a page (or an X11 desktop), in order,
//! the screenshot after each saved. The actions are read first ([`parse_actions`]), so a typo
//! fails before a browser starts; an [`ActionSession`] then runs them one by one, and the CLI
//! prints each [`ActionDone`] as it comes.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

use retrace_drive::Backend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::computer::ComputerTool;
use retrace_drive::computer::ComputerToolConfig;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_protocol::events::Events;

use crate::browser::BrowserConfig;
use crate::browser::PageLoad;
use crate::browser::open_page;
use crate::browser::write_png;
use crate::desktop::DesktopConfig;
use crate::desktop::DesktopTarget;
use crate::failure::Context;
use crate::failure::Failure;

/// Reads each action (one JSON input of the `computer` tool), naming the first bad one.
pub fn parse_actions(actions: &[String]) -> Result<Vec<serde_json::Value>, Failure> {
    actions
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let value: serde_json::Value = serde_json::from_str(text)
                .with_context(|| format!("action {} is not JSON: {text}", index + 1))?;
            retrace_drive::computer::action::parse(&value)
                .map_err(|message| Failure::msg(format!("action {}: {message}", index + 1)))?;
            Ok(value)
        })
        .collect()
}

/// Where the actions run.
#[derive(Debug)]
pub enum Where<'a> {
    /// A desktop; its notices go to the events.
    Desktop(DesktopConfig, &'a Events),
    /// A page of this browser at this address.
    Page(BrowserConfig, &'a str),
}

/// What one action did.
#[derive(Debug, Clone)]
pub struct ActionDone {
    /// The text the tool answered, if any.
    pub text: Option<String>,
    /// Where the screenshot after it was saved, if it was.
    pub screenshot: Option<PathBuf>,
}

/// An open page or desktop with the computer tool on it.
pub struct ActionSession<'a> {
    tool: ComputerTool,
    desktop: Option<(DesktopTarget, &'a Events)>,
    // Kept open while the actions run.
    _browser: Option<ChromiumBrowser>,
}

impl std::fmt::Debug for ActionSession<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionSession")
            .field("desktop", &self.desktop.as_ref().map(|(target, _)| target))
            .finish_non_exhaustive()
    }
}

async fn computer(
    backend: Arc<dyn Backend>,
    model_size: Option<(u32, u32)>,
) -> Result<ComputerTool, Failure> {
    ComputerTool::new(
        backend,
        ComputerToolConfig {
            model_size,
            screenshot_after_action: true,
            ..ComputerToolConfig::default()
        },
    )
    .await
    .map_err(Failure::of)
}

impl<'a> ActionSession<'a> {
    /// Opens the desktop or the page; `model_size` is the screen the actions' coordinates
    /// refer to, when it differs from the page's.
    pub async fn open(
        place: Where<'a>,
        model_size: Option<(u32, u32)>,
    ) -> Result<ActionSession<'a>, Failure> {
        match place {
            Where::Desktop(config, events) => {
                let target = config.open(None, events).await.map_err(Failure::of)?;
                match computer(target.backend(), model_size).await {
                    Ok(tool) => Ok(ActionSession {
                        tool,
                        desktop: Some((target, events)),
                        _browser: None,
                    }),
                    Err(error) => {
                        target.end(events).await;
                        Err(error)
                    }
                }
            }
            Where::Page(config, url) => {
                let browser = config.open().await.map_err(Failure::of)?;
                let page = open_page(&browser, url, PageLoad::Quiet)
                    .await
                    .map_err(Failure::of)?;
                Ok(ActionSession {
                    tool: computer(Arc::new(page), model_size).await?,
                    desktop: None,
                    _browser: Some(browser),
                })
            }
        }
    }

    /// Runs action number `step`, saving the screenshot after it in `screenshots` as
    /// `NNN-<action>.png` when given.
    pub async fn act(
        &self,
        step: usize,
        input: &serde_json::Value,
        screenshots: Option<&Path>,
    ) -> Result<ActionDone, Failure> {
        let name = input["action"].as_str().unwrap_or("action").to_owned();
        let output = match self.tool.call(input.clone()).await {
            Ok(output) => output,
            Err(ToolError::ForModel(message)) => {
                return Err(Failure::msg(format!("action {step} ({input}): {message}")));
            }
            Err(ToolError::Fatal(error)) => {
                return Err(Failure::because(format!("action {step} ({input})"), error));
            }
        };
        let screenshot = match (screenshots, &output.screenshot) {
            (Some(dir), Some(shot)) => {
                let path = dir.join(format!("{step:03}-{name}.png"));
                write_png(&path, &shot.png).map_err(Failure::of)?;
                Some(path)
            }
            _ => None,
        };
        Ok(ActionDone {
            text: output.text,
            screenshot,
        })
    }

    /// Ends the desktop's application, if one was started; a page closes with its browser.
    pub async fn end(self) {
        if let Some((target, events)) = self.desktop {
            target.end(events).await;
        }
    }
}
