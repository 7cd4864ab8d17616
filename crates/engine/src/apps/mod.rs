//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`), the host's side: a tool that comes with an
//! app has it shown after it ran. `sandbox.rs` decides where the app runs (never on the page's
//! origin), `csp.rs` the policy its document gets, and `host.rs` speaks the app's JSON-RPC
//! dialect over `postMessage`: the lifecycle, the tool's input and result, and the app's own
//! calls to its server, each one checked and traced on the app's lane. The page only creates the
//! frame and carries messages (docs/apps.md).

mod context;
mod csp;
mod host;
mod requests;
mod sandbox;

pub use context::{MAX_CHARS, ModelContext, read_message, with_contexts};
pub use csp::{Policy, document};
pub use host::{AppAsk, AppHost, AskUser, Effect, HostContext, MAX_PER_SECOND};
pub use protocol::mcp::apps::HTML_MIME;
pub use sandbox::{Isolation, Sandbox};

use protocol::mcp::Tool;
use serde_json::Value;

/// A tool call whose tool comes with an app: what the app is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct AppCall {
    pub server_id: String,
    pub server_label: String,
    /// The tool as its server listed it (the app's `toolInfo`).
    pub tool: Tool,
    pub resource_uri: String,
    pub tool_use_id: String,
    pub arguments: Value,
    /// The `CallToolResult` as the server sent it, or why there is none (the app is told the
    /// call was cancelled).
    pub result: Result<Value, String>,
}

impl AppCall {
    /// The app's lane on the timeline: its tool and server, and which instance it is.
    pub fn lane(&self, instance: u32) -> String {
        let short = |s: &str| crate::text::one_line(s, 40).0;
        format!("{} · {} #{instance}", short(&self.tool.name), short(&self.server_label))
    }
}
