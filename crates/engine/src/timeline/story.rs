//! One tool call told end to end, layer by layer, from the trace: what Claude asked, where the
//! client sent it, what HTTP, JSON-RPC and the tool said, and what Claude finally received.
//! The detail pane shows this for any row of the call.

use serde_json::Value;

use crate::text::content_text;
use crate::trace::{Direction, Peer, RouteTarget, TraceEvent, TraceKind};
use protocol::jsonrpc::{Message, RequestId};

/// The steps of a call's story, in the order a call crosses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoryLayer {
    /// Claude's request (phase 2).
    ToolUse,
    /// The client's decision (phase 3).
    Route,
    Http,
    /// The bridge on the user's machine (`loopscope bridge`), when it failed on its side.
    Bridge,
    JsonRpc,
    /// The tool's own verdict (`isError`).
    Tool,
    LocalFunction,
    /// The tool_result (phase 4).
    ClaudeReceived,
}

impl StoryLayer {
    pub fn label(self) -> &'static str {
        match self {
            StoryLayer::ToolUse => "tool_use",
            StoryLayer::Route => "route",
            StoryLayer::Http => "HTTP",
            StoryLayer::Bridge => "bridge",
            StoryLayer::JsonRpc => "JSON-RPC",
            StoryLayer::Tool => "tool",
            StoryLayer::LocalFunction => "local function",
            StoryLayer::ClaudeReceived => "Claude received",
        }
    }

    /// Whether the step is something the client did (as opposed to what Claude sees).
    pub fn is_client_side(self) -> bool {
        !matches!(self, StoryLayer::ToolUse | StoryLayer::ClaudeReceived)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub layer: StoryLayer,
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
    pub rpc: Vec<Message>,
}

fn step(layer: StoryLayer, ok: bool, text: impl Into<String>) -> Step {
    Step { layer, ok, text: text.into() }
}

/// At most 200 characters of what a block list says.
fn compact(v: &Value) -> String {
    let text = content_text(v).replace('\n', " ");
    if text.chars().count() > 200 { format!("{}…", text.chars().take(200).collect::<String>()) } else { text }
}

/// The story of `tool_use_id`, read from the whole trace (events in seq order).
pub fn tool_story(tool_use_id: &str, events: &[TraceEvent]) -> Option<ToolStory> {
    let (name, input) = events.iter().find_map(|e| match &e.kind {
        TraceKind::ToolUse { tool_use_id: t, name, input, .. } if t == tool_use_id => {
            Some((name.clone(), input.clone()))
        }
        _ => None,
    })?;
    let mut story = ToolStory {
        tool_use_id: tool_use_id.into(),
        name: name.clone(),
        input: input.clone(),
        target: None,
        steps: vec![step(StoryLayer::ToolUse, true, format!("Claude asked for {name} with {input}"))],
        received: None,
        rpc: Vec::new(),
    };
    let mut link: Option<(&Peer, &RequestId)> = None;
    for e in events {
        match &e.kind {
            TraceKind::Route { tool_use_id: t, target, .. } if t == tool_use_id => {
                story.target = Some(target.clone());
                story.steps.push(match target {
                    RouteTarget::Local { function } => {
                        step(StoryLayer::Route, true, format!("local function {function}, run in the page"))
                    }
                    RouteTarget::Server { label, tool, .. } => step(
                        StoryLayer::Route,
                        true,
                        format!("JSON-RPC tools/call \"{tool}\" to the MCP server \"{label}\""),
                    ),
                    RouteTarget::Refused { reason } => step(StoryLayer::Route, false, format!("not run: {reason}")),
                });
            }
            TraceKind::RpcLink { tool_use_id: t, id } if t == tool_use_id => link = Some((&e.peer, id)),
            TraceKind::LocalCall { tool_use_id: t, output, is_error, .. } if t == tool_use_id => {
                story.steps.push(step(StoryLayer::LocalFunction, !is_error, output.clone()));
            }
            TraceKind::ToolResult { tool_use_id: t, is_error, content, .. } if t == tool_use_id => {
                story.received = Some(content.clone());
                let what = if *is_error { "is_error: true" } else { "a result" };
                story.steps.push(step(StoryLayer::ClaudeReceived, !is_error, format!("{what}: {}", compact(content))));
            }
            _ => {}
        }
    }
    if let Some((peer, id)) = link {
        insert_server_steps(&mut story, peer, id, events);
    }
    Some(story)
}

/// The HTTP, JSON-RPC and tool layers of a `tools/call`, placed before "Claude received".
fn insert_server_steps(story: &mut ToolStory, peer: &Peer, id: &RequestId, events: &[TraceEvent]) {
    let mine = || events.iter().filter(move |e| &e.peer == peer);
    let mut exchanges = Vec::new();
    for e in mine() {
        if let TraceKind::Rpc { direction, exchange, message, .. } = &e.kind
            && message.id() == Some(id)
        {
            story.rpc.push(message.clone());
            if *direction == Direction::Out {
                exchanges.extend(*exchange);
            }
        }
    }
    let mut steps = Vec::new();
    steps.extend(
        mine()
            .filter_map(|e| match &e.kind {
                TraceKind::HttpResponse { exchange, status, .. } if exchanges.contains(exchange) => {
                    Some(step(StoryLayer::Http, *status < 400, format!("HTTP {status}")))
                }
                TraceKind::HttpFailed { exchange, error, .. } if exchanges.contains(exchange) => {
                    Some(step(StoryLayer::Http, false, format!("no HTTP answer (network or CORS): {error}")))
                }
                _ => None,
            })
            .next_back(),
    );
    let response = story.rpc.iter().find(|m| matches!(m, Message::Response { .. } | Message::Error { .. }));
    match response {
        Some(Message::Error { error, .. }) => steps.push(step(
            StoryLayer::JsonRpc,
            false,
            format!("error {} {}: {}", error.code.0, error.code.name(), error.message),
        )),
        Some(Message::Response { result, .. }) => {
            steps.push(step(StoryLayer::JsonRpc, true, "result"));
            let is_error = result.get("isError") == Some(&Value::Bool(true));
            let text = result.pointer("/content/0/text").and_then(Value::as_str).unwrap_or("");
            steps.push(step(
                StoryLayer::Tool,
                !is_error,
                if is_error { format!("isError: true: {text}") } else { "succeeded".into() },
            ));
        }
        _ => {
            let failure = mine().find_map(|e| match &e.kind {
                TraceKind::RpcOutcome { id: rid, failure: Some(f), .. } if rid == id => Some(f),
                _ => None,
            });
            match failure {
                // The bridge answered for the server, which never did: its own layer, not JSON-RPC's.
                Some(f) if f.layer == crate::layer::Layer::Bridge => {
                    steps.push(step(StoryLayer::Bridge, false, f.message.clone()));
                }
                Some(f) => {
                    steps.push(step(StoryLayer::JsonRpc, false, format!("no response ({}): {}", f.layer, f.message)))
                }
                None => {}
            }
        }
    }
    let at = story.steps.iter().position(|s| s.layer == StoryLayer::ClaudeReceived).unwrap_or(story.steps.len());
    story.steps.splice(at..at, steps);
}
