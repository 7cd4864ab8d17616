//! Workshop mode's injected faults against real servers on 127.0.0.1 (the Python SDK 1.x server
//! in its SSE mode, with a session; the TypeScript SDK v2 server, 2026-07-28), and Claude's side
//! through the agent and the strict fake Messages API: each fault ends the way the real one
//! would, at its layer, and the trace marks it injected.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, ServerHandle, Turn};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::faults::{Fault, Faults, Target, Times};
use engine::layer::Layer;
use engine::mcp::{Handlers, McpClient, McpError, Reach, RequestOptions, ServerConfig};
use engine::trace::{TraceEvent, TraceKind};
use protocol::claude::Message;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::real::{self, PyMode};

async fn connected(url: &str, faults: &Faults) -> (McpClient<Native>, Rc<RefCell<Vec<TraceEvent>>>) {
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let client =
        McpClient::new(platform, ServerConfig::new("s", url), tracer, Handlers::default()).with_faults(faults.clone());
    client.connect().await.expect("connects");
    (client, trace)
}

fn injected(trace: &[TraceEvent]) -> Vec<Fault> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Injected { fault, .. } => Some(fault.clone()),
            _ => None,
        })
        .collect()
}

const QUICK: RequestOptions =
    RequestOptions { cancel: None, timeout_ms: Some(300), on_progress: None, trace_link: None };

#[tokio::test(flavor = "current_thread")]
async fn each_server_side_fault_fails_at_its_own_layer_and_only_when_asked() {
    let server = real::python(PyMode::Sse);
    let faults = Faults::new();
    let (client, trace) = connected(&server.url, &faults).await;
    let call = || client.call_tool("search_notes", json!({"query": "mcp"}), &QUICK);
    let target = Target::Server("s".into());

    let cases: Vec<(Fault, Layer)> = vec![
        (Fault::Network, Layer::Network),
        (Fault::Cors, Layer::Network),
        (Fault::Http { status: 503, retry_after_s: Some(2) }, Layer::Http),
        (Fault::Http { status: 500, retry_after_s: None }, Layer::Http),
        (Fault::Timeout, Layer::Timeout),
        (Fault::MalformedJson, Layer::Decode),
        (Fault::StreamCut, Layer::Network),
        (Fault::RpcError { code: -32602 }, Layer::JsonRpc),
    ];
    for (fault, layer) in cases {
        faults.add(target.clone(), Some("search_notes".into()), fault.clone(), Times::Next);
        let error = call().await.expect_err(&fault.describe());
        assert_eq!(error.layer(), layer, "{}: {error}", fault.describe());
        match (&fault, &error) {
            (Fault::Network, McpError::Network { reach, .. }) => assert_eq!(*reach, Reach::Nothing),
            (Fault::Cors, McpError::Network { reach, .. }) => assert_eq!(*reach, Reach::Answers),
            (Fault::Http { status, .. }, McpError::Http { status: got, .. }) => assert_eq!(status, got),
            (Fault::RpcError { code }, McpError::Rpc(e)) => assert_eq!(e.code.0, *code),
            _ => {}
        }
        // A `Next` fault is used up: the server itself answers the next call.
        let ok = call().await.expect("the real answer after the fault");
        assert!(!ok.is_error, "{}", fault.describe());
    }

    // isError is a successful call carrying a failed tool.
    faults.add(target.clone(), None, Fault::ToolError, Times::Next);
    assert!(call().await.expect("a result").is_error);

    // A slow answer is the real one, later.
    faults.add(target.clone(), None, Fault::Slow { ms: 150 }, Times::Next);
    let started = std::time::Instant::now();
    let slow = client.call_tool("search_notes", json!({"query": "mcp"}), &RequestOptions::default()).await;
    assert!(!slow.expect("the real answer").is_error);
    assert!(started.elapsed().as_millis() >= 150);

    // Every call, until removed; another tool is left alone when one tool is named.
    let id = faults.add(
        target.clone(),
        Some("search_notes".into()),
        Fault::Http { status: 500, retry_after_s: None },
        Times::Every,
    );
    assert!(call().await.is_err() && call().await.is_err());
    faults.remove(id);
    assert!(call().await.is_ok());

    assert_eq!(injected(&trace.borrow()).len(), 12, "every injected fault is marked in the trace");
}

