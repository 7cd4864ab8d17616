//! The Models API's list, against the fake Messages API: every page read (bounded), each model's
//! capabilities read, and a request the listed model does not support stopped before sending.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Turn, TurnEnd};
use engine::cancel::CancelToken;
use engine::claude::listed::ListedRule;
use engine::claude::thinking::{Thinking, ThinkingMode};
use engine::claude::tool_flags::{PickScope, ToolFlags, ToolPick};
use engine::claude::{ClaudeError, ClaudeSettings};
use engine::settings::UserSettings;
use engine::trace::TraceKind;
use protocol::claude::Message;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;

#[tokio::test(flavor = "current_thread")]
async fn every_page_is_read_and_the_listed_model_decides_what_a_request_may_ask() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = "sk-models";
    let base = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    let listed = agent.claude().list_models(&base).await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), 6, "{ids:?}");
    assert!(ids.contains(&"claude-next-6") && ids.contains(&"claude-sonnet-5-5"));
    // Two pages: the second asked for after the first page's last id.
    let urls: Vec<String> = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HttpRequest { url, .. } if url.contains("/v1/models") => Some(url.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(urls.len(), 2, "{urls:?}");
    assert!(urls[1].ends_with("&after_id=claude-sonnet-5-5"), "{urls:?}");
    let next = listed.iter().find(|m| m.id == "claude-next-6").unwrap();
    assert_eq!(
        next.summary(),
        "Claude Next 6 · 500,000 tokens in · 32,000 out · thinking: adaptive, disabled · effort: low, high · no strict tools"
    );

    // The page's settings carry the listed model when it is the one chosen (never in demo mode).
    let user = UserSettings { base_url: fake.base_url(), model: "claude-next-6".into(), ..UserSettings::default() };
    assert_eq!(user.claude_listed(key, &listed).listed.as_ref(), Some(next));
    let demo = UserSettings { demo: true, ..user.clone() };
    assert_eq!(demo.claude_listed(key, &listed).listed, None);

    // Strict tools on a model listed without structured outputs: stopped before sending.
    let mut settings = user.claude_listed(key, &listed);
    settings.tool_flags =
        ToolFlags { strict: ToolPick { scope: PickScope::Named, names: "calculate".into() }, ..ToolFlags::default() };
    let cancel = CancelToken::new();
    let out = agent
        .run(Vec::new(), Message::user_text("1+1?"), &Turn::new(&settings, &[], &cancel, 2), Rc::new(|_| {}))
        .await;
    assert_eq!(out.end, TurnEnd::Failed(ClaudeError::Listed(ListedRule::Strict { model: "claude-next-6".into() })));
    // A thinking budget on it: the API's own list of thinking types is the reason.
    settings.tool_flags = ToolFlags::default();
    settings.thinking = Thinking { mode: ThinkingMode::Budget, ..Thinking::default() };
    settings.max_tokens = 8192;
    let out = agent
        .run(Vec::new(), Message::user_text("1+1?"), &Turn::new(&settings, &[], &cancel, 2), Rc::new(|_| {}))
        .await;
    let TurnEnd::Failed(e) = &out.end else { panic!("{:?}", out.end) };
    assert_eq!(
        e.to_string(),
        "the API would refuse this request: the Models API lists claude-next-6 with thinking adaptive, disabled, not \"enabled\""
    );
    assert!(e.hint().unwrap().contains("Models API"));
    assert!(fake.requests(key).iter().all(|r| r.path == "/v1/models"), "no message was sent");
}

#[tokio::test(flavor = "current_thread")]
async fn a_listing_that_never_ends_stops_after_five_pages_and_its_ids_stay_inside_the_query() {
    let fake = FakeClaude::start(0).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let agent = Agent::new(platform, tracer);
    let key = testkit::fake_models::ENDLESS_KEY;
    let settings = ClaudeSettings { base_url: fake.base_url(), api_key: key.into(), ..ClaudeSettings::default() };
    let listed = agent.claude().list_models(&settings).await.unwrap();
    assert_eq!(listed.len(), engine::claude::listed::MAX_PAGES, "one model a page, five pages");
    let trace = trace.borrow();
    let urls: Vec<&str> = trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HttpRequest { url, .. } => Some(url.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(urls.len(), 5);
    // The next page's id is encoded: it cannot add a parameter, a fragment or a path.
    assert!(urls[1].ends_with("&after_id=x%26page%3Devil%23%2F..%2F0"), "{}", urls[1]);
    assert!(urls.iter().all(|u| u.starts_with(&format!("{}/v1/models?limit=1000", fake.base_url()))));
    assert!(
        trace.iter().any(|e| matches!(&e.kind, TraceKind::Note { text } if text.contains("Stopped after 5 pages"))),
        "the stop is said"
    );
}
