//! What one turn cost, read from its trace: who made each tool call (this page, or the API's
//! MCP connector), what crossed the network from the page, the tokens Claude counted and the
//! time it took. Two turns side by side are the MCP connector comparison.

use serde_json::Value;
use std::collections::HashSet;

use crate::trace::{Peer, RouteTarget, TraceEvent, TraceKind};

/// One turn's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// `tools/call` requests this page sent to the compared servers.
    pub calls_by_page: usize,
    /// Calls the API made itself (`mcp_tool_use`: the MCP connector).
    pub calls_by_api: usize,
    /// Functions in the page that ran.
    pub local_calls: usize,
    /// HTTP requests from the page to the compared servers (lists and calls alike).
    pub server_requests: usize,
    /// Bytes of bodies between the page and the compared servers, both ways.
    pub server_bytes: u64,
    /// Messages API requests, and the bytes of their bodies (both ways).
    pub claude_requests: usize,
    pub claude_bytes: u64,
    /// Tokens Claude counted, summed over the turn's requests (cache reads and writes included
    /// in input); `None` when the trace no longer holds the usage.
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// From the question to the end of the turn.
    pub elapsed_ms: f64,
}

impl Figures {
    /// The figures of the turn whose events are `events` (from its `UserMessage` to its end),
    /// counting the page's exchanges with the servers `compared` (ids) only: a server the
    /// connector could not call is in the page's loop both times, and would blur the difference.
    pub fn of(events: &[TraceEvent], compared: &[String]) -> Figures {
        let mut f = Figures::default();
        let mut server_exchanges = HashSet::new();
        let mut claude_exchanges = HashSet::new();
        let (mut input, mut output) = (None::<u64>, None::<u64>);
        let add = |sum: &mut Option<u64>, n: Option<u64>| {
            if let Some(n) = n {
                *sum = Some(sum.unwrap_or(0) + n);
            }
        };
        for e in events {
            match (&e.peer, &e.kind) {
                (Peer::Server(id), TraceKind::HttpRequest { exchange, body, .. }) if compared.contains(id) => {
                    server_exchanges.insert(*exchange);
                    f.server_requests += 1;
                    f.server_bytes += body.as_ref().map_or(0, |b| b.len() as u64);
                }
                (Peer::Claude, TraceKind::HttpRequest { exchange, body, .. }) => {
                    claude_exchanges.insert(*exchange);
                    f.claude_requests += 1;
                    f.claude_bytes += body.as_ref().map_or(0, |b| b.len() as u64);
                }
                (_, TraceKind::HttpBody { exchange, body: text, .. })
                | (_, TraceKind::SseEvent { exchange, data: text, .. })
                    if server_exchanges.contains(exchange) =>
                {
                    f.server_bytes += text.len() as u64;
                }
                (_, TraceKind::DetailDropped { exchange, bytes })
                    if server_exchanges.contains(exchange) || claude_exchanges.contains(exchange) =>
                {
                    if server_exchanges.contains(exchange) {
                        f.server_bytes += bytes;
                    } else {
                        f.claude_bytes += bytes;
                    }
                }
                (_, TraceKind::HttpBody { exchange, body, .. }) if claude_exchanges.contains(exchange) => {
                    f.claude_bytes += body.len() as u64;
                }
                (_, TraceKind::SseEvent { exchange, data, .. }) if claude_exchanges.contains(exchange) => {
                    f.claude_bytes += data.len() as u64;
                    let (i, o) = usage(data);
                    add(&mut input, i);
                    add(&mut output, o);
                }
                (_, TraceKind::Route { target: RouteTarget::Server { server_id, .. }, .. })
                    if compared.contains(server_id) =>
                {
                    f.calls_by_page += 1
                }
                (_, TraceKind::LocalCall { .. }) => f.local_calls += 1,
                (_, TraceKind::ApiBlock { kind, .. }) if kind == "mcp_tool_use" => f.calls_by_api += 1,
                _ => {}
            }
        }
        f.input_tokens = input;
        f.output_tokens = output;
        if let (Some(first), Some(last)) = (events.first(), events.last()) {
            f.elapsed_ms = (last.at_ms - first.at_ms).max(0.0);
        }
        f
    }
}

/// The input and output tokens a Messages stream event reports: `message_start` carries the
/// input (and cache) tokens, `message_delta` (one per answer) the output.
fn usage(data: &str) -> (Option<u64>, Option<u64>) {
    let Ok(v) = serde_json::from_str::<Value>(data) else { return (None, None) };
    let n = |u: &Value, k: &str| u.get(k).and_then(Value::as_u64);
    match v.get("type").and_then(Value::as_str) {
        Some("message_start") => {
            let u = &v["message"]["usage"];
            let input = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
                .iter()
                .filter_map(|k| n(u, k))
                .sum::<u64>();
            (Some(input), None)
        }
        Some("message_delta") => (None, n(&v["usage"], "output_tokens")),
        _ => (None, None),
    }
}

/// One line of the comparison: what is measured, in the page's loop and through the connector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompareRow {
    pub what: &'static str,
    pub in_page: String,
    pub connector: String,
}

fn tokens(n: Option<u64>) -> String {
    n.map_or_else(|| "not in the trace".to_owned(), |n| n.to_string())
}

fn bytes(n: u64) -> String {
    if n < 10_000 { format!("{n} B") } else { format!("{} KB", crate::num::fixed(n as f64 / 1000.0, 1)) }
}

fn seconds(ms: f64) -> String {
    format!("{} s", crate::num::fixed(ms / 1000.0, 2))
}

/// The two ways side by side, one row per figure ("them": the servers compared).
pub fn side_by_side(in_page: &Figures, connector: &Figures) -> Vec<CompareRow> {
    let row = |what, f: fn(&Figures) -> String| CompareRow { what, in_page: f(in_page), connector: f(connector) };
    vec![
        row("tools/call this page sent to them", |f| f.calls_by_page.to_string()),
        row("calls the API made (mcp_tool_use)", |f| f.calls_by_api.to_string()),
        row("functions run in the page", |f| f.local_calls.to_string()),
        row("HTTP requests from the page to them", |f| f.server_requests.to_string()),
        row("bytes between the page and them", |f| bytes(f.server_bytes)),
        row("Messages API requests", |f| f.claude_requests.to_string()),
        row("bytes between the page and the Messages API", |f| bytes(f.claude_bytes)),
        row("input tokens (all requests)", |f| tokens(f.input_tokens)),
        row("output tokens (all requests)", |f| tokens(f.output_tokens)),
        row("time, question to answer", |f| seconds(f.elapsed_ms)),
    ]
}
