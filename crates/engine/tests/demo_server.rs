//! The demo MCP server that runs inside the page, spoken to by the real client over the real
//! Streamable HTTP rules, and the whole loop with the demo model and no network at all: what a
//! workshop with no key and no server sees.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, AgentEvent, ServerHandle, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::demo::{DEMO_BASE_URL, DEMO_SERVER_URL, Demo};
use engine::layer::Layer;
use engine::mcp::{Handlers, ListenEnd, McpClient, McpError, RequestOptions, ServerConfig};
use engine::trace::TraceKind;
use protocol::claude::Message;
use serde_json::{Map, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};

fn demo() -> Rc<Demo<Rc<Native>>> {
    Rc::new(Demo::new(Native::new()))
}

#[tokio::test(flavor = "current_thread")]
async fn the_demo_server_speaks_streamable_http_and_shows_every_outcome() {
    let platform = demo();
    let (tracer, trace) = recording_tracer(&Native::new());
    let c = McpClient::new(platform, ServerConfig::new("demo", DEMO_SERVER_URL), tracer, Handlers::default());
    let info = c.connect().await.unwrap();
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.server_info.name, "loopscope-demo-server");
    assert!(c.session_id().is_some_and(|s| s.starts_with("demo-session-")), "C-09: a session");
    let none = RequestOptions::default;

    let tools = c.list_tools(&none()).await.unwrap();
    let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search_notes", "read_file", "call_flaky_service", "count_slowly", "chart_words", "read_note"]);

    // Pattern 1: HTTP 200 and a result.
    let found = c.call_tool("search_notes", json!({"query": "jsonrpc"}), &none()).await.unwrap();
    assert!(!found.is_error);
    assert!(found.content[0].as_text().unwrap().contains("strict contract"));
    // Pattern 2: HTTP 200 carrying a JSON-RPC error, the article's own example.
    let relative = c.call_tool("read_file", json!({"path": "src/main.ts"}), &none()).await.unwrap_err();
    assert_eq!(relative.layer(), Layer::JsonRpc);
    assert!(relative.to_string().contains("-32602") && relative.to_string().contains("must be an absolute"));
    // A successful call carrying a failed tool.
    let missing = c.call_tool("read_file", json!({"path": "/nope.txt"}), &none()).await.unwrap();
    assert!(missing.is_error);
    let file = c.call_tool("read_file", json!({"path": "/src/main.ts"}), &none()).await.unwrap();
    assert_eq!(file.content[0].as_text(), Some("console.log('hello world');"));
    // Pattern 3: the server cannot answer the call at all.
    match c.call_tool("call_flaky_service", json!({}), &none()).await.unwrap_err() {
        McpError::Http { status: 504, .. } => {}
        other => panic!("{other:?}"),
    }
    // An SSE response with progress before the result (C-06, C-22).
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    let opts = RequestOptions { on_progress: Some(Rc::new(move |p| sink.borrow_mut().push(p.progress))), ..none() };
    let counted = c.call_tool("count_slowly", json!({"steps": 3}), &opts).await.unwrap();
    assert_eq!(counted.content[0].as_text(), Some("counted to 3"));
    assert_eq!(*seen.borrow(), [1.0, 2.0, 3.0]);

    let index = c.read_resource("notes://index", &none()).await.unwrap();
    assert!(index.contents[0].text.as_deref().unwrap().contains("tool_result"));
    let prompts = c.list_prompts(&none()).await.unwrap();
    let mut args = Map::new();
    args.insert("topic".into(), json!("sessions"));
    let prompt = c.get_prompt(&prompts[0], &args, &none()).await.unwrap();
    assert!(prompt.messages[0].content.as_text().unwrap().contains("Explain sessions"));

    assert_eq!(c.listen(&CancelToken::new()).await, ListenEnd::NotOffered { status: 405 }, "no GET stream (C-08)");
    c.disconnect().await.unwrap();
    let statuses: Vec<u16> = trace
        .borrow()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::HttpResponse { status, .. } => Some(status),
            _ => None,
        })
        .collect();
    assert!(statuses.contains(&202), "notifications/initialized is accepted with 202 (C-05)");
    assert_eq!(statuses.last(), Some(&200), "DELETE ends the session (C-11)");
    // The ended session is gone: the server no longer knows it.
    assert!(c.session_id().is_none());
}

