//! Breakpoints (workshop mode) through the agent, natively, with the strict fake Messages API and
//! a real MCP server (the Python SDK): the loop stops at each phase with the payload as it will
//! be sent, and an edit, a skip or a stop does what it says — the call the server sees, the
//! tool_result Claude gets, and a conversation that stays valid to continue.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Breakpoint, Pauser, Resume, ServerHandle, Stop, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::claude::history;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::trace::{ResumeHow, TraceEvent, TraceKind};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use protocol::claude::Message;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::real::{self, PyMode};

/// One scripted answer at a stop.
type Answer = Box<dyn Fn(&Stop) -> Resume>;

/// Stops where asked, records each stop, and answers from a script (Continue when it runs out).
struct Script {
    at: Vec<Breakpoint>,
    answers: RefCell<Vec<Answer>>,
    stops: Rc<RefCell<Vec<Stop>>>,
}

impl Pauser for Script {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        self.at.contains(&at)
    }
    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume> {
        let answer = {
            let mut answers = self.answers.borrow_mut();
            if answers.is_empty() { Resume::Continue } else { answers.remove(0)(&stop) }
        };
        self.stops.borrow_mut().push(stop);
        async move { answer }.boxed_local()
    }
}

struct Setup {
    fake: FakeClaude,
    _server: real::RealServer,
    agent: Agent<Native>,
    servers: Vec<ServerHandle<Native>>,
    settings: ClaudeSettings,
    trace: Rc<RefCell<Vec<TraceEvent>>>,
}

async fn setup(key: &str) -> Setup {
    let fake = FakeClaude::start(0).await;
    let server = real::python(PyMode::Sse);
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform.clone(), tracer.clone());
    let client = McpClient::new(platform, ServerConfig::new("s", &server.url), tracer, Handlers::default());
    client.connect().await.unwrap();
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    Setup { fake, _server: server, agent, servers: vec![ServerHandle::new(Rc::new(client), "notes")], settings, trace }
}

fn call(name: &str, input: Value) -> Value {
    json!({"reply": {"content": [{"tool_use": {"name": name, "input": input}}]}})
}

