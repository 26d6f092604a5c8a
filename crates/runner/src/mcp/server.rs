//! [`RetraceServer`]: the MCP handler. It lists the tools ([`crate::mcp::tools::all`]) and hands
//! each call to its tool with a [`CallContext`]; whatever the tool returns, a result or a
//! tool error, goes back as a tool result, so no argument a caller sends ends the server.

use std::sync::Arc;

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

use crate::mcp::call::CallContext;
pub use crate::mcp::state::ServerSettings;
pub use crate::mcp::state::SharedState;

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
        Ok(ListToolsResult::with_all_items(crate::mcp::tools::all()))
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
        let result =
            crate::mcp::tools::call(&self.shared, &request.name, request.arguments, call).await;
        Ok(result.into())
    }
}
