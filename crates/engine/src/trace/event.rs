//! What the trace holds: every HTTP exchange, JSON-RPC message and agent-loop step as a typed,
//! timestamped event. Each event says what it is in types (the JSON-RPC message parsed where it
//! was read, the HTTP method, how a Messages attempt ended), so the timeline never reads a
//! string twice. Events serialise, so a trace can be saved and drawn again.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::layer::Failure;
use crate::platform::{Headers, Method};
use protocol::jsonrpc::{Message, RequestId};

/// Who the page exchanged a message with, or `Client`/`User` for the page's own steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Peer {
    User,
    /// The page itself: routing decisions, aggregation, the end of a turn.
    Client,
    Claude,
    /// An MCP server, by its id in the page.
    Server(String),
    /// The authorization server (and the metadata endpoints) of the MCP server with this id.
    Authorization(String),
    /// A function in the page.
    Local,
    /// An MCP App shown in the page, by its lane's name (`apps::AppCall::lane`).
    App(String),
}

/// One line of the `tools` array as phase 1 built it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AggregatedTool {
    /// The name Claude sees.
    pub name: String,
    /// Where a call to it goes, in words ("echo on MCP server \"everything\"").
    pub origin: String,
    pub notes: Vec<String>,
}

/// Where phase 3 sends a tool_use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum RouteTarget {
    Local {
        function: String,
    },
    Server {
        server_id: String,
        label: String,
        tool: String,
    },
    /// Not executed: unknown name, input that is not an object, a denial, a cut-off call.
    Refused {
        reason: String,
    },
}

impl RouteTarget {
    /// The decision in a few words, as the timeline and the chat show it.
    pub fn arrow(&self) -> String {
        match self {
            RouteTarget::Local { function } => format!("→ local function {function}"),
            RouteTarget::Server { label, tool, .. } => format!("→ tools/call {tool} on {label}"),
            RouteTarget::Refused { reason } => format!("refused: {reason}"),
        }
    }

