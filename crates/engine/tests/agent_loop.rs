//! The agent loop end to end, natively: the strict fake Messages API (testkit::fake_claude),
//! real MCP servers and fault fixtures, all on 127.0.0.1. Item ids from conformance.md (A-xx,
//! C-xx) are in the test names.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, AgentEvent, AskWhy, Consent, Driver, ServerHandle, Turn, TurnEnd, TurnOutcome, approval};
use engine::cancel::CancelToken;
use engine::claude::{ClaudeError, ClaudeSettings};
use engine::layer::Layer;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::trace::{Peer, RouteTarget, TraceEvent, TraceKind};
use protocol::claude::{Message, Role, ToolResult};
use protocol::jsonrpc::Message as RpcMessage;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::mcp_faults::Faults;
use testkit::real::{self, PyMode};

struct Harness {
    fake: FakeClaude,
    platform: Rc<Native>,
    agent: Agent<Native>,
    trace: Rc<RefCell<Vec<TraceEvent>>>,
    events: Rc<RefCell<Vec<AgentEvent>>>,
    settings: ClaudeSettings,
    key: String,
}

impl Harness {
    async fn new(key: &str) -> Self {
        let fake = FakeClaude::start(0).await;
        let platform = Native::new();
        let (tracer, trace) = recording_tracer(&platform);
        let agent = Agent::new(platform.clone(), tracer);
        let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
        Harness { fake, platform, agent, trace, events: Rc::default(), settings, key: key.into() }
    }

    fn script(&self, steps: Vec<Value>) {
        self.fake.script(&self.key, steps);
    }

    async fn server(&self, id: &str, url: &str, label: &str) -> ServerHandle<Native> {
        let (tracer, _) = (self.agent_tracer(), ());
        let client = McpClient::new(self.platform.clone(), ServerConfig::new(id, url), tracer, Handlers::default());
        client.connect().await.unwrap();
        ServerHandle::new(Rc::new(client), label)
    }

    /// The agent's tracer is private; servers share the recording by a second tracer feeding the
    /// same vector.
    fn agent_tracer(&self) -> engine::trace::Tracer {
        let sink = self.trace.clone();
        let clock = self.platform.clone();
        engine::trace::Tracer::new(
            move || engine::platform::Platform::now_ms(&*clock),
            move |e| sink.borrow_mut().push(e),
        )
    }

    async fn ask(&self, text: &str, servers: &[ServerHandle<Native>]) -> TurnOutcome {
        self.ask_with(Vec::new(), text, servers, &CancelToken::new(), &self.settings).await
    }

    async fn ask_with(
        &self,
        history: Vec<Message>,
        text: &str,
        servers: &[ServerHandle<Native>],
        cancel: &CancelToken,
        settings: &ClaudeSettings,
    ) -> TurnOutcome {
        let sink = self.events.clone();
        let turn = Turn::new(settings, servers, cancel, 8);
        self.agent.run(history, Message::user_text(text), &turn, Rc::new(move |e| sink.borrow_mut().push(e))).await
    }

    /// The bodies of the Messages requests the fake received.
    fn requests(&self) -> Vec<Value> {
        self.fake.requests(&self.key).iter().map(|r| r.json()).collect()
    }

    /// The badges of each `POST /v1/messages` row on the timeline, in order.
    fn request_badges(&self) -> Vec<Vec<String>> {
        let mut timeline = engine::timeline::Timeline::new();
        for e in self.trace.borrow().iter() {
            timeline.push(e);
        }
        timeline
            .rows()
            .iter()
            .filter(|r| r.label == "POST /v1/messages")
            .map(|r| r.badges.iter().map(|b| b.text.clone()).collect())
            .collect()
    }

    fn phases(&self) -> Vec<u8> {
        self.trace
            .borrow()
            .iter()
            .filter_map(|e| match e.kind {
                TraceKind::Phase { phase, .. } => Some(phase),
                _ => None,
            })
            .collect()
    }
}

fn tool_use(name: &str, input: Value) -> Value {
    json!({"tool_use": {"name": name, "input": input}})
}

fn reply(content: Vec<Value>) -> Value {
    json!({"reply": {"content": content}})
}

