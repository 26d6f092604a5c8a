//! `retrace serve-demo`: serves the bundled demo app (retrace-demo) until Ctrl-C.

use std::net::IpAddr;
use std::net::SocketAddr;

use anyhow::Context;
use retrace_demo::DemoConfig;
use retrace_demo::Latency;
use retrace_demo::Layout;

use crate::outcome::Outcome;
use crate::output::out;

/// Serve the bundled demo app (a login form, an invoice dashboard, a slow action, an animated
/// panel, a modal, and a `v2` layout) until Ctrl-C. Sign in as `demo` / `retrace-demo-pw`.
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
    /// Default layout: `v1`, or `v2` (Sign in button moved 40 px right and 24 px down; report
    /// button relabelled "Export report" and New invoice button "Add invoice", both orange).
    /// `?layout=` in a URL overrides it.
    #[arg(long, value_name = "v1|v2", default_value = "v1")]
    pub layout: Layout,
    /// Print one JSON object (`url`, `layout`, `latency_ms`) instead of a sentence.
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
    let config = DemoConfig {
        latency: args.latency_ms,
        layout: args.layout,
        ..DemoConfig::default()
    };
    let addr = SocketAddr::new(args.host, args.port);
    let mut server = retrace_demo::start(config, addr)
        .await
        .with_context(|| format!("cannot serve the demo app on {addr}"))?;
    let url = server.url();
    if args.json {
        let line = serde_json::json!({
            "url": url,
            "layout": args.layout.as_str(),
            "latency_ms": args.latency_ms.to_string(),
        });
        out!("{line}");
    } else {
        out!(
            "Demo app at {url} (layout {}, latency {} ms). Sign in as {} / {}. Ctrl-C stops it.",
            args.layout,
            args.latency_ms,
            retrace_demo::DEMO_USERNAME,
            retrace_demo::DEMO_PASSWORD,
        );
    }
    tokio::select! {
        signal = tokio::signal::ctrl_c() => {
            signal.context("cannot listen for Ctrl-C")?;
            server.shutdown().await.context("stopping the demo app")?;
        }
        ended = server.wait() => {
            ended.context("the demo app stopped")?;
        }
    }
    Ok(Outcome::Pass)
}
