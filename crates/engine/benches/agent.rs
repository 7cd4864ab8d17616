//! Agent loop overhead per step, from trace timestamps, with local fakes on 127.0.0.1:
//!
//!     cargo bench --bench agent
//!
//! For 300 turns of "one MCP tool call, then an answer" against the fake Messages API and the
//! `ok` fault fixture as MCP server, it reports the medians of
//! (a) the last SSE event of the tool_use answer → the `tools/call` POST leaving, and
//! (b) the MCP reply arriving → the next Messages request leaving. Goal: under 1 ms each.

#[cfg(target_arch = "wasm32")]
fn main() {} // benchmarks run natively only

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/support/mod.rs"]
mod support;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use engine::agent::{Agent, ServerHandle, Turn};
    use engine::cancel::CancelToken;
    use engine::claude::ClaudeSettings;
    use engine::mcp::{Handlers, McpClient, ServerConfig};
    use engine::timeline::step_overhead;
    use protocol::claude::Message;
    use serde_json::json;
    use std::rc::Rc;
    use support::{Native, recording_tracer};

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let fake = testkit::fake_claude::FakeClaude::start(0).await;
        let faults = testkit::mcp_faults::Faults::start(0).await;
        let platform = Native::new();
        let (tracer, trace) = recording_tracer(&platform);
        let agent = Agent::new(platform.clone(), tracer.clone());
        let client =
            McpClient::new(platform.clone(), ServerConfig::new("ok", faults.url("ok")), tracer, Handlers::default());
        client.connect().await.unwrap();
        let servers = [ServerHandle::new(Rc::new(client), "fixture")];
        let settings = ClaudeSettings { base_url: fake.base_url(), api_key: "sk-bench".into(), ..Default::default() };
        let (mut to_mcp, mut to_claude) = (Vec::new(), Vec::new());
        for _ in 0..300 {
            fake.script(
                "sk-bench",
                vec![
                    json!({"reply": {"content": [{"tool_use": {"name": "fixture_echo", "input": {"text": "hi"}}}]}}),
                    json!({"reply": {"content": [{"text": "done"}]}}),
                ],
            );
            trace.borrow_mut().clear();
            let cancel = CancelToken::new();
            let turn = Turn::new(&settings, &servers, &cancel, 4);
            agent.run(Vec::new(), Message::user_text("go"), &turn, Rc::new(|_| {})).await;
            let step = step_overhead(&trace.borrow()).expect("one routed MCP call in the trace");
            to_mcp.push(step.to_mcp_ms);
            to_claude.push(step.to_claude_ms);
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            (v[v.len() / 2], v[v.len() * 9 / 10])
        };
        let (a, a90) = median(to_mcp);
        let (b, b90) = median(to_claude);
        println!("last SSE event of the tool_use answer -> tools/call POST sent: median {a:.3} ms (p90 {a90:.3} ms)");
        println!("MCP reply received -> next Messages request sent:          median {b:.3} ms (p90 {b90:.3} ms)");
    });
}
