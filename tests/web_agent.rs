//! The agent loop in the browser, over real fetch: the fake Messages API (with its CORS rules:
//! a browser call without the direct-access header would be refused) and server-everything.
//! Also reports the loop's per-step overhead in the browser, from the trace timestamps.
#![cfg(target_arch = "wasm32")]

use engine::agent::{Agent, ServerHandle, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::platform::{Headers, HttpRequest, Method, Platform};
use engine::timeline::step_overhead;
use engine::trace::{TraceEvent, Tracer};
use loopscope::platform::Browser;
use protocol::claude::Message;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! fixture {
    ($var:literal) => {
        option_env!($var)
            .unwrap_or_else(|| panic!(concat!($var, " is not set: run the browser layer with ./scripts/test --from 3")))
    };
}

async fn script(key: &str, steps: Value) {
    let url = format!("{}/_fake/script", fixture!("LOOPSCOPE_CLAUDE_URL"));
    let body = json!({"key": key, "steps": steps}).to_string();
    let req = HttpRequest {
        method: Method::Post,
        url,
        headers: Headers::new().with("content-type", "application/json"),
        body: Some(body),
        redirects: Default::default(),
    };
    let resp = Browser.send(req).await.unwrap();
    assert_eq!(resp.status, 200);
}

fn recording() -> (Tracer, Rc<RefCell<Vec<TraceEvent>>>) {
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    (Tracer::new(|| Browser.now_ms(), move |e| sink.borrow_mut().push(e)), events)
}

#[wasm_bindgen_test]
async fn the_loop_runs_in_the_browser_with_an_mcp_and_a_local_tool() {
    let (tracer, trace) = recording();
    let client = McpClient::new(
        Rc::new(Browser),
        ServerConfig::new("ev", fixture!("LOOPSCOPE_EVERYTHING_URL")),
        tracer.clone(),
        Handlers::default(),
    );
    client.connect().await.unwrap();
    let servers = [ServerHandle::new(Rc::new(client), "everything")];
    let agent = Agent::new(Rc::new(Browser), tracer);
    let settings = ClaudeSettings {
        base_url: fixture!("LOOPSCOPE_CLAUDE_URL").into(),
        api_key: "sk-browser-loop".into(),
        ..Default::default()
    };
    script(
        "sk-browser-loop",
        json!([
            {"reply": {"content": [
                {"tool_use": {"name": "everything_echo", "input": {"message": "hi"}}},
                {"tool_use": {"name": "get_weather", "input": {"city": "Tokyo"}}}
            ]}},
            {"summarize": {}}
        ]),
    )
    .await;
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 4);
    let out = agent.run(Vec::new(), Message::user_text("echo and weather"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let answer = out.history.last().unwrap().text();
    assert!(answer.contains("Echo: hi") && answer.contains("demo data"), "{answer}");
    assert!(!format!("{:?}", trace.borrow()).contains("sk-browser-loop"), "the key never reaches the trace");
}

#[wasm_bindgen_test]
async fn per_step_overhead_in_the_browser() {
    let (tracer, trace) = recording();
    let faults = fixture!("LOOPSCOPE_FAULTS_URL");
    let client = McpClient::new(
        Rc::new(Browser),
        ServerConfig::new("ok", format!("{faults}/ok/mcp")),
        tracer.clone(),
        Handlers::default(),
    );
    client.connect().await.unwrap();
    let servers = [ServerHandle::new(Rc::new(client), "fixture")];
    let agent = Agent::new(Rc::new(Browser), tracer);
    let settings = ClaudeSettings {
        base_url: fixture!("LOOPSCOPE_CLAUDE_URL").into(),
        api_key: "sk-browser-bench".into(),
        ..Default::default()
    };
    let (mut to_mcp, mut to_claude) = (Vec::new(), Vec::new());
    for _ in 0..40 {
        script(
            "sk-browser-bench",
            json!([{"reply": {"content": [{"tool_use": {"name": "fixture_echo", "input": {"text": "x"}}}]}}, {"reply": {"content": [{"text": "done"}]}}]),
        )
        .await;
        trace.borrow_mut().clear();
        let cancel = CancelToken::new();
        let turn = Turn::new(&settings, &servers, &cancel, 4);
        let out = agent.run(Vec::new(), Message::user_text("go"), &turn, Rc::new(|_| {})).await;
        assert_eq!(out.end, TurnEnd::EndTurn);
        let step = step_overhead(&trace.borrow()).expect("one routed MCP call in the trace");
        to_mcp.push(step.to_mcp_ms);
        to_claude.push(step.to_claude_ms);
    }
    to_mcp.sort_by(|a, b| a.partial_cmp(b).unwrap());
    to_claude.sort_by(|a, b| a.partial_cmp(b).unwrap());
    console_log!(
        "browser (debug wasm) per-step overhead over 40 turns: last SSE event -> tools/call POST median {:.2} ms; MCP reply -> next Messages request median {:.2} ms",
        to_mcp[20],
        to_claude[20]
    );
}
