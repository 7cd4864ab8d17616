//! The timeline projection, from a recorded trace of a real turn: four tool calls that each
//! fail at a different layer (HTTP 500, JSON-RPC error, the tool's isError, no HTTP answer) plus
//! one that works, all in one turn. Each must show on its own row with the right badge, and each
//! call's story must name every layer it crossed and what Claude received.
//!
//! The trace is a fixture (`tests/fixtures/every-layer.trace.json`), so these tests need no
//! server. `recorded_trace_is_what_the_engine_produces_today` runs the same turn against real
//! servers and checks the fixture still matches it; `LOOPSCOPE_RECORD=1` writes it anew.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Breakpoint, Pauser, Resume, ServerHandle, Stop, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::mcp::{Handlers, McpClient, ServerConfig};
use engine::timeline::{BadgeKind, Lane, RowKind, Timeline, tool_story};
use engine::trace::TraceEvent;
use futures::future::LocalBoxFuture;
use protocol::claude::Message;
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;
use testkit::mcp_faults::Faults;
use testkit::real::{self, PyMode};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/every-layer.trace.json");

fn recorded() -> Vec<TraceEvent> {
    let text = std::fs::read_to_string(FIXTURE).expect("the recorded trace (LOOPSCOPE_RECORD=1 writes it)");
    serde_json::from_str(&text).expect("the recorded trace reads as trace events")
}

fn project(events: &[TraceEvent]) -> Timeline {
    let mut timeline = Timeline::new();
    for e in events {
        timeline.push(e);
    }
    timeline
}

/// What a timeline shows, independent of timings and of the order concurrent calls took:
/// every row's label and badges, sorted.
fn shape(timeline: &Timeline) -> Vec<String> {
    let mut rows: Vec<String> = timeline
        .rows()
        .iter()
        .map(|r| {
            let badges: Vec<&str> = r.badges.iter().map(|b| b.text.as_str()).collect();
            format!("{} [{}]", r.label, badges.join(", "))
        })
        .collect();
    rows.sort();
    rows
}

/// Kills a server the first time the loop is about to route a call.
struct KillAtRoute(RefCell<Option<real::RealServer>>);

impl Pauser for KillAtRoute {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        if at == Breakpoint::Route
            && let Some(mut server) = self.0.borrow_mut().take()
        {
            server.kill();
        }
        false
    }

    fn pause(&self, _: Stop) -> LocalBoxFuture<'static, Resume> {
        unreachable!("breaks_at never stops")
    }
}

/// Runs the turn against real servers (the fake Messages API, our fault fixtures, the Python SDK
/// server, one that dies before phase 3) and returns its trace.
async fn run_the_turn() -> Vec<TraceEvent> {
    let fake = FakeClaude::start(0).await;
    let fx = Faults::start(0).await;
    let python = real::python(PyMode::Json);
    let doomed = real::python(PyMode::Json);
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let connect = |id: &str, url: String| {
        let c = McpClient::new(platform.clone(), ServerConfig::new(id, url), tracer.clone(), Handlers::default());
        async move {
            c.connect().await.unwrap();
            c
        }
    };
    let servers = [
        ServerHandle::new(Rc::new(connect("h500", fx.url("http-500")).await), "h500"),
        ServerHandle::new(Rc::new(connect("rpc", fx.url("rpc-error")).await), "rpc"),
        ServerHandle::new(Rc::new(connect("notes", python.url.clone()).await), "notes"),
        ServerHandle::new(Rc::new(connect("doomed", doomed.url.clone()).await), "doomed"),
    ];
    let agent = Agent::new(platform.clone(), tracer.clone());
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: "sk-timeline".into(), ..Default::default() };
    // Phase 1 happens with every server up; the doomed one dies before phase 3.
    fake.script(
        "sk-timeline",
        vec![
            json!({"reply": {"content": [
            {"tool_use": {"id": "toolu_http", "name": "h500_echo", "input": {"text": "a"}}},
            {"tool_use": {"id": "toolu_rpc", "name": "rpc_echo", "input": {"text": "b"}}},
            {"tool_use": {"id": "toolu_tool", "name": "notes_always_fails", "input": {}}},
            {"tool_use": {"id": "toolu_net", "name": "doomed_add", "input": {"a": 1, "b": 1}}},
            {"tool_use": {"id": "toolu_ok", "name": "calculate", "input": {"expression": "1+1"}}}
        ], "event_delay_ms": 0}}),
            json!({"summarize": {}}),
        ],
    );
    let cancel = CancelToken::new();
    // The doomed server dies as phase 3 begins, after phase 1 listed its tools: the loop asks
    // whether to stop before its first routing decision, and that question kills it (no stop, so
    // nothing of it is traced). Deterministic, however loaded the machine is.
    let killer: Rc<dyn Pauser> = Rc::new(KillAtRoute(RefCell::new(Some(doomed))));
    let turn = Turn { pause: Some(killer), ..Turn::new(&settings, &servers, &cancel, 4) };
    let out = agent.run(Vec::new(), Message::user_text("try everything"), &turn, Rc::new(|_| {})).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    trace.borrow().clone()
}

#[tokio::test(flavor = "current_thread")]
async fn recorded_trace_is_what_the_engine_produces_today() {
    let live = run_the_turn().await;
    if std::env::var_os("LOOPSCOPE_RECORD").is_some() {
        std::fs::write(FIXTURE, serde_json::to_string_pretty(&live).unwrap() + "\n").unwrap();
    }
    assert_eq!(
        shape(&project(&recorded())),
        shape(&project(&live)),
        "the engine's trace changed: rerun with LOOPSCOPE_RECORD=1 to record it anew, and review the diff"
    );
}

