//! `retrace mcp`: retrace as an MCP server for coding agents, over stdio or Streamable HTTP.
//! The server is `retrace_runner::mcp`'s; this module parses flags and starts it.

use std::path::PathBuf;

use anyhow::Context;
use retrace_runner::mcp::HttpOptions;
use retrace_runner::mcp::ServerSettings;

use super::browser_args::BrowserArgs;
use crate::outcome::Outcome;
use crate::output::out;

/// Serve retrace's tools over the Model Context Protocol, for coding agents.
///
/// Tools: check (baseline vs candidate pages: verdicts, typed differences, evidence paths,
/// the diff images), replay (one trajectory against a URL), run (a suite, with progress per
/// test; cancelling the call stops it and its browsers), screenshot, list_trajectories (each
/// file's health and last result), approve (an intended change, after a failed run or
/// check). Each has an input and an output schema. A bad argument is a tool error naming it;
/// secret parameter values never appear in a result, a notification or a log. One browser
/// is kept warm between calls.
///
/// By default the server speaks over stdin and stdout (what an agent's MCP configuration
/// starts). With --http ADDR it serves Streamable HTTP at http://ADDR/mcp, and every request
/// must carry `Authorization: Bearer TOKEN` (--token or RETRACE_MCP_TOKEN); others get 401.
///
/// Paths in tool arguments are relative to the folder the server runs in.
///
/// Examples:
///   retrace mcp
///   claude mcp add retrace -- retrace mcp --out .retrace-mcp
///   RETRACE_MCP_TOKEN=s3cret retrace mcp --http 127.0.0.1:8765
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct McpArgs {
    /// Serve Streamable HTTP on this address (`127.0.0.1:8765`; port 0 picks one) instead
    /// of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The bearer token HTTP clients must send (required with --http; not used over stdio).
    #[arg(long, env = "RETRACE_MCP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// A Host header name accepted over HTTP besides localhost (repeatable), for a server
    /// reached by another name.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// Where evidence goes (check results, screenshots, run evidence), a folder per call.
    #[arg(long, value_name = "DIR", default_value = "retrace-mcp")]
    pub out: PathBuf,
    #[command(flatten)]
    pub browser: BrowserArgs,
}

/// Serves until the client goes away (stdio) or Ctrl-C (HTTP).
pub fn run(args: McpArgs) -> anyhow::Result<Outcome> {
    let settings = ServerSettings {
        browser: args.browser.config((0, 0)),
        out_dir: args.out.clone(),
    };
    let runtime = retrace_runner::runtime().context("cannot start the async runtime")?;
    let Some(address) = &args.http else {
        let served = runtime.block_on(retrace_runner::mcp::serve_stdio(settings));
        // A call still running when the client went away (a suite replaying on its own
        // thread) is given a moment to end, not waited for.
        runtime.shutdown_timeout(SHUTDOWN_GRACE);
        served?;
        return Ok(Outcome::Pass);
    };
    let Some(token) = args.token.clone().filter(|token| !token.trim().is_empty()) else {
        anyhow::bail!("--http needs a bearer token: give --token TOKEN or set RETRACE_MCP_TOKEN");
    };
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .with_context(|| format!("cannot listen on {address}"))?;
        let bound = listener.local_addr()?;
        out!(
            "serving MCP on http://{bound}{}",
            retrace_runner::mcp::http::PATH
        );
        let shutdown = retrace_runner::mcp::http::Shutdown::new();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            stop_signal().await;
            stop.cancel();
        });
        let options = HttpOptions {
            token,
            allowed_hosts: args.allowed_hosts.clone(),
        };
        retrace_runner::mcp::serve_http(listener, settings, options, shutdown).await?;
        anyhow::Ok(())
    })?;
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    Ok(Outcome::Pass)
}

/// Returns on Ctrl-C or SIGTERM (what a service manager or a test sends), so the server
/// closes its browser before it exits.
async fn stop_signal() {
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(error) => {
                tracing::warn!("cannot watch SIGTERM: {error}");
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
}

/// How long calls still running when the server stops are given to end.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);
