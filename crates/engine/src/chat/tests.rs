use protocol::claude::{Block as Wire, Message, Role, ToolResult, Usage};
use serde_json::json;

use super::*;
use crate::agent::catalog::{Catalog, Unavailable};
use crate::agent::{AgentEvent, TurnEnd};
use crate::claude::{ClaudeError, ToolCallStub};
use crate::layer::{Failure, Layer};
use crate::session::TranscriptItem;
use crate::trace::RouteTarget;

/// The page's side, as plain data: what it would draw after replaying every change.
#[derive(Default)]
struct Mirror(Vec<ChatItem>);

impl ChatView for Mirror {
    fn push(&mut self, item: &ChatItem) {
        self.0.push(item.clone());
    }
    fn pop(&mut self) {
        self.0.pop();
    }
    fn push_block(&mut self, item: usize, block: &Block) {
        if let Some(ChatItem::Assistant { blocks, .. }) = self.0.get_mut(item) {
            blocks.push(block.clone());
        }
    }
    fn set_block(&mut self, item: usize, block: usize, value: &Block) {
        if let Some(ChatItem::Assistant { blocks, .. }) = self.0.get_mut(item) {
            blocks[block] = value.clone();
        }
    }
    fn set_usage(&mut self, item: usize, usage: Option<&str>) {
        if let Some(ChatItem::Assistant { usage: u, .. }) = self.0.get_mut(item) {
            *u = usage.map(str::to_owned);
        }
    }
    fn reset(&mut self, items: &[ChatItem]) {
        self.0 = items.to_vec();
    }
}

/// A chat and its mirror, kept in step: after each step the mirror must equal the chat.
#[derive(Default)]
struct Page {
    chat: Chat,
    mirror: Mirror,
}

impl Page {
    fn step(&mut self, f: impl FnOnce(&mut Chat) -> Vec<Change>) -> Vec<Change> {
        let changes = f(&mut self.chat);
        self.chat.show(&changes, &mut self.mirror);
        assert_eq!(self.mirror.0, self.chat.items(), "the page's copy differs after {changes:?}");
        changes
    }
    fn apply(&mut self, e: AgentEvent) -> Vec<Change> {
        self.step(|c| c.apply(&e))
    }
    fn tool(&self, item: usize, block: usize) -> &ToolCall {
        match &self.chat.items()[item] {
            ChatItem::Assistant { blocks, .. } => match &blocks[block] {
                Block::Tool { call, .. } => call,
                other => panic!("not a call: {other:?}"),
            },
            other => panic!("not an answer: {other:?}"),
        }
    }
}

fn started(index: usize, kind: BlockKind, tool: Option<(&str, &str)>) -> AgentEvent {
    AgentEvent::Stream(StreamUpdate::BlockStarted {
        index,
        kind,
        tool: tool.map(|(id, name)| ToolCallStub { id: id.into(), name: name.into() }),
    })
}

fn text(index: usize, t: &str) -> AgentEvent {
    AgentEvent::Stream(StreamUpdate::Text { index, text: t.into() })
}

fn answer(calls: &[(&str, &str)]) -> AgentEvent {
    let mut content = vec![Wire::text("Let me look.")];
    content.extend(
        calls
            .iter()
            .map(|(id, name)| Wire(json!({"type": "tool_use", "id": id, "name": name, "input": {"city": "Tokyo"}}))),
    );
    AgentEvent::Assistant {
        message: Message { role: Role::Assistant, content },
        stop_reason: Some("tool_use".into()),
        usage: Usage { input_tokens: 12, output_tokens: 34, ..Default::default() },
    }
}

fn attempt() -> AgentEvent {
    AgentEvent::AttemptStarted { iteration: 1 }
}

