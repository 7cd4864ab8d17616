//! The trace: every HTTP exchange, JSON-RPC message and agent-loop step as a typed, timestamped
//! event. The timeline is drawn from nothing else.
//!
//! Secrets never enter the trace: credential headers are masked by name, and every registered
//! secret value (the API key, custom header values) is masked wherever it appears, bodies and
//! URLs included.

use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::layer::Failure;
use super::platform::{Headers, Method};
use crate::protocol::jsonrpc::RequestId;

/// Who the page exchanged a message with, or `Client`/`User` for the page's own steps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    User,
    /// The page itself: routing decisions, aggregation, the end of a turn.
    Client,
    Claude,
    /// An MCP server, by its id in the page.
    Server(String),
    /// A function in the page.
    Local,
}

/// One line of the `tools` array as phase 1 built it.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregatedTool {
    /// The name Claude sees.
    pub name: String,
    /// Where a call to it goes, in words ("echo on MCP server \"everything\"").
    pub origin: String,
    pub notes: Vec<String>,
}

/// Where phase 3 sends a tool_use.
#[derive(Clone, Debug, PartialEq)]
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
            RouteTarget::Server { label, tool, .. } => format!("tools/call \"{tool}\" on the MCP server \"{label}\""),
            RouteTarget::Refused { reason } => format!("nothing ({reason})"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the page to the peer.
    Out,
    /// From the peer to the page.
    In,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// Position in the trace, starting at 0, strictly increasing.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub peer: Peer,
    pub kind: TraceKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TraceKind {
    HttpRequest {
        exchange: u64,
        method: Method,
        url: String,
        headers: Headers,
        body: Option<String>,
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
        message: Value,
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
    /// Claude asked for a tool (phase 2's output).
    ToolUse {
        tool_use_id: String,
        name: String,
        input: Value,
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
    /// A line worth showing that is not a message (session re-initialised, stream resumed…).
    Note {
        text: String,
    },
}

struct Inner {
    sink: Box<dyn Fn(TraceEvent)>,
    clock: Box<dyn Fn() -> f64>,
    seq: Cell<u64>,
    exchange: Cell<u64>,
    secrets: RefCell<Vec<String>>,
}

/// Where the engine sends trace events. Clones share one sequence.
#[derive(Clone)]
pub struct Tracer(Rc<Inner>);

pub const MASK: &str = "••••••";
/// Header names whose values are always credentials.
const SECRET_HEADERS: [&str; 5] = ["authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie"];

impl Tracer {
    pub fn new(clock: impl Fn() -> f64 + 'static, sink: impl Fn(TraceEvent) + 'static) -> Self {
        Self(Rc::new(Inner {
            sink: Box::new(sink),
            clock: Box::new(clock),
            seq: Cell::new(0),
            exchange: Cell::new(0),
            secrets: RefCell::new(Vec::new()),
        }))
    }

    /// A tracer that drops everything (for callers that do not draw a timeline).
    pub fn silent() -> Self {
        Self::new(|| 0.0, |_| {})
    }

    pub fn now_ms(&self) -> f64 {
        (self.0.clock)()
    }

    /// Registers a value that must never appear in the trace. Short values are ignored: masking
    /// every "a" would make the trace unreadable and protect nothing.
    pub fn add_secret(&self, value: &str) {
        let value = value.trim();
        if value.len() >= 6 && !self.0.secrets.borrow().iter().any(|s| s == value) {
            self.0.secrets.borrow_mut().push(value.to_owned());
        }
    }

    /// A fresh id for one HTTP request/response pair.
    pub fn next_exchange(&self) -> u64 {
        let n = self.0.exchange.get() + 1;
        self.0.exchange.set(n);
        n
    }

    pub fn emit(&self, peer: Peer, kind: TraceKind) {
        let kind = self.redact(kind);
        let seq = self.0.seq.get();
        self.0.seq.set(seq + 1);
        (self.0.sink)(TraceEvent { seq, at_ms: self.now_ms(), peer, kind });
    }

    pub fn note(&self, peer: Peer, text: impl Into<String>) {
        self.emit(peer, TraceKind::Note { text: text.into() });
    }

    /// Masks every registered secret in `text`.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in self.0.secrets.borrow().iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        out
    }

    fn mask_headers(&self, headers: Headers) -> Headers {
        headers
            .iter()
            .map(|(name, value)| {
                let value = if SECRET_HEADERS.contains(&name) { mask_credential(value) } else { self.mask(value) };
                (name.to_owned(), value)
            })
            .collect()
    }

    fn mask_value(&self, v: Value) -> Value {
        if self.0.secrets.borrow().is_empty() {
            return v;
        }
        match v {
            Value::String(s) => Value::String(self.mask(&s)),
            Value::Array(items) => Value::Array(items.into_iter().map(|i| self.mask_value(i)).collect()),
            Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, self.mask_value(v))).collect()),
            other => other,
        }
    }

    fn redact(&self, kind: TraceKind) -> TraceKind {
        use TraceKind::*;
        match kind {
            HttpRequest { exchange, method, url, headers, body, summary } => HttpRequest {
                exchange,
                method,
                url: self.mask(&url),
                headers: self.mask_headers(headers),
                body: body.map(|b| self.mask(&b)),
                summary,
            },
            HttpResponse { exchange, status, headers, elapsed_ms } => {
                HttpResponse { exchange, status, headers: self.mask_headers(headers), elapsed_ms }
            }
            HttpBody { exchange, body, elapsed_ms } => HttpBody { exchange, body: self.mask(&body), elapsed_ms },
            SseEvent { exchange, id, event, data } => SseEvent { exchange, id, event, data: self.mask(&data) },
            HttpFailed { exchange, error, elapsed_ms } => HttpFailed { exchange, error: self.mask(&error), elapsed_ms },
            Rpc { direction, exchange, message } => Rpc { direction, exchange, message: self.mask_value(message) },
            RpcOutcome { id, method, elapsed_ms, failure } => RpcOutcome {
                id,
                method,
                elapsed_ms,
                failure: failure.map(|f| Failure { message: self.mask(&f.message), ..f }),
            },
            Note { text } => Note { text: self.mask(&text) },
            ApiOutcome { exchange, attempt, request_id, elapsed_ms, failure, badge } => ApiOutcome {
                exchange,
                attempt,
                request_id,
                elapsed_ms,
                badge,
                failure: failure.map(|f| Failure { message: self.mask(&f.message), ..f }),
            },
            UserMessage { text } => UserMessage { text: self.mask(&text) },
            ToolUse { tool_use_id, name, input } => ToolUse { tool_use_id, name, input: self.mask_value(input) },
            LocalCall { tool_use_id, function, input, output, is_error, elapsed_ms } => LocalCall {
                tool_use_id,
                function,
                input: self.mask_value(input),
                output: self.mask(&output),
                is_error,
                elapsed_ms,
            },
            ToolResult { tool_use_id, is_error, content, failure } => ToolResult {
                tool_use_id,
                is_error,
                content: self.mask_value(content),
                failure: failure.map(|f| Failure { message: self.mask(&f.message), ..f }),
            },
            other @ (HttpStreamEnd { .. }
            | Phase { .. }
            | ToolsAggregated { .. }
            | Route { .. }
            | RpcLink { .. }
            | TurnEnd { .. }) => other,
        }
    }
}

