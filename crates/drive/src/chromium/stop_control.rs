//! The recorder's stop control: a small window of the recording browser, beside the page's
//! window, with a Stop button and the checkpoint chord. It is a window of its own, not part of
//! the page, so no frame of the page (the screencast the step hashes come from) shows it and
//! the page's own scripts never see it.

use chromiumoxide::cdp::browser_protocol::browser::GetWindowForTargetParams;
use chromiumoxide::cdp::browser_protocol::inspector::EventDetached;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use chromiumoxide::cdp::js_protocol::runtime::AddBindingParams;
use chromiumoxide::cdp::js_protocol::runtime::EventBindingCalled;
use futures::StreamExt;
use tokio::sync::mpsc;

use super::ChromiumBrowser;
use super::ChromiumPage;
use super::demonstration::CHECKPOINT_CHORD;
use crate::error::DriveError;

/// The control window's title: what a person (or a test's `xdotool search`) finds it by.
pub const STOP_CONTROL_TITLE: &str = "retrace: recording";

/// The page function the Stop button calls.
const BINDING: &str = "__retraceStop";

/// The control window's size in pixels, and its gap from the page's window.
const SIZE: (i64, i64) = (320, 220);
const GAP: i64 = 8;

/// An open stop control; [`StopControl::pressed`] resolves when the person presses Stop or
/// closes the control's window.
pub struct StopControl {
    page: chromiumoxide::Page,
    pressed: mpsc::UnboundedReceiver<()>,
    watchers: Vec<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for StopControl {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StopControl")
            .finish_non_exhaustive()
    }
}

fn operation(detail: impl std::fmt::Display) -> DriveError {
    DriveError::Operation {
        backend: "chromium".to_owned(),
        doing: "opening the recorder's stop control".to_owned(),
        detail: detail.to_string(),
    }
}

/// The control's page: one Stop button filling the window's page area (whatever the
/// browser's toolbar leaves of it), the checkpoint chord written on it.
fn control_html() -> String {
    let chord = CHECKPOINT_CHORD.replace('+', " + ");
    format!(
        "<!doctype html><title>{STOP_CONTROL_TITLE}</title>\
         <body style=\"margin:0\">\
         <button id=\"stop\" style=\"width:100vw;height:100vh;font:18px sans-serif\" \
         onclick=\"{BINDING}('stop')\">Stop recording<br><small>{chord}: checkpoint on the \
         element under the pointer</small></button></body>"
    )
}

/// `text` as a `data:` URL (every byte but letters and digits percent-encoded).
fn data_url(text: &str) -> String {
    let mut url = String::from("data:text/html;charset=utf-8,");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

impl StopControl {
    /// Opens the control in `browser`, to the right of `beside`'s window, and gives the focus
    /// back to `beside`.
    pub async fn open(
        browser: &ChromiumBrowser,
        beside: &ChromiumPage,
    ) -> Result<Self, DriveError> {
        let main = beside.cdp_page();
        let window = main
            .execute(GetWindowForTargetParams {
                target_id: Some(main.target_id().clone()),
            })
            .await
            .map_err(operation)?;
        let bounds = &window.result.bounds;
        let mut target = CreateTargetParams::new(data_url(&control_html()));
        target.new_window = Some(true);
        target.background = Some(true);
        target.left = Some(bounds.left.unwrap_or(0) + bounds.width.unwrap_or(0) + GAP);
        target.top = bounds.top;
        target.width = Some(SIZE.0);
        target.height = Some(SIZE.1);
        let page = browser
            .cdp_browser()
            .new_page(target)
            .await
            .map_err(operation)?;
        let mut calls = page
            .event_listener::<EventBindingCalled>()
            .await
            .map_err(operation)?;
        let mut detached = page
            .event_listener::<EventDetached>()
            .await
            .map_err(operation)?;
        page.execute(AddBindingParams::new(BINDING))
            .await
            .map_err(operation)?;
        let (sender, pressed) = mpsc::unbounded_channel();
        let on_close = sender.clone();
        let watchers = vec![
            tokio::spawn(async move {
                while let Some(call) = calls.next().await {
                    if call.name == BINDING && sender.send(()).is_err() {
                        break;
                    }
                }
            }),
            tokio::spawn(async move {
                if detached.next().await.is_some() {
                    let _ = on_close.send(());
                }
            }),
        ];
        // The person acts in the page: its window keeps the focus.
        main.bring_to_front().await.map_err(operation)?;
        Ok(Self {
            page,
            pressed,
            watchers,
        })
    }

    /// Resolves when the person pressed Stop or closed the control's window.
    pub async fn pressed(&mut self) {
        if self.pressed.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
    }

    /// Closes the control's window (best effort: the browser may be on its way out).
    pub async fn close(self) {
        for watcher in &self.watchers {
            watcher.abort();
        }
        let _ = self.page.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_control_page_is_a_data_url_with_its_button_and_title() {
        let url = data_url(&control_html());
        assert!(url.starts_with("data:text/html;charset=utf-8,%3C%21doctype"));
        assert!(!url.contains(' ') && !url.contains('#'), "{url}");
        let html = control_html();
        assert!(html.contains(&format!("<title>{STOP_CONTROL_TITLE}</title>")));
        assert!(html.contains(&format!("onclick=\"{BINDING}('stop')\"")));
        assert!(html.contains("ctrl + shift + k"));
    }
}