/// The tool_results of the user message at `index` of a request's messages.
fn results_in(request: &Value, index: usize) -> Vec<Value> {
    request["messages"][index]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

fn text_of(result: &Value) -> String {
    match &result["content"] {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(|i| i["text"].as_str()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

fn last_text(outcome: &TurnOutcome) -> String {
    outcome.history.last().map(Message::text).unwrap_or_default()
}

#[tokio::test(flavor = "current_thread")]
async fn a_single_local_tool_the_articles_loop() {
    let h = Harness::new("sk-local").await;
    h.script(vec![
        reply(vec![json!({"text": "Let me check."}), tool_use("get_weather", json!({"city": "Tokyo"}))]),
        json!({"summarize": {}}),
    ]);
    let out = h.ask("Check the current weather in Tokyo.", &[]).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    // user → assistant(tool_use) → user(tool_result) → assistant(text), exactly as in the article.
    let roles: Vec<Role> = out.history.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant]);
    let second = &h.requests()[1];
    let results = results_in(second, 2);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["tool_use_id"], second["messages"][1]["content"][1]["id"]);
    assert!(text_of(&results[0]).contains("demo data"), "{results:?}");
    assert!(last_text(&out).contains("Tokyo"));
    assert_eq!(h.phases(), [1, 2, 3, 4, 2]);
    let routed = h.trace.borrow().iter().any(|e| {
        matches!(&e.kind, TraceKind::Route { target: RouteTarget::Local { function }, .. } if function == "get_weather")
    });
    assert!(routed, "phase 3 routed get_weather to the local function");
    // the headers a browser call needs.
    let sent = &h.fake.requests("sk-local")[0];
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("anthropic-dangerous-direct-browser-access"), Some("true"));
    assert!(!format!("{:?}", h.trace.borrow()).contains("sk-local"), "the key never reaches the trace");
}

#[tokio::test(flavor = "current_thread")]
async fn parallel_calls_on_two_real_servers_and_a_local_tool_in_one_turn_a12_a13() {
    let everything = real::everything();
    let python = real::python(PyMode::Sse);
    let h = Harness::new("sk-parallel").await;
    let servers = [h.server("ev", &everything.url, "everything").await, h.server("py", &python.url, "notes").await];
    h.script(vec![
        reply(vec![
            json!({"text": "Three things at once."}),
            tool_use("everything_trigger-long-running-operation", json!({"duration": 0.6, "steps": 2})),
            tool_use("notes_slow_count", json!({"steps": 2, "delay_ms": 300})),
            tool_use("calculate", json!({"expression": "6 * 7"})),
        ]),
        json!({"summarize": {}}),
    ]);
    let out = h.ask("Do three things.", &servers).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    // Phase 1 merged both servers' tools with the local ones, under prefixed names.
    let tools: Vec<String> =
        h.requests()[0]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    for name in ["calculate", "everything_echo", "notes_search_notes"] {
        assert!(tools.contains(&name.to_owned()), "{name} not in {tools:?}");
    }
    // Phase 4: one user message, three results, in tool_use order, before any text.
    let second = &h.requests()[1];
    let uses: Vec<&Value> =
        second["messages"][1]["content"].as_array().unwrap().iter().filter(|b| b["type"] == "tool_use").collect();
    let results = results_in(second, 2);
    assert_eq!(results.len(), 3);
    for (u, r) in uses.iter().zip(&results) {
        assert_eq!(u["id"], r["tool_use_id"]);
        assert!(r.get("is_error").is_none(), "{r}");
    }
    assert!(text_of(&results[0]).contains("completed"));
    assert_eq!(text_of(&results[1]), "counted to 2");
    assert_eq!(text_of(&results[2]), "6 * 7 = 42");

    // The two MCP calls ran concurrently: both requests left before either call completed.
    let trace = h.trace.borrow();
    let last_link = trace.iter().rposition(|e| matches!(e.kind, TraceKind::RpcLink { .. })).unwrap();
    let first_done = trace
        .iter()
        .position(|e| matches!(&e.kind, TraceKind::RpcOutcome { method, .. } if method == "tools/call"))
        .unwrap();
    assert!(last_link < first_done, "calls ran one after the other");
    assert_eq!(uses.len(), 3);
    // Progress from both servers reached the page.
    let progress = h.events.borrow().iter().filter(|e| matches!(e, AgentEvent::ToolProgress { .. })).count();
    assert!(progress >= 4, "{progress} progress events");
}

