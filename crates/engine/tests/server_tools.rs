//! Tools the API runs itself, through the whole loop against the strict fake Messages API: the
//! entry in `tools`, the call and its result on the API's own lane, both sent back as they came,
//! and `pause_turn` continued with no new user message.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::claude::server_tools::ServerTool;
use engine::timeline::{Lane, RowKind, Timeline};
use engine::trace::TraceKind;
use protocol::claude::Message;
use serde_json::json;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;

#[tokio::test(flavor = "current_thread")]
async fn a_web_search_runs_on_the_apis_side_and_a_paused_turn_goes_on() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-server-tools";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        server_tools: vec![ServerTool::WebSearch],
        ..ClaudeSettings::default()
    };
    let result = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
        {"type": "web_search_result", "url": "https://modelcontextprotocol.io", "title": "MCP", "encrypted_content": "Eo8B", "page_age": null}
    ]});
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [
                {"server_tool_use": {"id": "srvtoolu_1", "name": "web_search", "input": {"query": "MCP spec"}}},
                {"server_tool_result": result},
                {"text": "Searching further…"}
            ], "stop_reason": "pause_turn"}}),
            json!({"reply": {"content": [{"text": "MCP is specified at modelcontextprotocol.io."}]}}),
        ],
    );
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &[], &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("Where is MCP specified?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let sent = fake.requests(key);
    assert_eq!(sent.len(), 2, "pause_turn was continued once");
    let first = sent[0].json();
    let entry = first["tools"].as_array().unwrap().iter().find(|t| t["name"] == "web_search").cloned();
    assert_eq!(entry, Some(json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})));
    // Continued with Claude's paused message last, unchanged, and no new user message.
    let second = sent[1].json();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "MCP spec"}})
    );
    assert_eq!(messages[1]["content"][1], result);
    assert_eq!(second["tools"], first["tools"], "the same tools on resume");

    // The timeline: the call and its result on the API's own lane, the pause explained.
    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    assert!(timeline.lanes().contains(&Lane::ApiTools));
    let row = |label: &str| timeline.rows().iter().find(|r| r.label == label).cloned();
    let call = row("server_tool_use web_search").expect("the call's row");
    assert_eq!(call.kind, RowKind::Arrow { from: Lane::Claude, to: Lane::ApiTools });
    assert_eq!(call.detail, r#"{"query":"MCP spec"}"#);
    let back = row("web_search_tool_result").expect("the result's row");
    assert_eq!(
        (back.kind, back.detail.as_str()),
        (RowKind::Arrow { from: Lane::ApiTools, to: Lane::Claude }, "1 item")
    );
    assert!(
        trace.borrow().iter().any(|e| matches!(&e.kind, TraceKind::Note { text } if text.starts_with("pause_turn:")))
    );
    // Nothing was routed by the page.
    assert!(!trace.borrow().iter().any(|e| matches!(e.kind, TraceKind::Route { .. })));
}

#[tokio::test(flavor = "current_thread")]
async fn an_unknown_block_is_kept_shown_and_sent_back() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-unknown-block";
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    let novel = json!({"type": "hologram", "frames": [1, 2]});
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [{"server_tool_result": novel}, {"tool_use": {"name": "calculate", "input": {"expression": "2+2"}}}]}}),
            json!({"summarize": {}}),
        ],
    );
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &[], &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("2+2?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    assert_eq!(fake.requests(key)[1].json()["messages"][1]["content"][0], novel, "sent back as it came");
    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    let row = timeline.rows().iter().find(|r| r.label == "unknown block hologram").expect("shown");
    assert_eq!(row.kind, RowKind::Note { lane: Lane::Claude });
}

