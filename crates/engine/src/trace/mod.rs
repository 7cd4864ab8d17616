//! The trace: every HTTP exchange, JSON-RPC message and agent-loop step as a typed, timestamped
//! event. The timeline is drawn from nothing else.
//!
//! Secrets never enter the trace: credential headers are masked by name, and every registered
//! secret value (the API key, custom header values) is masked wherever it appears, bodies and
//! URLs included.

pub mod budget;
mod event;

pub use event::{
    AggregatedTool, AuthStep, Direction, Peer, RequestBody, ResumeHow, RouteTarget, TraceEvent, TraceKind,
};

use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::layer::Failure;
use super::platform::Headers;
use protocol::jsonrpc::{ErrorObject, Message};

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

    /// Pieces of one text: a secret may span two, so when the whole needs masking it is kept as
    /// one masked piece (the pieces' growth is lost, never the secret kept).
    fn mask_pieces(&self, pieces: Vec<String>) -> Vec<String> {
        let whole = pieces.concat();
        let masked = self.mask(&whole);
        if masked == whole { pieces } else { vec![masked] }
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

    fn mask_message(&self, m: Message) -> Message {
        let params = |p: Option<Value>| p.map(|p| self.mask_value(p));
        match m {
            Message::Request { id, method, params: p } => Message::Request { id, method, params: params(p) },
            Message::Notification { method, params: p } => Message::Notification { method, params: params(p) },
            Message::Response { id, result } => Message::Response { id, result: self.mask_value(result) },
            Message::Error { id, error } => Message::Error {
                id,
                error: ErrorObject { message: self.mask(&error.message), data: params(error.data), ..error },
            },
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
                body: body.map(|b| match b {
                    RequestBody::Text(t) => RequestBody::Text(self.mask(&t)),
                    dropped => dropped,
                }),
                summary,
            },
            HttpResponse { exchange, status, headers, elapsed_ms } => {
                HttpResponse { exchange, status, headers: self.mask_headers(headers), elapsed_ms }
            }
            HttpBody { exchange, body, elapsed_ms } => HttpBody { exchange, body: self.mask(&body), elapsed_ms },
            Redirected { exchange, to } => Redirected { exchange, to: self.mask(&to) },
            SseEvent { exchange, id, event, data } => SseEvent { exchange, id, event, data: self.mask(&data) },
            HttpFailed { exchange, error, elapsed_ms } => HttpFailed { exchange, error: self.mask(&error), elapsed_ms },
            Rpc { direction, exchange, message, dropped } => {
                Rpc { direction, exchange, message: self.mask_message(message), dropped }
            }
            RpcOutcome { id, method, elapsed_ms, failure } => RpcOutcome {
                id,
                method,
                elapsed_ms,
                failure: failure.map(|f| Failure { message: self.mask(&f.message), ..f }),
            },
            Note { text } => Note { text: self.mask(&text) },
            Task { task_id, status, message, tool_use_id, poll_ms, resumed } => {
                Task { task_id, status, message: message.map(|m| self.mask(&m)), tool_use_id, poll_ms, resumed }
            }
            ApiOutcome { exchange, attempt, request_id, elapsed_ms, failure, badge, stop_reason } => ApiOutcome {
                exchange,
                attempt,
                request_id,
                elapsed_ms,
                badge,
                stop_reason,
                failure: failure.map(|f| Failure { message: self.mask(&f.message), ..f }),
            },
            UserMessage { text } => UserMessage { text: self.mask(&text) },
            ToolUse { tool_use_id, name, input, caller, fragments, eager } => ToolUse {
                tool_use_id,
                name,
                input: self.mask_value(input),
                caller,
                fragments: self.mask_pieces(fragments),
                eager,
            },
            ApiBlock { kind, block } => ApiBlock { kind, block: self.mask_value(block) },
            Thinking { text, redacted, signature_chars } => {
                Thinking { text: self.mask(&text), redacted, signature_chars }
            }
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
            Auth { step } => Auth {
                step: match step {
                    AuthStep::SignIn { url, scope } => AuthStep::SignIn { url: self.mask(&url), scope },
                    AuthStep::Returned { accepted, detail } => {
                        AuthStep::Returned { accepted, detail: self.mask(&detail) }
                    }
                    AuthStep::Failed { failure } => {
                        AuthStep::Failed { failure: Failure { message: self.mask(&failure.message), ..failure } }
                    }
                    other => other,
                },
            },
            Paused { at, iteration, title, payload } => {
                Paused { at, iteration, title: self.mask(&title), payload: self.mask_value(payload) }
            }
            Resumed { at, how, edited } => Resumed { at, how, edited: edited.map(|v| self.mask_value(v)) },
            Injected { exchange, fault, detail } => Injected { exchange, fault, detail: detail.map(|d| self.mask(&d)) },
            other @ (HttpStreamEnd { .. }
            | LimitReached { .. }
            | DetailDropped { .. }
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
    use crate::platform::Method;

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
                body: Some(RequestBody::Text("{\"echo\":\"sk-ant-secret-123\"}".into())),
                summary: None,
            },
        );
        let echo = serde_json::json!({"content":[{"text":"your key is sk-ant-secret-123"}]});
        tracer.emit(
            Peer::Server("s".into()),
            TraceKind::Rpc {
                direction: Direction::In,
                exchange: Some(1),
                message: Message::Response { id: protocol::jsonrpc::RequestId::Number(1), result: echo },
                dropped: None,
            },
        );
        let error = ErrorObject::new(protocol::jsonrpc::ErrorCode(-1), "bad key tok-abcdef");
        tracer.emit(
            Peer::Server("s".into()),
            TraceKind::Rpc {
                direction: Direction::In,
                exchange: Some(2),
                message: Message::Error { id: None, error },
                dropped: None,
            },
        );
        let dump = format!("{:?}", events.borrow());
        assert!(!dump.contains("sk-ant-secret-123"), "{dump}");
        assert!(!dump.contains("tok-abcdef"), "{dump}");
        assert!(dump.contains("Bearer ••••••"), "{dump}");
    }

    #[test]
    fn a_secret_split_across_streamed_pieces_is_masked_as_a_whole() {
        let (tracer, events) = capture();
        tracer.add_secret("sk-ant-secret-123");
        let pieces = |v: &[&str]| v.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
        let call = |fragments| TraceKind::ToolUse {
            tool_use_id: "t".into(),
            name: "echo".into(),
            input: serde_json::json!({"text": "sk-ant-secret-123"}),
            caller: None,
            fragments,
            eager: true,
        };
        // A server (or Claude) that cuts the key in two, so neither piece holds it whole.
        tracer.emit(Peer::Claude, call(pieces(&["{\"text\": \"sk-ant-se", "cret-123\"}"])));
        tracer.emit(Peer::Claude, call(pieces(&["{\"text\": ", "\"hello\"}"])));
        let kept: Vec<Vec<String>> = events
            .borrow()
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::ToolUse { fragments, .. } => Some(fragments.clone()),
                _ => None,
            })
            .collect();
        let dump = format!("{kept:?}");
        assert!(!dump.contains("sk-ant-se") && !dump.contains("cret-123"), "{dump}");
        assert_eq!(kept[0].len(), 1, "masked as one piece: {dump}");
        assert_eq!(kept[1], pieces(&["{\"text\": ", "\"hello\"}"]), "pieces without a secret stay as they came");
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