#[tokio::test(flavor = "current_thread")]
async fn a_404_on_a_session_ends_as_an_expired_session_does_and_a_modern_server_meets_faults_too() {
    // A 2025 session: a 404 means the session expired; the client initialises again and
    // retries once, and the real server answers the retry.
    let server = real::python(PyMode::Sse);
    let faults = Faults::new();
    let (client, trace) = connected(&server.url, &faults).await;
    faults.add(Target::Server("s".into()), None, Fault::Http { status: 404, retry_after_s: None }, Times::Next);
    let first = client.session_id();
    let result = client.call_tool("search_notes", json!({"query": "mcp"}), &RequestOptions::default()).await;
    assert!(!result.expect("answered after a new session").is_error);
    assert_ne!(client.session_id(), first, "a new session");
    let noted =
        trace.borrow().iter().any(|e| matches!(&e.kind, TraceKind::Note { text } if text.contains("Session expired")));
    assert!(noted);

    // 2026-07-28: no session; the same faults, the same layers.
    let modern = real::ts_v2(false);
    let (client, _) = connected(&modern.url, &faults).await;
    assert!(client.modern().is_some());
    faults.add(Target::Server("s".into()), None, Fault::RpcError { code: -32601 }, Times::Next);
    let error = client.call_tool("search_notes", json!({"query": "x"}), &RequestOptions::default()).await.unwrap_err();
    assert_eq!(error.rpc_error().map(|e| e.code.0), Some(-32601));
}

#[tokio::test(flavor = "current_thread")]
async fn claudes_side_a_tool_that_does_not_exist_and_arguments_that_break_the_schema() {
    let fake = FakeClaude::start(0).await;
    let server = real::python(PyMode::Sse);
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform.clone(), tracer.clone());
    let client = McpClient::new(platform.clone(), ServerConfig::new("s", &server.url), tracer, Handlers::default());
    client.connect().await.unwrap();
    let servers = vec![ServerHandle::new(Rc::new(client), "notes")];
    let settings =
        ClaudeSettings { base_url: fake.base_url(), api_key: "sk-faults".into(), ..ClaudeSettings::default() };
    let faults = Faults::new();
    let cancel = CancelToken::new();

    for (fault, expected) in
        [(Fault::UnknownTool, "notes_search_notes_that_does_not_exist"), (Fault::BadArguments, "query")]
    {
        faults.add(Target::Claude, None, fault.clone(), Times::Next);
        let step =
            json!({"reply": {"content": [{"tool_use": {"name": "notes_search_notes", "input": {"query": "mcp"}}}]}});
        fake.script("sk-faults", vec![step, json!({"summarize": {}})]);
        let turn = Turn { faults: Some(faults.clone()), ..Turn::new(&settings, &servers, &cancel, 4) };
        let outcome = agent.run(Vec::new(), Message::user_text("search"), &turn, Rc::new(|_| {})).await;
        // What Claude received: an is_error tool_result saying what went wrong.
        let results: Vec<Value> = outcome.history[2].content.iter().map(|b| b.0.clone()).collect();
        assert_eq!(results[0]["is_error"], json!(true), "{}", fault.describe());
        assert!(results[0].to_string().contains(expected), "{}: {}", fault.describe(), results[0]);
        // The history keeps what Claude really sent: the API would refuse anything else.
        assert!(outcome.history[1].content.iter().any(|b| b.0.to_string().contains("\"notes_search_notes\"")));
    }
    assert_eq!(injected(&trace.borrow()), vec![Fault::UnknownTool, Fault::BadArguments]);
}