#[tokio::test(flavor = "current_thread")]
async fn tool_search_defers_the_servers_tools_and_a_found_tool_is_routed_as_usual() {
    use engine::demo::{DEMO_SERVER_URL, Demo};
    use engine::mcp::{Handlers, McpClient, ServerConfig};
    let fake = FakeClaude::start(0).await;
    let platform = Rc::new(Demo::new(Native::new()));
    let (tracer, trace) = recording_tracer(&Native::new());
    let agent = Agent::new(platform.clone(), tracer.clone());
    let client = McpClient::new(platform, ServerConfig::new("demo", DEMO_SERVER_URL), tracer, Handlers::default());
    client.connect().await.unwrap();
    let servers = [engine::agent::ServerHandle::new(Rc::new(client), "demo")];
    let key = "sk-tool-search";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        server_tools: vec![ServerTool::ToolSearch],
        ..ClaudeSettings::default()
    };
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [
                {"server_tool_use": {"id": "srvtoolu_s", "name": "tool_search_tool_regex", "input": {"pattern": "notes"}}},
                {"server_tool_result": {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_s", "content": {
                    "type": "tool_search_tool_search_result",
                    "tool_references": [{"type": "tool_reference", "tool_name": "demo_search_notes"}]}}},
                {"tool_use": {"name": "demo_search_notes", "input": {"query": "jsonrpc"}}}
            ]}}),
            json!({"summarize": {}}),
        ],
    );
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 4);
    let out =
        agent.run(Vec::new(), Message::user_text("What do the notes say about jsonrpc?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let first = fake.requests(key)[0].json();
    let tools = first["tools"].as_array().unwrap();
    let deferred: Vec<&str> =
        tools.iter().filter(|t| t["defer_loading"] == true).filter_map(|t| t["name"].as_str()).collect();
    assert!(deferred.contains(&"demo_search_notes") && deferred.iter().all(|n| n.starts_with("demo_")), "{deferred:?}");
    assert!(
        tools.iter().any(|t| t["name"] == "calculate" && t.get("defer_loading").is_none()),
        "local functions stay loaded"
    );
    assert!(tools.iter().any(|t| t["type"] == "tool_search_tool_regex_20251119"));
    // The found tool was routed to the server as any call is.
    let results = fake.requests(key)[1].json()["messages"][2].clone();
    assert_eq!(results["content"][0]["type"], "tool_result");
    assert!(results.to_string().contains("strict contract"), "{results}");
    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    let found = timeline.rows().iter().find(|r| r.label == "tool_search_tool_result").expect("the search's result");
    assert_eq!(found.detail, "found demo_search_notes");
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_made_by_code_is_routed_drawn_from_the_apis_lane_and_answered_in_its_container() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-programmatic";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        server_tools: vec![ServerTool::CodeExecution, ServerTool::CodeCallsTools],
        ..ClaudeSettings::default()
    };
    let code = "r = await calculate({'expression': '6 * 7'})\nprint(r)";
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [
                {"server_tool_use": {"id": "srvtoolu_code", "name": "code_execution", "input": {"code": code}}},
                {"tool_use": {"name": "calculate", "input": {"expression": "6 * 7"}, "caller": "srvtoolu_code"}}
            ], "container": "container_e2e"}}),
            json!({"reply": {"content": [
                {"server_tool_result": {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_code",
                    "content": {"type": "code_execution_result", "stdout": "6 * 7 = 42\n", "stderr": "", "return_code": 0}}},
                {"text": "42."}
            ]}}),
        ],
    );
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &[], &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("6 * 7, by code?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let sent = fake.requests(key);
    let first = sent[0].json();
    let tools = first["tools"].as_array().unwrap();
    let calculate = tools.iter().find(|t| t["name"] == "calculate").unwrap();
    assert_eq!(calculate["allowed_callers"], json!(["direct", "code_execution_20260120"]));
    let code_entries: Vec<&serde_json::Value> = tools.iter().filter(|t| t["name"] == "code_execution").collect();
    assert_eq!(code_entries.len(), 1, "one code execution entry, the programmatic one");
    assert_eq!(code_entries[0]["type"], "code_execution_20260120");
    assert!(first.get("container").is_none());
    // The result goes back in the container the call waits in.
    let second = sent[1].json();
    assert_eq!(second["container"], "container_e2e");
    assert_eq!(second["messages"][2]["content"][0]["content"], json!("6 * 7 = 42"));

    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    let call =
        timeline.rows().iter().find(|r| r.label == "tool_use calculate (from code)").expect("the call from code");
    assert_eq!(call.kind, RowKind::Arrow { from: Lane::ApiTools, to: Lane::Client });

    // Without parallel tool use the API refuses programmatic calling: named before sending.
    let serial = ClaudeSettings { parallel_tool_use: false, ..settings };
    let out =
        agent.run(Vec::new(), Message::user_text("again"), &Turn::new(&serial, &[], &cancel, 4), Rc::new(|_| {})).await;
    assert!(matches!(out.end, TurnEnd::Failed(engine::claude::ClaudeError::ServerTools(_))), "{:?}", out.end);
    assert_eq!(fake.requests(key).len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_runs_a_web_search_on_its_own_side_with_no_key() {
    use engine::demo::Demo;
    use engine::settings::UserSettings;
    let platform = Rc::new(Demo::new(Native::new()));
    let (tracer, trace) = recording_tracer(&Native::new());
    let agent = Agent::new(platform, tracer);
    // Of the server tools, only web search runs with the demo model.
    let user = UserSettings {
        demo: true,
        server_tools: vec![ServerTool::WebSearch, ServerTool::CodeExecution],
        ..UserSettings::default()
    };
    let settings = user.claude("");
    assert_eq!(settings.server_tools, [ServerTool::WebSearch]);
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &[], &cancel, 4);
    let first = agent
        .run(Vec::new(), Message::user_text("Search the web for the MCP specification"), &turn, Rc::new(|_| {}))
        .await;
    assert_eq!(first.end, TurnEnd::EndTurn, "{}", first.end.explain());
    assert_eq!(first.iterations, 1, "the search ran inside the answer: no round of the page's");
    let answer = serde_json::to_value(&first.history[1]).unwrap();
    let kinds: Vec<&str> = answer["content"].as_array().unwrap().iter().filter_map(|b| b["type"].as_str()).collect();
    assert_eq!(kinds, ["thinking", "server_tool_use", "web_search_tool_result", "text"]);
    assert_eq!(answer["content"][1]["input"], json!({"query": "Search the web for the MCP specification"}));
    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    let call = timeline.rows().iter().find(|r| r.label == "server_tool_use web_search").expect("drawn");
    assert_eq!(call.kind, RowKind::Arrow { from: Lane::Claude, to: Lane::ApiTools });
    assert!(trace.borrow().iter().all(|e| !matches!(e.kind, TraceKind::Route { .. })), "the page routed nothing");
    // The blocks go back as they came, and the demo takes them.
    let second = agent.run(first.history, Message::user_text("thanks"), &turn, Rc::new(|_| {})).await;
    assert_eq!(second.end, TurnEnd::EndTurn, "{}", second.end.explain());
}
