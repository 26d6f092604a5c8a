//! `retrace screenshot`: opens a URL in headless Chromium and saves a PNG of it.

use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::ChromiumPage;

use crate::outcome::Outcome;

/// Save a PNG of a web page as headless Chromium renders it at a fixed viewport size.
///
/// The page is loaded, then given up to 10 s for its network to go quiet.
///
/// Examples:
///   retrace screenshot http://127.0.0.1:8080/ -o page.png
///   retrace screenshot https://example.com -o full.png --size 1024x768 --full-page
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ScreenshotArgs {
    /// The page to open (http, https, file or data URL).
    pub url: String,
    /// Where to write the PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// Capture the whole scrollable page, not just the viewport.
    #[arg(long)]
    pub full_page: bool,
    /// Print one JSON object (`path`, `width`, `height`) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// How to start the browser; shared with `retrace do`.
#[derive(Debug, Clone, clap::Args)]
pub struct BrowserArgs {
    /// Viewport size in CSS pixels, `WIDTHxHEIGHT`; screenshots are exactly this size.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    /// The Chromium executable.
    #[arg(long, env = "RETRACE_CHROMIUM", default_value = "/usr/bin/chromium")]
    pub chromium: PathBuf,
    /// Use a running Chromium instead of launching one: its DevTools endpoint, `ws://...` or
    /// `http://HOST:PORT` (started with `--remote-debugging-port=PORT`). The page opens in a
    /// browser context of its own, so it shares no cookies with other clients.
    #[arg(long, value_name = "URL", env = "RETRACE_CONNECT")]
    pub connect: Option<String>,
}

/// Parses `WIDTHxHEIGHT` (both at least 1).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 && w <= 10_000 && h <= 10_000 => Ok((w, h)),
        _ => Err(format!(
            "`{text}` is not a size: expected WIDTHxHEIGHT such as 1280x800 (1..10000 each)"
        )),
    }
}

/// Launches (or connects to) the browser, opens `url` and waits for the page to load and (up
/// to 10 s) for its network to go quiet.
pub async fn open(
    args: &BrowserArgs,
    url: &str,
) -> anyhow::Result<(ChromiumBrowser, ChromiumPage)> {
    let (browser, page) = open_loaded(args, url).await?;
    // A page that keeps polling never goes quiet; it is photographed as it is then.
    let _ = page.wait_for_network_idle(300, 10_000).await;
    Ok((browser, page))
}

/// Launches (or connects to) the browser and opens `url`, waiting for its load event only:
/// for callers that watch the screen themselves (a visual replay waits for the recorded
/// screen), the extra quiet time would only be a delay.
pub async fn open_loaded(
    args: &BrowserArgs,
    url: &str,
) -> anyhow::Result<(ChromiumBrowser, ChromiumPage)> {
    let browser = browser(args).await?;
    let page = browser.open_page().await?;
    page.navigate(url).await?;
    Ok((browser, page))
}

/// Launches the browser the flags name, or connects to the running one `--connect` gives.
pub async fn browser(args: &BrowserArgs) -> anyhow::Result<ChromiumBrowser> {
    Ok(match &args.connect {
        Some(endpoint) => ChromiumBrowser::connect(endpoint, args.size.0, args.size.1).await?,
        None => {
            let config = ChromiumConfig {
                executable: args.chromium.clone(),
                width: args.size.0,
                height: args.size.1,
                ..ChromiumConfig::default()
            };
            ChromiumBrowser::launch(&config).await?
        }
    })
}

/// Writes `png` to `path`, creating missing parent directories.
pub fn write_png(path: &Path, png: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, png).with_context(|| format!("cannot write {}", path.display()))
}

/// Builds the runtime the browser commands run on.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Opens the page, captures it, writes the PNG.
pub fn run(args: ScreenshotArgs) -> anyhow::Result<Outcome> {
    if args.output.is_dir() {
        bail!(
            "{} is a directory; give a file name such as page.png",
            args.output.display()
        );
    }
    let shot = runtime()?.block_on(async {
        let (_browser, page) = open(&args.browser, &args.url).await?;
        anyhow::Ok(page.capture(args.full_page).await?)
    })?;
    write_png(&args.output, &shot.png)?;
    if args.json {
        let line = serde_json::json!({
            "path": args.output,
            "width": shot.width,
            "height": shot.height,
        });
        println!("{line}");
    } else {
        println!(
            "wrote {} ({}x{}) of {}",
            args.output.display(),
            shot.width,
            shot.height,
            args.url
        );
    }
    Ok(Outcome::Pass)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(parse_size("1280x800"), Ok((1280, 800)));
        assert_eq!(parse_size("640X480"), Ok((640, 480)));
        for bad in ["1280", "0x800", "axb", "1280x", "20000x10"] {
            let error = parse_size(bad).unwrap_err();
            assert!(error.contains("WIDTHxHEIGHT"), "{bad}: {error}");
        }
    }
}
