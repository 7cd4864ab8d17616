//! The session: `initialize` and version negotiation (C-15…C-17), requests with timeouts,
//! progress and cancellation (C-18…C-22), streams read to the matching response while server
//! requests and notifications are dispatched (C-06), resumption (C-07), re-initialisation after
//! an expired session (C-10).

use futures::{FutureExt, StreamExt, pin_mut, select_biased};
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::error::ProtocolError;
use super::handlers::{Handlers, ListKind, ServerNotification};
use super::transport::{GetReply, PostReply};
use super::{Connection, ListenEnd, McpError, ProgressCallback, RequestOptions, ServerConfig};
use crate::engine::cancel::CancelToken;
use crate::engine::deadline::Deadline;
use crate::engine::platform::{Body, Headers, Platform};
use crate::engine::sse::SseParser;
use crate::engine::trace::{Direction, Peer, TraceKind, Tracer};
use crate::protocol::jsonrpc::{ErrorCode, ErrorObject, Message, RequestId};
use crate::protocol::mcp::{
    ElicitAction, Implementation, InitializeParams, InitializeResult, LoggingMessageParams, MODERN_VERSION,
    ProgressParams, SUPPORTED_VERSIONS, method,
};

/// Resume attempts for a broken POST stream, and consecutive failures tolerated on the GET
/// stream, before giving up: every loop that talks to a server is bounded.
const MAX_RESUMES: u32 = 3;
const MAX_LISTEN_FAILURES: u32 = 5;
const MAX_BACKOFF_MS: u64 = 10_000;

#[derive(Default)]
pub(super) struct Session {
    pub(super) id: Option<String>,
    pub(super) version: Option<String>,
    pub(super) info: Option<InitializeResult>,
    /// Bumped on every successful initialize; lets concurrent requests that all saw a 404
    /// re-initialise once between them (C-10).
    pub(super) generation: u64,
}

struct Watch {
    deadline: Deadline,
    on_progress: Option<ProgressCallback>,
}

/// A connection to one MCP server over Streamable HTTP.
pub struct McpClient<P: Platform> {
    pub(super) platform: Rc<P>,
    pub(super) config: ServerConfig,
    pub(super) tracer: Tracer,
    handlers: Handlers,
    pub(super) session: RefCell<Session>,
    next_id: Cell<i64>,
    next_token: Cell<i64>,
    watches: RefCell<HashMap<String, Watch>>,
    reinit: futures::lock::Mutex<()>,
    /// Resource URIs subscribed to in this session (C-33), ended on disconnect.
    pub(super) subscriptions: RefCell<std::collections::BTreeSet<String>>,
    state: RefCell<Connection>,
}

impl<P: Platform> McpClient<P> {
    pub fn new(platform: Rc<P>, config: ServerConfig, tracer: Tracer, handlers: Handlers) -> Self {
        for (_, value) in &config.headers {
            tracer.add_secret(value);
        }
        Self {
            platform,
            config,
            tracer,
            handlers,
            session: RefCell::new(Session::default()),
            next_id: Cell::new(0),
            next_token: Cell::new(0),
            watches: RefCell::new(HashMap::new()),
            reinit: futures::lock::Mutex::new(()),
            subscriptions: RefCell::default(),
            state: RefCell::new(Connection::Disconnected),
        }
    }

    /// Where the connection stands.
    pub fn state(&self) -> Connection {
        self.state.borrow().clone()
    }

