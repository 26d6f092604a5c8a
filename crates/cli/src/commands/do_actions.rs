//! `retrace do`: runs `computer` tool actions on a page (or an X11 desktop), in order, saving
//! the screenshot after each. Handy for trying actions and for debugging recordings.

use std::path::PathBuf;

use retrace_runner::do_actions::ActionSession;
use retrace_runner::do_actions::Where;

use super::browser_args::BrowserArgs;
use super::browser_args::parse_size;
use super::desktop_args::DesktopArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Open a page in headless Chromium and run computer-tool actions on it, in order.
///
/// Prints one line per action and saves the screenshot taken after each.
/// Each ACTION_JSON is one input of the `computer` tool (Anthropic computer use).
///
/// Example:
///   retrace do http://127.0.0.1:8080/ \
///     '{"action": "left_click", "coordinate": [640, 300]}' \
///     '{"action": "type", "text": "demo"}' '{"action": "key", "text": "Return"}' \
///     --screenshots shots/
///   retrace do --display :99 --app "mousepad --disable-server" --window Mousepad \
///     '{"action": "left_click", "coordinate": [300, 200]}' '{"action": "type", "text": "hi"}'
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct DoArgs {
    /// The page to open; none with --display / --desktop (actions only).
    pub url: Option<String>,
    /// Actions as JSON objects, e.g. '{"action": "key", "text": "Tab"}'.
    #[arg(value_name = "ACTION_JSON")]
    pub actions: Vec<String>,
    #[command(flatten)]
    pub desktop: DesktopArgs,
    /// Save the screenshot after each action here, as `NNN-<action>.png`.
    #[arg(long, value_name = "DIR")]
    pub screenshots: Option<PathBuf>,
    /// Viewport size in CSS pixels, `WIDTHxHEIGHT`; screenshots are exactly this size.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_size)]
    pub size: (u32, u32),
    #[command(flatten)]
    pub browser: BrowserArgs,
    /// The screen size the actions' coordinates refer to, when it differs from `--size`.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub model_size: Option<(u32, u32)>,
    /// Print one JSON object per action (`step`, `action`, `text`, `screenshot`).
    #[arg(long)]
    pub json: bool,
}

/// Parses every action first (so a typo fails before the browser starts), then runs them.
pub fn run(mut args: DoArgs) -> anyhow::Result<Outcome> {
    // On a desktop there is no page: the first argument is an action.
    if (args.desktop.display.is_some() || args.desktop.desktop)
        && let Some(first) = args.url.take()
    {
        args.actions.insert(0, first);
    }
    if args.actions.is_empty() {
        anyhow::bail!("give at least one ACTION_JSON, such as '{{\"action\": \"screenshot\"}}'");
    }
    let desktop = args.desktop.config(args.url.as_deref())?;
    let actions = retrace_runner::do_actions::parse_actions(&args.actions)?;
    retrace_runner::runtime()?.block_on(async {
        let events = super::desktop_args::notices();
        let url = args.url.clone().unwrap_or_default();
        let place = match desktop {
            Some(desktop) => Where::Desktop(desktop, &events),
            None => Where::Page(args.browser.config(args.size), &url),
        };
        let session = ActionSession::open(place, args.model_size).await?;
        let done = run_actions(&args, &session, actions).await;
        session.end().await;
        done
    })
}

async fn run_actions(
    args: &DoArgs,
    session: &ActionSession<'_>,
    actions: Vec<serde_json::Value>,
) -> anyhow::Result<Outcome> {
    for (index, input) in actions.into_iter().enumerate() {
        let step = index + 1;
        let done = session
            .act(step, &input, args.screenshots.as_deref())
            .await?;
        let (output, saved) = (&done, &done.screenshot);
        if args.json {
            let line = serde_json::json!({
                "step": step,
                "action": input,
                "text": output.text,
                "screenshot": saved,
            });
            out!("{line}");
        } else {
            let mut line = format!("{step:>3} {input}");
            if let Some(text) = &output.text {
                line.push_str(&format!(" -> {text}"));
            }
            if let Some(path) = &saved {
                line.push_str(&format!(" -> {}", path.display()));
            }
            out!("{line}");
        }
    }
    Ok(Outcome::Pass)
}
