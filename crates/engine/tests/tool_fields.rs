//! The per-tool fields through the whole loop, against the strict fake Messages API: `strict` on
//! the tools picked (and its schema rules named before sending), eager input streaming seen as
//! the pieces the arguments came in, and `defer_loading` for one server's tools or a few.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, ServerHandle, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::server_tools::ServerTool;
use engine::claude::strict::ToolFieldRule;
use engine::claude::tool_flags::{PickScope, ToolFlags, ToolPick};
use engine::claude::{ClaudeError, ClaudeSettings};
use engine::demo::{DEMO_SERVER_URL, Demo};
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::timeline::Timeline;
use engine::trace::{TraceEvent, TraceKind};
use protocol::claude::Message;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;

fn named(names: &str) -> ToolPick {
    ToolPick { scope: PickScope::Named, names: names.into() }
}

type DemoAgent = (Agent<Demo<Rc<Native>>>, [ServerHandle<Demo<Rc<Native>>>; 1], Rc<RefCell<Vec<TraceEvent>>>);

/// An agent with the demo MCP server connected (its schemas are open: no additionalProperties).
async fn with_demo_server() -> DemoAgent {
    let platform = Rc::new(Demo::new(Native::new()));
    let (tracer, trace) = recording_tracer(&Native::new());
    let agent = Agent::new(platform.clone(), tracer.clone());
    let client = McpClient::new(platform, ServerConfig::new("demo", DEMO_SERVER_URL), tracer, Handlers::default());
    client.connect().await.unwrap();
    (agent, [ServerHandle::new(Rc::new(client), "demo")], trace)
}

#[tokio::test(flavor = "current_thread")]
async fn strict_and_eager_tools_are_sent_as_picked_and_the_arguments_pieces_are_kept() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-strict-eager";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        tool_flags: ToolFlags {
            strict: named("calculate get_*"),
            eager_input_streaming: named("calculate"),
            ..ToolFlags::default()
        },
        ..ClaudeSettings::default()
    };
    let args = json!({"expression": "(17 * 23) + 1"});
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [
                {"tool_use": {"name": "calculate", "input": args}},
                {"tool_use": {"name": "get_weather", "input": {"city": "Tokyo"}}}
            ]}}),
            json!({"summarize": {}}),
        ],
    );
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &[], &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("17*23+1, and Tokyo?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let tools = fake.requests(key)[0].json()["tools"].clone();
    let field = |name: &str, f: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()[f].clone();
    assert_eq!(field("calculate", "strict"), true);
    assert_eq!(field("get_weather", "strict"), true);
    assert_eq!(field("calculate", "eager_input_streaming"), true);
    assert_eq!(field("get_weather", "eager_input_streaming"), Value::Null, "only the tool picked");

    // Eager: the arguments came in many small pieces; buffered: one piece per parameter.
    let uses: Vec<(String, Vec<String>, bool)> = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::ToolUse { name, fragments, eager, .. } => Some((name.clone(), fragments.clone(), *eager)),
            _ => None,
        })
        .collect();
    let (_, calc, eager) = uses.iter().find(|(n, ..)| n == "calculate").unwrap();
    assert!(*eager && calc.len() > 3, "{calc:?}");
    assert_eq!(serde_json::from_str::<Value>(&calc.concat()).unwrap(), args);
    let (_, weather, eager) = uses.iter().find(|(n, ..)| n == "get_weather").unwrap();
    assert!(!eager);
    assert_eq!(weather, &[r#"{"city": "Tokyo""#, "}"]);

    let mut timeline = Timeline::new();
    for e in trace.borrow().iter() {
        timeline.push(e);
    }
    let row = timeline.rows().iter().find(|r| r.label == "tool_use calculate").unwrap();
    assert!(row.badges.iter().any(|b| b.text == format!("eager · {} pieces", calc.len())), "{:?}", row.badges);
    let note = trace.borrow().iter().find_map(|e| match &e.kind {
        TraceKind::Note { text } if text.starts_with("strict: true") => Some(text.clone()),
        _ => None,
    });
    let note = note.expect("phase 1 says which tools are strict");
    assert!(note.contains("strict: true on calculate, get_current_time, get_weather"), "{note}");
    assert!(note.contains("eager_input_streaming: true on calculate ("), "{note}");
}

#[tokio::test(flavor = "current_thread")]
async fn an_open_schema_made_strict_is_named_before_sending_and_the_fake_refuses_it_too() {
    let fake = FakeClaude::start(0).await;
    let (agent, servers, _) = with_demo_server().await;
    let key = "sk-strict-open";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        tool_flags: ToolFlags { strict: named("demo_search_notes"), ..ToolFlags::default() },
        ..ClaudeSettings::default()
    };
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("notes?"), &turn, Rc::new(|_| {})).await;
    let rule = ToolFieldRule::OpenObject { tool: "demo_search_notes".into(), path: "/".into() };
    assert_eq!(out.end, TurnEnd::Failed(ClaudeError::ToolFields(rule)));
    assert!(fake.requests(key).is_empty(), "nothing reached the API");
    let hint = ClaudeError::ToolFields(ToolFieldRule::OpenObject { tool: "t".into(), path: "/".into() }).hint();
    assert!(hint.unwrap().contains("additionalProperties"));

    // A name that matches no tool is refused the same way.
    let typo = ClaudeSettings {
        tool_flags: ToolFlags { strict: named("demo_serch*"), ..ToolFlags::default() },
        ..settings.clone()
    };
    let turn = Turn::new(&typo, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("notes?"), &turn, Rc::new(|_| {})).await;
    let rule = ToolFieldRule::NotOffered { field: "strict", name: "demo_serch*".into() };
    assert_eq!(out.end, TurnEnd::Failed(ClaudeError::ToolFields(rule)));

    // The fake reads the rule independently: the same request sent anyway is its 400.
    let body = json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}],
        "tools": [{"name": "t", "strict": true, "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]});
    let status = reqwest::Client::new()
        .post(format!("{}/v1/messages", fake.base_url()))
        .header("x-api-key", key)
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(status.status(), 400);
    assert!(status.text().await.unwrap().contains("additionalProperties"));
}

#[tokio::test(flavor = "current_thread")]
async fn tool_search_defers_only_the_tools_named_and_never_every_tool() {
    let fake = FakeClaude::start(0).await;
    let (agent, servers, _) = with_demo_server().await;
    let key = "sk-defer-some";
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        server_tools: vec![ServerTool::ToolSearch],
        tool_flags: ToolFlags { defer_loading: named("demo_read_file, demo_count_*"), ..ToolFlags::default() },
        ..ClaudeSettings::default()
    };
    fake.script(key, vec![json!({"reply": {"content": [{"text": "ok"}]}})]);
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("hi"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let tools = fake.requests(key)[0].json()["tools"].clone();
    let mut deferred: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["defer_loading"] == true)
        .filter_map(|t| t["name"].as_str())
        .collect();
    deferred.sort();
    assert_eq!(deferred, ["demo_count_slowly", "demo_read_file"]);

    let all = ClaudeSettings {
        tool_flags: ToolFlags {
            defer_loading: named("calculate get_* demo_* load_skill read_skill_file"),
            ..ToolFlags::default()
        },
        ..settings.clone()
    };
    let turn = Turn::new(&all, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("hi"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::Failed(ClaudeError::ToolFields(ToolFieldRule::AllDeferred)));
    assert_eq!(fake.requests(key).len(), 1, "the second turn sent nothing");
}