#[test]
fn a_streamed_answer_with_a_call_follows_the_call_to_its_result() {
    let mut p = Page::default();
    p.step(|c| c.user("Weather in Tokyo?".into()));
    assert_eq!(p.apply(attempt()), [Change::Pushed { item: 1 }]);
    assert_eq!(p.apply(started(0, BlockKind::Text, None)), [Change::BlockPushed { item: 1, block: 0 }]);
    p.apply(text(0, "Let me "));
    assert_eq!(p.apply(text(0, "look.")), [Change::BlockChanged { item: 1, block: 0 }]);
    p.apply(started(1, BlockKind::ToolUse, Some(("tu_1", "weather"))));
    assert_eq!(p.tool(1, 1).state.status(), ToolStatus::Writing);

    let changes = p.apply(answer(&[("tu_1", "weather")]));
    assert_eq!(changes, [Change::UsageSet { item: 1 }, Change::BlockChanged { item: 1, block: 1 }]);
    assert_eq!(p.tool(1, 1).input, Some(json!({"city": "Tokyo"})));
    assert_eq!(p.tool(1, 1).state.status(), ToolStatus::Running);
    let ChatItem::Assistant { usage, blocks, .. } = &p.chat.items()[1] else { panic!() };
    assert!(usage.as_deref().is_some_and(|u| u.contains("12") && u.contains("34")), "{usage:?}");
    assert_eq!(blocks[0], Block::Text { index: 0, text: "Let me look.".into() });

    let target = RouteTarget::Server { server_id: "s1".into(), label: "Weather".into(), tool: "weather".into() };
    p.apply(AgentEvent::ToolStarted {
        tool_use_id: "tu_1".into(),
        name: "weather".into(),
        target: target.clone(),
        input: json!({}),
    });
    p.apply(AgentEvent::ToolProgress { tool_use_id: "tu_1".into(), progress: 1.0, total: Some(2.0), message: None });
    assert_eq!(p.tool(1, 1).target, Some(target));
    assert!(p.tool(1, 1).progress.is_some());

    p.apply(AgentEvent::ToolFinished {
        tool_use_id: "tu_1".into(),
        result: ToolResult {
            tool_use_id: "tu_1".into(),
            content: json!([{"type": "text", "text": "Rain"}]),
            is_error: true,
        },
        failure: Some(Failure { layer: Layer::Tool, message: "isError".into(), hint: None }),
    });
    assert_eq!(p.tool(1, 1).state.status(), ToolStatus::Error);
    let ToolState::Ended(ToolOutcome::Done { text, .. }) = &p.tool(1, 1).state else { panic!() };
    assert_eq!(text, "Rain");
    // The turn's end leaves a finished call as it is.
    assert_eq!(p.apply(AgentEvent::Ended(TurnEnd::EndTurn)), []);
}

#[test]
fn a_retried_attempt_is_dropped_and_the_retry_is_said() {
    let mut p = Page::default();
    p.step(|c| c.user("hi".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::Text, None));
    p.apply(text(0, "half an answ"));
    let error = ClaudeError::Api {
        status: 529,
        kind: "overloaded_error".into(),
        message: "Overloaded".into(),
        request_id: Some("req_9".into()),
        body: String::new(),
    };
    let changes = p.apply(AgentEvent::Retrying { error, delay_ms: 1500, attempt: 1 });
    assert_eq!(changes, [Change::Popped, Change::Pushed { item: 1 }]);
    let ChatItem::Notice { level, text, hint, .. } = &p.chat.items()[1] else { panic!("{:?}", p.chat.items()) };
    assert_eq!(*level, NoticeLevel::Warning);
    assert!(text.contains("529") && text.ends_with("retry 1 in 1.5 s"), "{text}");
    assert_eq!(hint.as_deref(), Some("request id req_9"));
    assert_eq!(p.chat.items().len(), 2, "no trace of the void attempt");
    // The retry streams with no AttemptStarted of its own: its first block opens a new answer,
    // and the page's copy holds that block once (it once held it twice: the answer was copied
    // with its block, then the block was added again).
    let changes = p.apply(started(0, BlockKind::ToolUse, Some(("tu_2", "calculate"))));
    assert_eq!(changes, [Change::Pushed { item: 2 }, Change::BlockPushed { item: 2, block: 0 }]);
    assert!(matches!(&p.chat.items()[2], ChatItem::Assistant { blocks, .. } if blocks.len() == 1));
}

