//! [`RetraceServer`]: the MCP handler. It lists the tools ([`crate::tools::all`]) and hands
//! each call to its tool with a [`CallContext`]; whatever the tool returns, a result or a
//! tool error, goes back as a tool result, so no argument a caller sends ends the server.

use std::path::PathBuf;
use std::sync::Arc;

use retrace_runner::BrowserConfig;
use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::ServerHandler;
use rmcp::model::CallToolRequestParams;
use rmcp::model::CallToolResponse;
use rmcp::model::Implementation;
use rmcp::model::ListToolsResult;
use rmcp::model::PaginatedRequestParams;
use rmcp::model::ServerCapabilities;
use rmcp::model::ServerConfig;
use rmcp::service::RequestContext;

use crate::call::CallContext;
use crate::warm::WarmBrowser;

/// What the server is started with.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// The browser the tools use (launched and kept warm, or a remote one).
    pub browser: BrowserConfig,
    /// Where evidence goes by default (check results, screenshots, run reports), one folder
    /// per call under it.
    pub out_dir: PathBuf,
}

/// What every session of the server shares (one per stdio server; over HTTP, one for all
/// its sessions): the settings and the warm browser.
#[derive(Debug)]
pub struct SharedState {
    /// The settings.
    pub settings: ServerSettings,
    /// The browser kept between calls.
    pub warm: Arc<WarmBrowser>,
    /// Numbers calls, for their evidence folders.
    calls: std::sync::atomic::AtomicU64,
}

impl SharedState {
    /// The state of a server started with `settings`.
    pub fn new(settings: ServerSettings) -> Self {
        Self {
            warm: Arc::new(WarmBrowser::new(settings.browser.clone())),
            settings,
            calls: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A fresh evidence folder for a call of `tool`: `OUT/<tool>-<n>` (`n` counts calls
    /// since the server started; the process id keeps two servers in one folder apart).
    pub fn call_dir(&self, tool: &str) -> PathBuf {
        let n = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        self.settings
            .out_dir
            .join(format!("{tool}-{}-{n}", std::process::id()))
    }
}

/// The MCP handler over shared state.
#[derive(Debug, Clone)]
pub struct RetraceServer {
    shared: Arc<SharedState>,
}

impl RetraceServer {
    /// A handler over `shared`.
    pub fn new(shared: Arc<SharedState>) -> Self {
        Self { shared }
    }

    /// The state it shares.
    pub fn shared(&self) -> Arc<SharedState> {
        Arc::clone(&self.shared)
    }
}

/// What the server tells a client about itself on `initialize`.
const INSTRUCTIONS: &str = "retrace checks that a web page still looks and behaves as it \
did. Before changing code, take a baseline; after each change call `check` (baseline vs \
candidate pages) and read `verdict`: PASS (no difference), FAIL (differences listed, with a \
diff image: a regression, or an intended change to `approve`), ERROR (the comparison could \
not be made: retry or fix the environment; never read it as a pass). `replay` and `run` \
replay recorded trajectories without a model; `approve` accepts an intended change.";

impl ServerHandler for RetraceServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("retrace", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(crate::tools::all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = CallContext::new(
            context.peer.clone(),
            context.meta.get_progress_token(),
            context.ct.clone(),
        );
        let result = crate::tools::call(&self.shared, &request.name, request.arguments, call).await;
        Ok(result.into())
    }
}
