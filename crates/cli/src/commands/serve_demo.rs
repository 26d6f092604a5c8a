//! `retrace serve-demo`: serves the bundled demo app (`retrace_runner::demo_app`) until Ctrl-C.

use std::net::IpAddr;
use std::net::SocketAddr;

use anyhow::Context;
use retrace_runner::demo_app::DEMO_PASSWORD;
use retrace_runner::demo_app::DEMO_USERNAME;
use retrace_runner::demo_app::DemoApp;
use retrace_runner::demo_app::DemoSettings;
use retrace_runner::demo_app::Faults;
use retrace_runner::demo_app::Latency;
use retrace_runner::demo_app::Layout;
use retrace_runner::demo_app::MAX_SCRIPT_DELAY_MS;
use retrace_runner::demo_app::Variant;

use crate::outcome::Outcome;
use crate::output::out;

/// Serve the bundled demo app (a login form, an invoice dashboard, a slow action, an animated
/// panel, a modal, `v2` and `rename` layouts, faults, late scripts, and a content site under
/// `/site/` in variants) until Ctrl-C. Sign in as `demo` / `retrace-demo-pw`.
///
/// Example: `retrace serve-demo --port 8080 --latency-ms 100..1500 --layout v2`
#[derive(Debug, clap::Args)]
pub struct ServeDemoArgs {
    /// Port to listen on; 0 picks a free port (the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Delay of the login submit and the report action: `MS` (fixed) or `A..B` (uniformly
    /// random per request, both ends inclusive).
    #[arg(long, value_name = "MS|A..B", default_value = "0")]
    pub latency_ms: Latency,
    /// Default layout: `v1`, `v2` (Sign in button moved 40 px right and 24 px down; report
    /// button relabelled "Export report" and New invoice button "Add invoice", both orange),
    /// or `rename` (only the New invoice button reads "Add invoice", same look and width).
    /// `?layout=` in a URL overrides it.
    #[arg(long, value_name = "v1|v2|rename", default_value = "v1")]
    pub layout: Layout,
    /// Default faults, comma-separated: `save-ignores-clicks`, `mark-sent-ignores-clicks`,
    /// `amount-rewritten`. `?fault=` overrides it.
    #[arg(long, value_name = "LIST", default_value = "none")]
    pub fault: Faults,
    /// Give the New invoice modal a "Mark as sent" checkbox (`?mark_sent=` overrides it).
    #[arg(long)]
    pub mark_sent: bool,
    /// Load the login page's and the dashboard's scripts after the `load` event, answered this
    /// many ms later (`?script_delay_ms=` overrides it).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=MAX_SCRIPT_DELAY_MS))]
    pub script_delay_ms: Option<u64>,
    /// The content site's variant under `/site/`: `baseline`, `identical-markup`, `shift`,
    /// `text`, `colour`, `overlay`, `removed`, `console-error`, `never-loads` (`?variant=` overrides it).
    #[arg(long, value_name = "NAME", default_value = "baseline")]
    pub variant: Variant,
    /// Print one JSON object (`url`, `layout`, `latency_ms`, `variant`, `faults`) instead of
    /// a sentence.
    #[arg(long)]
    pub json: bool,
}

/// Starts the demo app, prints its URL, and serves until Ctrl-C or a server error.
pub fn run(args: ServeDemoArgs) -> anyhow::Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: ServeDemoArgs) -> anyhow::Result<Outcome> {
    let settings = DemoSettings {
        latency: args.latency_ms.clone(),
        layout: args.layout.clone(),
        faults: args.fault.clone(),
        mark_sent: args.mark_sent,
        script_delay_ms: args.script_delay_ms,
        variant: args.variant.clone(),
    };
    let addr = SocketAddr::new(args.host, args.port);
    let mut server = DemoApp::start(settings, addr).await?;
    // Listening before the URL is printed: a Ctrl-C sent as soon as it is read stops the
    // server cleanly instead of killing the process before a handler is in place.
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("cannot listen for Ctrl-C")?;
    let url = server.url();
    if args.json {
        let line = serde_json::json!({
            "url": url,
            "layout": args.layout.as_str(),
            "latency_ms": args.latency_ms.to_string(),
            "variant": args.variant.as_str(),
            "faults": args.fault.to_string(),
        });
        out!("{line}");
    } else {
        out!(
            "Demo app at {url} (layout {}, latency {} ms, site variant {}). Sign in as {} / {}. \
             Ctrl-C stops it.",
            args.layout,
            args.latency_ms,
            args.variant,
            DEMO_USERNAME,
            DEMO_PASSWORD,
        );
    }
    tokio::select! {
        _ = interrupt.recv() => {
            server.shutdown().await?;
        }
        ended = server.wait() => {
            ended?;
        }
    }
    Ok(Outcome::Pass)
}
