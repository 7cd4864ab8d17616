//! `tool_choice` through the loop against the fake Messages API: a lesson step's choice goes
//! with the turn's first request only (a forced call is not forced again after its result), and
//! the demo model answers a forced choice with the call first and no text.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::demo::{Reply, stream_events};
use protocol::claude::{Message, ToolChoice};
use serde_json::{Value, json};
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;

#[tokio::test(flavor = "current_thread")]
async fn an_opening_choice_forces_the_first_request_only() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, _) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-opening-choice";
    // A model that takes a forced choice (the newest refuse one: checked the same way for the
    // opening choice as for the settings', and asserted below).
    let settings = ClaudeSettings {
        base_url: fake.base_url(),
        api_key: key.into(),
        model: "claude-opus-4-6".into(),
        ..ClaudeSettings::default()
    };
    fake.script(
        key,
        vec![
            json!({"reply": {"content": [{"tool_use": {"name": "calculate", "input": {"expression": "17 * 23"}}}]}}),
            json!({"summarize": {}}),
        ],
    );
    let cancel = CancelToken::new();
    let choice = ToolChoice::Tool { name: "calculate".into(), disable_parallel_tool_use: false };
    let turn = Turn { opening_choice: Some(choice), ..Turn::new(&settings, &[], &cancel, 4) };
    let out = agent.run(Vec::new(), Message::user_text("17 * 23?"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let sent = fake.requests(key);
    assert_eq!(sent[0].json()["tool_choice"], json!({"type": "tool", "name": "calculate"}));
    assert_eq!(sent[1].json().get("tool_choice"), None, "the settings' (auto) afterwards");

    // A named tool the request does not offer is stopped before sending, as from the settings.
    let missing = ToolChoice::Tool { name: "nope".into(), disable_parallel_tool_use: false };
    let turn = Turn { opening_choice: Some(missing), ..Turn::new(&settings, &[], &cancel, 4) };
    let out = agent.run(Vec::new(), Message::user_text("17 * 23?"), &turn, Rc::new(|_| {})).await;
    assert!(out.end.explain().contains("\"nope\""), "{}", out.end.explain());
    // On a model that refuses a forced choice, the rule is named before sending.
    let newest = ClaudeSettings { model: "claude-sonnet-5-5".into(), ..settings.clone() };
    let choice = ToolChoice::Any { disable_parallel_tool_use: false };
    let turn = Turn { opening_choice: Some(choice), ..Turn::new(&newest, &[], &cancel, 4) };
    let out = agent.run(Vec::new(), Message::user_text("17 * 23?"), &turn, Rc::new(|_| {})).await;
    assert!(out.end.explain().contains("refuses tool_choice \"any\""), "{}", out.end.explain());
    assert_eq!(fake.requests(key).len(), 2, "neither reached the API");
}

#[test]
fn a_forced_demo_answer_starts_with_the_call() {
    let reply = Reply { calls: vec![("calculate".into(), json!({}))], stop_reason: "tool_use", ..Reply::default() };
    let starts: Vec<Value> = stream_events(&reply, "demo-model", 1, 10)
        .iter()
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")).and_then(|d| serde_json::from_str(d).ok()))
        .filter(|v: &Value| v["type"] == "content_block_start")
        .collect();
    assert_eq!(starts.len(), 1, "no text block: {starts:?}");
    assert_eq!((starts[0]["index"].clone(), starts[0]["content_block"]["type"].clone()), (json!(0), json!("tool_use")));
}
