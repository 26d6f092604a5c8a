//! The window of a headed browser (`retrace record`): sized so that its viewport, the window
//! less the tab strip and toolbar Chromium draws around it, is exactly the recorded size, so
//! what the person sees is what replay captures.

use std::time::Duration;
use std::time::Instant;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::Bounds;
use chromiumoxide::cdp::browser_protocol::browser::GetWindowForTargetParams;
use chromiumoxide::cdp::browser_protocol::browser::SetWindowBoundsParams;
use chromiumoxide::cdp::browser_protocol::emulation::ClearDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;

use super::connection::BACKEND;
use crate::error::DriveError;

/// How long the window may take to reach its size (a resize is applied asynchronously).
const RESIZE_BUDGET: Duration = Duration::from_secs(10);

/// Between two looks at the window's size.
const RESIZE_POLL: Duration = Duration::from_millis(20);

fn operation(detail: impl std::fmt::Display) -> DriveError {
    DriveError::Operation {
        backend: BACKEND.to_owned(),
        doing: "sizing the browser window".to_owned(),
        detail: detail.to_string(),
    }
}

/// The page's real `[a, b]` (an expression of two numbers), with no emulation in the way.
async fn pair(page: &Page, expression: &str) -> Result<[i64; 2], DriveError> {
    let values: Vec<i64> = page
        .evaluate(expression)
        .await
        .map_err(operation)?
        .into_value()
        .map_err(operation)?;
    match values[..] {
        [a, b] => Ok([a, b]),
        _ => Err(operation("the page did not say its window size")),
    }
}

/// Resizes the headed window showing `page` so its viewport is `width` x `height` CSS pixels,
/// then shows the page at that size as every page is (device metrics, scale 1). Fails when
/// the screen is too small to hold such a window.
pub async fn fit_window(page: &Page, width: u32, height: u32) -> Result<(), DriveError> {
    // The page's emulated size hides the window's: measure without it, once the renderer has
    // dropped it (the window was opened `width` x `height` outside, so while the emulation
    // lasts the viewport reads `width` x `height` and the window no taller; a window with no
    // toolbar reads so for good, and then needs nothing added).
    page.execute(ClearDeviceMetricsOverrideParams::default())
        .await
        .map_err(operation)?;
    let wanted = [i64::from(width), i64::from(height)];
    let started = Instant::now();
    let [extra_width, extra_height] = loop {
        let inner = pair(page, "[innerWidth, innerHeight]").await?;
        let outer = pair(page, "[outerWidth, outerHeight]").await?;
        if inner != wanted || outer[1] > wanted[1] || started.elapsed() > RESIZE_BUDGET {
            break [outer[0] - inner[0], outer[1] - inner[1]];
        }
        tokio::time::sleep(RESIZE_POLL).await;
    };
    let window = page
        .execute(GetWindowForTargetParams {
            target_id: Some(page.target_id().clone()),
        })
        .await
        .map_err(operation)?;
    let bounds = Bounds {
        width: Some(i64::from(width) + extra_width),
        height: Some(i64::from(height) + extra_height),
        ..Bounds::default()
    };
    page.execute(SetWindowBoundsParams::new(window.result.window_id, bounds))
        .await
        .map_err(operation)?;
    let started = Instant::now();
    loop {
        let viewport = pair(page, "[innerWidth, innerHeight]").await?;
        if viewport == wanted {
            break;
        }
        if started.elapsed() > RESIZE_BUDGET {
            return Err(DriveError::InvalidInput(format!(
                "the browser window's viewport stayed {}x{}, not {width}x{height}: the screen is \
                 too small for it (choose a smaller --size)",
                viewport[0], viewport[1]
            )));
        }
        tokio::time::sleep(RESIZE_POLL).await;
    }
    page.execute(SetDeviceMetricsOverrideParams::new(
        i64::from(width),
        i64::from(height),
        1.0,
        false,
    ))
    .await
    .map_err(operation)?;
    Ok(())
}
