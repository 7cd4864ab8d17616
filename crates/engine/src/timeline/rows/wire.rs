//! Rows of the wire: HTTP requests and responses, their bodies and SSE events, the JSON-RPC
//! messages they carry, and how each request and API attempt ended.

use super::*;

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
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_http_request(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: u64,
        method: Method,
        url: &str,
        has_body: bool,
        summary: Option<&str>,
    ) -> Option<usize> {
        let mut x = Exchange { method, request: None, response: None, pending: None, events: 0, probe: false };
        let row = if lane == Lane::Claude {
            let path = url.split("://").nth(1).and_then(|r| r.find('/').and_then(|i| r.get(i..))).unwrap_or(url);
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

    pub(super) fn on_rpc(
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
        let mut probe = false;
        if let Some(x) = exchange.and_then(|x| self.exchanges.get_mut(&x)) {
            if let Some(seq) = x.pending.take() {
                self.rows[row].events.insert(0, seq);
            }
            match direction {
                Direction::Out => {
                    x.request = Some(row);
                    x.probe = m.method() == Some(protocol::mcp::method::SERVER_DISCOVER);
                }
                Direction::In => x.response = Some(row),
            }
            probe = x.probe;
        }
        let probe_request = m.id().and_then(|id| self.requests.get(&(lane.clone(), id.clone()))).copied();
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
            // A 2025 server that does not know the 2026-07-28 probe: the way to its handshake.
            Message::Error { error, .. } if probe => {
                self.badge(row, BadgeKind::Info, format!("{}: not 2026-07-28", error.code.0), false);
                if let Some(req) = probe_request {
                    self.expected_refusals.push(req);
                }
            }
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

    pub(super) fn on_http_response(
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
        let probe = self.exchanges.get(&exchange).is_some_and(|x| x.probe);
        if probe && (400..500).contains(&status) && !matches!(status, 401 | 403) {
            // A 2025 server saying no to the 2026-07-28 probe: the expected path, not a fault
            // (authorization is one: `mcp::negotiate`).
            self.badge(req, BadgeKind::Info, format!("HTTP {status}: not 2026-07-28"), false);
            self.expected_refusals.push(req);
            Some(req)
        } else if session_operation && matches!(status, 400 | 404 | 405 | 406) {
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

    /// A redirect the request followed: a row of its own, so the final address is in view.
    pub(super) fn on_redirected(&mut self, e: &TraceEvent, lane: Lane, exchange: u64, to: &str) -> Option<usize> {
        let req = self.exchanges.get(&exchange)?.request;
        let row = self.add(e, RowKind::Note { lane }, "followed a redirect", format!("to {}", short(to, 80)));
        self.badge(row, BadgeKind::Info, "redirect", false);
        if let Some(req) = req {
            self.for_tool(row, self.rows[req].tool_use_id.clone());
        }
        Some(row)
    }

    /// The row a part of a response belongs to: its own row, else its request's.
    pub(super) fn response_row(&self, exchange: u64) -> Option<usize> {
        self.exchanges.get(&exchange).and_then(|x| x.response.or(x.request))
    }

    pub(super) fn on_body(&mut self, e: &TraceEvent, exchange: u64) -> Option<usize> {
        let row = self.response_row(exchange)?;
        self.attach(row, e.seq);
        Some(row)
    }

    pub(super) fn on_sse(&mut self, e: &TraceEvent, lane: &Lane, exchange: u64) -> Option<usize> {
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

    pub(super) fn on_http_failed(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: u64,
        error: &str,
        elapsed_ms: f64,
    ) -> usize {
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

    /// The page stopped reading an answer at a limit: on the answer's row (or a row of its own
    /// when nothing of it was drawn yet), marked as the client's refusal.
    pub(super) fn on_limit(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: u64,
        limit: &crate::limits::LimitExceeded,
    ) -> usize {
        let (req, resp) = self.exchanges.get(&exchange).map_or((None, None), |x| (x.request, x.response));
        let row = match resp {
            Some(r) => r,
            None => {
                let row = self.add(e, arrow(lane, Lane::Client), "✕ answer refused", short(&limit.to_string(), 80));
                if let Some(req) = req {
                    self.for_tool(row, self.rows[req].tool_use_id.clone());
                    self.badge(req, BadgeKind::Failure, "limit", true);
                }
                row
            }
        };
        self.attach(row, e.seq);
        self.badge(row, BadgeKind::Failure, limit.limit.name(), true);
        row
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_api_outcome(
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

    pub(super) fn on_rpc_outcome(
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
        if let Some(f) = failure
            && !self.expected_refusals.contains(&row)
        {
            self.badge(row, badge_of(f.layer), f.layer.label(), true);
        }
        Some(row)
    }
}