#[test]
fn every_error_layer_gets_its_own_badge_and_story() {
    let events = recorded();
    let timeline = project(&events);

    let rows = timeline.rows();
    let bands: Vec<u8> = rows
        .iter()
        .filter_map(|r| match r.kind {
            RowKind::Band { phase, .. } => Some(phase),
            _ => None,
        })
        .collect();
    assert_eq!(bands, [1, 2, 3, 4, 2]);
    for lane in [Lane::Server("h500".into()), Lane::Server("rpc".into()), Lane::Server("notes".into())] {
        assert!(timeline.lanes().contains(&lane), "{lane:?}");
    }
    let has = |kind: BadgeKind, text: &str| {
        rows.iter().any(|r| r.badges.iter().any(|b| b.kind == kind && b.text.contains(text)))
    };
    assert!(has(BadgeKind::Http, "HTTP 500"));
    assert!(has(BadgeKind::JsonRpc, "-32602 Invalid params"));
    assert!(has(BadgeKind::ToolError, "isError"));
    assert!(has(BadgeKind::Network, "network"));
    // The phase 4 arrows go from the client to Claude, one per call, is_error on the four failures.
    let results: Vec<_> = rows.iter().filter(|r| r.label.starts_with("tool_result")).collect();
    assert_eq!(results.len(), 5);
    assert_eq!(results.iter().filter(|r| r.badges.iter().any(|b| b.text == "is_error")).count(), 4);
    assert!(results.iter().all(|r| r.kind == RowKind::Arrow { from: Lane::Client, to: Lane::Claude }));
    assert!(results.iter().all(|r| r.phase.map(|p| p.0) == Some(4)));

    let layers = |id: &str| -> Vec<(&'static str, bool)> {
        tool_story(id, &events).unwrap().steps.iter().map(|s| (s.layer.label(), s.ok)).collect()
    };
    assert_eq!(
        layers("toolu_http"),
        [("tool_use", true), ("route", true), ("HTTP", false), ("JSON-RPC", false), ("Claude received", false)]
    );
    assert_eq!(
        layers("toolu_rpc"),
        [("tool_use", true), ("route", true), ("HTTP", true), ("JSON-RPC", false), ("Claude received", false)]
    );
    assert_eq!(
        layers("toolu_tool"),
        [
            ("tool_use", true),
            ("route", true),
            ("HTTP", true),
            ("JSON-RPC", true),
            ("tool", false),
            ("Claude received", false)
        ]
    );
    assert_eq!(
        layers("toolu_net"),
        [("tool_use", true), ("route", true), ("HTTP", false), ("JSON-RPC", false), ("Claude received", false)]
    );
    assert_eq!(
        layers("toolu_ok"),
        [("tool_use", true), ("route", true), ("local function", true), ("Claude received", true)]
    );
    let rpc_story = tool_story("toolu_rpc", &events).unwrap();
    assert!(rpc_story.steps[3].text.contains("-32602 Invalid params"));
    assert_eq!(rpc_story.rpc.len(), 2, "the JSON-RPC request and its error");
}

#[test]
fn the_loop_and_an_app_stopped_at_once_each_resume_on_their_own_row() {
    use engine::trace::{Peer, ResumeHow, TraceKind};
    let event = |seq: u64, peer: Peer, kind: TraceKind| TraceEvent { seq, at_ms: seq as f64, peer, kind };
    let app = Peer::App("chart_words · demo #1".into());
    let paused = |at, title: &str| TraceKind::Paused { at, iteration: 1, title: title.into(), payload: json!({}) };
    let resumed = |at, how| TraceKind::Resumed { at, how, edited: None };
    let timeline = project(&[
        event(0, Peer::Client, paused(Breakpoint::Route, "route read_note")),
        event(1, app.clone(), paused(Breakpoint::AppMessage, "tools/call from App: chart_words · demo #1")),
        event(2, app, resumed(Breakpoint::AppMessage, ResumeHow::Skipped)),
        event(3, Peer::Client, resumed(Breakpoint::Route, ResumeHow::Continued)),
    ]);
    let rows: Vec<(&str, Vec<&str>)> = timeline
        .rows()
        .iter()
        .map(|r| (r.label.as_str(), r.badges.iter().map(|b| b.text.as_str()).collect()))
        .collect();
    assert_eq!(
        rows,
        [
            ("paused at phase 3", vec!["breakpoint", ResumeHow::Continued.word()]),
            ("paused on an app's message", vec!["breakpoint", ResumeHow::Skipped.word()]),
        ]
    );
}

/// Issue 41: a 2025 server's "no" to the 2026-07-28 probe is the expected way to its handshake,
/// not a red error on the first row of every connection.
#[tokio::test(flavor = "current_thread")]
async fn the_probe_a_2025_server_refuses_is_not_a_failure() {
    let server = real::python(PyMode::Sse);
    let platform = Native::new();
    let (tracer, events) = recording_tracer(&platform);
    let client = McpClient::new(platform, ServerConfig::new("notes", &server.url), tracer, Handlers::default());
    client.connect().await.expect("the 2025 handshake after the probe");
    let timeline = project(&events.borrow());
    let failed: Vec<String> = timeline.rows().iter().filter(|r| r.failed).map(|r| r.label.clone()).collect();
    assert!(failed.is_empty(), "no failed row: {failed:?}");
    let probe = timeline.rows().iter().find(|r| r.label.starts_with("server/discover")).expect("the probe's row");
    assert!(probe.badges.iter().all(|b| b.kind == BadgeKind::Info), "{:?}", probe.badges);
    assert!(probe.badges.iter().any(|b| b.text.ends_with("not 2026-07-28")), "{:?}", probe.badges);
}
