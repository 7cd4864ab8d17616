//! One request, end to end: ids, the progress token, the 2026-07-28 envelope and headers,
//! timeouts, progress and cancellation (C-18…C-22), streams read to the matching response
//! (C-06), resumption (C-07), re-initialisation after an expired session (C-10), and the
//! multi round-trip pattern of 2026-07-28.

use futures::{FutureExt, StreamExt, pin_mut, select_biased};
use serde_json::{Map, Value, json};

use super::envelope::{add_meta, request_headers};
use super::error::ProtocolError;
use super::transport::{GetReply, PostReply};
use super::{Connection, McpClient, McpError, RequestOptions};
use crate::auth::{AfterRefusal, AuthError};
use crate::deadline::Deadline;
use crate::limits::{LimitExceeded, reconnect_delay};
use crate::platform::{Body, Headers, Platform};
use crate::sse::SseParser;
use crate::trace::TraceKind;
use protocol::jsonrpc::{Message, RequestId};
use protocol::mcp::{Revision, input_required, method};

/// Resume attempts for a broken POST stream, before giving up: every loop is bounded.
const MAX_RESUMES: u32 = 3;
/// Rounds of a multi round-trip request before the client stops answering.
const MAX_INPUT_ROUNDS: usize = 8;
/// Authorizations (sign-in, refresh or step-up) one request may ask for before it gives up.
const MAX_AUTH_ROUNDS: u32 = 3;