/// Keeps the scheme of a credential ("Bearer") so the reader sees what kind it was.
fn mask_credential(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, _)) if scheme.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("{scheme} {MASK}")
        }
        _ => MASK.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture() -> (Tracer, Rc<RefCell<Vec<TraceEvent>>>) {
        let events = Rc::new(RefCell::new(Vec::new()));
        let sink = events.clone();
        (Tracer::new(|| 1.0, move |e| sink.borrow_mut().push(e)), events)
    }

    #[test]
    fn secrets_never_reach_the_sink() {
        let (tracer, events) = capture();
        tracer.add_secret("sk-ant-secret-123");
        tracer.add_secret("tok-abcdef");
        let headers = Headers::new()
            .with("x-api-key", "sk-ant-secret-123")
            .with("Authorization", "Bearer tok-abcdef")
            .with("x-custom", "prefix tok-abcdef");
        tracer.emit(
            Peer::Claude,
            TraceKind::HttpRequest {
                exchange: 1,
                method: Method::Post,
                url: "http://h/?k=tok-abcdef".into(),
                headers,
                body: Some("{\"echo\":\"sk-ant-secret-123\"}".into()),
                summary: None,
            },
        );
        tracer.emit(
            Peer::Server("s".into()),
            TraceKind::Rpc {
                direction: Direction::In,
                exchange: Some(1),
                message: serde_json::json!({"result":{"content":[{"text":"your key is sk-ant-secret-123"}]}}),
            },
        );
        let dump = format!("{:?}", events.borrow());
        assert!(!dump.contains("sk-ant-secret-123"), "{dump}");
        assert!(!dump.contains("tok-abcdef"), "{dump}");
        assert!(dump.contains("Bearer ••••••"), "{dump}");
    }

    #[test]
    fn sequence_and_exchanges_count_up() {
        let (tracer, events) = capture();
        assert_eq!((tracer.next_exchange(), tracer.clone().next_exchange()), (1, 2));
        tracer.note(Peer::Local, "a");
        tracer.clone().note(Peer::Local, "b");
        let seqs: Vec<u64> = events.borrow().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [0, 1]);
    }
}