#[tokio::test(flavor = "current_thread")]
async fn every_phase_stops_with_its_payload_and_an_edited_argument_is_what_the_server_runs() {
    let s = setup("sk-bp-edit").await;
    s.fake.script("sk-bp-edit", vec![call("notes_search_notes", json!({"query": "mcp"})), json!({"summarize": {}})]);
    let stops = Rc::new(RefCell::new(Vec::new()));
    let edit: Answer = Box::new(|stop: &Stop| {
        let mut v = stop.payload.clone();
        v["input"]["query"] = json!("jsonrpc");
        Resume::Edited(v)
    });
    let pauser = Script {
        at: vec![Breakpoint::Request, Breakpoint::ToolUse, Breakpoint::Route, Breakpoint::Results],
        answers: RefCell::new(vec![Box::new(|_: &Stop| Resume::Continue), edit]),
        stops: stops.clone(),
    };
    let cancel = CancelToken::new();
    let turn = Turn { pause: Some(Rc::new(pauser)), ..Turn::new(&s.settings, &s.servers, &cancel, 4) };
    let out = s.agent.run(Vec::new(), Message::user_text("search"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    let at: Vec<Breakpoint> = stops.borrow().iter().map(|s| s.at).collect();
    assert_eq!(
        at,
        [Breakpoint::Request, Breakpoint::ToolUse, Breakpoint::Route, Breakpoint::Results, Breakpoint::Request]
    );
    let stops = stops.borrow();
    assert_eq!(
        stops[0].payload["tools"].as_array().map(|t| t.iter().any(|t| t["name"] == "notes_search_notes")),
        Some(true)
    );
    assert_eq!(stops[2].payload["route"]["to"], "server");
    // The server ran the edited call, and the conversation shows the edited tool_use.
    let results = serde_json::to_string(&out.history[2]).unwrap();
    assert!(results.contains("strict contract"), "{results}");
    assert!(serde_json::to_string(&out.history[1]).unwrap().contains("\"query\":\"jsonrpc\""));
    assert!(history::check(&out.history).is_ok());
    let edited = s.trace.borrow().iter().any(|e| matches!(&e.kind, TraceKind::Resumed { how: ResumeHow::Edited, .. }));
    assert!(edited, "the trace marks the edit");
}

#[tokio::test(flavor = "current_thread")]
async fn a_skipped_call_is_not_run_and_results_that_break_the_rules_are_sent_once_but_not_kept() {
    let s = setup("sk-bp-skip").await;
    s.fake.script("sk-bp-skip", vec![call("notes_search_notes", json!({"query": "mcp"})), json!({"summarize": {}})]);
    let stops = Rc::new(RefCell::new(Vec::new()));
    let drop_results: Answer = Box::new(|stop: &Stop| {
        let mut v = stop.payload.clone();
        v["content"] = json!([{"type": "text", "text": "no results"}]);
        Resume::Edited(v)
    });
    let pauser = Script {
        at: vec![Breakpoint::Route, Breakpoint::Results],
        answers: RefCell::new(vec![Box::new(|_: &Stop| Resume::Skip), drop_results]),
        stops: stops.clone(),
    };
    let cancel = CancelToken::new();
    let turn = Turn { pause: Some(Rc::new(pauser)), ..Turn::new(&s.settings, &s.servers, &cancel, 4) };
    let out = s.agent.run(Vec::new(), Message::user_text("search"), &turn, Rc::new(|_| {})).await;
    // The API refused the edited message (its 400), and the conversation kept the real results.
    assert!(matches!(out.end, TurnEnd::Failed(_)), "{:?}", out.end);
    assert!(out.end.explain().contains("400"), "{}", out.end.explain());
    let kept = serde_json::to_string(&out.history[2]).unwrap();
    assert!(kept.contains("Skipped at a breakpoint: not executed."), "{kept}");
    assert!(history::check(&out.history).is_ok());
    let ran = s
        .trace
        .borrow()
        .iter()
        .any(|e| matches!(&e.kind, TraceKind::Rpc { message, .. } if message.method() == Some("tools/call")));
    assert!(!ran, "a skipped call never reaches the server");
}

/// Phase 3 is editable (issue 20): the call goes where the edit says, with its arguments — here
/// from the server to the page's calculator — the server never hears of it, Claude gets the
/// calculator's answer for its tool_use, and the trace marks the route edited.
#[tokio::test(flavor = "current_thread")]
async fn a_call_rerouted_at_phase_3_runs_where_the_edit_sends_it() {
    let s = setup("sk-bp-route").await;
    s.fake.script("sk-bp-route", vec![call("notes_search_notes", json!({"query": "mcp"})), json!({"summarize": {}})]);
    let stops = Rc::new(RefCell::new(Vec::new()));
    let reroute: Answer = Box::new(|stop: &Stop| {
        let id = stop.payload["tool_use"]["id"].clone();
        Resume::Edited(json!({
            "tool_use": {"id": id, "input": {"expression": "6 * 7"}},
            "route": {"to": "local", "function": "calculate"},
        }))
    });
    let pauser = Script { at: vec![Breakpoint::Route], answers: RefCell::new(vec![reroute]), stops: stops.clone() };
    let cancel = CancelToken::new();
    let turn = Turn { pause: Some(Rc::new(pauser)), ..Turn::new(&s.settings, &s.servers, &cancel, 4) };
    let out = s.agent.run(Vec::new(), Message::user_text("search"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    // The stop offered the page's functions and the server as destinations.
    let targets = stops.borrow()[0].targets.iter().map(|t| t.arrow()).collect::<Vec<_>>().join("; ");
    assert!(targets.contains("local function calculate") && targets.contains("on notes"), "{targets}");
    let results = serde_json::to_string(&out.history[2]).unwrap();
    assert!(results.contains("42"), "Claude gets the calculator's answer: {results}");
    // Claude's own tool_use stays as it sent it.
    assert!(serde_json::to_string(&out.history[1]).unwrap().contains("notes_search_notes"));
    assert!(history::check(&out.history).is_ok());
    let trace = s.trace.borrow();
    let searched = trace.iter().any(|e| match &e.kind {
        TraceKind::Rpc { message, .. } => message.method() == Some("tools/call"),
        _ => false,
    });
    assert!(!searched, "the server never got the call");
    assert!(
        trace
            .iter()
            .any(|e| matches!(&e.kind, TraceKind::Resumed { at: Breakpoint::Route, how: ResumeHow::Edited, .. }))
    );
    assert!(trace.iter().any(|e| matches!(&e.kind, TraceKind::LocalCall { function, .. } if function == "calculate")));
}

/// Stops at the request and never answers: the page's banner, left alone.
struct NeverAnswers;

impl Pauser for NeverAnswers {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        at == Breakpoint::Request
    }
    fn pause(&self, _: Stop) -> LocalBoxFuture<'static, Resume> {
        futures::future::pending().boxed_local()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_turn_stopped_while_it_waits_at_a_breakpoint_ends_without_its_answer() {
    let s = setup("sk-bp-cancel").await;
    let cancel = CancelToken::new();
    let turn = Turn { pause: Some(Rc::new(NeverAnswers)), ..Turn::new(&s.settings, &s.servers, &cancel, 4) };
    let stop_soon = async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        cancel.cancel();
    };
    let run = s.agent.run(Vec::new(), Message::user_text("search"), &turn, Rc::new(|_| {}));
    let bounded = tokio::time::timeout(std::time::Duration::from_secs(5), run);
    let (out, ()) = futures::join!(bounded, stop_soon);
    let out = out.expect("the stopped turn still waited for the page's answer");
    assert_eq!(out.end, TurnEnd::Aborted);
    let stopped =
        s.trace.borrow().iter().any(|e| matches!(&e.kind, TraceKind::Resumed { how: ResumeHow::Stopped, .. }));
    assert!(stopped, "the trace does not say the stop ended");
    assert!(s.fake.requests("sk-bp-cancel").is_empty(), "the request went to Claude after all");
}