#[test]
fn a_notice_after_an_attempt_that_streamed_nothing_leaves_no_empty_bubble() {
    let mut p = Page::default();
    p.step(|c| c.user("hi".into()));
    p.apply(attempt());
    let changes = p.step(|c| c.notice(NoticeLevel::Error, "HTTP 400", Some("fix it".into())));
    assert_eq!(changes, [Change::Popped, Change::Pushed { item: 1 }]);
    assert!(matches!(p.chat.items(), [ChatItem::User { .. }, ChatItem::Notice { .. }]));
    // An answer with something in it stays.
    p.apply(attempt());
    p.apply(started(0, BlockKind::Thinking, None));
    p.step(|c| c.notice(NoticeLevel::Info, "stopped", None));
    assert_eq!(p.chat.items().len(), 4);
}

#[test]
fn calls_that_never_ran_say_why_when_the_turn_ends_and_only_this_turns() {
    let mut p = Page::default();
    p.step(|c| c.user("first".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ToolUse, Some(("old", "weather"))));
    // A call of an earlier turn that was somehow left open is that turn's business.
    p.step(|c| c.user("second".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ToolUse, Some(("a", "weather"))));
    p.apply(started(1, BlockKind::ToolUse, Some(("b", "search"))));
    p.apply(answer(&[("a", "weather")]));
    let changes = p.apply(AgentEvent::Ended(TurnEnd::Aborted));
    assert_eq!(changes, [Change::BlockChanged { item: 3, block: 0 }, Change::BlockChanged { item: 3, block: 1 }]);
    for block in 0..2 {
        let ToolState::Ended(outcome) = &p.tool(3, block).state else { panic!() };
        assert_eq!(outcome.why_not_run(), Some(TurnEnd::Aborted.not_executed()));
    }
    assert_eq!(p.tool(1, 0).state, ToolState::Writing);
}

#[test]
fn a_server_left_out_of_the_tools_is_said_in_the_chat_with_its_hint() {
    let mut p = Page::default();
    let catalog = Catalog {
        unavailable: vec![Unavailable {
            server_id: "s1".into(),
            label: "Files".into(),
            failure: Failure { layer: Layer::Network, message: "refused".into(), hint: Some("Start it".into()) },
        }],
        ..Catalog::default()
    };
    p.apply(AgentEvent::Catalog(catalog));
    let ChatItem::Notice { text, hint, .. } = &p.chat.items()[0] else { panic!() };
    assert!(text.contains("\"Files\""), "{text}");
    assert_eq!(hint.as_deref(), Some("Start it"));
}

#[test]
fn events_for_calls_or_blocks_the_chat_does_not_show_change_nothing() {
    let mut p = Page::default();
    assert_eq!(p.apply(text(0, "stray")), []);
    assert_eq!(
        p.apply(AgentEvent::ToolStarted {
            tool_use_id: "x".into(),
            name: "n".into(),
            target: RouteTarget::Local { function: "f".into() },
            input: json!({})
        }),
        []
    );
    p.apply(attempt());
    assert_eq!(p.apply(started(0, BlockKind::Other, None)), []);
    assert_eq!(p.apply(text(5, "no block 5")), []);
}

#[test]
fn a_transcript_reads_back_as_it_was_shown_and_an_open_call_as_unfinished() {
    let mut p = Page::default();
    p.chat.set_demo(true);
    p.step(|c| c.user("Any cafés nearby? 東京".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::Text, None));
    p.apply(text(0, "Looking…"));
    p.apply(started(1, BlockKind::ToolUse, Some(("tu", "cafes"))));
    p.step(|c| c.notice(NoticeLevel::Warning, "careful", Some("hint".into())));
    let file = p.chat.transcript();
    let TranscriptItem::Assistant { blocks, demo: true, .. } = &file[1] else { panic!("{file:?}") };
    assert!(matches!(&blocks[1], crate::session::TranscriptBlock::Tool { outcome: ToolOutcome::Unfinished, .. }));

    let mut q = Page::default();
    assert_eq!(q.step(|c| c.load(&file)), [Change::Reset]);
    assert_eq!(q.chat.transcript(), file, "what was shown reads back the same");
    assert_eq!(q.tool(1, 1).state.status(), ToolStatus::NotRun);
    // A new conversation empties it, and ids never repeat.
    let last = q.chat.items().last().map(ChatItem::id);
    q.step(Chat::clear);
    assert!(q.chat.items().is_empty());
    q.step(|c| c.user("again".into()));
    assert!(q.chat.items()[0].id() > last.unwrap_or(0));
}

