//! MCP client errors, one variant per layer (network, HTTP, JSON-RPC, decoding, protocol,
//! timeout, cancelled). A tool's `isError: true` is not here: that is a successful call
//! carrying a failed tool (`CallToolResult::is_error`).

use crate::auth::AuthError;
use crate::layer::{Failure, Layer};
use crate::limits::LimitExceeded;
use protocol::jsonrpc::{ErrorCode, ErrorObject, RequestId};

/// What a request that got no HTTP answer found out about the address (C-43).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Not checked (the answer broke off, or the check could not run).
    Unknown,
    /// Nothing answers there: the server is not running, or the address is wrong.
    Nothing,
    /// Something answers, but the page may not read it: in a browser, CORS.
    Answers,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum McpError {
    /// No HTTP answer. In a browser, a CORS refusal looks exactly like this, so the client asks
    /// whether anything answers at all (`reach`).
    #[error("network error: {message}")]
    Network { message: String, reach: Reach },

    /// An HTTP status other than the one expected. `rpc` is the JSON-RPC error object the body
    /// carried, if any (servers often put one in a 4xx body, without an id: C-04).
    #[error("HTTP {status}{}", rpc.as_ref().map(|e| format!(": {}", e.message)).unwrap_or_default())]
    Http { status: u16, body: String, rpc: Option<Box<ErrorObject>>, www_authenticate: Option<String> },

    /// HTTP succeeded; the JSON-RPC response is an error object.
    #[error("{0}")]
    Rpc(ErrorObject),

    /// The body was not what it claimed to be. `raw` is kept to show.
    #[error("could not decode the response: {reason}")]
    Decode { reason: String, raw: String },

    #[error("protocol violation: {0}")]
    Protocol(ProtocolError),

    #[error("no response within {after_ms} ms")]
    Timeout { after_ms: u64 },

    #[error("cancelled")]
    Cancelled,

    /// Refused by the client before anything was sent.
    #[error("{0}")]
    Client(String),

    /// The server wants authorization and getting it failed (discovery, sign-in, token).
    #[error("{0}")]
    Auth(AuthError),

    /// The server sent more than the page reads (`engine::limits`): refused as it arrived.
    #[error("{0}")]
    Limit(LimitExceeded),

    /// The server answered a request carrying the user's secrets with a redirect, which such a
    /// request never follows.
    #[error("the server answered with a redirect, not followed: this request carries your headers or token")]
    RedirectRefused,

    /// The bridge on the user's machine (`loopscope bridge`) failed or refused: its own layer,
    /// never the server's (a child that would not start or exited, a dropped line, a wrong token).
    #[error("bridge: {}", .0.error.message)]
    Bridge(Box<crate::bridge::BridgeFault>),

    /// A task ended without a result: cancelled (by the server, or after the page asked), or
    /// failed with nothing to say why.
    #[error("task {task_id} ended {}{}{}", status.as_str(), if *by_page { " after the page asked to cancel it" } else { "" }, message.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
    TaskEnded { task_id: String, status: protocol::mcp::TaskStatus, message: Option<String>, by_page: bool },
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    #[error("expected application/json or text/event-stream, got \"{got}\"")]
    ContentType { got: String },
    #[error("the response carries id {got:?}, the request had id {expected}")]
    IdMismatch { expected: RequestId, got: Option<RequestId> },
    #[error("the server offered protocol version {offered}; this client speaks {}", protocol::mcp::SUPPORTED_VERSIONS.join(", "))]
    VersionMismatch { requested: String, offered: String },
    #[error("the server only speaks MCP {} (no initialize handshake); this client speaks {}", supported.join(", "), protocol::mcp::SUPPORTED_VERSIONS.join(", "))]
    ModernOnly { supported: Vec<String> },
    #[error("HTTP {status} to a request (expected a JSON or SSE response)")]
    UnexpectedStatus { status: u16 },
    #[error("the response stream ended before the response{}", if *.resumed > 0 { format!(" (after {} resume attempts)", .resumed) } else { String::new() })]
    StreamEnded { resumed: u32 },
    #[error("the server did not declare the `{capability}` capability needed for {method}")]
    NotCapable { method: String, capability: &'static str },
    #[error("the Mcp-Session-Id header holds characters outside visible ASCII")]
    BadSessionId,
    #[error("not connected")]
    NotConnected,
}

/// What a server must send for a page on another origin to talk to it (C-42).
pub const CORS_NEEDS: &str = "The server must answer the OPTIONS preflight without authentication and send \
    Access-Control-Allow-Origin (this page's origin or *), Access-Control-Allow-Methods: POST, GET, DELETE, OPTIONS, \
    Access-Control-Allow-Headers: Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, \
    and Access-Control-Expose-Headers: Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate.";

impl McpError {
    pub fn layer(&self) -> Layer {
        match self {
            McpError::Network { .. } => Layer::Network,
            McpError::Http { .. } => Layer::Http,
            McpError::Rpc(_) => Layer::JsonRpc,
            McpError::Decode { .. } => Layer::Decode,
            McpError::Protocol(_) => Layer::Protocol,
            McpError::Timeout { .. } => Layer::Timeout,
            McpError::Cancelled => Layer::Cancelled,
            McpError::Client(_) => Layer::Client,
            McpError::Auth(e) => e.layer(),
            McpError::Limit(l) => l.limit.layer(),
            McpError::RedirectRefused => Layer::Http,
            McpError::Bridge(_) => Layer::Bridge,
            McpError::TaskEnded { by_page: true, .. } => Layer::Cancelled,
            McpError::TaskEnded { .. } => Layer::Tool,
        }
    }

    /// Whether the browser may have refused to let the page read an answer (CORS): no HTTP
    /// answer, with something answering at the address or no way to tell.
    pub fn maybe_cors(&self) -> bool {
        matches!(self, McpError::Network { reach: Reach::Answers | Reach::Unknown, .. })
    }

    /// The JSON-RPC error object, whether it came in a 200 or inside an HTTP error body.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            McpError::Rpc(e) => Some(e),
            McpError::Http { rpc, .. } => rpc.as_deref(),
            _ => None,
        }
    }

    /// What to check or do next, for the people who can act on it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            McpError::Network { reach: Reach::Nothing, .. } => "Nothing answers at this address: the server is not running, or the host, port \
                or path is wrong. Start the server (or fix the URL), then press Reconnect."
                .into(),
            McpError::Network { reach: Reach::Answers, .. } => format!(
                "Something answers at this address, but the browser will not let this page read the answer: CORS. {CORS_NEEDS}"
            ),
            McpError::Network { reach: Reach::Unknown, .. } => format!(
                "The browser got no HTTP answer. If the server is running, this is most likely CORS. {CORS_NEEDS} \
                 Otherwise check the URL and that the server is up."
            ),
            McpError::Http { status: 401, www_authenticate, .. } => format!(
                "The server wants credentials{}. Add an Authorization header (for example \"Bearer <token>\") to this server.",
                www_authenticate.as_ref().map(|w| format!(" (WWW-Authenticate: {w})")).unwrap_or_default()
            ),
            McpError::Http { status: 403, www_authenticate: None, .. } => "Forbidden without a WWW-Authenticate challenge: the server most likely rejected this page's \
                Origin (DNS-rebinding protection). Add this page's origin to the server's allowed origins."
                .into(),
            McpError::Http { status: 404, .. } => "Nothing at this URL: check the path (MCP servers often live at /mcp, and some treat /mcp and /mcp/ differently).".into(),
            McpError::Http { status: 405 | 501, .. } => "This URL does not take POST, so it is not a Streamable HTTP MCP endpoint: check the path \
                (often /mcp). A URL ending in /sse belongs to the older HTTP+SSE transport, which this client does not speak."
                .into(),
            McpError::Http { status: 406, .. } => "The server refused the Accept header; it must accept \"application/json, text/event-stream\".".into(),
            McpError::Http { status: 400, body, .. } if body.to_ascii_lowercase().contains("session") => {
                "The server did not see a session id. If it sent one, it must list Mcp-Session-Id in \
                 Access-Control-Expose-Headers so the browser can read it."
                    .into()
            }
            McpError::Http { status: 502..=504, .. } => "A gateway or proxy in front of the server failed: the server may be down or too slow.".into(),
            McpError::Rpc(e) if e.code == ErrorCode::METHOD_NOT_FOUND => "The server does not implement this method.".into(),
            McpError::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS => "The server rejected the arguments: compare them with the input schema.".into(),
            McpError::Protocol(ProtocolError::ModernOnly { .. }) => "This server speaks only 2026-07-28, which has no initialize handshake. \
                Set Revision to Automatic (or 2026-07-28) on its card to speak it."
                .into(),
            McpError::Auth(e) => return e.hint(),
            McpError::Bridge(f) => f.hint(),
            McpError::Limit(l) => l.hint(),
            McpError::RedirectRefused => "A redirect would hand your headers, query credentials or token to whatever address it \
                points to, so the page does not follow it (and the browser does not say where it pointed). Use the address \
                the server redirects to: often the same path with or without a trailing slash (/mcp/ for /mcp), or https \
                for http."
                .into(),
            McpError::Timeout { .. } => "The server took too long. Slow tools should send progress notifications, which extend the timeout.".into(),
            _ => return None,
        })
    }

    pub fn to_failure(&self) -> Failure {
        Failure { layer: self.layer(), message: self.to_string(), hint: self.hint() }
    }
}
