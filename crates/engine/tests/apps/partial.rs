//! An app shown while Claude still writes its call: the arguments as they grow
//! (`tool-input-partial`, each closed, only when changed, none before `initialized`), then the
//! input once and the partial ones stop, then the result; a call that never ran is cancelled
//! with why, with no input.

use super::*;
use engine::apps::AppFeed;

fn written(partial: &str) -> AppFeed {
    AppFeed { partial: Some(partial.into()), input: None, result: None }
}

/// The notifications the app was sent, with their arguments, from the `skip`th message on.
fn told(app: &Shown, skip: usize) -> Vec<(String, Value)> {
    let posted = app.posted.borrow();
    let notes = posted.iter().skip(skip).filter(|m| m.get("id").is_none());
    notes.map(|m| (m["method"].as_str().unwrap().to_owned(), m["params"].clone())).collect()
}

#[tokio::test(flavor = "current_thread")]
async fn the_arguments_grow_in_the_app_until_the_input_is_complete() {
    let app = shown(|_| {}).await;
    // Before it is initialised, it hears nothing of the call.
    app.host.feed(written(r#"{"contentType": "te"#));
    app.initialised().await;
    let after_init = 2; // the resource, and the answer to ui/initialize
    app.host.feed(written(r#"{"contentType": "tex"#));
    app.host.feed(written(r#"{"contentType": "text", "#));
    // Unchanged when closed: not sent again.
    app.host.feed(written(r#"{"contentType": "text", "ena"#));
    let input = json!({ "contentType": "text", "enableStructured": true });
    app.host.feed(AppFeed { partial: None, input: Some(input.clone()), result: None });
    // Once the input is told, no more partial arguments.
    app.host.feed(AppFeed { partial: Some(r#"{"late": "#.into()), input: Some(input.clone()), result: None });
    let result = json!({ "content": [{ "type": "text", "text": "done" }] });
    app.host.feed(AppFeed { partial: None, input: Some(input.clone()), result: Some(Ok(result.clone())) });
    app.host.feed(AppFeed { partial: None, input: Some(input.clone()), result: Some(Ok(result.clone())) });
    assert_eq!(
        told(&app, after_init),
        [
            ("ui/notifications/tool-input-partial".into(), json!({ "arguments": { "contentType": "te" } })),
            ("ui/notifications/tool-input-partial".into(), json!({ "arguments": { "contentType": "tex" } })),
            ("ui/notifications/tool-input-partial".into(), json!({ "arguments": { "contentType": "text" } })),
            ("ui/notifications/tool-input".into(), json!({ "arguments": input })),
            ("ui/notifications/tool-result".into(), result),
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_that_never_ran_is_cancelled_with_why_and_no_input() {
    let app = shown(|_| {}).await;
    app.host.feed(written(r#"{"contentType": "te"#));
    app.initialised().await;
    let why = "Claude ran out of tokens while writing this call: it was not executed.";
    app.host.feed(AppFeed {
        partial: Some(r#"{"contentType": "tex"#.into()),
        input: None,
        result: Some(Err(why.into())),
    });
    assert_eq!(
        told(&app, 2),
        [
            // What was written when it initialised, then what came after.
            ("ui/notifications/tool-input-partial".into(), json!({ "arguments": { "contentType": "te" } })),
            ("ui/notifications/tool-input-partial".into(), json!({ "arguments": { "contentType": "tex" } })),
            ("ui/notifications/tool-cancelled".into(), json!({ "reason": why })),
        ]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn the_loop_hands_over_the_app_as_claude_starts_writing_the_call() {
    use engine::agent::{Agent, AgentEvent, ServerHandle, Turn};
    use engine::cancel::CancelToken;
    use engine::claude::ClaudeSettings;
    use protocol::claude::Message as ClaudeMessage;
    use testkit::fake_claude::FakeClaude;

    let fake = FakeClaude::start(0).await;
    let server = real::apps_debug();
    let platform = Native::new();
    let (tracer, _trace) = recording_tracer(&platform);
    let handlers = Handlers { apps: true, ..Handlers::default() };
    let client = McpClient::new(platform.clone(), ServerConfig::new("dbg", &server.url), tracer.clone(), handlers);
    client.connect().await.unwrap();
    let servers = vec![ServerHandle::new(Rc::new(client), "debug")];
    let settings =
        ClaudeSettings { base_url: fake.base_url(), api_key: "sk-app-early".into(), ..ClaudeSettings::default() };
    let input = json!({ "contentType": "text", "largeInput": "grows" });
    fake.script(
        "sk-app-early",
        vec![
            json!({ "reply": { "content": [{ "tool_use": { "name": "debug_debug-tool", "input": input } }] } }),
            json!({ "reply": { "content": [{ "text": "Done." }] } }),
        ],
    );
    let events = Rc::new(RefCell::new(Vec::new()));
    let seen = events.clone();
    let cancel = CancelToken::new();
    let turn = Turn::new(&settings, &servers, &cancel, 4);
    let agent = Agent::new(platform, tracer);
    agent
        .run(
            Vec::new(),
            ClaudeMessage::user_text("show"),
            &turn,
            Rc::new(move |e: AgentEvent| seen.borrow_mut().push(e)),
        )
        .await;

    let events = events.borrow();
    let apps: Vec<(usize, &engine::apps::AppCall)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| if let AgentEvent::AppCalled(a) = e { Some((i, a.as_ref())) } else { None })
        .collect();
    let input_at =
        events.iter().position(|e| matches!(e, AgentEvent::Stream(engine::claude::StreamUpdate::Input { .. })));
    let [(early_at, early), (_, ran)] = apps[..] else { panic!("{apps:?}") };
    assert!(early_at < input_at.unwrap(), "the app came after Claude's first piece of the call");
    assert_eq!((&early.arguments, &early.result), (&None, &None));
    assert_eq!(ran.arguments, Some(input));
    assert!(matches!(&ran.result, Some(Ok(r)) if r["content"].is_array()), "{:?}", ran.result);
}
