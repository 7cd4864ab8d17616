//! MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`), the host's side: a tool that comes with an
//! app has it shown as soon as Claude starts writing the call, told the arguments as they grow
//! (`partial.rs`), then the call's input and result. `sandbox.rs` decides where the app runs (never on the page's
//! origin), `csp.rs` the policy its document gets, and `host.rs` speaks the app's JSON-RPC
//! dialect over `postMessage`: the lifecycle, the tool's input and result, and the app's own
//! calls to its server, each one checked and traced on the app's lane, and its end
//! (`teardown.rs`). The page only creates the
//! frame and carries messages (docs/apps.md).

mod context;
mod csp;
mod download;
mod feed;
mod host;
mod partial;
mod questions;
mod requests;
mod sandbox;
mod teardown;

pub use context::{MAX_CHARS, ModelContext, read_message, with_contexts};
pub use csp::{Policy, document};
pub use download::{DownloadFile, MAX_FILES, read_download};
pub use host::{AppAsk, AppHost, AskUser, Effect, HostContext, MAX_BYTES_PER_SECOND, MAX_PER_SECOND};
pub use partial::MAX_PARTIAL_CHARS;
pub use protocol::mcp::apps::HTML_MIME;
pub use questions::{MAX_WAITING, Questions, TOO_MANY};
pub use sandbox::{Isolation, Sandbox};
pub use teardown::TEARDOWN_MS;

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
    /// The arguments it was called with; `None` while Claude still writes them.
    pub arguments: Option<Value>,
    /// The `CallToolResult` as the server sent it, or why there is none (the app is told the
    /// call was cancelled); `None` until the call ended.
    pub result: Option<Result<Value, String>>,
    /// Whether the call waits for the user's yes (`agent::Consent`): then the app is told
    /// nothing of its arguments, as Claude writes them or whole, until the user approved it.
    pub asks_first: bool,
}

/// What an app is told of its call so far: the arguments as Claude writes them (JSON text),
/// the input it was called with, and the result or why there is none. Fed to its host as the
/// call moves on (`AppHost::feed`); the host decides what the app hears, and when.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppFeed {
    pub partial: Option<String>,
    pub input: Option<Value>,
    pub result: Option<Result<Value, String>>,
}

impl AppCall {
    /// The app of a call of `tool` (on `server_id`, shown as `label`), if the tool comes with
    /// one; nothing of the call is known yet.
    pub fn of(tool: &Tool, server_id: &str, label: &str, tool_use_id: &str) -> Option<AppCall> {
        Some(AppCall {
            resource_uri: tool.ui()?.resource_uri?,
            server_id: server_id.to_owned(),
            server_label: label.to_owned(),
            tool: tool.clone(),
            tool_use_id: tool_use_id.to_owned(),
            arguments: None,
            result: None,
            asks_first: false,
        })
    }

    /// The app's lane on the timeline: its tool and server, and which instance it is.
    pub fn lane(&self, instance: u32) -> String {
        let short = |s: &str| crate::text::one_line(s, 40).0;
        format!("{} · {} #{instance}", short(&self.tool.name), short(&self.server_label))
    }
}
