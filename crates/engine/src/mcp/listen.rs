//! The server's own stream of messages: in 2025 the GET stream (C-08), in 2026-07-28 the
//! response stream of a long-lived `subscriptions/listen` request whose filter names what the
//! client wants. Either way bounded: it gives up after repeated failures, waits between
//! attempts at least the floor `engine::limits` sets whatever the server's `retry:` says, and
//! stops when the server makes it reopen the stream too often in a minute.

use futures::{FutureExt, StreamExt, pin_mut, select_biased};
use serde_json::{Map, Value};

use super::envelope::{add_meta, request_headers};
use super::transport::{GetReply, PostReply};
use super::{Connection, ListenEnd, McpClient, McpError};
use crate::cancel::CancelToken;
use crate::limits::{ReconnectBudget, reconnect_delay};
use crate::platform::Platform;
use crate::sse::SseParser;
use crate::trace::TraceKind;
use protocol::jsonrpc::{Message, RequestId};
use protocol::mcp::{Revision, SubscriptionFilter, method};

/// Consecutive failures tolerated on the server's stream.
const MAX_LISTEN_FAILURES: u32 = 5;

impl<P: Platform> McpClient<P> {
    /// Listens for the server's own messages until cancelled, the server says it has none, or
    /// the stream fails `MAX_LISTEN_FAILURES` times in a row.
    pub async fn listen(&self, cancel: &CancelToken) -> ListenEnd {
        let modern = self.modern();
        let work = async move {
            match modern {
                Some(revision) => self.listen_modern(revision).await,
                None => self.listen_get().await,
            }
        }
        .fuse();
        let stop = cancel.cancelled().fuse();
        pin_mut!(work, stop);
        select_biased! {
            _ = stop => ListenEnd::Cancelled,
            end = work => end,
        }
    }

    /// Counts one more opening of the server's stream: an error once it is too many a minute.
    fn reopen(&self, budget: &mut ReconnectBudget) -> Result<(), McpError> {
        budget.spend(&self.config.limits, self.platform.now_ms()).map_err(|limit| {
            self.tracer.note(
                self.peer(),
                format!("The server closed its stream {} times within a minute: stopped listening", limit.max),
            );
            McpError::Limit(limit)
        })
    }

    async fn listen_get(&self) -> ListenEnd {
        let limits = self.config.limits;
        let mut parser = SseParser::new(limits.sse_event_bytes);
        let mut failures = 0;
        let mut budget = ReconnectBudget::default();
        loop {
            if let Err(e) = self.reopen(&mut budget) {
                return ListenEnd::Failed(e);
            }
            let last_id = parser.last_event_id().map(str::to_owned);
            match self.open_get(last_id.as_deref()).await {
                Ok(GetReply::NotOffered { status }) => return ListenEnd::NotOffered { status },
                Ok(GetReply::Stream { exchange, body }) => {
                    if matches!(self.state(), Connection::Unreachable(_)) {
                        self.set_state(Connection::Connected);
                    }
                    let delivered = match self.read_stream(exchange, body, &mut parser, &CancelToken::new()).await {
                        Ok(delivered) => delivered,
                        Err(e) => return ListenEnd::Failed(e),
                    };
                    failures = if delivered { 0 } else { failures + 1 };
                    if failures >= MAX_LISTEN_FAILURES {
                        let e = McpError::Protocol(super::ProtocolError::StreamEnded { resumed: failures });
                        return ListenEnd::Failed(e);
                    }
                }
                Err(e) => {
                    if self.stream_failed(&e, &mut failures) {
                        return ListenEnd::Failed(e);
                    }
                }
            }
            self.platform.sleep(reconnect_delay(&limits, parser.retry_ms(), failures)).await;
        }
    }

    /// The filter a 2026-07-28 listen stream asks for: the list changes the server said it
    /// announces, and the resources subscribed to.
    fn filter(&self) -> SubscriptionFilter {
        let caps = self.server_info().map(|i| i.capabilities).unwrap_or_default();
        let changes = |c: &Option<protocol::mcp::Capability>| c.as_ref().is_some_and(|c| c.list_changed == Some(true));
        SubscriptionFilter {
            tools_list_changed: changes(&caps.tools),
            prompts_list_changed: changes(&caps.prompts),
            resources_list_changed: changes(&caps.resources),
            resource_subscriptions: self.subscriptions.borrow().iter().cloned().collect(),
        }
    }