    /// The decision as part of a sentence ("… will run the local function x, in this page").
    pub fn describe(&self) -> String {
        match self {
            RouteTarget::Local { function } => format!("the local function {function}, in this page"),
            // Names a stranger chose: every character that could disguise them shown as it is.
            RouteTarget::Server { label, tool, .. } => format!(
                "tools/call \"{}\" on the MCP server \"{}\"",
                crate::text::visible_cut(tool, 80).0,
                crate::text::visible_cut(label, 80).0
            ),
            RouteTarget::Refused { reason } => format!("nothing ({reason})"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the page to the peer.
    Out,
    /// From the peer to the page.
    In,
}

/// A request body as the trace keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestBody {
    Text(String),
    /// Not kept, to bound the page's memory: only its size is known. It cannot be replayed.
    Dropped {
        bytes: usize,
    },
}

impl RequestBody {
    /// The body, if it was kept.
    pub fn text(&self) -> Option<&str> {
        match self {
            RequestBody::Text(t) => Some(t),
            RequestBody::Dropped { .. } => None,
        }
    }

    /// Its size in bytes, kept or not.
    pub fn len(&self) -> usize {
        match self {
            RequestBody::Text(t) => t.len(),
            RequestBody::Dropped { bytes } => *bytes,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Position in the trace, starting at 0, strictly increasing.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub peer: Peer,
    pub kind: TraceKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    HttpRequest {
        exchange: u64,
        method: Method,
        url: String,
        headers: Headers,
        body: Option<RequestBody>,
        /// A short description of what the body holds ("4 messages · 7 tools"), so the
        /// timeline never has to parse a large body.
        summary: Option<String>,
    },
    HttpResponse {
        exchange: u64,
        status: u16,
        headers: Headers,
        elapsed_ms: f64,
    },
    /// The request followed a redirect: the answer came from `to`, not from the URL asked.
    Redirected {
        exchange: u64,
        to: String,
    },
    /// The whole body of a non-streamed response.
    HttpBody {
        exchange: u64,
        body: String,
        elapsed_ms: f64,
    },
    SseEvent {
        exchange: u64,
        id: Option<String>,
        event: Option<String>,
        data: String,
    },
    /// A streamed body ended (`clean`: the server closed it; otherwise it broke off).
    HttpStreamEnd {
        exchange: u64,
        elapsed_ms: f64,
        clean: bool,
    },
    /// The page stopped reading an answer at one of its limits (`engine::limits`): the rest
    /// was not read, and the request was aborted.
    LimitReached {
        exchange: u64,
        limit: crate::limits::LimitExceeded,
    },
    /// The request got no HTTP answer.
    HttpFailed {
        exchange: u64,
        error: String,
        elapsed_ms: f64,
    },
    /// A JSON-RPC message, as sent or received, tied to the HTTP exchange that carried it.
    Rpc {
        direction: Direction,
        exchange: Option<u64>,
        message: Message,
        /// Set when the trace dropped the message's payload (params, result, error data) to stay
        /// within its memory limit: how many bytes it held (`budget.rs`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dropped: Option<u64>,
    },
    /// A body or stream event whose text the trace dropped to stay within its memory limit
    /// (`budget.rs`): how many bytes it held.
    DetailDropped {
        exchange: u64,
        bytes: u64,
    },
    /// How a JSON-RPC request we sent ended, whichever layer decided it.
    RpcOutcome {
        id: RequestId,
        method: String,
        elapsed_ms: f64,
        failure: Option<Failure>,
    },
    /// How one Claude API attempt ended (`attempt` 0 is the first try).
    ApiOutcome {
        exchange: u64,
        attempt: u32,
        request_id: Option<String>,
        elapsed_ms: f64,
        failure: Option<Failure>,
        /// What failed, in a badge's words: "HTTP 429", "stream error" (after HTTP 200).
        badge: Option<String>,
        /// Why the message ended, when the stream said (read once, by the accumulator).
        stop_reason: Option<String>,
    },
    /// The start of one of the four phases of the loop, in iteration `iteration` (from 1).
    Phase {
        phase: u8,
        iteration: u32,
    },
    /// The user asked something.
    UserMessage {
        text: String,
    },
    /// Phase 1's result: the tools Claude will see, where each comes from, and what was left out.
    ToolsAggregated {
        tools: Vec<AggregatedTool>,
        excluded: Vec<(String, String)>,
    },
    /// A thinking block of Claude's answer (phase 2), as it goes back in the next request: its
    /// text (empty when the API omitted it), or opaque when the API redacted it.
    Thinking {
        text: String,
        redacted: bool,
        /// The length of its signature (or redacted data): what the API checks it by.
        signature_chars: usize,
    },
    /// A block of Claude's answer that the page does not route: a call the API ran itself
    /// (`server_tool_use`, `mcp_tool_use`), its result (`web_search_tool_result`, …), or a block
    /// type this page does not know. Shown as it came; it goes back unchanged.
    ApiBlock {
        kind: String,
        block: Value,
    },
    /// Claude asked for a tool (phase 2's output), or code running on the API's side did
    /// (`caller`: the code execution call that made it; programmatic tool calling).
    ToolUse {
        tool_use_id: String,
        name: String,
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<String>,
        /// The arguments as they streamed, one `input_json_delta` each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        fragments: Vec<String>,
        /// Sent with `eager_input_streaming`: the fragments came unbuffered and unchecked.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        eager: bool,
    },
    /// Phase 3's decision for one tool_use.
    Route {
        tool_use_id: String,
        name: String,
        target: RouteTarget,
    },
    /// The JSON-RPC request that carries a tool_use to its server.
    RpcLink {
        tool_use_id: String,
        id: RequestId,
    },
    /// A local function ran.
    LocalCall {
        tool_use_id: String,
        function: String,
        input: Value,
        output: String,
        is_error: bool,
        elapsed_ms: f64,
    },
    /// Phase 4: what Claude will receive for one tool_use, and the failure behind it, if any.
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        content: Value,
        failure: Option<Failure>,
    },
    /// The turn ended; `summary` says why in words.
    TurnEnd {
        stop_reason: Option<String>,
        summary: String,
    },
    /// A fault the user injected (workshop mode): on the HTTP exchange it replaces the answer
    /// of, or (Claude's side) on the tool_use it changed, said in `detail`.
    Injected {
        exchange: Option<u64>,
        fault: crate::faults::Fault,
        detail: Option<String>,
    },
    /// The loop stopped at a breakpoint (workshop mode), before `payload` was sent or used.
    Paused {
        at: crate::agent::Breakpoint,
        iteration: u32,
        title: String,
        payload: Value,
    },
    /// … and went on; `edited` is what replaced the payload.
    Resumed {
        at: crate::agent::Breakpoint,
        how: ResumeHow,
        edited: Option<Value>,
    },
    /// A step of the authorization flow that is not an HTTP exchange of the page's own.
    Auth {
        step: AuthStep,
    },
    /// A task the server runs for a `tools/call` changed status (created, polled, ended):
    /// `poll_ms`, while it runs, is how often the page polls it (the server's interval, clamped).
    Task {
        task_id: String,
        status: protocol::mcp::TaskStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        poll_ms: Option<u64>,
        /// Followed on after a page reload (its first event comes from `tasks/get`, not from
        /// the `tools/call` that created it).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        resumed: bool,
    },
    /// A line worth showing that is not a message (session re-initialised, stream resumed…).
    Note {
        text: String,
    },
}

/// How the loop went on after a breakpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeHow {
    Continued,
    Edited,
    Skipped,
    Stopped,
}

impl ResumeHow {
    pub fn word(self) -> &'static str {
        match self {
            ResumeHow::Continued => "continued",
            ResumeHow::Edited => "edited",
            ResumeHow::Skipped => "skipped",
            ResumeHow::Stopped => "stopped",
        }
    }
}

/// The steps of MCP authorization besides its HTTP requests (those are `HttpRequest` events on
/// the authorization lane, each with a `summary` naming the step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthStep {
    /// The MCP server asked for authorization (401) or for more scope (403).
    Challenged { status: u16, scope: Option<String>, error: Option<String> },
    /// The sign-in page is open in the user's browser: waiting for the user.
    SignIn { url: String, scope: Option<String> },
    /// The browser came back to the redirect URI; `accepted` after state and issuer checks.
    Returned { accepted: bool, detail: String },
    /// A token is in hand.
    Granted { scopes: Vec<String>, expires_in_s: Option<f64>, refreshable: bool },
    /// The flow stopped here.
    Failed { failure: Failure },
    /// The user signed out: tokens forgotten.
    SignedOut,
}
