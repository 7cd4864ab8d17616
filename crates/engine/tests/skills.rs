//! Skills (SEP-2640) in the loop, against a skills-offering MCP server on 127.0.0.1 and the fake
//! Messages API: phase 1 offers the page's `load_skill` and `read_skill_file` with every skill's
//! name and description and reads nothing of them; Claude's call loads the skill from its own
//! server, verified; a tampered SKILL.md is refused and Claude is told why, and nothing more of
//! that skill is read.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, ServerHandle, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::trace::TraceKind;
use protocol::claude::Message;
use serde_json::{Value, json};
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::skills_server::{RULES_MD, RULES_URI, SKILL_URI, SkillsServer};

/// The tool_result blocks of the request `n` the fake received.
fn results(fake: &FakeClaude, key: &str, n: usize) -> Vec<Value> {
    let body = fake.requests(key)[n].json();
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    last["content"].as_array().unwrap().iter().filter(|b| b["type"] == "tool_result").cloned().collect()
}

async fn turn_with(
    mode: &str,
    key: &str,
    script: Vec<Value>,
) -> (SkillsServer, FakeClaude, Vec<engine::trace::TraceEvent>, TurnEnd) {
    let server = SkillsServer::start().await;
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform.clone(), tracer.clone());
    let client = McpClient::new(platform, ServerConfig::new("sk", server.url(mode)), tracer, Handlers::default());
    client.connect().await.unwrap();
    assert!(client.offers_skills());
    let servers = [ServerHandle::new(Rc::new(client), "skills")];
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    fake.script(key, script);
    let cancel = CancelToken::new();
    let out = agent
        .run(
            Vec::new(),
            Message::user_text("How do I answer a tool_use?"),
            &Turn::new(&settings, &servers, &cancel, 6),
            Rc::new(|_| {}),
        )
        .await;
    let trace = trace.borrow().clone();
    (server, fake, trace, out.end)
}

#[tokio::test(flavor = "current_thread")]
async fn phase_one_offers_the_skill_by_name_and_a_call_loads_it_verified_from_its_server() {
    let key = "sk-skills";
    let load = json!({"server": "skills", "skill": "tool-results"});
    let read = json!({"server": "skills", "skill": "tool-results", "path": "references/RULES.md"});
    let (server, fake, trace, end) = turn_with(
        "good",
        key,
        vec![
            json!({"reply": {"content": [{"tool_use": {"name": "load_skill", "input": load}}]}}),
            json!({"reply": {"content": [{"tool_use": {"name": "read_skill_file", "input": read}}]}}),
            json!({"reply": {"content": [{"text": "Answer it with a tool_result."}]}}),
        ],
    )
    .await;
    assert_eq!(end, TurnEnd::EndTurn, "{}", end.explain());

    // Phase 1: the page's two functions, the skill named and described, nothing of it read.
    let first = fake.requests(key)[0].json();
    let tools = first["tools"].as_array().unwrap();
    let offered = tools.iter().find(|t| t["name"] == "load_skill").expect("load_skill offered");
    let description = offered["description"].as_str().unwrap();
    assert!(
        description.contains("- tool-results (server \"skills\"): How to answer every tool_use with a tool_result"),
        "{description}"
    );
    assert_eq!(offered["input_schema"]["properties"]["server"]["enum"], json!(["skills"]));
    assert!(tools.iter().any(|t| t["name"] == "read_skill_file"));
    let noted = trace.iter().any(|e| matches!(&e.kind, TraceKind::ToolsAggregated { tools, .. }
        if tools.iter().any(|t| t.name == "load_skill" && t.notes.iter().any(|n| n.contains("tool-results of \"skills\"")))));
    assert!(noted, "phase 1 says which skills are offered, and in what form");

    // The server: listed first, each file read only when Claude asked for it.
    let methods = server.methods();
    let reads: Vec<&String> = methods.iter().filter(|m| m.starts_with("resources/read")).collect();
    assert_eq!(reads, [&format!("resources/read {SKILL_URI}"), &format!("resources/read {RULES_URI}")]);
    let listed = methods.iter().position(|m| m == "skills/list").unwrap();
    assert!(methods.iter().position(|m| m.starts_with("resources/read")).unwrap() > listed);

    // What Claude received: the verified texts, as the results of the page's functions.
    let loaded = &results(&fake, key, 1)[0];
    assert!(loaded.to_string().contains("Every tool_use needs a tool_result"), "{loaded}");
    assert_ne!(loaded["is_error"], true);
    let file = &results(&fake, key, 2)[0];
    assert!(file.to_string().contains(RULES_MD.trim_end()), "{file}");
    assert_ne!(file["is_error"], true);
}

#[tokio::test(flavor = "current_thread")]
async fn a_tampered_skill_is_refused_claude_is_told_why_and_nothing_more_of_it_is_read() {
    let key = "sk-skills-tampered";
    let load = json!({"server": "skills", "skill": "tool-results"});
    let read = json!({"server": "skills", "skill": "tool-results", "path": "../../etc/passwd"});
    let (server, fake, _trace, end) = turn_with(
        "tampered",
        key,
        vec![
            json!({"reply": {"content": [{"tool_use": {"name": "load_skill", "input": load}}]}}),
            json!({"reply": {"content": [{"tool_use": {"name": "read_skill_file", "input": read}}]}}),
            json!({"reply": {"content": [{"text": "The skill could not be used."}]}}),
        ],
    )
    .await;
    assert_eq!(end, TurnEnd::EndTurn, "{}", end.explain());
    let refused = &results(&fake, key, 1)[0];
    assert_eq!(refused["is_error"], true);
    let text = refused.to_string();
    assert!(text.contains("has the digest sha256:") && text.contains("The page did not use it"), "{text}");
    assert!(!text.contains("obey this file"), "not a byte of the tampered text reaches Claude: {text}");
    // A path outside the listing is refused before anything is read.
    let outside = &results(&fake, key, 2)[0];
    assert_eq!(outside["is_error"], true);
    assert!(outside.to_string().contains("is not among the files the skill's entry lists"), "{outside}");
    let reads: Vec<String> = server.methods().into_iter().filter(|m| m.starts_with("resources/read")).collect();
    assert_eq!(reads, [format!("resources/read {SKILL_URI}")]);
}

/// With no key and no server: the demo server offers a skill and the demo model loads it, so a
/// workshop sees a skill offered in phase 1 and read in phase 3.
#[tokio::test(flavor = "current_thread")]
async fn the_demo_model_loads_the_demo_servers_skill() {
    let support::DemoWorkshop { agent, servers, settings, trace } = support::demo_workshop().await;
    let cancel = CancelToken::new();
    let question = Message::user_text("Load the \"tool-results\" skill");
    let out = agent.run(Vec::new(), question, &Turn::new(&settings, &servers, &cancel, 4), Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let trace = trace.borrow();
    let ran = trace.iter().any(|e| {
        matches!(&e.kind, TraceKind::LocalCall { function, output, is_error: false, .. }
        if function == "load_skill" && output.contains("Answer every tool_use block with a tool_result"))
    });
    assert!(ran, "the page's load_skill read the demo server's SKILL.md, verified");
    let answer = serde_json::to_string(out.history.last().unwrap()).unwrap();
    assert!(answer.contains("load_skill said"), "{answer}");
}
