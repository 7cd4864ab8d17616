//! One tool call told end to end, layer by layer, from the trace: what Claude asked, where the
//! client sent it, what HTTP, JSON-RPC and the tool said, and what Claude finally received.
//! The detail pane shows this for any row of the call.

use serde_json::Value;

use crate::engine::trace::{Direction, Peer, RouteTarget, TraceEvent, TraceKind};

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// "tool_use", "route", "HTTP", "JSON-RPC", "tool", "local function", "Claude received".
    pub layer: &'static str,
    pub ok: bool,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolStory {
    pub tool_use_id: String,
    pub name: String,
    pub input: Value,
    pub target: Option<RouteTarget>,
    pub steps: Vec<Step>,
    /// The tool_result content as sent to Claude.
    pub received: Option<Value>,
    /// The JSON-RPC request and its response or error, if the call went to a server.
    pub rpc: Vec<Value>,
}

fn step(layer: &'static str, ok: bool, text: impl Into<String>) -> Step {
    Step { layer, ok, text: text.into() }
}

/// The story of `tool_use_id`, read from the whole trace (events in seq order).
pub fn tool_story(tool_use_id: &str, events: &[TraceEvent]) -> Option<ToolStory> {
    let (name, input) = events.iter().find_map(|e| match &e.kind {
        TraceKind::ToolUse { tool_use_id: t, name, input } if t == tool_use_id => Some((name.clone(), input.clone())),
        _ => None,
    })?;
    let mut story = ToolStory {
        tool_use_id: tool_use_id.into(),
        name: name.clone(),
        input: input.clone(),
        target: None,
        steps: vec![step("tool_use", true, format!("Claude asked for {name} with {input}"))],
        received: None,
        rpc: Vec::new(),
    };
    let mut link: Option<(Peer, Value)> = None;
    for e in events {
        match &e.kind {
            TraceKind::Route { tool_use_id: t, target, .. } if t == tool_use_id => {
                story.target = Some(target.clone());
                story.steps.push(match target {
                    RouteTarget::Local { function } => {
                        step("route", true, format!("local function {function}, run in the page"))
                    }
                    RouteTarget::Server { label, tool, .. } => {
                        step("route", true, format!("JSON-RPC tools/call \"{tool}\" to the MCP server \"{label}\""))
                    }
                    RouteTarget::Refused { reason } => step("route", false, format!("not run: {reason}")),
                });
            }
            TraceKind::RpcLink { tool_use_id: t, id } if t == tool_use_id => {
                link = Some((e.peer.clone(), serde_json::to_value(id).unwrap_or(Value::Null)));
            }
            TraceKind::LocalCall { tool_use_id: t, output, is_error, .. } if t == tool_use_id => {
                story.steps.push(step("local function", !is_error, output.clone()));
            }
            TraceKind::ToolResult { tool_use_id: t, is_error, content, .. } if t == tool_use_id => {
                story.received = Some(content.clone());
                let what = if *is_error { "is_error: true" } else { "a result" };
                story.steps.push(step("Claude received", !is_error, format!("{what}: {}", compact(content))));
            }
            _ => {}
        }
    }
    if let Some((peer, id)) = link {
        insert_server_steps(&mut story, &peer, &id, events);
    }
    Some(story)
}

/// The HTTP, JSON-RPC and tool layers of a `tools/call`, placed before "Claude received".
fn insert_server_steps(story: &mut ToolStory, peer: &Peer, id: &Value, events: &[TraceEvent]) {
    let mut steps = Vec::new();
    let mut exchanges = Vec::new();
    for e in events.iter().filter(|e| &e.peer == peer) {
        if let TraceKind::Rpc { direction, exchange, message } = &e.kind
            && message.get("id") == Some(id)
        {
            story.rpc.push(message.clone());
            if *direction == Direction::Out {
                exchanges.extend(*exchange);
            }
        }
    }
    let mut http = None;
    for e in events.iter().filter(|e| &e.peer == peer) {
        match &e.kind {
            TraceKind::HttpResponse { exchange, status, .. } if exchanges.contains(exchange) => {
                http = Some(step("HTTP", *status < 400, format!("HTTP {status}")));
            }
            TraceKind::HttpFailed { exchange, error, .. } if exchanges.contains(exchange) => {
                http = Some(step("HTTP", false, format!("no HTTP answer (network or CORS): {error}")));
            }
            _ => {}
        }
    }
    steps.extend(http);
    let response = story.rpc.iter().find(|m| m.get("result").is_some() || m.get("error").is_some());
    match response {
        Some(m) if m.get("error").is_some() => {
            let err = &m["error"];
            let code = err["code"].as_i64().unwrap_or(0);
            let name = crate::protocol::jsonrpc::ErrorCode(code).name();
            steps.push(step(
                "JSON-RPC",
                false,
                format!("error {code} {name}: {}", err["message"].as_str().unwrap_or("")),
            ));
        }
        Some(m) => {
            steps.push(step("JSON-RPC", true, "result"));
            let is_error = m.pointer("/result/isError") == Some(&Value::Bool(true));
            let text = m.pointer("/result/content/0/text").and_then(Value::as_str).unwrap_or("");
            steps.push(step(
                "tool",
                !is_error,
                if is_error { format!("isError: true: {text}") } else { "succeeded".into() },
            ));
        }
        None => {
            let failure = events.iter().find_map(|e| match &e.kind {
                TraceKind::RpcOutcome { id: rid, failure: Some(f), .. }
                    if &e.peer == peer && serde_json::to_value(rid).ok().as_ref() == Some(id) =>
                {
                    Some(f.clone())
                }
                _ => None,
            });
            if let Some(f) = failure {
                steps.push(step("JSON-RPC", false, format!("no response ({}): {}", f.layer, f.message)));
            }
        }
    }
    let at = story.steps.iter().position(|s| s.layer == "Claude received").unwrap_or(story.steps.len());
    for (i, s) in steps.into_iter().enumerate() {
        story.steps.insert(at + i, s);
    }
}

fn compact(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.get("text")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("[{}]", i["type"].as_str().unwrap_or("block")))
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    };
    if text.chars().count() > 200 { format!("{}…", text.chars().take(200).collect::<String>()) } else { text }
}