impl<P: Platform> McpClient<P> {
    /// Sends a request and waits for its result, within the timeout, until cancelled. In
    /// 2026-07-28, a result that asks for input (`input_required`) is answered and the request
    /// sent again, with a new id, the answers and the server's state.
    pub async fn request(
        &self,
        rpc_method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<Value, McpError> {
        if !self.is_connected() && rpc_method != method::PING {
            return Err(McpError::Protocol(ProtocolError::NotConnected));
        }
        self.allows(rpc_method)?;
        let mut params = params;
        for round in 0..=MAX_INPUT_ROUNDS {
            let result = self.send_request(rpc_method, params.clone(), opts, None).await?;
            if self.modern().is_none() || !input_required(&result) {
                return Ok(result);
            }
            if round == MAX_INPUT_ROUNDS {
                break;
            }
            let responses = self.fulfil(result.get("inputRequests")).await;
            let mut next = match params.take() {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            // Only this retry carries them, and only what this round asked for.
            next.remove("inputResponses");
            next.remove("requestState");
            if !responses.is_empty() {
                next.insert("inputResponses".into(), Value::Object(responses));
            }
            if let Some(state) = result.get("requestState") {
                next.insert("requestState".into(), state.clone());
            }
            params = Some(Value::Object(next));
        }
        Err(McpError::Client(format!("{rpc_method}: the server asked for input {MAX_INPUT_ROUNDS} times; stopped")))
    }

    /// Sends one request. `envelope`: the modern revision whose `_meta` and headers it carries
    /// (by default the connection's, if it speaks one).
    pub(super) async fn send_request(
        &self,
        rpc_method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        envelope: Option<Revision>,
    ) -> Result<Value, McpError> {
        let envelope = envelope.or_else(|| self.modern());
        let id = RequestId::Number(self.next_id.get() + 1);
        self.next_id.set(self.next_id.get() + 1);
        let started = self.platform.now_ms();
        let timeouts = self.config.timeouts;
        let deadline = Deadline::new(started, opts.timeout_ms.unwrap_or(timeouts.request_ms), timeouts.max_ms);

        // C-22: a progress token unique among active requests; progress also extends the timeout.
        let token = self.next_token.get() + 1;
        self.next_token.set(token);
        let token_key = Value::from(token).to_string();
        let mut extra = Headers::new();
        let params = if rpc_method == method::INITIALIZE {
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
            if let Some(revision) = envelope {
                let level = self.log_level.borrow().clone();
                add_meta(&mut p, revision, &self.handlers.modern_capabilities(), level.as_deref());
                let p = Value::Object(p.clone());
                let tool = p.get("name").and_then(Value::as_str).filter(|_| rpc_method == method::TOOLS_CALL);
                let declared = tool.and_then(|t| self.tool_headers.borrow().get(t).cloned()).unwrap_or_default();
                extra = request_headers(revision, rpc_method, &p, &declared);
            }
            Some(Value::Object(p))
        };
        self.watches.borrow_mut().insert(
            token_key.clone(),
            super::client::Watch { deadline: deadline.clone(), on_progress: opts.on_progress.clone() },
        );

        if let Some(tool_use_id) = &opts.trace_link {
            self.tracer.emit(self.peer(), TraceKind::RpcLink { tool_use_id: tool_use_id.clone(), id: id.clone() });
        }
        let message = Message::request(id.clone(), rpc_method, params);
        let cancel = opts.cancel.clone().unwrap_or_default();
        let outcome = {
            let work = self.exchange(&message, &id, &deadline, &extra).fuse();
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
            Err(e @ McpError::Network { .. }) if self.state() == Connection::Connected => {
                self.set_state(Connection::Unreachable(e.to_failure()))
            }
            Ok(_) if matches!(self.state(), Connection::Unreachable(_)) => self.set_state(Connection::Connected),
            _ => {}
        }

        // C-21: tell the server we gave up, except on initialize, which cannot be cancelled. In
        // 2026-07-28 dropping the request's stream is the cancellation (no notification).
        let gave_up = matches!(outcome, Err(McpError::Cancelled | McpError::Timeout { .. }));
        if gave_up && rpc_method != method::INITIALIZE && envelope.is_none() {
            let reason =
                if matches!(outcome, Err(McpError::Cancelled)) { "cancelled by the user" } else { "timed out" };
            let note = Message::notification(method::CANCELLED, Some(json!({ "requestId": id, "reason": reason })));
            let _ = self.post(&note).await;
        }
        self.tracer.emit(
            self.peer(),
            TraceKind::RpcOutcome {
                id,
                method: rpc_method.to_owned(),
                elapsed_ms: self.platform.now_ms() - started,
                failure: outcome.as_ref().err().map(McpError::to_failure),
            },
        );
        outcome
    }

    /// One request over the wire, re-initialising once if a 2025 session expired (C-10), and
    /// getting (or refreshing, or stepping up) authorization when the server asks for it, a
    /// bounded number of times.
    async fn exchange(
        &self,
        message: &Message,
        id: &RequestId,
        deadline: &Deadline,
        extra: &Headers,
    ) -> Result<Value, McpError> {
        let is_initialize = message.method() == Some(method::INITIALIZE);
        let mut retried = false;
        let mut auth_rounds = 0;
        loop {
            let (generation, had_session) = {
                let s = self.session.borrow();
                (s.generation, s.id.is_some() && s.modern.is_none())
            };
            if let Some(auth) = &self.auth {
                auth.refresh_if_due().await;
            }
            let token = self.auth.as_ref().map(|a| a.generation());
            match self.post_and_wait(message, id, deadline, extra).await {
                Err(McpError::Http { status: 404, .. }) if had_session && !retried && !is_initialize => {
                    retried = true;
                    self.reinitialize(generation).await?;
                }
                Err(e @ McpError::Http { status: 401 | 403, .. }) if self.auth.is_some() => {
                    let (auth, seen) = (self.auth.as_ref().expect("checked"), token.unwrap_or_default());
                    let McpError::Http { status, www_authenticate, .. } = &e else { unreachable!() };
                    if auth_rounds == MAX_AUTH_ROUNDS {
                        return Err(match auth.bearer() {
                            Some(_) if *status == 401 => McpError::Auth(AuthError::TokenRejected {
                                status: *status,
                                issuer: auth.issuer().unwrap_or_default(),
                            }),
                            _ => e,
                        });
                    }
                    auth_rounds += 1;
                    // The request's clock stands still while authorization runs: each of its
                    // steps has its own time (`Limits::auth_step_ms`), and the user's sign-in
                    // takes as long as the user does (Cancel on the card ends it).
                    let pause = deadline.pause(self.platform.now_ms());
                    let answer = auth.answer(*status, www_authenticate.as_deref(), seen).await;
                    pause.resume(self.platform.now_ms());
                    match answer.map_err(McpError::Auth)? {
                        AfterRefusal::Retry => {}
                        AfterRefusal::NotAuthorization => return Err(e),
                    }
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
        let version = self.protocol_version().as_deref().and_then(protocol::mcp::Revision::parse);
        let why = self.why();
        // Boxed: handshake → request → reinitialize → handshake is a cycle the compiler cannot size.
        let handshake: futures::future::LocalBoxFuture<'_, _> =
            Box::pin(self.handshake(version.unwrap_or(Revision::LEGACY_LATEST), why));
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
    /// stream breaks first, resumes it with GET + Last-Event-ID (C-06, C-07). 2026-07-28 has no
    /// resumption: a broken stream loses the request.
    async fn read_until_response(
        &self,
        mut exchange: u64,
        mut body: Body,
        id: &RequestId,
        deadline: &Deadline,
    ) -> Result<Value, McpError> {
        let mut parser = SseParser::new(self.config.limits.sse_event_bytes);
        let mut resumed = 0;
        loop {
            let started = self.platform.now_ms();
            // Why the stream ended without the response: `Some` when the connection broke.
            let mut broke: Option<String> = None;
            loop {
                match body.next().await {
                    Some(Ok(chunk)) => {
                        let events = parser.feed(&chunk).map_err(|limit| self.refused_stream(exchange, limit))?;
                        for event in events {
                            self.trace_sse(exchange, &event);
                            let messages = self.parse(exchange, &event.data)?;
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
                    reach: super::Reach::Unknown,
                },
                None => McpError::Protocol(ProtocolError::StreamEnded { resumed }),
            };
            // A drop is not a cancellation (C-06): resume if the server gave us an event id.
            let last_id = parser.last_event_id().map(str::to_owned).filter(|_| self.modern().is_none());
            let Some(last_id) = last_id else {
                return Err(gave_up(broke));
            };
            if resumed >= MAX_RESUMES {
                return Err(gave_up(broke));
            }
            let wait = reconnect_delay(&self.config.limits, parser.retry_ms(), resumed);
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
}

/// `Some(result)` when `m` answers the request `id`.
pub(super) fn response_to(m: &Message, id: &RequestId) -> Option<Result<Value, McpError>> {
    match m {
        Message::Response { id: got, result } if got == id => Some(Ok(result.clone())),
        Message::Error { id: Some(got), error } if got == id => Some(Err(McpError::Rpc(error.clone()))),
        _ => None,
    }
}

impl<P: Platform> McpClient<P> {
    /// An answer the server made too big: traced as such, and the error that says which limit.
    /// Dropping the body (the caller returns) aborts the request.
    pub(super) fn refused_stream(&self, exchange: u64, limit: LimitExceeded) -> McpError {
        self.tracer.emit(self.peer(), TraceKind::LimitReached { exchange, limit });
        McpError::Limit(limit)
    }
}