#[tokio::test(flavor = "current_thread")]
async fn a_hallucinated_tool_is_answered_with_is_error_and_claude_recovers() {
    let h = Harness::new("sk-hallucinate").await;
    h.script(vec![
        reply(vec![tool_use("get_wether", json!({"city": "Oslo"}))]),
        reply(vec![json!({"text": "Sorry, typo."}), tool_use("get_weather", json!({"city": "Oslo"}))]),
        json!({"summarize": {}}),
    ]);
    let out = h.ask("Weather in Oslo?", &[]).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    let reqs = h.requests();
    let first = &results_in(&reqs[1], 2)[0];
    assert_eq!(first["is_error"], true);
    assert!(text_of(first).contains("no tool named \"get_wether\""), "{first}");
    assert!(text_of(first).contains("get_weather"), "the error lists the real tools");
    let second = &results_in(&reqs[2], 4)[0];
    assert!(second.get("is_error").is_none());
    let refused = h
        .trace
        .borrow()
        .iter()
        .any(|e| matches!(&e.kind, TraceKind::Route { target: RouteTarget::Refused { .. }, .. }));
    assert!(refused);
    assert!(
        !h.trace
            .borrow()
            .iter()
            .any(|e| matches!(&e.kind, TraceKind::LocalCall { function, .. } if function == "get_wether"))
    );
}

