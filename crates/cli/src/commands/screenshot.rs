//! `retrace screenshot`: opens a URL in headless Chromium (or looks at an X11 desktop) and
//! saves a PNG of it.

use std::path::PathBuf;

use anyhow::bail;
use retrace_runner::browser::PageLoad;
use retrace_runner::browser::open_page;
use retrace_runner::browser::write_png;

use super::browser_args::BrowserArgs;
use super::browser_args::parse_size;
use super::desktop_args::DesktopArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Save a PNG of a web page as headless Chromium renders it at a fixed viewport size.
///
/// The page is loaded, then given up to 10 s for its network to go quiet.
///
/// Examples:
///   retrace screenshot http://127.0.0.1:8080/ -o page.png
///   retrace screenshot https://example.com -o full.png --size 1024x768 --full-page
///   retrace screenshot --display :99 --app "mousepad --disable-server" --window Mousepad -o editor.png
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ScreenshotArgs {
    /// The page to open (http, https, file or data URL); none with --display / --desktop.
    pub url: Option<String>,
    #[command(flatten)]
    pub desktop: DesktopArgs,
    /// Where to write the PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Viewport size in CSS pixels, `WIDTHxHEIGHT`; screenshots are exactly this size.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// Capture the whole scrollable page, not just the viewport.
    #[arg(long)]
    pub full_page: bool,
    /// Print one JSON object (`path`, `width`, `height`) instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// Opens the page, captures it, writes the PNG.
pub fn run(args: ScreenshotArgs) -> anyhow::Result<Outcome> {
    if args.output.is_dir() {
        bail!(
            "{} is a directory; give a file name such as page.png",
            args.output.display()
        );
    }
    let desktop = args.desktop.config(args.url.as_deref())?;
    let runtime = retrace_runner::runtime()?;
    let (shot, of) = match &desktop {
        Some(desktop) => runtime.block_on(async {
            let events = super::desktop_args::notices();
            let target = desktop.open(None, &events).await?;
            let shot = target.screenshot().await;
            let of = target.describe();
            target.end(&events).await;
            anyhow::Ok((shot?, of))
        })?,
        None => runtime.block_on(async {
            let url = args.url.clone().unwrap_or_default();
            let browser = args.browser.config(args.size).open().await?;
            let page = open_page(&browser, &url, PageLoad::Quiet).await?;
            anyhow::Ok((page.capture(args.full_page).await?, url))
        })?,
    };
    write_png(&args.output, &shot.png)?;
    if args.json {
        let line = serde_json::json!({
            "path": args.output,
            "width": shot.width,
            "height": shot.height,
        });
        out!("{line}");
    } else {
        out!(
            "wrote {} ({}x{}) of {}",
            args.output.display(),
            shot.width,
            shot.height,
            of
        );
    }
    Ok(Outcome::Pass)
}
