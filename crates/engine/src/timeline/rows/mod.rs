//! Trace events → rows. Each event either starts a row or adds to one (a status to its request,
//! a stream event to its response), so appending stays O(1) and rows never move. Every event
//! kind has its own small function; all of them read typed events, never a label or a body.

mod agent;
mod marks;
mod tasks;
mod wire;

pub use tasks::TaskSpan;

use serde_json::Value;
use std::collections::HashMap;

use super::duration_words;
use crate::faults::Fault;
use crate::layer::{Failure, Layer};
use crate::num::shortest;
use crate::platform::{Headers, Method};
use crate::trace::{AggregatedTool, AuthStep, Direction, Peer, ResumeHow, RouteTarget, TraceEvent, TraceKind};
use protocol::jsonrpc::{Message, RequestId};
use protocol::mcp::method;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    User,
    Client,
    Claude,
    Local,
    Server(String),
    /// The tools the Claude API runs on Anthropic's side (web search, code execution, …).
    ApiTools,
    /// The authorization server (and metadata endpoints) of the MCP server with this id.
    Authorization(String),
    /// An MCP App shown in the page (its messages with the page).
    App(String),
}

impl Lane {
    fn of(peer: &Peer) -> Lane {
        match peer {
            Peer::User => Lane::User,
            Peer::Client => Lane::Client,
            Peer::Claude => Lane::Claude,
            Peer::Local => Lane::Local,
            Peer::Server(id) => Lane::Server(id.clone()),
            Peer::Authorization(id) => Lane::Authorization(id.clone()),
            Peer::App(name) => Lane::App(name.clone()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum RowKind {
    /// A phase starts: the coloured band's header.
    Band {
        phase: u8,
        iteration: u32,
    },
    Arrow {
        from: Lane,
        to: Lane,
    },
    Note {
        lane: Lane,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadgeKind {
    Http,
    JsonRpc,
    ToolError,
    Network,
    Failure,
    Info,
    /// A fault the user injected (workshop mode).
    Injected,
    /// A payload the user edited at a breakpoint.
    Edited,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Badge {
    pub kind: BadgeKind,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub index: usize,
    pub kind: RowKind,
    pub at_ms: f64,
    pub label: String,
    pub detail: String,
    /// The band (phase, iteration) the row falls in, if a turn is running.
    pub phase: Option<(u8, u32)>,
    pub badges: Vec<Badge>,
    pub duration_ms: Option<f64>,
    /// Every trace event (by seq) that makes up this row, for the raw view.
    pub events: Vec<u64>,
    pub tool_use_id: Option<String>,
    pub failed: bool,
}

/// One HTTP exchange as the timeline follows it.
struct Exchange {
    method: Method,
    /// The request's row (for a POST to a server: the JSON-RPC message it carried).
    request: Option<usize>,
    /// The response's row, when the response has one of its own.
    response: Option<usize>,
    /// A POST's request event, waiting for the JSON-RPC message that names its row.
    pending: Option<u64>,
    /// Stream events seen on a Claude response.
    events: usize,
    /// It carried the 2026-07-28 probe (`server/discover`): a 2025 server's "no" is the
    /// expected path to the 2025 handshake, not a failure.
    probe: bool,
}

#[derive(Default)]
pub struct Timeline {
    rows: Vec<Row>,
    phase: Option<(u8, u32)>,
    lanes: Vec<Lane>,
    exchanges: HashMap<u64, Exchange>,
    /// (server lane, JSON-RPC id) → the row of the request we sent
    requests: HashMap<(Lane, RequestId), usize>,
    /// (server lane, JSON-RPC id) → the tool_use that request carries
    links: HashMap<(Lane, RequestId), String>,
    tool_names: HashMap<String, String>,
    /// The row of the breakpoint each lane is stopped at (the loop's, and each app's: an app
    /// may stop while the loop does).
    paused: Vec<(Lane, usize)>,
    /// Every task seen, with the rows its life spans (`tasks.rs`).
    tasks: Vec<TaskSpan>,
    /// Request rows of probes a 2025 server refused as expected: their outcome is no failure
    /// (one per connection: a `Vec` is enough).
    expected_refusals: Vec<usize>,
}

/// At most `max` characters of `s` on one line.
fn short(s: &str, max: usize) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() > max { format!("{}…", s.chars().take(max).collect::<String>()) } else { s }
}

/// A JSON value in a few words: strings as they are, anything else as compact JSON.
fn short_json(v: &Value, max: usize) -> String {
    match v {
        Value::String(s) => short(s, max),
        other => short(&other.to_string(), max),
    }
}

fn badge_of(layer: Layer) -> BadgeKind {
    match layer {
        Layer::Network => BadgeKind::Network,
        Layer::Http => BadgeKind::Http,
        Layer::JsonRpc => BadgeKind::JsonRpc,
        Layer::Tool => BadgeKind::ToolError,
        _ => BadgeKind::Failure,
    }
}

impl Timeline {
    pub fn new() -> Self {
        Self { lanes: vec![Lane::User, Lane::Client, Lane::Claude, Lane::Local], ..Self::default() }
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The lanes in drawing order: user, client, Claude, local, then servers as they appeared.
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// Adds one event; returns the index of the first row it changed, if any.
    pub fn push(&mut self, e: &TraceEvent) -> Option<usize> {
        let lane = self.lane(&e.peer);
        match &e.kind {
            TraceKind::Phase { phase, iteration } => Some(self.on_phase(e, *phase, *iteration)),
            TraceKind::TurnEnd { stop_reason, summary } => Some(self.on_turn_end(e, stop_reason.as_deref(), summary)),
            TraceKind::UserMessage { text } => {
                Some(self.add(e, arrow(Lane::User, Lane::Client), "user message", short(text, 80)))
            }
            TraceKind::ToolsAggregated { tools, excluded } => Some(self.on_tools(e, tools, excluded.len())),
            TraceKind::HttpRequest { exchange, method, url, body, summary, .. } => {
                self.on_http_request(e, lane, *exchange, *method, url, body.is_some(), summary.as_deref())
            }
            TraceKind::Rpc { direction, exchange, message, .. } => {
                Some(self.on_rpc(e, lane, *direction, *exchange, message))
            }
            TraceKind::HttpResponse { exchange, status, headers, elapsed_ms } => {
                self.on_http_response(e, lane, *exchange, *status, headers, *elapsed_ms)
            }
            TraceKind::Redirected { exchange, to } => self.on_redirected(e, lane, *exchange, to),
            TraceKind::HttpBody { exchange, .. }
            | TraceKind::HttpStreamEnd { exchange, .. }
            | TraceKind::DetailDropped { exchange, .. } => self.on_body(e, *exchange),
            TraceKind::SseEvent { exchange, .. } => self.on_sse(e, &lane, *exchange),
            TraceKind::LimitReached { exchange, limit } => Some(self.on_limit(e, lane, *exchange, limit)),
            TraceKind::HttpFailed { exchange, error, elapsed_ms } => {
                Some(self.on_http_failed(e, lane, *exchange, error, *elapsed_ms))
            }
            TraceKind::ApiOutcome { exchange, request_id, elapsed_ms, failure, badge, stop_reason, .. } => self
                .on_api_outcome(
                    e.seq,
                    *exchange,
                    request_id.as_deref(),
                    *elapsed_ms,
                    failure.as_ref(),
                    badge.as_deref(),
                    stop_reason.as_deref(),
                ),
            TraceKind::RpcOutcome { id, elapsed_ms, failure, .. } => {
                self.on_rpc_outcome(e.seq, lane, id, *elapsed_ms, failure.as_ref())
            }
            TraceKind::RpcLink { tool_use_id, id } => {
                self.links.insert((lane, id.clone()), tool_use_id.clone());
                None
            }
            TraceKind::ToolUse { tool_use_id, name, input, caller, fragments, eager } => {
                let row = self.on_tool_use(e, tool_use_id, name, input, caller.as_deref());
                if *eager {
                    self.badge(row, BadgeKind::Info, format!("eager · {} pieces", fragments.len()), false);
                }
                Some(row)
            }
            TraceKind::Thinking { text, redacted, .. } => Some(self.on_thinking(e, text, *redacted)),
            TraceKind::ApiBlock { kind, block } => Some(self.on_api_block(e, kind, block)),
            TraceKind::Route { tool_use_id, name, target } => Some(self.on_route(e, tool_use_id, name, target)),
            TraceKind::LocalCall { tool_use_id, function, input, output, is_error, elapsed_ms } => {
                Some(self.on_local_call(e, tool_use_id, function, input, output, *is_error, *elapsed_ms))
            }
            TraceKind::ToolResult { tool_use_id, is_error, content, failure } => {
                Some(self.on_tool_result(e, tool_use_id, *is_error, content, failure.as_ref()))
            }
            TraceKind::Auth { step } => Some(self.on_auth(e, lane, step)),
            TraceKind::Paused { at, title, .. } => {
                let row = self.add(
                    e,
                    RowKind::Note { lane: lane.clone() },
                    format!("paused {}", at.place()),
                    short(title, 80),
                );
                self.badge(row, BadgeKind::Info, "breakpoint", false);
                self.paused.push((lane, row));
                Some(row)
            }
            TraceKind::Resumed { how, .. } => {
                let at = self.paused.iter().position(|(l, _)| *l == lane)?;
                let (_, row) = self.paused.swap_remove(at);
                self.attach(row, e.seq);
                let kind = if *how == ResumeHow::Edited { BadgeKind::Edited } else { BadgeKind::Info };
                self.badge(row, kind, how.word(), false);
                Some(row)
            }
            TraceKind::Injected { exchange, fault, detail } => {
                Some(self.on_injected(e, lane, *exchange, fault, detail.as_deref()))
            }
            TraceKind::Note { text } => Some(self.add(e, RowKind::Note { lane }, short(text, 120), "")),
            TraceKind::Task { task_id, status, message, tool_use_id, poll_ms, resumed } => {
                let news = tasks::TaskNews {
                    task_id,
                    status: *status,
                    message: message.as_deref(),
                    tool_use_id: tool_use_id.as_ref(),
                    poll_ms: *poll_ms,
                    resumed: *resumed,
                };
                Some(self.on_task(e, lane, news))
            }
        }
    }

    fn lane(&mut self, peer: &Peer) -> Lane {
        let lane = Lane::of(peer);
        self.show_lane(lane.clone());
        lane
    }

    /// Draws `lane` from now on (lanes appear as they are first used).
    fn show_lane(&mut self, lane: Lane) {
        if !self.lanes.contains(&lane) {
            self.lanes.push(lane);
        }
    }

    fn add(&mut self, e: &TraceEvent, kind: RowKind, label: impl Into<String>, detail: impl Into<String>) -> usize {
        let index = self.rows.len();
        self.rows.push(Row {
            index,
            kind,
            at_ms: e.at_ms,
            label: label.into(),
            detail: detail.into(),
            phase: self.phase,
            badges: Vec::new(),
            duration_ms: None,
            events: vec![e.seq],
            tool_use_id: None,
            failed: false,
        });
        index
    }

    fn attach(&mut self, row: usize, seq: u64) {
        if let Some(r) = self.rows.get_mut(row) {
            r.events.push(seq);
        }
    }

    fn badge(&mut self, row: usize, kind: BadgeKind, text: impl Into<String>, failed: bool) {
        if let Some(r) = self.rows.get_mut(row) {
            let text = text.into();
            // One badge per layer: "HTTP 500" already says what a later "HTTP" would.
            if !r.badges.iter().any(|b| b.text == text || (b.kind == kind && kind != BadgeKind::Info)) {
                r.badges.push(Badge { kind, text });
            }
            r.failed |= failed;
        }
    }

    fn for_tool(&mut self, row: usize, tool_use_id: Option<String>) {
        self.rows[row].tool_use_id = tool_use_id;
    }
}

fn arrow(from: Lane, to: Lane) -> RowKind {
    RowKind::Arrow { from, to }
}
