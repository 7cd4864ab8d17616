//! Thinking through the whole loop, natively, against the strict fake Messages API: the request
//! fields each setting sends, blocks sent back byte for byte, the rules checked before sending,
//! and the teaching switch's mistakes with what the API answers to each.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::agent::{Agent, Teach, Turn, TurnEnd, TurnOutcome};
use engine::cancel::CancelToken;
use engine::claude::thinking::{Display, Effort, Thinking, ThinkingMode, ThinkingRule};
use engine::claude::{ClaudeError, ClaudeSettings};
use engine::trace::{TraceEvent, TraceKind};
use protocol::claude::Message;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::fake_claude::FakeClaude;

struct Harness {
    fake: FakeClaude,
    agent: Agent<Native>,
    trace: Rc<RefCell<Vec<TraceEvent>>>,
    key: &'static str,
}

impl Harness {
    async fn new(key: &'static str) -> Self {
        let fake = FakeClaude::start(0).await;
        let platform = Native::new();
        let (tracer, trace) = recording_tracer(&platform);
        Harness { agent: Agent::new(platform, tracer), fake, trace, key }
    }

    fn settings(&self, model: &str, thinking: Thinking) -> ClaudeSettings {
        ClaudeSettings {
            base_url: self.fake.base_url(),
            api_key: self.key.into(),
            model: model.into(),
            max_tokens: 4096,
            thinking,
            ..ClaudeSettings::default()
        }
    }

    /// "1+1?": Claude thinks, calls the page's calculator, thinks nothing more and answers.
    async fn weather_turn(&self, settings: &ClaudeSettings, teach: Option<Teach>) -> TurnOutcome {
        self.fake.script(
            self.key,
            vec![
                json!({"reply": {"content": [
                    {"thinking": "Arithmetic: the calculator is exact."},
                    {"redacted_thinking": "b3BhcXVl"},
                    {"tool_use": {"name": "calculate", "input": {"expression": "1+1"}}}
                ]}}),
                json!({"reply": {"content": [{"text": "2"}]}}),
            ],
        );
        let cancel = CancelToken::new();
        let turn = Turn { teach, ..Turn::new(settings, &[], &cancel, 4) };
        self.agent.run(Vec::new(), Message::user_text("1+1?"), &turn, Rc::new(|_| {})).await
    }

    fn requests(&self) -> Vec<testkit::http::Recorded> {
        self.fake.requests(self.key)
    }

    fn thinking_events(&self) -> Vec<(String, bool)> {
        self.trace
            .borrow()
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::Thinking { text, redacted, .. } => Some((text.clone(), *redacted)),
                _ => None,
            })
            .collect()
    }
}

fn adaptive(display: Display) -> Thinking {
    Thinking { mode: ThinkingMode::Adaptive, effort: Some(Effort::Low), display, ..Thinking::default() }
}