    fn set_state(&self, state: Connection) {
        if *self.state.borrow() == state {
            return;
        }
        *self.state.borrow_mut() = state.clone();
        if let Some(on_state) = &self.handlers.on_state {
            on_state(&self.config.id, &state);
        }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub(super) fn peer(&self) -> Peer {
        Peer::Server(self.config.id.clone())
    }

    /// What the server said about itself in `initialize`, once connected.
    pub fn server_info(&self) -> Option<InitializeResult> {
        self.session.borrow().info.clone()
    }

    pub fn is_connected(&self) -> bool {
        self.session.borrow().info.is_some()
    }

    pub fn session_id(&self) -> Option<String> {
        self.session.borrow().id.clone()
    }

    /// Runs the `initialize` handshake (C-15…C-17) and returns what the server said.
    pub async fn connect(&self) -> Result<InitializeResult, McpError> {
        self.set_state(Connection::Connecting);
        let result = self.handshake().await;
        self.set_state(match &result {
            Ok(_) => Connection::Connected,
            Err(e) => Connection::Failed(e.to_failure()),
        });
        result
    }

    async fn handshake(&self) -> Result<InitializeResult, McpError> {
        {
            let mut s = self.session.borrow_mut();
            s.id = None;
            s.version = None;
            s.info = None;
        }
        let params = InitializeParams {
            protocol_version: SUPPORTED_VERSIONS[0].to_owned(),
            capabilities: self.handlers.capabilities(),
            client_info: Implementation {
                name: "Loopscope".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                title: Some("Loopscope: the Claude tool-use loop, on a timeline".into()),
            },
        };
        let params = serde_json::to_value(params).expect("InitializeParams serialises");
        let raw = match self.send_request(method::INITIALIZE, Some(params), &RequestOptions::default()).await {
            Ok(v) => v,
            Err(e) => return Err(self.explain_failed_initialize(e).await),
        };
        let result: InitializeResult = serde_json::from_value(raw.clone())
            .map_err(|e| McpError::Decode { reason: format!("not an InitializeResult: {e}"), raw: raw.to_string() })?;
        if !SUPPORTED_VERSIONS.contains(&result.protocol_version.as_str()) {
            // C-16: adopt any version we speak; otherwise disconnect, showing both.
            let _ = self.delete_session().await;
            self.session.borrow_mut().id = None;
            return Err(McpError::Protocol(ProtocolError::VersionMismatch {
                requested: SUPPORTED_VERSIONS[0].to_owned(),
                offered: result.protocol_version,
            }));
        }
        self.session.borrow_mut().version = Some(result.protocol_version.clone());
        match self.post(&Message::notification(method::INITIALIZED, None)).await? {
            PostReply::Accepted => {}
            // A body where none is due: tolerated, and visible in the trace.
            PostReply::Json { .. } | PostReply::Stream { .. } => {}
        }
        let mut s = self.session.borrow_mut();
        s.info = Some(result.clone());
        s.generation += 1;
        Ok(result)
    }

    /// A failed `initialize` may mean a server that only speaks 2026-07-28, which has no
    /// handshake at all (C-44). Ask it with `server/discover` before calling it broken.
    async fn explain_failed_initialize(&self, error: McpError) -> McpError {
        if let Some(e) = error.rpc_error()
            && e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        {
            return McpError::Protocol(ProtocolError::ModernOnly { supported: supported_list(e.data.as_ref()) });
        }
        let worth_probing = matches!(&error, McpError::Rpc(e) if e.code == ErrorCode::METHOD_NOT_FOUND)
            || matches!(&error, McpError::Http { status: 400 | 404 | 405, .. });
        if !worth_probing {
            return error;
        }
        // The 2026-07-28 envelope: the version and capabilities ride in every request's `_meta`,
        // mirrored in headers.
        let params = json!({ "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { "name": "Loopscope", "version": env!("CARGO_PKG_VERSION") },
        }});
        let headers =
            Headers::new().with("mcp-protocol-version", MODERN_VERSION).with("mcp-method", method::SERVER_DISCOVER);
        self.tracer
            .note(self.peer(), "initialize failed: asking server/discover whether this is an MCP 2026-07-28 server");
        let probe =
            self.send_request_with(method::SERVER_DISCOVER, Some(params), &RequestOptions::default(), &headers).await;
        match probe {
            Ok(result) => {
                let mut supported = supported_list(result.get("supportedVersions"));
                if supported.is_empty() {
                    supported.push(MODERN_VERSION.to_owned());
                }
                McpError::Protocol(ProtocolError::ModernOnly { supported })
            }
            Err(probe_error) => match probe_error.rpc_error() {
                Some(e) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                    McpError::Protocol(ProtocolError::ModernOnly { supported: supported_list(e.data.as_ref()) })
                }
                _ => error,
            },
        }
    }

    /// Ends the session: unsubscribes what it subscribed to (C-33, best effort), `DELETE`
    /// (C-11), then forgets it.
    pub async fn disconnect(&self) -> Result<(), McpError> {
        let subscribed = std::mem::take(&mut *self.subscriptions.borrow_mut());
        if self.is_connected() {
            for uri in subscribed {
                let _ = self.unsubscribe(&uri).await;
            }
        }
        let result = if self.is_connected() { self.delete_session().await } else { Ok(()) };
        let generation = self.session.borrow().generation;
        *self.session.borrow_mut() = Session { generation, ..Session::default() };
        self.set_state(Connection::Disconnected);
        result
    }

    /// Sends a request and waits for its result, within the timeout, until cancelled.
    pub async fn request(&self, method: &str, params: Option<Value>, opts: &RequestOptions) -> Result<Value, McpError> {
        if !self.is_connected() && method != method::PING {
            return Err(McpError::Protocol(ProtocolError::NotConnected));
        }
        self.send_request(method, params, opts).await
    }

    async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, McpError> {
        self.send_request_with(method, params, opts, &Headers::new()).await
    }

    async fn send_request_with(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        extra: &Headers,
    ) -> Result<Value, McpError> {
        let id = RequestId::Number(self.next_id.get() + 1);
        self.next_id.set(self.next_id.get() + 1);
        let started = self.platform.now_ms();
        let timeouts = self.config.timeouts;
        let deadline = Deadline::new(started, opts.timeout_ms.unwrap_or(timeouts.request_ms), timeouts.max_ms);

        // C-22: a progress token unique among active requests; progress also extends the timeout.
        let token = self.next_token.get() + 1;
        self.next_token.set(token);
        let token_key = Value::from(token).to_string();
        let params = if method == method::INITIALIZE {
            params
        } else {
            let mut p = match params {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let meta = p.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert("progressToken".into(), Value::from(token));
            }
            Some(Value::Object(p))
        };
        self.watches
            .borrow_mut()
            .insert(token_key.clone(), Watch { deadline: deadline.clone(), on_progress: opts.on_progress.clone() });

        if let Some(tool_use_id) = &opts.trace_link {
            self.tracer.emit(self.peer(), TraceKind::RpcLink { tool_use_id: tool_use_id.clone(), id: id.clone() });
        }
        let message = Message::request(id.clone(), method, params);
        let cancel = opts.cancel.clone().unwrap_or_default();
        let outcome = {
            let work = self.exchange(&message, &id, &deadline, extra).fuse();
            let expired = deadline.expired(&*self.platform).fuse();
            let cancelled = cancel.cancelled().fuse();
            pin_mut!(work, expired, cancelled);
            select_biased! {
                r = work => r,
                _ = cancelled => Err(McpError::Cancelled),
                _ = expired => Err(McpError::Timeout { after_ms: deadline.elapsed_ms(self.platform.now_ms()) as u64 }),
            }
        };
        self.watches.borrow_mut().remove(&token_key);
        // What the wire said about the connection: no answer at all, or an answer again.
        match &outcome {
            Err(e @ McpError::Network { .. }) if *self.state.borrow() == Connection::Connected => {
                self.set_state(Connection::Unreachable(e.to_failure()))
            }
            Ok(_) if matches!(*self.state.borrow(), Connection::Unreachable(_)) => {
                self.set_state(Connection::Connected)
            }
            _ => {}
        }

        // C-21: tell the server we gave up, except on initialize, which cannot be cancelled.
        if matches!(outcome, Err(McpError::Cancelled | McpError::Timeout { .. })) && method != method::INITIALIZE {
            let reason =
                if matches!(outcome, Err(McpError::Cancelled)) { "cancelled by the user" } else { "timed out" };
            let note = Message::notification(method::CANCELLED, Some(json!({ "requestId": id, "reason": reason })));
            let _ = self.post(&note).await;
        }
        self.tracer.emit(
            self.peer(),
            TraceKind::RpcOutcome {
                id,
                method: method.to_owned(),
                elapsed_ms: self.platform.now_ms() - started,
                failure: outcome.as_ref().err().map(McpError::to_failure),
            },
        );
        outcome
    }

    /// One request over the wire, re-initialising once if the session expired (C-10).
    async fn exchange(
        &self,
        message: &Message,
        id: &RequestId,
        deadline: &Deadline,
        extra: &Headers,
    ) -> Result<Value, McpError> {
        let is_initialize = message.method() == Some(method::INITIALIZE);
        let mut retried = false;
        loop {
            let (generation, had_session) = {
                let s = self.session.borrow();
                (s.generation, s.id.is_some())
            };
            match self.post_and_wait(message, id, deadline, extra).await {
                Err(McpError::Http { status: 404, .. }) if had_session && !retried && !is_initialize => {
                    retried = true;
                    self.reinitialize(generation).await?;
                }
                other => return other,
            }
        }
    }

    async fn reinitialize(&self, seen_generation: u64) -> Result<(), McpError> {
        let _guard = self.reinit.lock().await;
        if self.session.borrow().generation != seen_generation {
            return Ok(()); // another request already did it
        }
        self.tracer.note(self.peer(), "Session expired (HTTP 404): initializing a new session and retrying once");
        self.session.borrow_mut().id = None;
        let lost = std::mem::take(&mut *self.subscriptions.borrow_mut());
        if !lost.is_empty() {
            let uris = lost.into_iter().collect::<Vec<_>>().join(", ");
            self.tracer
                .note(self.peer(), format!("The new session has no resource subscriptions: subscribe again to {uris}"));
        }
        self.set_state(Connection::Reconnecting);
        // Boxed: handshake → request → reinitialize → handshake is a cycle the compiler cannot size.
        let handshake: futures::future::LocalBoxFuture<'_, _> = Box::pin(self.handshake());
        let result = handshake.await.map(|_| ());
        self.set_state(match &result {
            Ok(()) => Connection::Connected,
            Err(e) => Connection::SessionLost(e.to_failure()),
        });
        result
    }

    async fn post_and_wait(
        &self,
        message: &Message,
        id: &RequestId,
        deadline: &Deadline,
        extra: &Headers,
    ) -> Result<Value, McpError> {
        match self.post_with(message, extra).await? {
            PostReply::Accepted => Err(McpError::Protocol(ProtocolError::UnexpectedStatus { status: 202 })),
            PostReply::Json { exchange, messages } => {
                let mut answer = None;
                let mut stray = None;
                for m in messages {
                    match response_to(&m, id) {
                        Some(result) => answer = Some(result),
                        None if matches!(m, Message::Response { .. } | Message::Error { .. }) => {
                            stray = Some(m.id().cloned());
                        }
                        None => self.dispatch(m, exchange, Some(deadline)).await,
                    }
                }
                answer.unwrap_or_else(|| {
                    Err(McpError::Protocol(ProtocolError::IdMismatch { expected: id.clone(), got: stray.flatten() }))
                })
            }
            PostReply::Stream { exchange, body } => self.read_until_response(exchange, body, id, deadline).await,
        }
    }

    /// Reads a POST's SSE stream until the response to `id`, dispatching everything else; if the
    /// stream breaks first, resumes it with GET + Last-Event-ID (C-06, C-07).
    async fn read_until_response(
        &self,
        mut exchange: u64,
        mut body: Body,
        id: &RequestId,
        deadline: &Deadline,
    ) -> Result<Value, McpError> {
        let mut parser = SseParser::new();
        let mut resumed = 0;
        loop {
            let started = self.platform.now_ms();
            // Why the stream ended without the response: `Some` when the connection broke.
            let mut broke: Option<String> = None;
            loop {
                match body.next().await {
                    Some(Ok(chunk)) => {
                        for event in parser.feed(&chunk) {
                            self.trace_sse(exchange, &event);
                            let messages = Message::parse_all(&event.data)
                                .map_err(|e| McpError::Decode { reason: e.to_string(), raw: event.data.clone() })?;
                            for m in messages {
                                self.trace_rpc_in(exchange, &m);
                                match response_to(&m, id) {
                                    Some(result) => return result,
                                    None => self.dispatch(m, exchange, Some(deadline)).await,
                                }
                            }
                        }
                    }
                    Some(Err(e)) => {
                        let elapsed_ms = self.platform.now_ms() - started;
                        let error = e.message.clone();
                        self.tracer.emit(self.peer(), TraceKind::HttpFailed { exchange, error, elapsed_ms });
                        broke = Some(e.message);
                        break;
                    }
                    None => {
                        let elapsed_ms = self.platform.now_ms() - started;
                        self.tracer.emit(self.peer(), TraceKind::HttpStreamEnd { exchange, elapsed_ms, clean: true });
                        break;
                    }
                }
            }
            parser.finish();
            let gave_up = |broke: Option<String>| match broke {
                Some(message) => McpError::Network {
                    message: format!("the response stream broke off: {message}"),
                    reach: super::error::Reach::Unknown,
                },
                None => McpError::Protocol(ProtocolError::StreamEnded { resumed }),
            };
            // A drop is not a cancellation (C-06): resume if the server gave us an event id.
            let Some(last_id) = parser.last_event_id().map(str::to_owned) else {
                return Err(gave_up(broke));
            };
            if resumed >= MAX_RESUMES {
                return Err(gave_up(broke));
            }
            let wait = backoff(parser.retry_ms().unwrap_or(1_000), resumed);
            resumed += 1;
            self.tracer.note(
                self.peer(),
                format!("Stream broke before the response: resuming in {wait} ms with Last-Event-ID {last_id} (attempt {resumed}/{MAX_RESUMES})"),
            );
            self.platform.sleep(wait).await;
            match self.open_get(Some(&last_id)).await {
                Ok(GetReply::Stream { exchange: e, body: b }) => {
                    exchange = e;
                    body = b;
                }
                Ok(GetReply::NotOffered { .. }) => {
                    return Err(McpError::Protocol(ProtocolError::StreamEnded { resumed }));
                }
                Err(McpError::Network { .. }) if resumed < MAX_RESUMES => {
                    body = Box::pin(futures::stream::empty());
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Listens on the GET stream for server-initiated messages (C-08) until cancelled, the
    /// server says it has none, or it fails `MAX_LISTEN_FAILURES` times in a row.
    pub async fn listen(&self, cancel: &CancelToken) -> ListenEnd {
        let work = self.listen_loop().fuse();
        let stop = cancel.cancelled().fuse();
        pin_mut!(work, stop);
        select_biased! {
            _ = stop => ListenEnd::Cancelled,
            end = work => end,
        }
    }

    async fn listen_loop(&self) -> ListenEnd {
        let mut parser = SseParser::new();
        let mut failures = 0;
        loop {
            let last_id = parser.last_event_id().map(str::to_owned);
            match self.open_get(last_id.as_deref()).await {
                Ok(GetReply::NotOffered { status }) => return ListenEnd::NotOffered { status },
                Ok(GetReply::Stream { exchange, mut body }) => {
                    if matches!(*self.state.borrow(), Connection::Unreachable(_)) {
                        self.set_state(Connection::Connected);
                    }
                    let started = self.platform.now_ms();
                    let mut delivered = false;
                    while let Some(chunk) = body.next().await {
                        let Ok(chunk) = chunk else { break };
                        for event in parser.feed(&chunk) {
                            delivered = true;
                            self.trace_sse(exchange, &event);
                            if let Ok(messages) = Message::parse_all(&event.data) {
                                for m in messages {
                                    self.trace_rpc_in(exchange, &m);
                                    self.dispatch(m, exchange, None).await;
                                }
                            }
                        }
                    }
                    parser.finish();
                    let elapsed_ms = self.platform.now_ms() - started;
                    self.tracer.emit(self.peer(), TraceKind::HttpStreamEnd { exchange, elapsed_ms, clean: true });
                    failures = if delivered { 0 } else { failures + 1 };
                    if failures >= MAX_LISTEN_FAILURES {
                        return ListenEnd::Failed(McpError::Protocol(ProtocolError::StreamEnded { resumed: failures }));
                    }
                }
                Err(e) => {
                    // The server's own stream cannot be reopened: the first sign a server stopped.
                    if matches!(e, McpError::Network { .. }) && *self.state.borrow() == Connection::Connected {
                        self.set_state(Connection::Unreachable(e.to_failure()));
                    }
                    failures += 1;
                    if failures >= MAX_LISTEN_FAILURES {
                        return ListenEnd::Failed(e);
                    }
                }
            }
            self.platform.sleep(backoff(parser.retry_ms().unwrap_or(1_000), failures)).await;
        }
    }

    fn trace_sse(&self, exchange: u64, event: &crate::engine::sse::SseEvent) {
        self.tracer.emit(
            self.peer(),
            TraceKind::SseEvent {
                exchange,
                id: event.id.clone(),
                event: event.event.clone(),
                data: event.data.clone(),
            },
        );
    }

    fn trace_rpc_in(&self, exchange: u64, m: &Message) {
        self.tracer.emit(
            self.peer(),
            TraceKind::Rpc { direction: Direction::In, exchange: Some(exchange), message: m.clone() },
        );
    }

    /// Handles one message that is not the response being waited for.
    async fn dispatch(&self, message: Message, _exchange: u64, deadline: Option<&Deadline>) {
        match message {
            Message::Notification { method, params } => self.on_notification(&method, params),
            Message::Request { id, method, params } => {
                let pause = deadline.map(|d| d.pause(self.platform.now_ms()));
                let reply = match self.answer(&method, params).await {
                    Ok(result) => Message::Response { id, result },
                    Err(error) => Message::Error { id: Some(id), error },
                };
                if let Some(p) = pause {
                    p.resume(self.platform.now_ms());
                }
                if let Err(e) = self.post(&reply).await {
                    self.tracer
                        .note(self.peer(), format!("Could not deliver our answer to the server's {method}: {e}"));
                }
            }
            // C-18: responses to ids we are not waiting for are ignored (they stay in the trace).
            Message::Response { .. } | Message::Error { .. } => {}
        }
    }

    /// Answers a server's request: ping at once (C-20), sampling and elicitation through their
    /// handlers, anything undeclared with -32601 (C-36).
    async fn answer(&self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        let params = params.unwrap_or(Value::Null);
        let invalid =
            |e: serde_json::Error| ErrorObject::new(ErrorCode::INVALID_PARAMS, format!("invalid params: {e}"));
        match method {
            method::PING => Ok(json!({})),
            method::SAMPLING_CREATE_MESSAGE if self.handlers.sampling.is_some() => {
                let handler = self.handlers.sampling.clone().expect("checked");
                let p = serde_json::from_value(params).map_err(invalid)?;
                let result = handler.create_message(&self.config.id, p).await?;
                Ok(serde_json::to_value(result).expect("serialisable"))
            }
            method::ELICITATION_CREATE if self.handlers.elicitation.is_some() => {
                let handler = self.handlers.elicitation.clone().expect("checked");
                let p: crate::protocol::mcp::ElicitParams = serde_json::from_value(params).map_err(invalid)?;
                if p.mode.as_deref().is_some_and(|m| m != "form") {
                    return Err(ErrorObject::new(
                        ErrorCode::INVALID_PARAMS,
                        format!(
                            "elicitation mode \"{}\" was not declared; this client supports form mode only",
                            p.mode.unwrap_or_default()
                        ),
                    ));
                }
                let schema = p.requested_schema.clone();
                let mut result = handler.elicit(&self.config.id, p).await?;
                // SEP-1034: what an accepted answer leaves out takes the schema's default.
                if let (ElicitAction::Accept, Some(schema)) = (result.action, &schema) {
                    crate::engine::form::apply_defaults(schema, result.content.get_or_insert_with(Map::new));
                }
                Ok(serde_json::to_value(result).expect("serialisable"))
            }
            _ => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method} (not declared by this client)"),
            )),
        }
    }

    fn on_notification(&self, method: &str, params: Option<Value>) {
        let note = match method {
            method::PROGRESS => match params.clone().map(serde_json::from_value::<ProgressParams>) {
                Some(Ok(p)) => {
                    let key = p.progress_token.to_string();
                    let watch = self.watches.borrow().get(&key).map(|w| (w.deadline.clone(), w.on_progress.clone()));
                    if let Some((deadline, callback)) = watch {
                        deadline.extend(self.platform.now_ms());
                        if let Some(cb) = callback {
                            cb(&p);
                        }
                    }
                    ServerNotification::Progress(p)
                }
                _ => ServerNotification::Other { method: method.into(), params },
            },
            method::MESSAGE => match params.clone().map(serde_json::from_value::<LoggingMessageParams>) {
                Some(Ok(p)) => ServerNotification::Log(p),
                _ => ServerNotification::Other { method: method.into(), params },
            },
            method::TOOLS_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Tools),
            method::RESOURCES_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Resources),
            method::PROMPTS_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Prompts),
            method::RESOURCES_UPDATED => match params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) {
                Some(uri) => ServerNotification::ResourceUpdated { uri: uri.to_owned() },
                None => ServerNotification::Other { method: method.into(), params },
            },
            method::CANCELLED => match params.clone().map(serde_json::from_value) {
                Some(Ok(p)) => ServerNotification::Cancelled(p),
                _ => ServerNotification::Other { method: method.into(), params },
            },
            _ => ServerNotification::Other { method: method.into(), params },
        };
        if let Some(notify) = &self.handlers.notify {
            notify(&self.config.id, note);
        }
    }
}

/// `Some(result)` when `m` answers the request `id`.
fn response_to(m: &Message, id: &RequestId) -> Option<Result<Value, McpError>> {
    match m {
        Message::Response { id: got, result } if got == id => Some(Ok(result.clone())),
        Message::Error { id: Some(got), error } if got == id => Some(Err(McpError::Rpc(error.clone()))),
        _ => None,
    }
}

/// Exponential backoff from `base_ms`, capped.
fn backoff(base_ms: u64, attempt: u32) -> u64 {
    base_ms.saturating_mul(1 << attempt.min(6)).min(MAX_BACKOFF_MS)
}

fn supported_list(v: Option<&Value>) -> Vec<String> {
    let list = v.and_then(|v| v.get("supported").or(Some(v))).and_then(Value::as_array);
    list.map(|l| l.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}