/// No key, no server, no network: the demo model calls the demo server's read_file with a
/// relative path, gets the JSON-RPC error back as an is_error tool_result, and corrects itself,
/// as the article says Claude does.
#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_corrects_itself_after_a_json_rpc_error() {
    let platform = demo();
    let (tracer, _) = recording_tracer(&Native::new());
    let client = McpClient::new(
        platform.clone(),
        ServerConfig::new("demo", DEMO_SERVER_URL),
        tracer.clone(),
        Handlers::default(),
    );
    client.connect().await.unwrap();
    let servers = [ServerHandle::new(Rc::new(client), "demo")];
    let agent = Agent::new(platform, tracer);
    let settings = ClaudeSettings { base_url: DEMO_BASE_URL.into(), api_key: String::new(), ..Default::default() };
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 8);
    let out = agent
        .run(
            Vec::new(),
            Message::user_text("Read the file src/main.ts"),
            &turn,
            Rc::new(move |e| sink.borrow_mut().push(e)),
        )
        .await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let results: Vec<(bool, String)> = events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { result, .. } => {
                Some((result.is_error, engine::text::content_text(&result.content)))
            }
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].0 && results[0].1.contains("must be an absolute"), "{results:?}");
    assert_eq!(results[1], (false, "console.log('hello world');".to_owned()));
    assert!(out.history.last().unwrap().text().contains("console.log"));
}

#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_refuses_a_left_out_tool_result_as_the_api_does() {
    // A workshop without a key sees the article's 400 too (teaching switch, local function).
    let platform = demo();
    let (tracer, _) = recording_tracer(&Native::new());
    let agent = Agent::new(platform, tracer);
    let settings = ClaudeSettings { base_url: DEMO_BASE_URL.into(), api_key: String::new(), ..Default::default() };
    let cancel = CancelToken::new();
    let turn = Turn { teach: Some(engine::agent::Teach::LeaveOutResults), ..Turn::new(&settings, &[], &cancel, 8) };
    let out = agent.run(Vec::new(), Message::user_text("What is 17 * 23?"), &turn, Rc::new(|_| {})).await;
    let TurnEnd::Failed(engine::claude::ClaudeError::Api { status, message, request_id, .. }) = &out.end else {
        panic!("{:?}", out.end)
    };
    assert_eq!(*status, 400);
    assert!(
        message.starts_with("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "),
        "{message}"
    );
    assert!(request_id.as_deref().is_some_and(|r| r.starts_with("req_demo_")));
    assert_eq!(out.history.last().unwrap().tool_results().count(), 1, "the history keeps the result");
}

#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_thinks_and_refuses_a_changed_thinking_block_as_the_api_does() {
    let run = |teach| async move {
        let (tracer, _) = recording_tracer(&Native::new());
        let agent = Agent::new(demo(), tracer);
        let settings = ClaudeSettings { base_url: DEMO_BASE_URL.into(), api_key: String::new(), ..Default::default() };
        let cancel = CancelToken::new();
        let turn = Turn { teach, ..Turn::new(&settings, &[], &cancel, 8) };
        agent.run(Vec::new(), Message::user_text("What is 17 * 23?"), &turn, Rc::new(|_| {})).await
    };
    let out = run(None).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let thinking = &out.history[1].content[0];
    assert_eq!(thinking.kind(), "thinking");
    assert!(thinking.0["thinking"].as_str().unwrap().contains("calculate with {\"expression\":\"17 * 23\"}"));

    let out = run(Some(engine::agent::Teach::AlterThinking)).await;
    let TurnEnd::Failed(engine::claude::ClaudeError::Api { status: 400, message, .. }) = &out.end else {
        panic!("{:?}", out.end)
    };
    assert!(message.starts_with("messages.1.content.0: `thinking` or `redacted_thinking` blocks"), "{message}");

    // Dropped: the demo accepts it, as the API does with adaptive thinking.
    assert_eq!(run(Some(engine::agent::Teach::DropThinking)).await.end, TurnEnd::EndTurn);
}
