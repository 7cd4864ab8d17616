//! Trace events → rows. Each event either starts a row or adds to one (a status to its request,
//! a stream event to its response), so appending stays O(1) and rows never move.

use serde_json::Value;
use std::collections::HashMap;

use crate::engine::layer::Layer;
use crate::engine::trace::{Direction, Peer, RouteTarget, TraceEvent, TraceKind};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    User,
    Client,
    Claude,
    Local,
    Server(String),
}

impl Lane {
    fn of(peer: &Peer) -> Lane {
        match peer {
            Peer::User => Lane::User,
            Peer::Client => Lane::Client,
            Peer::Claude => Lane::Claude,
            Peer::Local => Lane::Local,
            Peer::Server(id) => Lane::Server(id.clone()),
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

#[derive(Default)]
pub struct Timeline {
    rows: Vec<Row>,
    phase: Option<(u8, u32)>,
    lanes: Vec<Lane>,
    /// exchange → (request row, response row)
    exchanges: HashMap<u64, (Option<usize>, Option<usize>)>,
    /// (server lane, JSON-RPC id) → request row
    requests: HashMap<(Lane, String), usize>,
    /// JSON-RPC id → tool_use id, per server lane
    links: HashMap<(Lane, String), String>,
    tool_names: HashMap<String, String>,
    pending_http: HashMap<u64, u64>,
}

fn short(v: &Value, max: usize) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let s = s.replace('\n', " ");
    if s.chars().count() > max { format!("{}…", s.chars().take(max).collect::<String>()) } else { s }
}

fn rpc_key(id: &Value) -> String {
    id.to_string()
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

    /// Adds one event; returns the index of the first row it changed, if any.
    pub fn push(&mut self, e: &TraceEvent) -> Option<usize> {
        let lane = self.lane(&e.peer);
        let arrow = |from: Lane, to: Lane| RowKind::Arrow { from, to };
        match &e.kind {
            TraceKind::Phase { phase, iteration } => {
                self.phase = Some((*phase, *iteration));
                let title = super::phase_title(*phase);
                Some(self.add(
                    e,
                    RowKind::Band { phase: *phase, iteration: *iteration },
                    format!("{phase} {title}"),
                    format!("round {iteration}"),
                ))
            }
            TraceKind::TurnEnd { stop_reason, summary } => {
                let label = format!("turn ends: {}", stop_reason.as_deref().unwrap_or("stopped"));
                let row = self.add(e, arrow(Lane::Client, Lane::User), label, summary.clone());
                self.phase = None;
                if stop_reason.is_none() {
                    self.badge(row, BadgeKind::Failure, "not finished", false);
                }
                Some(row)
            }
            TraceKind::UserMessage { text } => Some(self.add(
                e,
                arrow(Lane::User, Lane::Client),
                "user message",
                short(&Value::String(text.clone()), 80),
            )),
            TraceKind::ToolsAggregated { tools, excluded } => {
                let row =
                    self.add(e, arrow(Lane::Client, Lane::Client), format!("tools array: {} tools", tools.len()), {
                        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(6).collect();
                        names.join(", ") + if tools.len() > 6 { ", …" } else { "" }
                    });
                if !excluded.is_empty() {
                    self.badge(row, BadgeKind::Info, format!("{} left out", excluded.len()), false);
                }
                Some(row)
            }
            TraceKind::HttpRequest { exchange, method, url, body, summary, .. } => {
                if lane == Lane::Claude {
                    let path = url.split("://").nth(1).and_then(|r| r.find('/').map(|i| &r[i..])).unwrap_or(url);
                    let row = self.add(
                        e,
                        arrow(Lane::Client, Lane::Claude),
                        format!("{method} {path}"),
                        summary.clone().unwrap_or_default(),
                    );
                    self.exchanges.insert(*exchange, (Some(row), None));
                    Some(row)
                } else if body.is_some() {
                    self.pending_http.insert(*exchange, e.seq);
                    None
                } else {
                    let label = match method.as_str() {
                        "GET" => "GET (server stream)",
                        "DELETE" => "DELETE (end session)",
                        other => other,
                    };
                    let row = self.add(e, arrow(Lane::Client, lane), label, short(&Value::String(url.clone()), 60));
                    self.exchanges.insert(*exchange, (Some(row), None));
                    Some(row)
                }
            }
            TraceKind::Rpc { direction, exchange, message } => self.rpc(e, lane, *direction, *exchange, message),
            TraceKind::HttpResponse { exchange, status, headers, elapsed_ms } => {
                let (req, _) = self.exchanges.get(exchange).copied().unwrap_or((None, None));
                if lane == Lane::Claude {
                    let ok = *status == 200;
                    let kind = headers.get("content-type").unwrap_or("").split(';').next().unwrap_or("").to_owned();
                    let label = if ok {
                        format!("{status} {}", if kind == "text/event-stream" { "stream" } else { &kind })
                    } else {
                        format!("HTTP {status}")
                    };
                    let row = self.add(e, arrow(Lane::Claude, Lane::Client), label, "");
                    if !ok {
                        self.badge(row, BadgeKind::Http, format!("HTTP {status}"), true);
                    }
                    self.rows[row].tool_use_id = None;
                    self.exchanges.insert(*exchange, (req, Some(row)));
                    return Some(row);
                }
                let req = req?;
                self.attach(req, e.seq);
                self.rows[req].duration_ms = Some(*elapsed_ms);
                let bodiless = self.rows[req].label.starts_with("GET") || self.rows[req].label.starts_with("DELETE");
                if bodiless && matches!(*status, 400 | 404 | 405 | 406) {
                    // The server offers no stream, or keeps no session to end: an answer, not a failure.
                    self.badge(req, BadgeKind::Info, format!("{status}: none offered"), false);
                    Some(req)
                } else if *status >= 400 {
                    let row = self.add(e, arrow(lane, Lane::Client), format!("HTTP {status}"), "");
                    self.rows[row].failed = true;
                    self.badge(req, BadgeKind::Http, format!("HTTP {status}"), true);
                    self.rows[row].tool_use_id = self.rows[req].tool_use_id.clone();
                    self.exchanges.insert(*exchange, (Some(req), Some(row)));
                    Some(row)
                } else {
                    if *status == 202 {
                        self.badge(req, BadgeKind::Info, "202", false);
                    }
                    Some(req)
                }
            }
            TraceKind::HttpBody { exchange, .. }
            | TraceKind::SseEvent { exchange, .. }
            | TraceKind::HttpStreamEnd { exchange, .. } => {
                let (req, resp) = self.exchanges.get(exchange).copied().unwrap_or((None, None));
                let row = resp.or(req)?;
                self.attach(row, e.seq);
                if let TraceKind::SseEvent { data, .. } = &e.kind
                    && lane == Lane::Claude
                {
                    let count = self.rows[row].events.len() - 1;
                    let stop = serde_json::from_str::<Value>(data)
                        .ok()
                        .and_then(|v| v.pointer("/delta/stop_reason").and_then(Value::as_str).map(str::to_owned));
                    self.rows[row].detail = match stop {
                        Some(s) => format!("{count} events · stop_reason: {s}"),
                        None => format!("{count} events"),
                    };
                }
                Some(row)
            }
            TraceKind::HttpFailed { exchange, error, elapsed_ms } => {
                let (req, resp) = self.exchanges.get(exchange).copied().unwrap_or((None, None));
                let row = match (resp, req) {
                    (Some(r), _) => r,
                    _ => {
                        let row = self.add(
                            e,
                            arrow(lane.clone(), Lane::Client),
                            "✕ no HTTP answer",
                            short(&Value::String(error.clone()), 80),
                        );
                        if let Some(req) = req {
                            self.rows[row].tool_use_id = self.rows[req].tool_use_id.clone();
                            self.badge(req, BadgeKind::Network, "network", true);
                            self.rows[req].duration_ms = Some(*elapsed_ms);
                        }
                        row
                    }
                };
                self.attach(row, e.seq);
                self.badge(row, BadgeKind::Network, "network", true);
                Some(row)
            }
            TraceKind::ApiOutcome { exchange, request_id, elapsed_ms, failure, badge, .. } => {
                let (req, _) = self.exchanges.get(exchange).copied().unwrap_or((None, None));
                let req = req?;
                self.attach(req, e.seq);
                self.rows[req].duration_ms = Some(*elapsed_ms);
                if let Some(id) = request_id {
                    let detail = &mut self.rows[req].detail;
                    if !detail.contains(id.as_str()) {
                        detail.push_str(&format!(" · {id}"));
                    }
                }
                if let Some(f) = failure {
                    let text = badge.clone().unwrap_or_else(|| f.layer.label().into());
                    self.badge(req, badge_of(f.layer), text, true);
                }
                Some(req)
            }
            TraceKind::RpcOutcome { id, elapsed_ms, failure, .. } => {
                let key = (lane, rpc_key(&serde_json::to_value(id).unwrap_or(Value::Null)));
                let row = *self.requests.get(&key)?;
                self.attach(row, e.seq);
                self.rows[row].duration_ms = Some(*elapsed_ms);
                if let Some(f) = failure {
                    self.badge(row, badge_of(f.layer), f.layer.label(), true);
                }
                Some(row)
            }
            TraceKind::RpcLink { tool_use_id, id } => {
                let key = (lane, rpc_key(&serde_json::to_value(id).unwrap_or(Value::Null)));
                self.links.insert(key, tool_use_id.clone());
                None
            }
            TraceKind::ToolUse { tool_use_id, name, input } => {
                self.tool_names.insert(tool_use_id.clone(), name.clone());
                let row = self.add(e, arrow(Lane::Claude, Lane::Client), format!("tool_use {name}"), short(input, 60));
                self.rows[row].tool_use_id = Some(tool_use_id.clone());
                Some(row)
            }
            TraceKind::Route { tool_use_id, name, target } => {
                let row = self.add(e, arrow(Lane::Client, Lane::Client), format!("route {name}"), target.arrow());
                self.rows[row].tool_use_id = Some(tool_use_id.clone());
                if matches!(target, RouteTarget::Refused { .. }) {
                    self.badge(row, BadgeKind::Failure, "not run", true);
                }
                Some(row)
            }
            TraceKind::LocalCall { tool_use_id, function, input, output, is_error, elapsed_ms } => {
                let call = self.add(e, arrow(Lane::Client, Lane::Local), format!("{function}()"), short(input, 60));
                self.rows[call].tool_use_id = Some(tool_use_id.clone());
                self.rows[call].duration_ms = Some(*elapsed_ms);
                let ret = self.add(
                    e,
                    arrow(Lane::Local, Lane::Client),
                    format!("return from {function}"),
                    short(&Value::String(output.clone()), 60),
                );
                self.rows[ret].tool_use_id = Some(tool_use_id.clone());
                if *is_error {
                    self.badge(ret, BadgeKind::ToolError, "error", true);
                }
                Some(call)
            }
            TraceKind::ToolResult { tool_use_id, is_error, content, failure } => {
                let name = self.tool_names.get(tool_use_id).cloned().unwrap_or_default();
                let row =
                    self.add(e, arrow(Lane::Client, Lane::Claude), format!("tool_result {name}"), short(content, 60));
                self.rows[row].tool_use_id = Some(tool_use_id.clone());
                if *is_error {
                    self.badge(row, BadgeKind::ToolError, "is_error", true);
                }
                if let Some(f) = failure {
                    self.badge(row, badge_of(f.layer), f.layer.label(), true);
                }
                Some(row)
            }
            TraceKind::Note { text } => {
                Some(self.add(e, RowKind::Note { lane }, short(&Value::String(text.clone()), 120), ""))
            }
        }
    }

    fn rpc(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        direction: Direction,
        exchange: Option<u64>,
        m: &Value,
    ) -> Option<usize> {
        let id = m.get("id").filter(|v| !v.is_null());
        let method = m.get("method").and_then(Value::as_str);
        let (from, to) = match direction {
            Direction::Out => (Lane::Client, lane.clone()),
            Direction::In => (lane.clone(), Lane::Client),
        };
        let id_text = id.map(|i| format!(" #{}", short(i, 20))).unwrap_or_default();
        let (label, detail) = match (method, m.get("error"), m.get("result")) {
            (Some(method), _, _) => {
                let detail = match method {
                    "tools/call" => m.pointer("/params/name").map(|n| short(n, 40)).unwrap_or_default(),
                    "notifications/progress" => {
                        let p = m.get("params").cloned().unwrap_or(Value::Null);
                        let total = p.get("total").map(|t| format!("/{t}")).unwrap_or_default();
                        format!(
                            "{}{total} {}",
                            p.get("progress").map(|v| v.to_string()).unwrap_or_default(),
                            p.get("message").and_then(Value::as_str).unwrap_or("")
                        )
                    }
                    "notifications/message" => short(m.pointer("/params/data").unwrap_or(&Value::Null), 60),
                    _ => String::new(),
                };
                (format!("{method}{id_text}"), detail)
            }
            (None, Some(err), _) => (format!("error{id_text}"), short(err.get("message").unwrap_or(&Value::Null), 60)),
            (None, None, Some(result)) => {
                let text = result.pointer("/content/0/text").map(|t| short(t, 60)).unwrap_or_default();
                (format!("result{id_text}"), text)
            }
            _ => ("message".into(), String::new()),
        };
        let row = self.add(e, RowKind::Arrow { from, to }, label, detail);
        if let Some(x) = exchange {
            if let Some(seq) = self.pending_http.remove(&x) {
                self.rows[row].events.insert(0, seq);
            }
            let entry = self.exchanges.entry(x).or_insert((None, None));
            match direction {
                Direction::Out => entry.0 = Some(row),
                Direction::In => entry.1 = Some(row),
            }
        }
        if let Some(id) = id {
            let key = (lane.clone(), rpc_key(id));
            if direction == Direction::Out && method.is_some() {
                self.requests.insert(key.clone(), row);
            }
            if let Some(tool_use) = self.links.get(&key).cloned() {
                self.rows[row].tool_use_id = Some(tool_use);
            }
        }
        if let Some(err) = m.get("error") {
            let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
            let name = crate::protocol::jsonrpc::ErrorCode(code).name();
            self.badge(row, BadgeKind::JsonRpc, format!("{code} {name}"), true);
        }
        if m.pointer("/result/isError") == Some(&Value::Bool(true)) {
            self.badge(row, BadgeKind::ToolError, "isError", true);
        }
        Some(row)
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
