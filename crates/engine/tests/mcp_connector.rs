//! The API's MCP connector through the whole loop, against the strict fake Messages API and a
//! real server (server-everything): the request names the server in `mcp_servers` with its
//! `mcp_toolset` and the beta; the API (here the fake) lists and calls the server; the page
//! sends the server nothing, and the call and its result are drawn on the API's own lane.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, ServerHandle, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::claude::connector::ConnectorServer;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::timeline::{Figures, Lane, RowKind, Timeline, side_by_side};
use engine::trace::{Peer, TraceKind};
use protocol::claude::Message;
use serde_json::json;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::real;

/// server-everything, and the fake API reaching it at the public-looking `ORIGIN`.
async fn everything_behind_origin() -> (real::RealServer, FakeClaude) {
    let everything = real::everything();
    let fake = FakeClaude::start(0).await;
    fake.map_host(ORIGIN, &format!("http://127.0.0.1:{}", everything.port));
    (everything, fake)
}

const ORIGIN: &str = "https://everything.example.test";

#[tokio::test(flavor = "current_thread")]
async fn the_api_calls_the_server_and_the_page_sends_it_nothing() {
    let (_everything, fake) = everything_behind_origin().await;
    let origin = ORIGIN;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-connector";
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    fake.script(
        key,
        vec![json!({"reply": {"content": [
            {"mcp_tool_use": {"server_name": "everything", "name": "echo", "input": {"message": "through the API"}}},
            {"text": "The server echoed it."}
        ]}})],
    );
    let cancel = CancelToken::new();
    let server = ConnectorServer::new("ev", "everything", &format!("{origin}/mcp"));
    let turn = Turn { connector: vec![server], ..Turn::new(&settings, &[], &cancel, 4) };
    let out = agent.run(Vec::new(), Message::user_text("Echo this"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let sent = fake.requests(key);
    assert_eq!(sent.len(), 1, "one request: the API ran the call within it");
    assert_eq!(sent[0].header("anthropic-beta"), Some("mcp-client-2025-11-20"));
    let body = sent[0].json();
    assert_eq!(body["mcp_servers"], json!([{"type": "url", "url": format!("{origin}/mcp"), "name": "everything"}]));
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.last(), Some(&json!({"type": "mcp_toolset", "mcp_server_name": "everything"})));
    assert!(!tools.iter().any(|t| t["name"].as_str().is_some_and(|n| n.starts_with("everything_"))));

    // What Claude's answer holds, and what goes back next time: both blocks, as they came.
    let answer = out.history.last().unwrap();
    let kinds: Vec<&str> = answer.content.iter().map(|b| b.kind()).collect();
    assert_eq!(kinds, ["mcp_tool_use", "mcp_tool_result", "text"]);
    let result = &answer.content[1].0;
    assert_eq!(result["is_error"], false);
    assert_eq!(result["content"][0]["text"], "Echo: through the API", "the server's own answer, fetched by the API");

    // The page sent the server nothing; phase 1 said why; the call is on the API's lane.
    let trace = trace.borrow();
    assert!(!trace.iter().any(|e| matches!(e.peer, Peer::Server(_))), "no exchange of the page's with the server");
    let noted = trace.iter().any(|e| matches!(&e.kind, TraceKind::Note { text } if text.contains("Through the API's MCP connector: \"everything\"")));
    assert!(noted, "phase 1 names the server the connector calls");
    let mut timeline = Timeline::new();
    for e in trace.iter() {
        timeline.push(e);
    }
    let row = |label: &str| timeline.rows().iter().find(|r| r.label == label).cloned();
    let call = row("mcp_tool_use echo").expect("the call's row");
    assert_eq!(call.kind, RowKind::Arrow { from: Lane::Claude, to: Lane::ApiTools });
    let back = row("mcp_tool_result").expect("the result's row");
    assert_eq!(back.kind, RowKind::Arrow { from: Lane::ApiTools, to: Lane::Claude });
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_the_api_cannot_reach_fails_the_request_with_the_apis_word() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, _trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-connector-unreachable";
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    fake.script(
        key,
        vec![json!({"reply": {"content": [{"mcp_tool_use": {"server_name": "gone", "name": "echo", "input": {}}}]}})],
    );
    let cancel = CancelToken::new();
    let turn = Turn {
        connector: vec![ConnectorServer::new("gone", "gone", "https://gone.example.test/mcp")],
        ..Turn::new(&settings, &[], &cancel, 4)
    };
    let out = agent.run(Vec::new(), Message::user_text("Echo"), &turn, Rc::new(|_| {})).await;
    let TurnEnd::Failed(e) = &out.end else { panic!("{:?}", out.end) };
    assert!(e.to_string().contains("not reachable from the API"), "{e}");
}

#[tokio::test(flavor = "current_thread")]
async fn the_same_question_two_ways_who_called_what_crossed_the_network_and_the_tokens() {
    let (everything, fake) = everything_behind_origin().await;
    let origin = ORIGIN;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform.clone(), tracer.clone());
    let key = "sk-connector-both";
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    let input = json!({"message": "both ways"});
    fake.script(
        key,
        vec![
            // In the page's loop: Claude names the tool, the page calls the server.
            json!({"reply": {"content": [{"tool_use": {"name": "everything_echo", "input": input}}]}}),
            json!({"summarize": {}}),
            // Through the connector: the API calls it within one answer.
            json!({"reply": {"content": [
                {"mcp_tool_use": {"server_name": "everything", "name": "echo", "input": input}},
                {"text": "Echo: both ways"}
            ]}}),
        ],
    );
    let cancel = CancelToken::new();
    let client =
        McpClient::new(platform.clone(), ServerConfig::new("ev", &everything.url), tracer, Handlers::default());
    client.connect().await.unwrap();
    let servers = [ServerHandle::new(Rc::new(client), "everything")];
    let start_in_page = trace.borrow().len();
    let in_page = Turn::new(&settings, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("Echo both ways"), &in_page, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let start_connector = trace.borrow().len();
    let via_api = Turn {
        connector: vec![ConnectorServer::new("ev", "everything", &format!("{origin}/mcp"))],
        ..Turn::new(&settings, &[], &cancel, 4)
    };
    let out = agent.run(Vec::new(), Message::user_text("Echo both ways"), &via_api, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let trace = trace.borrow();
    let compared = ["ev".to_owned()];
    let page = Figures::of(&trace[start_in_page..start_connector], &compared);
    let api = Figures::of(&trace[start_connector..], &compared);
    assert_eq!((page.calls_by_page, page.calls_by_api, page.claude_requests), (1, 0, 2));
    assert_eq!((api.calls_by_page, api.calls_by_api, api.claude_requests), (0, 1, 1));
    assert!(page.server_requests >= 2, "tools/list and tools/call: {}", page.server_requests);
    assert_eq!((api.server_requests, api.server_bytes), (0, 0), "the page sent the server nothing");
    assert!(page.server_bytes > 100);
    assert!(page.input_tokens.unwrap() > 0 && api.input_tokens.unwrap() > 0);
    assert!(page.output_tokens.is_some() && api.elapsed_ms > 0.0);
    let rows = side_by_side(&page, &api);
    let row = |what: &str| rows.iter().find(|r| r.what == what).cloned().unwrap();
    assert_eq!(row("tools/call this page sent to them").in_page, "1");
    assert_eq!(row("calls the API made (mcp_tool_use)").connector, "1");
    assert_eq!(row("bytes between the page and them").connector, "0 B");
}

/// With no key and no server: the demo model plays the API's connector for the demo server, so
/// a workshop sees the same comparison offline. The page's loop calls the demo server; the
/// demo's connector calls it from the demo model's own code, and the page's MCP client sends
/// it nothing.
#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_plays_the_connector_with_the_demo_server() {
    use engine::demo::DEMO_SERVER_URL;
    let support::DemoWorkshop { agent, servers, settings, trace } = support::demo_workshop().await;
    let cancel = CancelToken::new();
    let question = || Message::user_text("Search the notes for \"jsonrpc\"");

    let start_in_page = trace.borrow().len();
    let in_page = agent.run(Vec::new(), question(), &Turn::new(&settings, &servers, &cancel, 4), Rc::new(|_| {})).await;
    assert_eq!(in_page.end, TurnEnd::EndTurn, "{}", in_page.end.explain());
    let start_connector = trace.borrow().len();
    let via_api = Turn {
        connector: vec![ConnectorServer::new("demo", "demo", DEMO_SERVER_URL)],
        ..Turn::new(&settings, &[], &cancel, 4)
    };
    let out = agent.run(Vec::new(), question(), &via_api, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let answer = serde_json::to_value(out.history.last().unwrap()).unwrap();
    let kinds: Vec<&str> = answer["content"].as_array().unwrap().iter().filter_map(|b| b["type"].as_str()).collect();
    assert_eq!(kinds, ["thinking", "mcp_tool_use", "mcp_tool_result", "text"], "the demo thinks by default");
    assert_eq!(answer["content"][1]["server_name"], "demo");
    assert_eq!(answer["content"][1]["input"], json!({"query": "jsonrpc"}), "the arguments as streamed");
    assert!(answer["content"][2]["content"].to_string().contains("strict contract"), "the demo server's own result");
    assert!(answer["content"][3]["text"].as_str().unwrap().contains("strict contract"), "answered from it");

    let trace = trace.borrow();
    let compared = ["demo".to_owned()];
    let page = Figures::of(&trace[start_in_page..start_connector], &compared);
    let api = Figures::of(&trace[start_connector..], &compared);
    assert_eq!((page.calls_by_page, page.calls_by_api, page.claude_requests), (1, 0, 2));
    assert_eq!((api.calls_by_page, api.calls_by_api, api.claude_requests), (0, 1, 1));
    assert!(page.server_requests >= 1, "the page's tools/call");
    assert_eq!((api.server_requests, api.server_bytes), (0, 0), "the page sent the demo server nothing");
}
