//! The detail pane's words: one trace event raw (title, body, and a curl command to replay a
//! request), and the two sides of a step — what Claude sees next to what the client did. The
//! page draws these strings as they are.

use serde_json::{Value, json};

use super::{Lane, Row, RowKind, ToolStory, duration_words};
use crate::curl;
use crate::limits::bytes as bytes_words;
use crate::num::fixed;
use crate::text::{pretty, pretty_text};
use crate::trace::{Direction, RequestBody, TraceEvent, TraceKind};

/// One trace event as the "Raw" list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RawStep {
    pub title: String,
    /// Empty when there is nothing more to show.
    pub body: String,
    /// A request as a curl command, when it can be replayed (not one whose body was dropped).
    pub replay: Option<String>,
}

/// The two columns of a step's detail.
#[derive(Clone, Debug, PartialEq)]
pub struct TwoSides {
    /// What Claude sees: the part of the request or the blocks that reach the model.
    pub sees: String,
    /// What the client did to get there.
    pub did: String,
}

fn headers_text(h: &crate::platform::Headers) -> String {
    h.iter().map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join("\n")
}

/// One trace event, raw. `trace_limit` is the trace's memory limit now (Settings → Limits), named
/// where a detail was dropped.
pub fn raw(e: &TraceEvent, trace_limit: usize) -> RawStep {
    // A request can be replayed from a terminal, as the server saw it: not one whose body the
    // page no longer keeps.
    let replay = match &e.kind {
        TraceKind::HttpRequest { method, url, headers, body, .. } => match body {
            Some(RequestBody::Dropped { .. }) => None,
            body => Some(curl::command(*method, url, headers, body.as_ref().and_then(RequestBody::text))),
        },
        _ => None,
    };
    let (title, body) = match &e.kind {
        TraceKind::HttpRequest { method, url, headers, body, .. } => {
            let body = match body {
                None => String::new(),
                Some(RequestBody::Text(t)) => pretty_text(t),
                Some(RequestBody::Dropped { bytes }) => format!(
                    "(body of {} not kept: the timeline keeps at most {} of details, the newest (Settings → Limits), so this one cannot be replayed)",
                    bytes_words(*bytes as u64),
                    bytes_words(trace_limit as u64)
                ),
            };
            (format!("HTTP request: {method} {url}"), format!("{}\n\n{body}", headers_text(headers)))
        }
        TraceKind::HttpResponse { status, headers, elapsed_ms, .. } => {
            (format!("HTTP response: {status} after {} ms", fixed(*elapsed_ms, 0)), headers_text(headers))
        }
        TraceKind::HttpBody { body, .. } => ("Response body".into(), pretty_text(body)),
        TraceKind::SseEvent { id, event, data, .. } => (
            format!(
                "SSE event{}{}",
                event.as_ref().map(|e| format!(" \"{e}\"")).unwrap_or_default(),
                id.as_ref().map(|i| format!(" id {i}")).unwrap_or_default()
            ),
            pretty_text(data),
        ),
        TraceKind::HttpStreamEnd { elapsed_ms, .. } => {
            (format!("Stream closed after {} ms", fixed(*elapsed_ms, 0)), String::new())
        }
        TraceKind::DetailDropped { bytes, .. } => (
            "Detail dropped".into(),
            format!(
                "{} were here. The timeline keeps at most {} of bodies and payloads, the newest (Settings → Limits): \
                 this one was older.",
                bytes_words(*bytes),
                bytes_words(trace_limit as u64)
            ),
        ),
        TraceKind::Rpc { direction, dropped: Some(bytes), message, .. } => (
            format!("JSON-RPC {}", if *direction == Direction::Out { "sent" } else { "received" }),
            format!(
                "{}\n\n(its payload of {} was dropped: the timeline keeps at most {} of details, the newest)",
                pretty(&message.to_value()),
                bytes_words(*bytes),
                bytes_words(trace_limit as u64)
            ),
        ),
        TraceKind::Redirected { to, .. } => (
            "Redirect followed".into(),
            format!(
                "The answer came from {to}, not from the address asked (a request carrying no secret may follow one)."
            ),
        ),
        TraceKind::LimitReached { limit, .. } => {
            ("Answer refused at a limit".into(), format!("{limit}. {}", limit.hint()))
        }
        TraceKind::HttpFailed { error, elapsed_ms, .. } => {
            (format!("No HTTP answer after {} ms (network or CORS)", fixed(*elapsed_ms, 0)), error.clone())
        }
        TraceKind::Rpc { direction, message, .. } => (
            format!("JSON-RPC {}", if *direction == Direction::Out { "sent" } else { "received" }),
            pretty(&message.to_value()),
        ),
        TraceKind::RpcOutcome { id, method, elapsed_ms, failure } => (
            format!("{method} #{id} ended after {} ms", fixed(*elapsed_ms, 0)),
            failure.as_ref().map(|f| format!("{} layer: {}", f.layer, f.message)).unwrap_or_else(|| "ok".into()),
        ),
        TraceKind::ApiOutcome { attempt, request_id, elapsed_ms, failure, .. } => (
            format!(
                "Attempt {} ended after {} ms{}",
                attempt + 1,
                fixed(*elapsed_ms, 0),
                request_id.as_ref().map(|r| format!(" (request id {r})")).unwrap_or_default()
            ),
            failure.as_ref().map(|f| format!("{} layer: {}", f.layer, f.message)).unwrap_or_else(|| "ok".into()),
        ),
        TraceKind::ToolsAggregated { tools, excluded } => (
            "Tools array built".into(),
            tools
                .iter()
                .map(|t| {
                    format!(
                        "{}  ←  {}{}",
                        t.name,
                        t.origin,
                        t.notes.iter().map(|n| format!("\n    note: {n}")).collect::<String>()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
                + &excluded.iter().map(|(w, why)| format!("\nleft out: {w}: {why}")).collect::<String>(),
        ),
        TraceKind::ToolUse { name, input, tool_use_id, caller, fragments, eager } => {
            let from = caller.as_ref().map(|c| format!(", called by code ({c})")).unwrap_or_default();
            (format!("tool_use {name} ({tool_use_id}{from})"), pretty(input) + &streamed(fragments, *eager))
        }
        TraceKind::Thinking { text, redacted, signature_chars } => thinking_detail(text, *redacted, *signature_chars),
        TraceKind::ApiBlock { kind, block } => (kind.clone(), pretty(block)),
        TraceKind::LocalCall { function, input, output, is_error, elapsed_ms, .. } => (
            format!(
                "Local function {function}, {} ms{}",
                fixed(*elapsed_ms, 2),
                if *is_error { ", failed" } else { "" }
            ),
            format!("input:\n{}\n\noutput:\n{output}", pretty(input)),
        ),
        TraceKind::ToolResult { content, is_error, .. } => {
            (format!("tool_result{}", if *is_error { " (is_error)" } else { "" }), pretty(content))
        }
        TraceKind::Phase { phase, iteration } => (format!("Phase {phase}, round {iteration}"), String::new()),
        TraceKind::UserMessage { text } => ("User message".into(), text.clone()),
        TraceKind::Route { name, target, .. } => (format!("Route {name}"), format!("to {}", target.describe())),
        TraceKind::RpcLink { tool_use_id, id } => {
            (format!("{tool_use_id} travels as JSON-RPC request #{id}"), String::new())
        }
        TraceKind::TurnEnd { stop_reason, summary } => (
            format!("Turn ended{}", stop_reason.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()),
            summary.clone(),
        ),
        TraceKind::Auth { step } => step.explain(),
        TraceKind::Injected { fault, detail, .. } => fault.explain(detail.as_deref()),
        TraceKind::Paused { at, iteration, title, payload } => (
            match at.in_loop() {
                true => format!("Paused {} (round {iteration}): {title}", at.describe()),
                false => format!("Paused {}: {title}", at.describe()),
            },
            format!("As it was about to be sent or used:\n\n{}", pretty(payload)),
        ),
        TraceKind::Resumed { how, edited, .. } => (
            format!("Went on: {}", how.word()),
            edited
                .as_ref()
                .map(|v| format!("What was sent instead (the original is above):\n\n{}", pretty(v)))
                .unwrap_or_default(),
        ),
        TraceKind::Note { text } => ("Note".into(), text.clone()),
        TraceKind::Task { task_id, status, message, poll_ms, .. } => (
            format!("Task {task_id}: {}", status.as_str()),
            [
                message.as_ref().map(|m| format!("The server says: {m}")),
                poll_ms.map(|ms| {
                    format!(
                        "The page polls it with tasks/get every {} (the server's interval, kept between {} and {}).",
                        duration_words(ms as f64),
                        duration_words(crate::mcp::MIN_POLL_MS as f64),
                        duration_words(crate::mcp::MAX_POLL_MS as f64)
                    )
                }),
                status.is_terminal().then(|| "Ended: what it produced is the tool_result Claude receives.".to_owned()),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n"),
        ),
    };
    RawStep { title, body, replay }
}

impl Lane {
    /// The lane's name on the page; `servers` are (id, name) of the servers the page knows.
    pub fn name(&self, servers: &[(String, String)]) -> String {
        let named =
            |id: &String| servers.iter().find(|(i, _)| i == id).map_or(id.as_str(), |(_, n)| n.as_str()).to_owned();
        match self {
            Lane::User => "You".into(),
            Lane::Client => "Loopscope".into(),
            Lane::Claude => "Claude API".into(),
            Lane::Local => "Local functions".into(),
            Lane::ApiTools => "Claude API's own tools".into(),
            Lane::Server(id) => format!("MCP: {}", named(id)),
            Lane::Authorization(id) => format!("OAuth: {}", named(id)),
            Lane::App(name) => format!("App: {name}"),
        }
    }
}

impl Row {
    /// Where the row's step went, and how long it took: "Loopscope → MCP: Files · 12.3 ms".
    pub fn route_words(&self, servers: &[(String, String)]) -> String {
        let route = match &self.kind {
            RowKind::Arrow { from, to } => format!("{} → {}", from.name(servers), to.name(servers)),
            RowKind::Note { lane } => lane.name(servers),
            RowKind::Band { .. } => String::new(),
        };
        let took = self.duration_ms.map(|d| format!(" · {} ms", fixed(d, 1))).unwrap_or_default();
        route + &took
    }
}

/// What Claude saw and what the client did, for a Messages request row: the request's tools,
/// messages and tool choice, next to the tools array phase 1 built before it.
pub fn request_sides(row: &Row, events: &[TraceEvent]) -> Option<TwoSides> {
    let seq = *row.events.first()?;
    let first = events.iter().find(|e| e.seq == seq)?;
    let TraceKind::HttpRequest { body: Some(RequestBody::Text(body)), .. } = &first.kind else { return None };
    let json: Value = serde_json::from_str(body).ok()?;
    json.get("messages")?;
    let sees = pretty(
        &json!({ "tools": json.get("tools"), "messages": json.get("messages"), "tool_choice": json.get("tool_choice") }),
    );
    let did = events
        .iter()
        .filter(|e| e.seq < first.seq)
        .rev()
        .find_map(|e| match &e.kind {
            TraceKind::ToolsAggregated { tools, excluded } => Some(
                tools.iter().map(|t| format!("{} → {}", t.name, t.origin)).collect::<Vec<_>>().join("\n")
                    + &excluded.iter().map(|(w, why)| format!("\n✕ {w}: {why}")).collect::<String>(),
            ),
            _ => None,
        })
        .unwrap_or_else(|| "No tools were aggregated before this request.".into());
    Some(TwoSides { sees, did })
}

/// The two sides of one tool call: the blocks Claude sees, and the client's steps with the
/// JSON-RPC messages they carried.
pub fn story_sides(s: &ToolStory) -> TwoSides {
    let sees = format!(
        "tool_use (in the assistant message):\n{}\n\ntool_result (in the next user message):\n{}",
        pretty(&json!({ "type": "tool_use", "id": s.tool_use_id, "name": s.name, "input": s.input })),
        s.received.as_ref().map(pretty).unwrap_or_else(|| "(not sent yet)".into()),
    );
    let did = format!(
        "{}\n\n{}",
        s.steps
            .iter()
            .filter(|st| st.layer.is_client_side())
            .map(|st| format!("{}: {}", st.layer.label(), st.text))
            .collect::<Vec<_>>()
            .join("\n"),
        s.rpc.iter().map(|m| pretty(&m.to_value())).collect::<Vec<_>>().join("\n\n"),
    );
    TwoSides { sees, did }
}

/// A thinking block's detail: the text Claude's summary shows, and what the API checks it by.
fn thinking_detail(text: &str, redacted: bool, signature_chars: usize) -> (String, String) {
    if redacted {
        let body = format!(
            "The API's safety systems encrypted this reasoning ({signature_chars} characters of data). It is sent back \
             exactly as it came; Claude can still use it."
        );
        return ("redacted_thinking".into(), body);
    }
    let shown = if text.is_empty() {
        "(no text: thinking.display is \"omitted\", or the model's default is. The reasoning happened and was billed; \
         the block still goes back in the next request, unchanged.)"
            .to_owned()
    } else {
        text.to_owned()
    };
    let body = format!(
        "{shown}\n\nsignature: {signature_chars} characters. The API checks every thinking block against its signature: \
         a changed block in Claude's latest message is a 400."
    );
    ("thinking".into(), body)
}

/// How a call's arguments arrived: one line per `input_json_delta`, as Claude wrote them.
fn streamed(fragments: &[String], eager: bool) -> String {
    const SHOWN: usize = 60;
    if fragments.is_empty() {
        return String::new();
    }
    let how = if eager {
        "eager_input_streaming: sent as written, unbuffered and unchecked (a piece may cut a value anywhere)"
    } else {
        "buffered: the API checked each parameter before sending it"
    };
    let mut out = format!("\n\nStreamed in {} input_json_delta pieces ({how}):", fragments.len());
    for (i, piece) in fragments.iter().take(SHOWN).enumerate() {
        out.push_str(&format!("\n{:>3}  {piece}", i + 1));
    }
    if fragments.len() > SHOWN {
        out.push_str(&format!("\n     … {} more", fragments.len() - SHOWN));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{Headers, Method};
    use crate::trace::{AggregatedTool, Peer};

    fn event(seq: u64, kind: TraceKind) -> TraceEvent {
        TraceEvent { seq, at_ms: 0.0, peer: Peer::Claude, kind }
    }

    fn request(body: Option<RequestBody>) -> TraceKind {
        TraceKind::HttpRequest {
            exchange: 1,
            method: Method::Post,
            url: "https://api.anthropic.com/v1/messages".into(),
            headers: Headers::default(),
            body,
            summary: None,
        }
    }

    #[test]
    fn a_request_is_replayable_with_curl_unless_its_body_was_dropped() {
        let kept = raw(&event(0, request(Some(RequestBody::Text(r#"{"a":1}"#.into())))), 1 << 20);
        assert_eq!(kept.title, "HTTP request: POST https://api.anthropic.com/v1/messages");
        assert!(kept.body.contains("\"a\": 1"), "the body is indented: {}", kept.body);
        assert!(kept.replay.as_deref().is_some_and(|c| c.starts_with("curl")), "{:?}", kept.replay);

        let dropped = raw(&event(0, request(Some(RequestBody::Dropped { bytes: 3_000_000 }))), 2 << 20);
        assert_eq!(dropped.replay, None, "a curl command without its body would send something else");
        assert!(dropped.body.contains("(body of 2.8 MiB not kept"), "{}", dropped.body);
        assert!(dropped.body.contains("at most 2 MiB of details"), "names the limit now: {}", dropped.body);
    }

    #[test]
    fn a_messages_request_shows_what_claude_sees_next_to_the_tools_phase_1_built() {
        let body = r#"{"model":"m","tools":[{"name":"echo"}],"messages":[{"role":"user","content":"hi"}],"system":"secret prompt"}"#;
        let events = [
            event(
                0,
                TraceKind::ToolsAggregated {
                    tools: vec![AggregatedTool {
                        name: "echo".into(),
                        origin: "echo on MCP server \"e\"".into(),
                        notes: vec![],
                    }],
                    excluded: vec![("big".into(), "too large".into())],
                },
            ),
            event(1, request(Some(RequestBody::Text(body.into())))),
        ];
        let row = Row {
            index: 0,
            kind: RowKind::Arrow { from: Lane::Client, to: Lane::Claude },
            at_ms: 0.0,
            label: String::new(),
            detail: String::new(),
            phase: None,
            badges: vec![],
            duration_ms: Some(12.25),
            events: vec![1],
            tool_use_id: None,
            failed: false,
        };
        let sides = request_sides(&row, &events).expect("a Messages request");
        assert!(sides.sees.contains("\"messages\"") && sides.sees.contains("\"tools\""));
        assert!(!sides.sees.contains("model"), "only what reaches the model's tool use: {}", sides.sees);
        assert_eq!(sides.did, "echo → echo on MCP server \"e\"\n✕ big: too large");
        assert_eq!(row.route_words(&[]), "Loopscope → Claude API · 12.3 ms");
        // Not a Messages request: no sides.
        let other = [event(1, request(Some(RequestBody::Text(r#"{"jsonrpc":"2.0"}"#.into()))))];
        assert_eq!(request_sides(&row, &other), None);
    }

    #[test]
    fn a_lane_is_named_by_the_server_the_user_knows_or_its_id() {
        let names = [("s1".to_owned(), "Files".to_owned())];
        assert_eq!(Lane::Server("s1".into()).name(&names), "MCP: Files");
        assert_eq!(Lane::Authorization("s2".into()).name(&names), "OAuth: s2");
    }
}
