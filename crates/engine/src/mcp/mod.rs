//! The MCP client: Streamable HTTP transport, session lifecycle, and the requests of the three
//! primitives (tools, resources, prompts), following conformance items C-01…C-38, C-42/C-43.

mod api;
mod client;
mod connection;
pub mod declared;
pub mod distance;
pub mod envelope;
mod error;
mod exchange;
mod handlers;
mod inject;
mod listen;
pub mod negotiate;
mod resume;
mod serve;
pub mod skills;
mod tasks;
mod transport;

pub use api::ToolList;
pub use client::McpClient;
pub use connection::Connection;
pub use distance::local_network_hint;
pub use error::{CORS_NEEDS, McpError, ProtocolError, Reach};
pub use handlers::{ElicitationHandler, Handlers, ListKind, SamplingHandler, ServerNotification, StateFn};
pub use resume::{KeptTask, KeptTasks, TaskBook, TaskChange, resumed_outcome};
pub use tasks::{MAX_INPUT_REQUESTS, MAX_POLL_MS, MAX_TASK_MS, MIN_POLL_MS, TaskEra};

use std::rc::Rc;

use super::cancel::CancelToken;
use super::limits::Limits;
use super::num::shortest;
use protocol::mcp::{ProgressParams, Revision};

/// Which protocol revision to speak: found out from the server, or pinned by the user (no
/// fallback then) to compare revisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RevisionChoice {
    #[default]
    Auto,
    Pin(Revision),
}

/// One server as the user configured it.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// A stable id in the page; the trace and the timeline lane use it.
    pub id: String,
    /// The endpoint, used exactly as given (no slash rewriting: C-01).
    pub url: String,
    /// Extra headers sent on every request (C-14), e.g. `Authorization: Bearer …`. Kept in
    /// memory only, and masked in the trace.
    pub headers: Vec<(String, String)>,
    /// Query parameters that hold secrets (`?api_key=…`), kept out of `url` so that the page,
    /// its storage and exports never hold them; added to every request's URL, masked in the
    /// trace (`engine::server_address`).
    pub query: Vec<(String, String)>,
    pub timeouts: Timeouts,
    pub revision: RevisionChoice,
    /// How much the server may make the page read (`engine::limits`).
    pub limits: Limits,
}

impl ServerConfig {
    pub fn new(id: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            url: url.into(),
            headers: Vec::new(),
            query: Vec::new(),
            timeouts: Timeouts::default(),
            revision: RevisionChoice::Auto,
            limits: Limits::default(),
        }
    }

    /// Whether a request to this server carries a secret of the user's (a header value, a
    /// query credential): such requests never follow redirects.
    pub fn carries_secrets(&self) -> bool {
        !self.headers.is_empty() || !self.query.is_empty()
    }

    /// The URL requests go to: `url` with the secret query parameters added back.
    pub fn request_url(&self) -> String {
        if self.query.is_empty() {
            return self.url.clone();
        }
        let pairs = self.query.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect::<Vec<_>>();
        crate::auth::url::with_query(&self.url, &crate::encoding::form_encode(pairs))
    }

    pub fn pinned(mut self, revision: Revision) -> Self {
        self.revision = RevisionChoice::Pin(revision);
        self
    }

    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Per-request timeouts (C-19): `request_ms` without news from the server, extended by every
/// progress notification, but never beyond `max_ms` in total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    pub request_ms: u64,
    pub max_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self { request_ms: 30_000, max_ms: 300_000 }
    }
}

/// A server's name on the page, the same on its card, its timeline lane and in the chat: its
/// label, else its URL without the scheme ("127.0.0.1:3001/mcp").
pub fn display_name(label: &str, url: &str) -> String {
    let label = label.trim();
    if !label.is_empty() {
        return label.to_owned();
    }
    let bare = url.split_once("://").map_or(url, |(_, rest)| rest);
    bare.trim_end_matches('/').to_owned()
}

/// A progress notification in words: "progress 2 of 5: step 2 of 5".
pub fn describe_progress(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let of = total.map(|t| format!(" of {}", shortest(t))).unwrap_or_default();
    let msg = message.map(|m| format!(": {m}")).unwrap_or_default();
    format!("progress {}{of}{msg}", shortest(progress))
}

/// Called with each progress notification about one request.
pub type ProgressCallback = Rc<dyn Fn(&ProgressParams)>;

/// Per-call options.
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Aborts the request; the server is told with `notifications/cancelled` (C-21).
    pub cancel: Option<CancelToken>,
    /// Overrides the server's `Timeouts::request_ms`.
    pub timeout_ms: Option<u64>,
    /// Called for each progress notification about this request (C-22).
    pub on_progress: Option<ProgressCallback>,
    /// The tool_use this request carries out, linked in the trace (tool_use id ↔ JSON-RPC id).
    pub trace_link: Option<String>,
}

impl RequestOptions {
    pub fn cancellable(cancel: &CancelToken) -> Self {
        Self { cancel: Some(cancel.clone()), ..Self::default() }
    }
}

/// How a GET stream for server-initiated messages ended.
#[derive(Clone, Debug, PartialEq)]
pub enum ListenEnd {
    /// The server offers no such stream (405, or 404/406/400 from servers that answer so: P7).
    NotOffered {
        status: u16,
    },
    Cancelled,
    /// It kept failing; the last error.
    Failed(McpError),
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn a_server_without_a_label_is_named_by_its_address() {
        assert_eq!(display_name("notes", "http://127.0.0.1:8000/mcp"), "notes");
        assert_eq!(display_name(" ", "http://127.0.0.1:8000/mcp/"), "127.0.0.1:8000/mcp");
        assert_eq!(display_name("", "demo://notebook/mcp"), "notebook/mcp");
    }
}