#[tokio::test(flavor = "current_thread")]
async fn bad_arguments_get_the_servers_error_and_a_corrected_retry_succeeds() {
    let everything = real::everything();
    let h = Harness::new("sk-badargs").await;
    let servers = [h.server("ev", &everything.url, "everything").await];
    h.script(vec![
        reply(vec![tool_use("everything_get-sum", json!({"a": "two", "b": 3}))]),
        reply(vec![tool_use("everything_get-sum", json!({"a": 2, "b": 3}))]),
        json!({"summarize": {}}),
    ]);
    let out = h.ask("What is two plus three?", &servers).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    let reqs = h.requests();
    let bad = &results_in(&reqs[1], 2)[0];
    assert_eq!(bad["is_error"], true, "{bad}");
    let good = &results_in(&reqs[2], 4)[0];
    assert!(good.get("is_error").is_none());
    assert!(text_of(good).contains('5'), "{good}");
    // The failure kept its layer on the way: JSON-RPC error or the tool's own isError.
    let layers: Vec<Layer> = h
        .trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::ToolResult { failure: Some(f), .. } => Some(f.layer),
            _ => None,
        })
        .collect();
    assert_eq!(layers.len(), 1);
    assert!(matches!(layers[0], Layer::JsonRpc | Layer::Tool), "{layers:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_goes_down_mid_loop_becomes_an_is_error_result() {
    let python = Rc::new(RefCell::new(real::python(PyMode::Json)));
    let h = Harness::new("sk-down").await;
    let url = python.borrow().url.clone();
    let servers = [h.server("py", &url, "notes").await];
    h.script(vec![
        reply(vec![tool_use("notes_add", json!({"a": 1, "b": 2}))]),
        reply(vec![tool_use("notes_add", json!({"a": 3, "b": 3}))]),
        json!({"summarize": {}}),
    ]);
    // The server dies as soon as the first call has come back.
    let victim = python.clone();
    let emit = Rc::new(move |e: AgentEvent| {
        if matches!(e, AgentEvent::ToolFinished { .. }) {
            victim.borrow_mut().kill();
        }
    });
    let cancel = CancelToken::new();
    let turn = Turn::new(&h.settings, &servers, &cancel, 8);
    let out = h.agent.run(Vec::new(), Message::user_text("add twice"), &turn, emit).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let reqs = h.requests();
    assert_eq!(text_of(&results_in(&reqs[1], 2)[0]), "3.0");
    let second = &results_in(&reqs[2], 4)[0];
    assert_eq!(second["is_error"], true);
    assert!(text_of(second).contains("could not be reached"), "{second}");
    let layer = h.trace.borrow().iter().rev().find_map(|e| match &e.kind {
        TraceKind::ToolResult { failure: Some(f), .. } => Some(f.layer),
        _ => None,
    });
    assert_eq!(layer, Some(Layer::Network));
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_gone_before_the_turn_leaves_its_tools_out_and_says_why() {
    let mut python = real::python(PyMode::Json);
    let h = Harness::new("sk-gone").await;
    let servers = [h.server("py", &python.url, "notes").await];
    python.kill();
    h.script(vec![reply(vec![json!({"text": "No notes tools today."})])]);
    let out = h.ask("hi", &servers).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    let tools = h.requests()[0]["tools"].as_array().unwrap().len();
    assert_eq!(tools, 3, "only the local tools are offered");
    let excluded = h.trace.borrow().iter().find_map(|e| match &e.kind {
        TraceKind::ToolsAggregated { excluded, .. } => Some(excluded.clone()),
        _ => None,
    });
    assert!(excluded.unwrap().iter().any(|(what, why)| what.contains("notes") && why.contains("network")));
}

#[tokio::test(flavor = "current_thread")]
async fn retryable_errors_are_retried_as_the_sdk_does_a14_a15() {
    let h = Harness::new("sk-retry").await;
    h.script(vec![
        json!({"error": {"status": 429, "type": "rate_limit_error", "message": "Slow down", "headers": {"retry-after": "0.05"}}}),
        json!({"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}),
        reply(vec![json!({"text": "Third time lucky."})]),
    ]);
    let started = std::time::Instant::now();
    let out = h.ask("hi", &[]).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    assert_eq!(h.requests().len(), 3);
    assert!(started.elapsed().as_millis() >= 50, "waited retry-after");
    let retries = h.events.borrow().iter().filter(|e| matches!(e, AgentEvent::Retrying { .. })).count();
    assert_eq!(retries, 2);
    // On the timeline each failed attempt's request says what failed, not just its layer.
    let badges = h.request_badges();
    assert_eq!(badges, vec![vec!["HTTP 429".to_owned()], vec!["HTTP 529".to_owned()], vec![]]);

    for (status, kind) in [(500, "api_error"), (504, "timeout_error"), (409, "conflict_error")] {
        h.script(vec![
            json!({"error": {"status": status, "type": kind, "message": "x"}}),
            reply(vec![json!({"text": "ok"})]),
        ]);
        assert_eq!(h.ask("again", &[]).await.end, TurnEnd::EndTurn, "{status} is retried");
    }
    // At most two retries, then the error with its request id.
    let before = h.requests().len();
    h.script(vec![json!({"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}); 3]);
    let out = h.ask("once more", &[]).await;
    assert_eq!(h.requests().len() - before, 3);
    let TurnEnd::Failed(ClaudeError::Api { status: 529, request_id: Some(id), .. }) = &out.end else {
        panic!("{:?}", out.end)
    };
    assert!(id.starts_with("req_fake_"));
    assert!(out.end.explain().contains(id.as_str()), "the request id is shown");
    // Not retried: 400, 401, and anything the server marks x-should-retry: false.
    for step in [
        json!({"error": {"status": 400, "type": "invalid_request_error", "message": "bad"}}),
        json!({"error": {"status": 401, "type": "authentication_error", "message": "invalid x-api-key"}}),
        json!({"error": {"status": 529, "type": "overloaded_error", "message": "no", "headers": {"x-should-retry": "false"}}}),
    ] {
        let before = h.requests().len();
        h.script(vec![step.clone()]);
        assert!(matches!(h.ask("x", &[]).await.end, TurnEnd::Failed(_)));
        assert_eq!(h.requests().len() - before, 1, "{step}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_stream_error_voids_the_attempt_and_runs_no_partial_tool_use_a10() {
    let h = Harness::new("sk-stream-error").await;
    h.script(vec![
        json!({"stream_error": {"text": "I'll call get_wea", "type": "overloaded_error", "message": "Overloaded"}}),
        reply(vec![json!({"text": "Recovered."})]),
    ]);
    let out = h.ask("hi", &[]).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    assert_eq!(last_text(&out), "Recovered.");
    assert_eq!(h.request_badges(), vec![vec!["stream error".to_owned()], vec![]]);
    assert_eq!(out.history.len(), 2, "nothing of the failed attempt was kept");

    let no_retry = ClaudeSettings { max_retries: 0, ..h.settings.clone() };
    h.script(vec![json!({"stream_error": {"text": "partial", "type": "overloaded_error", "message": "Overloaded"}})]);
    let out = h.ask_with(Vec::new(), "hi", &[], &CancelToken::new(), &no_retry).await;
    let TurnEnd::Failed(e @ ClaudeError::Stream { .. }) = &out.end else { panic!("{:?}", out.end) };
    assert!(e.to_string().contains("overloaded_error"));
    assert_eq!(out.history.len(), 1);
    assert!(!h.trace.borrow().iter().any(|e| matches!(e.kind, TraceKind::Route { .. })));
}

#[tokio::test(flavor = "current_thread")]
async fn max_tokens_during_a_tool_use_runs_nothing_and_says_so_a11() {
    let h = Harness::new("sk-max").await;
    h.script(vec![
        json!({"max_tokens_mid_tool_use": {"text": "Checking", "name": "get_weather", "partial": "{\"city\": \"Tok"}}),
    ]);
    let out = h.ask("Weather in Tokyo?", &[]).await;
    let TurnEnd::MaxTokens { cut_off: Some(call) } = &out.end else { panic!("{:?}", out.end) };
    assert_eq!(call.name, "get_weather");
    assert!(out.end.explain().contains("not executed"));
    assert_eq!(out.history.len(), 1, "the history stays valid: it ends with the user's message");
    assert!(!h.trace.borrow().iter().any(|e| matches!(e.kind, TraceKind::LocalCall { .. })));
}

#[tokio::test(flavor = "current_thread")]
async fn user_abort_during_a_slow_tool_cancels_it_on_the_server_c21() {
    let fx = Faults::start(0).await;
    let h = Harness::new("sk-abort").await;
    let servers = [h.server("slow", &fx.url("slow"), "slow").await];
    h.script(vec![reply(vec![tool_use("slow_echo", json!({"text": "zzz"}))])]);
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let abort = async {
        support::until("the slow tools/call to reach the server", || {
            fx.requests("slow").iter().any(|r| r.rpc_method().as_deref() == Some("tools/call"))
        })
        .await;
        trigger.cancel();
    };
    let (out, ()) = futures::join!(h.ask_with(Vec::new(), "go", &servers, &cancel, &h.settings), abort);
    assert_eq!(out.end, TurnEnd::Aborted);
    let cancelled =
        fx.requests("slow").into_iter().find(|r| r.rpc_method().as_deref() == Some("notifications/cancelled"));
    assert!(cancelled.is_some(), "the server was told");
    // The history stays valid to continue: the call is answered with an is_error result.
    let last = out.history.last().unwrap();
    let result: ToolResult = last.tool_results().next().unwrap();
    assert!(result.is_error);
    assert!(engine::text::content_text(&result.content).contains("stopped"), "{result:?}");
    assert_eq!(h.requests().len(), 1, "nothing more was sent to Claude");
}

#[tokio::test(flavor = "current_thread")]
async fn tools_claude_would_reject_are_repaired_or_left_out_a04_a05() {
    let fx = Faults::start(0).await;
    let h = Harness::new("sk-odd").await;
    let servers = [h.server("odd", &fx.url("odd-tools"), "odd").await];
    h.script(vec![reply(vec![json!({"text": "ok"})])]);
    let out = h.ask("list", &servers).await;
    // The strict fake accepted the request: every name and schema was valid for Claude.
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let names: Vec<String> =
        h.requests()[0]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
    assert!(names.contains(&"odd_search_docs".to_owned()), "{names:?}");
    assert!(names.contains(&"odd_pick".to_owned()) && names.contains(&"odd_untyped".to_owned()));
    assert!(!names.iter().any(|n| n.contains("bracketed")));
    let aggregated = h.trace.borrow().iter().find_map(|e| match &e.kind {
        TraceKind::ToolsAggregated { excluded, tools } => Some((excluded.clone(), tools.clone())),
        _ => None,
    });
    let (excluded, tools) = aggregated.unwrap();
    assert!(excluded.iter().any(|(what, why)| what.contains("bracketed") && why.contains("items[0]")));
    assert!(tools.iter().any(|t| t.name == "odd_pick" && t.notes.iter().any(|n| n.contains("anyOf"))));
}

#[tokio::test(flavor = "current_thread")]
async fn the_history_is_checked_before_sending_a12() {
    let h = Harness::new("sk-history").await;
    let broken: Vec<Message> = serde_json::from_value(json!([
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_x", "name": "calculate", "input": {}}]}
    ]))
    .unwrap();
    let out = h.ask_with(broken, "next", &[], &CancelToken::new(), &h.settings).await;
    let TurnEnd::Failed(ClaudeError::InvalidHistory(why)) = &out.end else { panic!("{:?}", out.end) };
    assert!(why.to_string().contains("toolu_x"), "{why}");
    assert!(h.requests().is_empty(), "nothing was sent");
}

#[tokio::test(flavor = "current_thread")]
async fn the_teaching_switch_shows_the_apis_400_and_keeps_the_history_whole_a12() {
    // The article: "Omitting it will result in an API error (400 Bad Request)."
    let h = Harness::new("sk-teach").await;
    h.script(vec![reply(vec![tool_use("calculate", json!({"expression": "2+2"}))])]);
    let sink = h.events.clone();
    let cancel = CancelToken::new();
    let turn = Turn { teach: Some(engine::agent::Teach::LeaveOutResults), ..Turn::new(&h.settings, &[], &cancel, 4) };
    let out =
        h.agent.run(Vec::new(), Message::user_text("2+2?"), &turn, Rc::new(move |e| sink.borrow_mut().push(e))).await;

    // The strict fake answers as the API does; the turn ends on it, said as an HTTP 400.
    let TurnEnd::Failed(ClaudeError::Api { status: 400, message, .. }) = &out.end else { panic!("{:?}", out.end) };
    assert!(message.contains("`tool_use` ids were found without `tool_result` blocks immediately after"), "{message}");
    let sent = h.requests();
    assert_eq!(sent.len(), 2);
    let last = sent[1]["messages"].as_array().unwrap().last().unwrap().clone();
    assert!(!last.to_string().contains("tool_result"), "the second request left them out: {last}");
    assert!(
        h.trace
            .borrow()
            .iter()
            .any(|e| matches!(&e.kind, TraceKind::Note { text } if text.contains("Teaching switch")))
    );

    // What the turn hands back still owes nothing: the next turn (switch off) goes through.
    assert_eq!(out.history.last().unwrap().tool_results().count(), 1);
    h.script(vec![reply(vec![json!({"text": "4."})])]);
    let next = h.ask_with(out.history, "and now?", &[], &CancelToken::new(), &h.settings).await;
    assert_eq!(next.end, TurnEnd::EndTurn, "{}", next.end.explain());
}

#[tokio::test(flavor = "current_thread")]
async fn refusal_pause_turn_and_thinking_are_handled_a11_a12() {
    let h = Harness::new("sk-stops").await;
    h.script(vec![json!({"reply": {"content": [{"text": "I can't help with that."}], "stop_reason": "refusal", "stop_details": {"category": "cyber"}}})]);
    let out = h.ask("bad idea", &[]).await;
    assert!(matches!(&out.end, TurnEnd::Refusal { details: Some(d) } if d["category"] == "cyber"), "{:?}", out.end);

    h.script(vec![
        json!({"reply": {"content": [{"text": "Working on it…"}], "stop_reason": "pause_turn"}}),
        reply(vec![json!({"text": "Done."})]),
    ]);
    let before = h.requests().len();
    let out = h.ask("long task", &[]).await;
    assert_eq!(out.end, TurnEnd::EndTurn);
    let resumed = &h.requests()[before + 1];
    let msgs = resumed["messages"].as_array().unwrap();
    assert_eq!(msgs.last().unwrap()["role"], "assistant", "pause_turn is sent back unchanged");

    h.script(vec![
        reply(vec![
            json!({"thinking": "The user wants arithmetic."}),
            tool_use("calculate", json!({"expression": "1+1"})),
        ]),
        reply(vec![json!({"text": "2"})]),
    ]);
    let before = h.requests().len();
    h.ask("1+1?", &[]).await;
    let thinking = &h.requests()[before + 1]["messages"][1]["content"][0];
    assert_eq!(thinking["type"], "thinking");
    assert!(thinking["signature"].as_str().unwrap().starts_with("EqFake"), "sent back with its signature");
}

#[tokio::test(flavor = "current_thread")]
async fn a_denied_call_is_an_is_error_result_c31() {
    let h = Harness::new("sk-deny").await;
    h.script(vec![reply(vec![tool_use("calculate", json!({"expression": "2+2"}))]), json!({"summarize": {}})]);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    let turn = Turn {
        settings: &h.settings,
        servers: &[],
        cancel: &CancelToken::new(),
        max_iterations: 4,
        approve: Some(Rc::new(move |t: &protocol::claude::ToolUse, _: &RouteTarget, _: &AskWhy| {
            seen.borrow_mut().push(t.name.clone());
            approval(async { false })
        })),
        consent: Consent::ask_each(),
        teach: None,
        faults: None,
        pause: None,
        binding: None,
        opening_choice: None,
        connector: Vec::new(),
    };
    let out = h.agent.run(Vec::new(), Message::user_text("2+2"), &turn, Rc::new(|_| {})).await;
    assert_eq!(*asked.borrow(), ["calculate"]);
    assert!(last_text(&out).contains("(error)") && last_text(&out).contains("denied"), "{}", last_text(&out));
}

/// A lesson (a stranger) scripts calls to two servers: the one the user agreed to runs, the
/// user's own other server is asked about (server, tool, arguments) and, denied, never called.
#[tokio::test(flavor = "current_thread")]
async fn a_lesson_reaches_only_the_servers_the_user_agreed_to() {
    let fx = Faults::start(0).await;
    let h = Harness::new("sk-lesson").await;
    let servers = [h.server("agreed", &fx.url("ok"), "lesson").await, h.server("own", &fx.url("ok"), "files").await];
    h.script(vec![
        reply(vec![
            tool_use("lesson_echo", json!({"text": "fine"})),
            tool_use("files_echo", json!({"text": "delete everything"})),
        ]),
        json!({"summarize": {}}),
    ]);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    let cancel = CancelToken::new();
    let turn = Turn {
        approve: Some(Rc::new(move |t: &protocol::claude::ToolUse, target: &RouteTarget, why: &AskWhy| {
            seen.borrow_mut().push((t.name.clone(), t.input.clone(), target.describe(), why.reason.clone()));
            approval(async { false })
        })),
        consent: Consent::agreed(vec!["agreed".into()], Driver::Lesson("Hostile".into())),
        ..Turn::new(&h.settings, &servers, &cancel, 4)
    };
    let out = h.agent.run(Vec::new(), Message::user_text("go"), &turn, Rc::new(|_| {})).await;
    let asked = asked.borrow();
    assert_eq!(asked.len(), 1, "only the call outside the agreement is asked about: {asked:?}");
    let (name, input, target, why) = &asked[0];
    assert_eq!((name.as_str(), input), ("files_echo", &json!({"text": "delete everything"})));
    assert!(target.contains("\"files\"") && why.contains("The lesson \"Hostile\""), "{target} / {why}");
    // What reached the servers: the agreed call only.
    let calls: Vec<String> = h
        .trace
        .borrow()
        .iter()
        .filter_map(|e| match (&e.peer, &e.kind) {
            (Peer::Server(id), TraceKind::Rpc { message: RpcMessage::Request { method, .. }, .. })
                if method == "tools/call" =>
            {
                Some(id.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["agreed"]);
    assert!(last_text(&out).contains("denied"), "{}", last_text(&out));
}

#[tokio::test(flavor = "current_thread")]
async fn the_trace_links_tool_use_json_rpc_and_tool_result() {
    let fx = Faults::start(0).await;
    let h = Harness::new("sk-link").await;
    let servers = [h.server("ok", &fx.url("ok"), "fixture").await];
    h.script(vec![reply(vec![tool_use("fixture_echo", json!({"text": "ping"}))]), json!({"summarize": {}})]);
    h.ask("echo ping", &servers).await;
    let trace = h.trace.borrow();
    let tool_use_id = trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::ToolUse { tool_use_id, .. } => Some(tool_use_id.clone()),
            _ => None,
        })
        .unwrap();
    let rpc_id = trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::RpcLink { tool_use_id: t, id } if *t == tool_use_id => Some(id.clone()),
            _ => None,
        })
        .expect("tool_use → JSON-RPC id");
    assert!(trace.iter().any(|e| e.peer == Peer::Server("ok".into())
        && matches!(&e.kind, TraceKind::Rpc { message: RpcMessage::Response { id, .. }, .. } if *id == rpc_id)));
    assert!(trace.iter().any(
        |e| matches!(&e.kind, TraceKind::ToolResult { tool_use_id: t, is_error: false, .. } if *t == tool_use_id)
    ));
    // The same links give the client's overhead per step (what `cargo bench --bench agent` reports).
    let step = engine::timeline::step_overhead(&trace).expect("a complete step");
    assert!(step.to_mcp_ms >= 0.0 && step.to_claude_ms >= 0.0, "{step:?}");
    assert!(step.to_mcp_ms < 1000.0 && step.to_claude_ms < 1000.0, "{step:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_servers_tools_are_priced_with_count_tokens_a16() {
    let python = real::python(PyMode::Json);
    let h = Harness::new("sk-cost").await;
    let server = h.server("py", &python.url, "notes").await;
    let tools = server.client.list_tools(&engine::mcp::RequestOptions::default()).await.unwrap();
    let view = engine::agent::catalog::ServerTools { server_id: "py", label: "notes", list: &tools };
    let cost = h.agent.tool_cost(&h.settings, view).await.unwrap();
    assert!(cost.tokens > 50, "four tools with schemas cost tokens: {cost:?}");
    assert_eq!(cost.deferred, None, "no tool search, nothing deferred");
    let counted = |fake: &testkit::fake_claude::FakeClaude| -> Vec<usize> {
        fake.requests("sk-cost")
            .into_iter()
            .inspect(|r| assert_eq!(r.path, "/v1/messages/count_tokens"))
            .map(|r| r.json()["tools"].as_array().map_or(0, Vec::len))
            .collect()
    };
    assert_eq!(counted(&h.fake), [4, 0]);

    // With a tool search deferring one of them: what stays out of Claude's context, counted
    // with only the other three loaded (count_tokens itself refuses the search tool).
    use engine::claude::server_tools::ServerTool;
    use engine::claude::tool_flags::{PickScope, ToolFlags, ToolPick};
    let mut settings = h.settings.clone();
    settings.server_tools = vec![ServerTool::ToolSearch];
    settings.tool_flags = ToolFlags {
        defer_loading: ToolPick { scope: PickScope::Named, names: "notes_search_notes".into() },
        ..ToolFlags::default()
    };
    let view = engine::agent::catalog::ServerTools { server_id: "py", label: "notes", list: &tools };
    let deferred = h.agent.tool_cost(&settings, view).await.unwrap();
    assert_eq!(deferred.tokens, cost.tokens);
    let (n, tokens) = deferred.deferred.expect("one tool deferred");
    assert_eq!(n, 1);
    assert!(tokens > 0 && tokens < cost.tokens, "{deferred:?}");
    assert_eq!(counted(&h.fake), [4, 0, 4, 0, 3]);
    assert!(deferred.describe(false).contains("1 deferred"), "{}", deferred.describe(false));
}

/// breakpoints on the tools, the system prompt and the conversation's last block, so each
/// request of a turn, and the next turn, reads the prefix the one before wrote. The fake keeps a
/// prompt cache like the API's (1,024-token minimum, block lookback, markers not part of the key).
#[tokio::test(flavor = "current_thread")]
async fn each_request_reads_the_prompt_cache_the_last_one_wrote_a17() {
    let mut h = Harness::new("sk-cache").await;
    h.settings.system = format!("You are a careful assistant. {}", "Use the tools when they help. ".repeat(200));
    h.script(vec![
        reply(vec![tool_use("calculate", json!({"expression": "6 * 7"}))]),
        reply(vec![json!({"text": "42."})]),
        reply(vec![json!({"text": "Still 42."})]),
    ]);
    let first = h.ask("What is 6 * 7?", &[]).await;
    assert_eq!(first.end, TurnEnd::EndTurn);
    let settings = h.settings.clone();
    let second = h.ask_with(first.history.clone(), "And again?", &[], &CancelToken::new(), &settings).await;
    assert_eq!(second.end, TurnEnd::EndTurn);

    let usages: Vec<_> = h
        .events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Assistant { usage, .. } => Some(usage.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 3);
    assert_eq!(usages[0].cache_read_input_tokens, Some(0));
    assert!(usages[0].cache_creation_input_tokens.unwrap() >= 1024, "{:?}", usages[0]);
    for pair in usages.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let wrote = before.cache_read_input_tokens.unwrap() + before.cache_creation_input_tokens.unwrap();
        assert_eq!(after.cache_read_input_tokens, Some(wrote), "reads all the last request cached: {usages:?}");
        assert!(after.cache_creation_input_tokens.unwrap() > 0, "and caches what the conversation added");
    }
    // What was sent carries the markers; the history kept for the next turn does not.
    let sent = h.requests();
    assert_eq!(sent[2]["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(sent[2]["tools"].as_array().unwrap().last().unwrap()["cache_control"]["type"], "ephemeral");
    let last = sent[2]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"].as_array().unwrap().last().unwrap()["cache_control"]["type"], "ephemeral");
    assert_eq!(sent[2]["messages"].to_string().matches("cache_control").count(), 1);
    assert!(!serde_json::to_string(&second.history).unwrap().contains("cache_control"));
}