    async fn listen_modern(&self, revision: Revision) -> ListenEnd {
        let mut failures = 0;
        let mut budget = ReconnectBudget::default();
        loop {
            let restart = CancelToken::new();
            *self.relisten.borrow_mut() = restart.clone();
            let filter = self.filter();
            if filter == SubscriptionFilter::default() {
                // Nothing to listen for until something is subscribed to.
                restart.cancelled().await;
                continue;
            }
            if let Err(e) = self.reopen(&mut budget) {
                return ListenEnd::Failed(e);
            }
            let id = RequestId::Number(self.next_id.get() + 1);
            self.next_id.set(self.next_id.get() + 1);
            let mut params = Map::new();
            params.insert("notifications".into(), serde_json::to_value(&filter).expect("serialisable"));
            let level = self.log_level.borrow().clone();
            add_meta(&mut params, revision, &self.handlers.modern_capabilities(), level.as_deref());
            let params = Value::Object(params);
            let headers = request_headers(revision, method::SUBSCRIPTIONS_LISTEN, &params, &[]);
            let message = Message::request(id, method::SUBSCRIPTIONS_LISTEN, Some(params));
            let reply = {
                let post = self.post_with(&message, &headers).fuse();
                let stop = restart.cancelled().fuse();
                pin_mut!(post, stop);
                select_biased! {
                    _ = stop => continue,
                    r = post => r,
                }
            };
            match reply {
                Ok(PostReply::Stream { exchange, body }) => {
                    let mut parser = SseParser::new(self.config.limits.sse_event_bytes);
                    let delivered = match self.read_stream(exchange, body, &mut parser, &restart).await {
                        Ok(delivered) => delivered,
                        Err(e) => return ListenEnd::Failed(e),
                    };
                    if restart.is_cancelled() {
                        self.tracer.note(self.peer(), "The subscriptions changed: listening again with the new filter");
                        continue;
                    }
                    failures = if delivered { 0 } else { failures + 1 };
                }
                // Answered at once (its result ends the subscription; an error refuses it).
                Ok(PostReply::Json { messages, .. }) => {
                    let refused = messages.into_iter().find_map(|m| match m {
                        Message::Error { error, .. } => Some(McpError::Rpc(error)),
                        _ => None,
                    });
                    if let Some(e) = refused {
                        return ListenEnd::Failed(e);
                    }
                    failures += 1;
                }
                Ok(PostReply::Accepted) => failures += 1,
                Err(e) => {
                    if self.stream_failed(&e, &mut failures) {
                        return ListenEnd::Failed(e);
                    }
                }
            }
            if failures >= MAX_LISTEN_FAILURES {
                return ListenEnd::Failed(McpError::Protocol(super::ProtocolError::StreamEnded { resumed: failures }));
            }
            self.platform.sleep(reconnect_delay(&self.config.limits, None, failures)).await;
        }
    }

    /// A stream that could not be opened; `true` when it is time to give up.
    fn stream_failed(&self, e: &McpError, failures: &mut u32) -> bool {
        // The server's own stream cannot be reopened: the first sign a server stopped.
        if matches!(e, McpError::Network { .. }) && self.state() == Connection::Connected {
            self.set_state(Connection::Unreachable(e.to_failure()));
        }
        *failures += 1;
        *failures >= MAX_LISTEN_FAILURES
    }

    /// Reads one stream to its end (or until `stop`), dispatching what it carries. Returns
    /// whether anything came; an error when the stream passed a limit.
    async fn read_stream(
        &self,
        exchange: u64,
        mut body: crate::platform::Body,
        parser: &mut SseParser,
        stop: &CancelToken,
    ) -> Result<bool, McpError> {
        let started = self.platform.now_ms();
        let mut delivered = false;
        self.stream_open.set(true);
        loop {
            let next = {
                let chunk = body.next().fuse();
                let stopped = stop.cancelled().fuse();
                pin_mut!(chunk, stopped);
                select_biased! {
                    _ = stopped => None,
                    c = chunk => c,
                }
            };
            let Some(Ok(chunk)) = next else { break };
            let events = match parser.feed(&chunk) {
                Ok(events) => events,
                Err(limit) => {
                    self.stream_open.set(false);
                    parser.finish();
                    return Err(self.refused_stream(exchange, limit));
                }
            };
            for event in events {
                delivered = true;
                self.trace_sse(exchange, &event);
                if let Ok(messages) = self.parse(exchange, &event.data) {
                    for m in messages {
                        self.trace_rpc_in(exchange, &m);
                        self.dispatch(m, exchange, None).await;
                    }
                }
            }
        }
        self.stream_open.set(false);
        parser.finish();
        let elapsed_ms = self.platform.now_ms() - started;
        self.tracer.emit(self.peer(), TraceKind::HttpStreamEnd { exchange, elapsed_ms, clean: true });
        Ok(delivered)
    }
}
