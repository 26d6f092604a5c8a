//! Where a check's browsers come from: launched here, or given by the runner.

use futures::future::BoxFuture;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;

use crate::error::CheckError;
use crate::spec::Viewport;

/// Where a check's browsers come from: one per viewport, opened at that size. The check
/// launches the spec's Chromium by default ([`LaunchChromium`]); the runner gives its own
/// browser configuration (a remote browser, a farm) through this.
pub trait BrowserSource: Sync {
    /// A browser whose pages are `viewport` in size.
    fn open(&self, viewport: Viewport) -> BoxFuture<'_, Result<ChromiumBrowser, String>>;

    /// Names the browser in errors: `Chromium (/usr/bin/chromium)`.
    fn describe(&self) -> String;
}

/// Launching a Chromium executable headless at each viewport.
#[derive(Debug, Clone)]
pub struct LaunchChromium(pub std::path::PathBuf);

impl BrowserSource for LaunchChromium {
    fn open(&self, viewport: Viewport) -> BoxFuture<'_, Result<ChromiumBrowser, String>> {
        Box::pin(async move {
            let config = ChromiumConfig {
                executable: self.0.clone(),
                width: viewport.width,
                height: viewport.height,
                ..ChromiumConfig::default()
            };
            ChromiumBrowser::launch(&config)
                .await
                .map_err(|error| error.to_string())
        })
    }

    fn describe(&self) -> String {
        format!("Chromium ({})", self.0.display())
    }
}

/// Opens `source`'s browser at `viewport`, a failure naming the browser and the viewport.
pub(crate) async fn open_at(
    source: &dyn BrowserSource,
    viewport: Viewport,
) -> Result<ChromiumBrowser, CheckError> {
    source
        .open(viewport)
        .await
        .map_err(|detail| CheckError::Browser {
            browser: source.describe(),
            viewport,
            detail,
        })
}
