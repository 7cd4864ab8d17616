//! Trace events → rows. Each event either starts a row or adds to one (a status to its request,
//! a stream event to its response), so appending stays O(1) and rows never move. Every event
//! kind has its own small function; all of them read typed events, never a label or a body.

use serde_json::Value;
use std::collections::HashMap;

use crate::engine::faults::Fault;
use crate::engine::layer::{Failure, Layer};
use crate::engine::num::shortest;
use crate::engine::platform::{Headers, Method};
use crate::engine::trace::{AggregatedTool, AuthStep, Direction, Peer, ResumeHow, RouteTarget, TraceEvent, TraceKind};
use crate::protocol::jsonrpc::{Message, RequestId};
use crate::protocol::mcp::method;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    User,
    Client,
    Claude,
    Local,
    Server(String),
    /// The authorization server (and metadata endpoints) of the MCP server with this id.
    Authorization(String),
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
    /// The row of the breakpoint the loop is (or last was) stopped at.
    paused: Option<usize>,
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

/// A JSON-RPC message's row: its label and a few words of what it carries.
fn rpc_words(m: &Message) -> (String, String) {
    let id = m.id().map(|i| format!(" #{}", short(&i.to_string(), 20))).unwrap_or_default();
    let param = |key: &str| m.params().and_then(|p| p.get(key));
    match m {
        Message::Request { method, .. } | Message::Notification { method, .. } => {
            let detail = match method.as_str() {
                method::TOOLS_CALL => param("name").map(|n| short_json(n, 40)).unwrap_or_default(),
                method::PROGRESS => {
                    let number = |k: &str| param(k).and_then(Value::as_f64).map(shortest);
                    let total = number("total").map(|t| format!("/{t}")).unwrap_or_default();
                    let message = param("message").and_then(Value::as_str).unwrap_or("");
                    format!("{}{total} {message}", number("progress").unwrap_or_default())
                }
                method::MESSAGE => param("data").map(|d| short_json(d, 60)).unwrap_or_default(),
                _ => String::new(),
            };
            (format!("{method}{id}"), detail)
        }
        Message::Error { error, .. } => (format!("error{id}"), short(&error.message, 60)),
        Message::Response { result, .. } => {
            let text = result.pointer("/content/0/text").map(|t| short_json(t, 60)).unwrap_or_default();
            (format!("result{id}"), text)
        }
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
            TraceKind::Rpc { direction, exchange, message } => {
                Some(self.on_rpc(e, lane, *direction, *exchange, message))
            }
            TraceKind::HttpResponse { exchange, status, headers, elapsed_ms } => {
                self.on_http_response(e, lane, *exchange, *status, headers, *elapsed_ms)
            }
            TraceKind::HttpBody { exchange, .. } | TraceKind::HttpStreamEnd { exchange, .. } => {
                self.on_body(e, *exchange)
            }
            TraceKind::SseEvent { exchange, .. } => self.on_sse(e, &lane, *exchange),
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
            TraceKind::ToolUse { tool_use_id, name, input } => Some(self.on_tool_use(e, tool_use_id, name, input)),
            TraceKind::Route { tool_use_id, name, target } => Some(self.on_route(e, tool_use_id, name, target)),
            TraceKind::LocalCall { tool_use_id, function, input, output, is_error, elapsed_ms } => {
                Some(self.on_local_call(e, tool_use_id, function, input, output, *is_error, *elapsed_ms))
            }
            TraceKind::ToolResult { tool_use_id, is_error, content, failure } => {
                Some(self.on_tool_result(e, tool_use_id, *is_error, content, failure.as_ref()))
            }
            TraceKind::Auth { step } => Some(self.on_auth(e, lane, step)),
            TraceKind::Paused { at, title, .. } => {
                let phase = at.phase().map_or("on error".to_owned(), |p| format!("phase {p}"));
                let row = self.add(e, RowKind::Note { lane }, format!("paused at {phase}"), short(title, 80));
                self.badge(row, BadgeKind::Info, "breakpoint", false);
                self.paused = Some(row);
                Some(row)
            }
            TraceKind::Resumed { how, .. } => {
                let row = self.paused.take()?;
                self.attach(row, e.seq);
                let kind = if *how == ResumeHow::Edited { BadgeKind::Edited } else { BadgeKind::Info };
                self.badge(row, kind, how.word(), false);
                Some(row)
            }
            TraceKind::Injected { exchange, fault, detail } => {
                Some(self.on_injected(e, lane, *exchange, fault, detail.as_deref()))
            }
            TraceKind::Note { text } => Some(self.add(e, RowKind::Note { lane }, short(text, 120), "")),
        }
    }

    /// An injected fault: a badge on the request it answers for, or (Claude's side) a note.
    fn on_injected(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: Option<u64>,
        fault: &Fault,
        detail: Option<&str>,
    ) -> usize {
        match exchange.and_then(|x| self.exchanges.get(&x)).and_then(|x| x.request) {
            Some(row) => {
                self.attach(row, e.seq);
                self.badge(row, BadgeKind::Injected, "injected", false);
                row
            }
            None => {
                let row = self.add(
                    e,
                    RowKind::Note { lane },
                    format!("injected: {}", fault.describe()),
                    detail.unwrap_or(""),
                );
                self.badge(row, BadgeKind::Injected, "injected", false);
                row
            }
        }
    }

    fn on_auth(&mut self, e: &TraceEvent, lane: Lane, step: &AuthStep) -> usize {
        match step {
            AuthStep::Challenged { status, scope, error } => {
                let label = if *status == 403 { "403: more scope needed" } else { "401: sign-in needed" };
                let detail = scope.as_ref().map(|s| format!("scope {s}")).or_else(|| error.clone()).unwrap_or_default();
                self.add(e, RowKind::Note { lane }, label, detail)
            }
            AuthStep::SignIn { url, scope } => {
                let detail = scope.as_ref().map_or_else(|| short(url, 60), |s| format!("scope {s}"));
                let row = self.add(e, arrow(Lane::Client, lane), "sign-in page: your turn", detail);
                self.badge(row, BadgeKind::Info, "browser", false);
                row
            }
            AuthStep::Returned { accepted, detail } => {
                let row = self.add(e, arrow(lane, Lane::Client), "redirect back", short(detail, 80));
                if !accepted {
                    self.badge(row, BadgeKind::Failure, "refused", true);
                }
                row
            }
            AuthStep::Granted { scopes, expires_in_s, refreshable } => {
                let scopes = if scopes.is_empty() { "no scope".to_owned() } else { scopes.join(" ") };
                let expiry = expires_in_s.map(|s| format!(" · expires in {} s", shortest(s))).unwrap_or_default();
                let refresh = if *refreshable { " · refreshable" } else { "" };
                self.add(e, RowKind::Note { lane }, "signed in", format!("{scopes}{expiry}{refresh}"))
            }
            AuthStep::Failed { failure } => {
                let row = self.add(e, RowKind::Note { lane }, "authorization failed", short(&failure.message, 100));
                self.badge(row, BadgeKind::Failure, failure.layer.label(), true);
                row
            }
            AuthStep::SignedOut => self.add(e, RowKind::Note { lane }, "signed out", "tokens forgotten"),
        }
    }

    fn lane(&mut self, peer: &Peer) -> Lane {
        let lane = Lane::of(peer);
        if !self.lanes.contains(&lane) {
            self.lanes.push(lane.clone());
        }
        lane
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

    fn on_phase(&mut self, e: &TraceEvent, phase: u8, iteration: u32) -> usize {
        self.phase = Some((phase, iteration));
        let title = super::phase_title(phase);
        self.add(e, RowKind::Band { phase, iteration }, format!("{phase} {title}"), format!("round {iteration}"))
    }

    fn on_turn_end(&mut self, e: &TraceEvent, stop_reason: Option<&str>, summary: &str) -> usize {
        let label = format!("turn ends: {}", stop_reason.unwrap_or("stopped"));
        let row = self.add(e, arrow(Lane::Client, Lane::User), label, summary);
        self.phase = None;
        if stop_reason.is_none() {
            self.badge(row, BadgeKind::Failure, "not finished", false);
        }
        row
    }

    fn on_tools(&mut self, e: &TraceEvent, tools: &[AggregatedTool], excluded: usize) -> usize {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(6).collect();
        let detail = names.join(", ") + if tools.len() > 6 { ", …" } else { "" };
        let row = self.add(e, arrow(Lane::Client, Lane::Client), format!("tools array: {} tools", tools.len()), detail);
        if excluded > 0 {
            self.badge(row, BadgeKind::Info, format!("{excluded} left out"), false);
        }
        row
    }

    #[allow(clippy::too_many_arguments)]
    fn on_http_request(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: u64,
        method: Method,
        url: &str,
        has_body: bool,
        summary: Option<&str>,
    ) -> Option<usize> {
        let mut x = Exchange { method, request: None, response: None, pending: None, events: 0 };
        let row = if lane == Lane::Claude {
            let path = url.split("://").nth(1).and_then(|r| r.find('/').map(|i| &r[i..])).unwrap_or(url);
            Some(self.add(e, arrow(Lane::Client, Lane::Claude), format!("{method} {path}"), summary.unwrap_or("")))
        } else if let Lane::Authorization(_) = lane {
            // The step names the row; where it went is the detail.
            let target = url.split_once("://").map_or(url, |(_, rest)| rest);
            let label = summary.unwrap_or(method.as_str());
            Some(self.add(e, arrow(Lane::Client, lane), label, format!("{method} {}", short(target, 70))))
        } else if has_body {
            // The JSON-RPC message it carries names the row.
            x.pending = Some(e.seq);
            None
        } else {
            let label = match method {
                Method::Get => "GET (server stream)",
                Method::Delete => "DELETE (end session)",
                Method::Post => "POST",
            };
            Some(self.add(e, arrow(Lane::Client, lane), label, short(url, 60)))
        };
        x.request = row;
        self.exchanges.insert(exchange, x);
        row
    }

    fn on_rpc(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        direction: Direction,
        exchange: Option<u64>,
        m: &Message,
    ) -> usize {
        let (from, to) = match direction {
            Direction::Out => (Lane::Client, lane.clone()),
            Direction::In => (lane.clone(), Lane::Client),
        };
        let (label, detail) = rpc_words(m);
        let row = self.add(e, RowKind::Arrow { from, to }, label, detail);
        if let Some(x) = exchange.and_then(|x| self.exchanges.get_mut(&x)) {
            if let Some(seq) = x.pending.take() {
                self.rows[row].events.insert(0, seq);
            }
            match direction {
                Direction::Out => x.request = Some(row),
                Direction::In => x.response = Some(row),
            }
        }
        if let Some(id) = m.id() {
            let key = (lane, id.clone());
            if direction == Direction::Out && matches!(m, Message::Request { .. }) {
                self.requests.insert(key.clone(), row);
            }
            if let Some(tool_use) = self.links.get(&key).cloned() {
                self.rows[row].tool_use_id = Some(tool_use);
            }
        }
        match m {
            Message::Error { error, .. } => {
                self.badge(row, BadgeKind::JsonRpc, format!("{} {}", error.code.0, error.code.name()), true);
            }
            Message::Response { result, .. } if result.get("isError") == Some(&Value::Bool(true)) => {
                self.badge(row, BadgeKind::ToolError, "isError", true);
            }
            _ => {}
        }
        row
    }

    fn on_http_response(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: u64,
        status: u16,
        headers: &Headers,
        elapsed_ms: f64,
    ) -> Option<usize> {
        let (method, req) = self.exchanges.get(&exchange).map(|x| (x.method, x.request))?;
        if let Lane::Authorization(_) = lane {
            let row = self.add(e, arrow(lane, Lane::Client), format!("HTTP {status}"), "");
            if let Some(req) = req {
                self.rows[req].duration_ms = Some(elapsed_ms);
            }
            if method == Method::Get && (400..500).contains(&status) {
                // Discovery asks several places in turn: "not here" is an answer, not a failure.
                self.badge(row, BadgeKind::Info, "not here", false);
            } else if status >= 400 {
                self.badge(row, BadgeKind::Http, format!("HTTP {status}"), true);
            }
            self.exchanges.get_mut(&exchange).expect("looked up above").response = Some(row);
            return Some(row);
        }
        if lane == Lane::Claude {
            let label = if status == 200 {
                let media = headers.get("content-type").unwrap_or("").split(';').next().unwrap_or("").trim();
                format!("{status} {}", if media == "text/event-stream" { "stream" } else { media })
            } else {
                format!("HTTP {status}")
            };
            let row = self.add(e, arrow(Lane::Claude, Lane::Client), label, "");
            if status != 200 {
                self.badge(row, BadgeKind::Http, format!("HTTP {status}"), true);
            }
            self.exchanges.get_mut(&exchange).expect("looked up above").response = Some(row);
            return Some(row);
        }
        let req = req?;
        self.attach(req, e.seq);
        self.rows[req].duration_ms = Some(elapsed_ms);
        let session_operation = matches!(method, Method::Get | Method::Delete);
        if session_operation && matches!(status, 400 | 404 | 405 | 406) {
            // The server offers no stream, or keeps no session to end: an answer, not a failure.
            self.badge(req, BadgeKind::Info, format!("{status}: none offered"), false);
            Some(req)
        } else if status >= 400 {
            let row = self.add(e, arrow(lane, Lane::Client), format!("HTTP {status}"), "");
            self.rows[row].failed = true;
            self.badge(req, BadgeKind::Http, format!("HTTP {status}"), true);
            self.for_tool(row, self.rows[req].tool_use_id.clone());
            self.exchanges.get_mut(&exchange).expect("looked up above").response = Some(row);
            Some(row)
        } else {
            if status == 202 {
                self.badge(req, BadgeKind::Info, "202", false);
            }
            Some(req)
        }
    }

    /// The row a part of a response belongs to: its own row, else its request's.
    fn response_row(&self, exchange: u64) -> Option<usize> {
        self.exchanges.get(&exchange).and_then(|x| x.response.or(x.request))
    }

    fn on_body(&mut self, e: &TraceEvent, exchange: u64) -> Option<usize> {
        let row = self.response_row(exchange)?;
        self.attach(row, e.seq);
        Some(row)
    }

    fn on_sse(&mut self, e: &TraceEvent, lane: &Lane, exchange: u64) -> Option<usize> {
        let row = self.response_row(exchange)?;
        self.attach(row, e.seq);
        if *lane == Lane::Claude
            && let Some(x) = self.exchanges.get_mut(&exchange)
        {
            x.events += 1;
            self.rows[row].detail = format!("{} events", x.events);
        }
        Some(row)
    }

    fn on_http_failed(&mut self, e: &TraceEvent, lane: Lane, exchange: u64, error: &str, elapsed_ms: f64) -> usize {
        let (req, resp) = self.exchanges.get(&exchange).map_or((None, None), |x| (x.request, x.response));
        let row = match resp {
            Some(r) => r,
            None => {
                let row = self.add(e, arrow(lane, Lane::Client), "✕ no HTTP answer", short(error, 80));
                if let Some(req) = req {
                    self.for_tool(row, self.rows[req].tool_use_id.clone());
                    self.badge(req, BadgeKind::Network, "network", true);
                    self.rows[req].duration_ms = Some(elapsed_ms);
                }
                row
            }
        };
        self.attach(row, e.seq);
        self.badge(row, BadgeKind::Network, "network", true);
        row
    }

    #[allow(clippy::too_many_arguments)]
    fn on_api_outcome(
        &mut self,
        seq: u64,
        exchange: u64,
        request_id: Option<&str>,
        elapsed_ms: f64,
        failure: Option<&Failure>,
        badge: Option<&str>,
        stop_reason: Option<&str>,
    ) -> Option<usize> {
        let (req, resp, events) = self.exchanges.get(&exchange).map(|x| (x.request, x.response, x.events))?;
        let req = req?;
        self.attach(req, seq);
        self.rows[req].duration_ms = Some(elapsed_ms);
        if let Some(id) = request_id {
            let detail = &mut self.rows[req].detail;
            if !detail.contains(id) {
                detail.push_str(&format!(" · {id}"));
            }
        }
        if let (Some(stop), Some(resp)) = (stop_reason, resp) {
            self.rows[resp].detail = format!("{events} events · stop_reason: {stop}");
        }
        if let Some(f) = failure {
            let text = badge.map_or_else(|| f.layer.label().to_owned(), str::to_owned);
            self.badge(req, badge_of(f.layer), text, true);
        }
        Some(req)
    }

    fn on_rpc_outcome(
        &mut self,
        seq: u64,
        lane: Lane,
        id: &RequestId,
        elapsed_ms: f64,
        failure: Option<&Failure>,
    ) -> Option<usize> {
        let row = *self.requests.get(&(lane, id.clone()))?;
        self.attach(row, seq);
        self.rows[row].duration_ms = Some(elapsed_ms);
        if let Some(f) = failure {
            self.badge(row, badge_of(f.layer), f.layer.label(), true);
        }
        Some(row)
    }

    fn on_tool_use(&mut self, e: &TraceEvent, tool_use_id: &str, name: &str, input: &Value) -> usize {
        self.tool_names.insert(tool_use_id.to_owned(), name.to_owned());
        let row = self.add(e, arrow(Lane::Claude, Lane::Client), format!("tool_use {name}"), short_json(input, 60));
        self.for_tool(row, Some(tool_use_id.to_owned()));
        row
    }

    fn on_route(&mut self, e: &TraceEvent, tool_use_id: &str, name: &str, target: &RouteTarget) -> usize {
        let row = self.add(e, arrow(Lane::Client, Lane::Client), format!("route {name}"), target.arrow());
        self.for_tool(row, Some(tool_use_id.to_owned()));
        if matches!(target, RouteTarget::Refused { .. }) {
            self.badge(row, BadgeKind::Failure, "not run", true);
        }
        row
    }

    #[allow(clippy::too_many_arguments)]
    fn on_local_call(
        &mut self,
        e: &TraceEvent,
        tool_use_id: &str,
        function: &str,
        input: &Value,
        output: &str,
        is_error: bool,
        elapsed_ms: f64,
    ) -> usize {
        let call = self.add(e, arrow(Lane::Client, Lane::Local), format!("{function}()"), short_json(input, 60));
        self.for_tool(call, Some(tool_use_id.to_owned()));
        self.rows[call].duration_ms = Some(elapsed_ms);
        let ret = self.add(e, arrow(Lane::Local, Lane::Client), format!("return from {function}"), short(output, 60));
        self.for_tool(ret, Some(tool_use_id.to_owned()));
        if is_error {
            self.badge(ret, BadgeKind::ToolError, "error", true);
        }
        call
    }

    fn on_tool_result(
        &mut self,
        e: &TraceEvent,
        tool_use_id: &str,
        is_error: bool,
        content: &Value,
        failure: Option<&Failure>,
    ) -> usize {
        let name = self.tool_names.get(tool_use_id).cloned().unwrap_or_default();
        let row =
            self.add(e, arrow(Lane::Client, Lane::Claude), format!("tool_result {name}"), short_json(content, 60));
        self.for_tool(row, Some(tool_use_id.to_owned()));
        if is_error {
            self.badge(row, BadgeKind::ToolError, "is_error", true);
        }
        if let Some(f) = failure {
            self.badge(row, badge_of(f.layer), f.layer.label(), true);
        }
        row
    }
}

fn arrow(from: Lane, to: Lane) -> RowKind {
    RowKind::Arrow { from, to }
}
