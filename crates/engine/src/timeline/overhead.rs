//! The client's own cost per step of the loop, read from trace timestamps: how long the page
//! took between the end of Claude's tool_use answer and the `tools/call` POST leaving, and
//! between the server's reply and the next Messages request. The benchmark and the browser test
//! both measure with this.

use crate::trace::{Peer, TraceEvent, TraceKind};
use protocol::jsonrpc::Message;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOverhead {
    /// Last SSE event of the answer carrying the tool_use → the MCP POST sent.
    pub to_mcp_ms: f64,
    /// The JSON-RPC result received → the next Messages request sent.
    pub to_claude_ms: f64,
}

/// The overhead of the first routed MCP call in `events`, if the trace holds one complete step.
pub fn step_overhead(events: &[TraceEvent]) -> Option<StepOverhead> {
    let link = events.iter().position(|e| matches!(e.kind, TraceKind::RpcLink { .. }))?;
    let (before, after) = events.split_at(link);
    let last_sse =
        before.iter().rev().find(|e| e.peer == Peer::Claude && matches!(e.kind, TraceKind::SseEvent { .. }))?;
    let post = after.iter().find(|e| matches!(e.kind, TraceKind::HttpRequest { .. }))?;
    let reply = after.iter().find(|e| matches!(&e.kind, TraceKind::Rpc { message: Message::Response { .. }, .. }))?;
    let next = after.iter().find(|e| e.peer == Peer::Claude && matches!(e.kind, TraceKind::HttpRequest { .. }))?;
    Some(StepOverhead { to_mcp_ms: post.at_ms - last_sse.at_ms, to_claude_ms: next.at_ms - reply.at_ms })
}