#[tokio::test(flavor = "current_thread")]
async fn blocks_come_back_byte_for_byte_and_the_timeline_shows_them() {
    let h = Harness::new("sk-think").await;
    let settings = h.settings("claude-opus-4-7", adaptive(Display::Summarized));
    let out = h.weather_turn(&settings, None).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());

    let sent = h.requests();
    let first = sent[0].json();
    assert_eq!(first["thinking"], json!({"type": "adaptive", "display": "summarized"}));
    assert_eq!(first["output_config"], json!({"effort": "low"}));
    assert!(sent[0].header("anthropic-beta").is_none());
    // The second request carries Claude's message exactly as the history holds it.
    let second = sent[1].json();
    let answered = &second["messages"][1]["content"];
    assert_eq!(answered, &serde_json::to_value(&out.history[1].content).unwrap());
    assert_eq!(answered[0]["thinking"], "Arithmetic: the calculator is exact.");
    assert!(answered[0]["signature"].as_str().unwrap().starts_with("EqFake"));
    assert_eq!(answered[1], json!({"type": "redacted_thinking", "data": "b3BhcXVl"}));
    assert_eq!(
        h.thinking_events(),
        [("Arithmetic: the calculator is exact.".to_owned(), false), (String::new(), true)]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn omitted_text_still_goes_back_with_its_signature() {
    let h = Harness::new("sk-omit").await;
    // claude-opus-5-5 omits thinking text unless told otherwise.
    let settings = h.settings("claude-opus-5-5", Thinking::default());
    let out = h.weather_turn(&settings, None).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let first = h.requests()[0].json();
    assert!(
        first.get("thinking").is_none() && first.get("output_config").is_none(),
        "the model's default: nothing sent"
    );
    let back = &h.requests()[1].json()["messages"][1]["content"][0];
    assert_eq!(
        (back["thinking"].as_str(), back["signature"].as_str().map(|s| s.starts_with("EqFakeO"))),
        (Some(""), Some(true))
    );
    assert_eq!(h.thinking_events()[0], (String::new(), false));
}

#[tokio::test(flavor = "current_thread")]
async fn a_rule_the_api_would_refuse_is_named_before_anything_is_sent() {
    let h = Harness::new("sk-rule").await;
    let budget = Thinking { mode: ThinkingMode::Budget, budget_tokens: 2048, ..Thinking::default() };
    let out = h.weather_turn(&h.settings("claude-opus-5-5", budget), None).await;
    let TurnEnd::Failed(ClaudeError::Thinking(rule)) = &out.end else { panic!("{:?}", out.end) };
    assert!(matches!(rule, ThinkingRule::KindNotAccepted { kind: "enabled", .. }), "{rule}");
    assert!(h.requests().is_empty(), "nothing reached the API");
    // The user's message stays in the conversation, for Retry after a change.
    assert_eq!(out.history.len(), 1);

    // A model Loopscope does not know goes to the API, whose 400 is shown as it came.
    let h = Harness::new("sk-unknown").await;
    let out = h.weather_turn(&h.settings("claude-haiku-4-5-next", adaptive(Display::ModelDefault)), None).await;
    let TurnEnd::Failed(ClaudeError::Api { status: 400, message, .. }) = &out.end else { panic!("{:?}", out.end) };
    assert_eq!(message, "adaptive thinking is not supported on this model");
}

#[tokio::test(flavor = "current_thread")]
async fn manual_thinking_on_opus_4_5_asks_for_interleaving() {
    let h = Harness::new("sk-beta").await;
    let budget = Thinking { mode: ThinkingMode::Budget, budget_tokens: 2048, ..Thinking::default() };
    let out = h.weather_turn(&h.settings("claude-opus-4-5", budget), None).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let sent = h.requests();
    assert_eq!(sent[0].header("anthropic-beta"), Some("interleaved-thinking-2025-05-14"));
    assert_eq!(sent[0].json()["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
}

fn api_message(out: &TurnOutcome) -> String {
    match &out.end {
        TurnEnd::Failed(ClaudeError::Api { status: 400, message, .. }) => message.clone(),
        other => panic!("expected the API's 400, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_teaching_switch_shows_what_the_api_says_to_each_mistake() {
    // Altered: the API checks the block against its signature.
    let h = Harness::new("sk-alter").await;
    let out =
        h.weather_turn(&h.settings("claude-opus-4-7", adaptive(Display::Summarized)), Some(Teach::AlterThinking)).await;
    assert!(
        api_message(&out)
            .ends_with("cannot be modified. These blocks must remain as they were in the original response.")
    );
    // The conversation keeps the original block; only the request was changed.
    assert_eq!(out.history[1].content[0].0["thinking"], "Arithmetic: the calculator is exact.");
    let sent: Value = h.requests()[1].json();
    assert!(sent["messages"][1]["content"][0]["thinking"].as_str().unwrap().contains("teaching switch"));

    // Omitted text is ignored by the API, so the signature is what the switch cuts.
    let h = Harness::new("sk-alter-omitted").await;
    let out = h.weather_turn(&h.settings("claude-opus-5-5", Thinking::default()), Some(Teach::AlterThinking)).await;
    assert!(api_message(&out).ends_with("Invalid `signature` in `thinking` block"));

    // Dropped with a budget: the message that made the calls must start with its thinking.
    let h = Harness::new("sk-drop-budget").await;
    let budget = Thinking { mode: ThinkingMode::Budget, budget_tokens: 2048, ..Thinking::default() };
    let out = h.weather_turn(&h.settings("claude-sonnet-4-6", budget), Some(Teach::DropThinking)).await;
    assert!(api_message(&out).contains("a final `assistant` message must start with a thinking block"));

    // Dropped with adaptive thinking: accepted, and the turn goes on without the reasoning.
    let h = Harness::new("sk-drop-adaptive").await;
    let out = h
        .weather_turn(&h.settings("claude-sonnet-4-6", adaptive(Display::Summarized)), Some(Teach::DropThinking))
        .await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    let kinds: Vec<Value> = h.requests()[1].json()["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].clone())
        .collect();
    assert_eq!(kinds, [json!("tool_use")]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_changed_system_prompt_after_thinking_is_caught_before_the_api_refuses_it() {
    let h = Harness::new("sk-bind").await;
    let settings = h.settings("claude-opus-5-5", adaptive(Display::Summarized));
    let ask = |settings: ClaudeSettings, history: Vec<Message>, binding: Option<u64>| {
        let agent = &h.agent;
        async move {
            let cancel = CancelToken::new();
            let turn = Turn { binding, ..Turn::new(&settings, &[], &cancel, 4) };
            agent.run(history, Message::user_text("and now?"), &turn, Rc::new(|_| {})).await
        }
    };
    h.fake.script(h.key, vec![json!({"reply": {"content": [{"thinking": "Greeting."}, {"text": "Hello."}]}})]);
    let first = ask(settings.clone(), Vec::new(), None).await;
    assert_eq!(first.end, TurnEnd::EndTurn, "{}", first.end.explain());
    assert!(first.binding.is_some(), "the thinking is bound to this turn's tools and system");

    // The same tools and system: the conversation goes on.
    h.fake.script(h.key, vec![json!({"reply": {"content": [{"text": "Still here."}]}})]);
    let same = ask(settings.clone(), first.history.clone(), first.binding).await;
    assert_eq!(same.end, TurnEnd::EndTurn, "{}", same.end.explain());

    // The system prompt edited: named before sending.
    let edited = ClaudeSettings { system: "Answer in French.".into(), ..settings.clone() };
    let sent = h.requests().len();
    let caught = ask(edited.clone(), first.history.clone(), first.binding).await;
    let TurnEnd::Failed(ClaudeError::Thinking(ThinkingRule::Rebound { model: "claude-opus-5-5" })) = &caught.end else {
        panic!("{:?}", caught.end)
    };
    assert_eq!(h.requests().len(), sent, "nothing was sent");
    // Without the check (a client that does not keep the binding) the API refuses it itself.
    let refused = ask(edited, first.history, None).await;
    assert!(api_message(&refused).ends_with("The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."));
}

#[tokio::test(flavor = "current_thread")]
async fn a_named_tool_choice_is_sent_and_a_name_not_offered_is_caught_before_sending() {
    use engine::claude::ToolChoiceMode;
    let h = Harness::new("sk-choice").await;
    let named = |name: &str| ClaudeSettings {
        tool_choice: ToolChoiceMode::Tool,
        tool_choice_name: name.into(),
        ..h.settings("claude-opus-4-7", Thinking::default())
    };
    let out = h.weather_turn(&named("calculate"), None).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{}", out.end.explain());
    assert_eq!(h.requests()[0].json()["tool_choice"], json!({"type": "tool", "name": "calculate"}));

    let sent = h.requests().len();
    let out = h.weather_turn(&named("calculator"), None).await;
    let TurnEnd::Failed(ClaudeError::UnknownToolChoice { name }) = &out.end else { panic!("{:?}", out.end) };
    assert_eq!(name, "calculator");
    assert_eq!(h.requests().len(), sent);
    // Forcing a tool is refused by the newest models: named before sending too.
    let out = h.weather_turn(&ClaudeSettings { model: "claude-opus-5-5".into(), ..named("calculate") }, None).await;
    assert!(
        matches!(out.end, TurnEnd::Failed(ClaudeError::Thinking(ThinkingRule::ForcedRefused { choice: "tool", .. }))),
        "{:?}",
        out.end
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_added_mid_conversation_keeps_the_thinking_valid_only_when_its_tools_are_deferred() {
    use engine::agent::ServerHandle;
    use engine::claude::server_tools::ServerTool;
    use engine::mcp::{Handlers, McpClient, ServerConfig};
    let everything = testkit::real::everything();
    let h = Harness::new("sk-bind-deferred").await;
    let plain = h.settings("claude-opus-5-5", adaptive(Display::Summarized));
    let searching = ClaudeSettings { server_tools: vec![ServerTool::ToolSearch], ..plain.clone() };
    let platform = Native::new();
    let (tracer, _) = recording_tracer(&platform);
    let client = McpClient::new(platform, ServerConfig::new("ev", &everything.url), tracer, Handlers::default());
    client.connect().await.unwrap();
    let added = [ServerHandle::new(Rc::new(client), "everything")];
    async fn ask(
        agent: &Agent<Native>,
        settings: &ClaudeSettings,
        servers: &[ServerHandle<Native>],
        history: Vec<Message>,
        binding: Option<u64>,
    ) -> TurnOutcome {
        let cancel = CancelToken::new();
        let turn = Turn { binding, ..Turn::new(settings, servers, &cancel, 4) };
        agent.run(history, Message::user_text("and now?"), &turn, Rc::new(|_| {})).await
    }
    for (settings, kept) in [(&searching, true), (&plain, false)] {
        h.fake.script(h.key, vec![json!({"reply": {"content": [{"thinking": "Greeting."}, {"text": "Hello."}]}})]);
        let first = ask(&h.agent, settings, &[], Vec::new(), None).await;
        assert_eq!(first.end, TurnEnd::EndTurn, "{}", first.end.explain());
        h.fake.script(h.key, vec![json!({"reply": {"content": [{"text": "Still here."}]}})]);
        let sent = h.requests().len();
        let next = ask(&h.agent, settings, &added, first.history, first.binding).await;
        if kept {
            // Its tools went deferred (tool search): the API accepted the earlier thinking.
            assert_eq!(next.end, TurnEnd::EndTurn, "{}", next.end.explain());
            let body = h.requests()[sent].json();
            let echo = body["tools"].as_array().unwrap().iter().find(|t| t["name"] == "everything_echo").cloned();
            assert_eq!(echo.map(|t| t["defer_loading"].clone()), Some(json!(true)));
        } else {
            assert!(
                matches!(&next.end, TurnEnd::Failed(ClaudeError::Thinking(ThinkingRule::Rebound { .. }))),
                "{:?}",
                next.end
            );
            assert_eq!(h.requests().len(), sent, "nothing was sent");
        }
    }
}