#[test]
fn the_end_of_a_turn_is_said_by_the_model_that_answered_at_the_level_it_deserves() {
    let mut p = Page::default();
    p.step(|c| c.ended(&TurnEnd::EndTurn));
    p.step(|c| c.ended(&TurnEnd::Aborted));
    p.chat.set_demo(true);
    p.step(|c| c.ended(&TurnEnd::Refusal { details: None }));
    let failed = TurnEnd::Failed(ClaudeError::Network { message: "Failed to fetch".into() });
    p.step(|c| c.ended(&failed));
    let levels: Vec<_> = p
        .chat
        .items()
        .iter()
        .map(|i| match i {
            ChatItem::Notice { level, text, hint, .. } => (*level, text.contains("demo model"), hint.is_some()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        levels,
        [
            (NoticeLevel::Info, false, false),
            (NoticeLevel::Warning, false, false),
            (NoticeLevel::Warning, true, false),
            (NoticeLevel::Error, false, true)
        ]
    );
}

#[test]
fn a_call_the_api_runs_is_shown_by_name_and_a_block_the_page_does_not_draw_is_not() {
    let mut p = Page::default();
    p.step(|c| c.user("where is MCP specified?".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ApiCall, Some(("srvtoolu_1", "web_search"))));
    p.apply(started(1, BlockKind::Other, None));
    let ChatItem::Assistant { blocks, .. } = &p.chat.items()[1] else { panic!("{:?}", p.chat.items()) };
    assert_eq!(blocks, &[Block::ApiCall { index: 0, name: "web_search".into() }]);
    // It survives a session file and back.
    let file = p.chat.transcript();
    let mut q = Page::default();
    q.step(|c| c.load(&file));
    let ChatItem::Assistant { blocks, .. } = &q.chat.items()[1] else { panic!() };
    assert!(matches!(&blocks[0], Block::ApiCall { name, .. } if name == "web_search"));
}

#[test]
fn a_calls_arguments_grow_as_claude_writes_them_then_give_way_to_the_input() {
    let mut p = Page::default();
    p.step(|c| c.user("weather?".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ToolUse, Some(("t1", "get_weather"))));
    for piece in ["{\"ci", "ty\": \"Tok"] {
        p.apply(AgentEvent::Stream(StreamUpdate::Input { index: 0, partial: piece.into() }));
    }
    assert_eq!(p.tool(1, 0).partial, "{\"city\": \"Tok");
    assert_eq!(p.tool(1, 0).input, None);
}

#[test]
fn an_apps_call_feeds_its_app_from_the_first_piece_to_its_end() {
    let tool: protocol::mcp::Tool = serde_json::from_value(json!({
        "name": "chart", "inputSchema": { "type": "object" }, "_meta": { "ui": { "resourceUri": "ui://demo/chart.html" } }
    }))
    .unwrap();
    let early = crate::apps::AppCall::of(&tool, "demo", "demo", "t1").unwrap();
    let mut p = Page::default();
    p.step(|c| c.user("chart it".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ToolUse, Some(("t1", "demo_chart"))));
    p.apply(AgentEvent::AppCalled(Box::new(early.clone())));
    p.apply(AgentEvent::Stream(StreamUpdate::Input { index: 0, partial: "{\"ci".into() }));
    let feed = p.tool(1, 0).app_feed().unwrap();
    assert_eq!((feed.partial.as_deref(), &feed.input, &feed.result), (Some("{\"ci"), &None, &None));
    p.apply(answer(&[("t1", "demo_chart")]));
    let feed = p.tool(1, 0).app_feed().unwrap();
    assert_eq!((feed.partial, feed.input, feed.result), (None, Some(json!({"city": "Tokyo"})), None));

    // The call, rerouted at a breakpoint to another app's tool: the app shown stays, and is told
    // its call went elsewhere.
    let mut other = early.clone();
    other.tool.name = "table".into();
    other.result = Some(Ok(json!({ "content": [] })));
    p.apply(AgentEvent::AppCalled(Box::new(other)));
    p.apply(AgentEvent::ToolFinished {
        tool_use_id: "t1".into(),
        result: ToolResult::text("t1", "ok".into(), false),
        failure: None,
    });
    let feed = p.tool(1, 0).app_feed().unwrap();
    assert_eq!(p.tool(1, 0).app.as_ref().unwrap().tool.name, "chart");
    assert_eq!(feed.result, Some(Err("The call went to another tool.".into())));

    // Its own call's result is what it is told.
    let mut p = Page::default();
    p.step(|c| c.user("chart it".into()));
    p.apply(attempt());
    p.apply(started(0, BlockKind::ToolUse, Some(("t1", "demo_chart"))));
    p.apply(AgentEvent::AppCalled(Box::new(early.clone())));
    let ran = crate::apps::AppCall { arguments: Some(json!({})), result: Some(Ok(json!({ "content": [] }))), ..early };
    p.apply(AgentEvent::AppCalled(Box::new(ran)));
    assert_eq!(p.tool(1, 0).app_feed().unwrap().result, Some(Ok(json!({ "content": [] }))));
}

/// A call that asks first tells its app nothing of its arguments — neither as Claude writes
/// them nor whole — until the user approved it; declined, the app hears only that.
#[test]
fn an_app_hears_nothing_of_a_call_the_user_has_not_approved_and_only_the_refusal_of_one_denied() {
    let tool: protocol::mcp::Tool = serde_json::from_value(json!({
        "name": "chart", "inputSchema": { "type": "object" }, "_meta": { "ui": { "resourceUri": "ui://demo/chart.html" } }
    }))
    .unwrap();
    let asks =
        crate::apps::AppCall { asks_first: true, ..crate::apps::AppCall::of(&tool, "demo", "demo", "t1").unwrap() };
    let start = |p: &mut Page| {
        p.step(|c| c.user("chart it".into()));
        p.apply(attempt());
        p.apply(started(0, BlockKind::ToolUse, Some(("t1", "demo_chart"))));
        p.apply(AgentEvent::AppCalled(Box::new(asks.clone())));
        p.apply(AgentEvent::Stream(StreamUpdate::Input { index: 0, partial: "{\"secret".into() }));
        p.apply(answer(&[("t1", "demo_chart")]));
    };
    let nothing = crate::apps::AppFeed::default();
    let here = RouteTarget::Server { server_id: "demo".into(), label: "demo".into(), tool: "chart".into() };

    // Approved: the input, once routed to its own tool.
    let mut p = Page::default();
    start(&mut p);
    assert_eq!(p.tool(1, 0).app_feed().unwrap(), nothing, "told before the user answered");
    p.apply(AgentEvent::ToolStarted {
        tool_use_id: "t1".into(),
        name: "demo_chart".into(),
        target: here,
        input: json!({}),
    });
    assert_eq!(p.tool(1, 0).app_feed().unwrap().input, Some(json!({"city": "Tokyo"})));

    // Denied: no arguments, and the refusal as the reason there is no result.
    let mut p = Page::default();
    start(&mut p);
    let refused = RouteTarget::Refused { reason: "The user denied this tool call.".into() };
    p.apply(AgentEvent::ToolStarted {
        tool_use_id: "t1".into(),
        name: "demo_chart".into(),
        target: refused,
        input: json!({}),
    });
    p.apply(AgentEvent::ToolFinished {
        tool_use_id: "t1".into(),
        result: ToolResult::text("t1", "The user denied this tool call.".into(), true),
        failure: None,
    });
    let feed = p.tool(1, 0).app_feed().unwrap();
    assert_eq!((feed.partial, feed.input), (None, None));
    assert_eq!(feed.result, Some(Err("The user denied this tool call.".into())));
}
