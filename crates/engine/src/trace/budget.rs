//! What the trace may hold. Every body, stream event and JSON-RPC payload a server sends is kept
//! for the detail pane, so a chatty or hostile server could fill the page's memory through the
//! trace alone. The budget (`Limits::trace_bytes`) counts those payloads as they come; past it,
//! the oldest details are dropped, each replaced by a marker that says so (the timeline's rows,
//! built when the event came, stay as they are).

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use std::collections::VecDeque;

use super::{RequestBody, TraceEvent, TraceKind};
use protocol::jsonrpc::Message;

/// The payload bytes an event holds that may be dropped later.
pub fn weight(kind: &TraceKind) -> usize {
    match kind {
        TraceKind::HttpRequest { body: Some(RequestBody::Text(t)), .. } => t.len(),
        TraceKind::HttpBody { body, .. } => body.len(),
        TraceKind::SseEvent { data, .. } => data.len(),
        TraceKind::Rpc { message, dropped: None, .. } => payload_len(message),
        _ => 0,
    }
}

/// About the size of a message's params or result as JSON text, counted without writing it
/// (writing a 16 MiB answer out to weigh it would cost another 16 MiB for a moment).
fn payload_len(message: &Message) -> usize {
    let value = match message {
        Message::Request { params, .. } | Message::Notification { params, .. } => params.as_ref(),
        Message::Response { result, .. } => Some(result),
        Message::Error { error, .. } => error.data.as_ref(),
    };
    value.map_or(0, json_len)
}

/// About the length of `v` as compact JSON: strings and keys with their quotes, the
/// punctuation; escapes and number digits estimated.
fn json_len(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|i| json_len(i) + 1).sum::<usize>(),
        Value::Object(m) => 2 + m.iter().map(|(k, v)| k.len() + 4 + json_len(v)).sum::<usize>(),
    }
}

/// Replaces an event's payload with a marker of how much was there.
pub fn drop_detail(kind: &mut TraceKind) {
    let bytes = weight(kind) as u64;
    match kind {
        TraceKind::HttpRequest { body: Some(body @ RequestBody::Text(_)), .. } => {
            *body = RequestBody::Dropped { bytes: bytes as usize };
        }
        TraceKind::HttpBody { exchange, .. } | TraceKind::SseEvent { exchange, .. } => {
            *kind = TraceKind::DetailDropped { exchange: *exchange, bytes };
        }
        TraceKind::Rpc { message, dropped, .. } => {
            match message {
                Message::Request { params, .. } | Message::Notification { params, .. } => *params = None,
                Message::Response { result, .. } => *result = serde_json::Value::Null,
                Message::Error { error, .. } => error.data = None,
            }
            *dropped = Some(bytes);
        }
        _ => {}
    }
}

/// The trace's payloads against the budget: which events to drop the detail of, oldest first.
#[derive(Debug, Default)]
pub struct TraceBudget {
    used: usize,
    /// (position in the trace, bytes) of every event still holding a payload, oldest first.
    held: VecDeque<(usize, usize)>,
}

impl TraceBudget {
    /// Counts the event at `position`; returns the positions whose detail must go to stay within
    /// `limit` bytes (never the event just counted, unless it alone is over the limit).
    pub fn push(&mut self, position: usize, event: &TraceEvent, limit: usize) -> Vec<usize> {
        let bytes = weight(&event.kind);
        if bytes == 0 {
            return Vec::new();
        }
        self.used += bytes;
        self.held.push_back((position, bytes));
        let mut drop = Vec::new();
        while self.used > limit {
            let Some((at, bytes)) = self.held.pop_front() else { break };
            self.used -= bytes;
            drop.push(at);
        }
        drop
    }

    pub fn clear(&mut self) {
        *self = TraceBudget::default();
    }

    /// The bytes of detail held now.
    pub fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use crate::trace::{Direction, Peer};
    use protocol::jsonrpc::RequestId;

    fn event(seq: u64, kind: TraceKind) -> TraceEvent {
        TraceEvent { seq, at_ms: 0.0, peer: Peer::Server("s".into()), kind }
    }

    #[test]
    fn the_oldest_details_go_first_and_say_how_much_was_there() {
        let mut budget = TraceBudget::default();
        let mut trace = [
            event(0, TraceKind::HttpBody { exchange: 1, body: "a".repeat(600), elapsed_ms: 1.0 }),
            event(
                1,
                TraceKind::Rpc {
                    direction: Direction::In,
                    exchange: Some(1),
                    message: Message::Response { id: RequestId::Number(1), result: serde_json::json!("b".repeat(500)) },
                    dropped: None,
                },
            ),
            event(2, TraceKind::SseEvent { exchange: 2, id: None, event: None, data: "c".repeat(300) }),
        ];
        let mut dropped = Vec::new();
        for (i, e) in trace.iter().enumerate() {
            dropped.extend(budget.push(i, e, 700));
        }
        assert_eq!(dropped, [0, 1]);
        for at in dropped {
            drop_detail(&mut trace[at].kind);
        }
        assert_eq!(budget.used(), 300);
        assert_eq!(trace[0].kind, TraceKind::DetailDropped { exchange: 1, bytes: 600 });
        let TraceKind::Rpc { message: Message::Response { result, .. }, dropped, .. } = &trace[1].kind else {
            panic!("{:?}", trace[1].kind)
        };
        assert_eq!((result, *dropped), (&serde_json::Value::Null, Some(502)), "a 500-byte string weighs 502");
        assert_eq!(weight(&trace[1].kind), 0, "a dropped payload weighs nothing");
        assert!(matches!(trace[2].kind, TraceKind::SseEvent { .. }));
    }

    #[test]
    fn events_without_payload_cost_nothing() {
        let mut budget = TraceBudget::default();
        let note = event(0, TraceKind::Note { text: "x".repeat(10_000) });
        assert!(budget.push(0, &note, 10).is_empty());
        assert_eq!(budget.used(), 0);
    }
}
