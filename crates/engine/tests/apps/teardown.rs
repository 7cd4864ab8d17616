//! An app's end: the debug app is sent `ui/resource-teardown` and removed once it answers, or
//! once the wait runs out; an app that has not initialised is sent nothing; what the app sends
//! while it is being closed is not acted on; and an app that asks to be closed gets the same
//! handshake.

use super::*;
use std::time::{Duration, Instant};

/// Waits (bounded) until the host has posted the teardown, and gives its id.
async fn teardown_id(app: &Shown) -> Value {
    for _ in 0..200 {
        let sent = app.posted.borrow().iter().find(|m| m["method"] == "ui/resource-teardown").cloned();
        if let Some(sent) = sent {
            return sent["id"].clone();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("no ui/resource-teardown was sent: {:?}", app.methods());
}

fn answer(id: &Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": {} }).to_string()
}

#[tokio::test(flavor = "current_thread")]
async fn the_app_is_asked_to_tear_down_and_removed_once_it_answers() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let started = Instant::now();
    let why = "The user began a new conversation.";
    let (ended, ()) = futures::join!(app.host.teardown(why, 60_000), async {
        let id = teardown_id(&app).await;
        assert_eq!(app.host.receive(&answer(&id)).await, []);
    });
    // The answer ended the wait, long before its limit.
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(ended, Some(Effect::Closed(why.into())));
    assert!(app.host.stopped());
    let sent = app.posted.borrow().iter().find(|m| m["method"] == "ui/resource-teardown").cloned().unwrap();
    assert_eq!(sent["params"], json!({ "reason": why }));
    // Both on the app's lane, and the reason after them.
    let lane = Peer::App("debug-tool · debug #1".into());
    let tail: Vec<String> = app
        .trace
        .borrow()
        .iter()
        .filter(|e| e.peer == lane)
        .rev()
        .take(3)
        .map(|e| match &e.kind {
            TraceKind::Rpc { direction, message, .. } => {
                format!("{direction:?} {}", message.method().unwrap_or("(answer)"))
            }
            TraceKind::Note { text } => text.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(tail, [why, "In (answer)", "Out ui/resource-teardown"]);
    // Once stopped, nothing more: a second teardown sends nothing.
    let count = app.posted.borrow().len();
    assert_eq!(app.host.teardown(why, 60_000).await, None);
    assert_eq!(app.posted.borrow().len(), count);
}

#[tokio::test(flavor = "current_thread")]
async fn an_app_that_does_not_answer_is_removed_when_the_wait_runs_out() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let ended = app.host.teardown("A recording was opened.", 150).await;
    assert_eq!(ended, Some(Effect::Closed("A recording was opened.".into())));
    assert!(app.lane_notes().iter().any(|n| n == "did not answer ui/resource-teardown within 0.15 s"));
    // An answer that comes too late is not read.
    let count = app.trace.borrow().len();
    let id = teardown_id(&app).await;
    assert_eq!(app.host.receive(&answer(&id)).await, []);
    assert_eq!(app.trace.borrow().len(), count);
}

#[tokio::test(flavor = "current_thread")]
async fn an_app_that_has_not_initialised_is_sent_nothing_and_removed_at_once() {
    let app = shown(|_| {}).await;
    app.proxy_ready().await;
    let ended = app.host.teardown("The user began a new conversation.", 60_000).await;
    let Some(Effect::Closed(why)) = ended else { panic!("{ended:?}") };
    assert!(why.ends_with("It had not initialised, so no ui/resource-teardown was sent."), "{why}");
    assert_eq!(app.methods(), ["ui/notifications/sandbox-resource-ready"]);
}

#[tokio::test(flavor = "current_thread")]
async fn what_the_app_sends_while_it_is_closed_is_not_acted_on() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let (ended, ()) = futures::join!(app.host.teardown("closing", 60_000), async {
        let id = teardown_id(&app).await;
        // A request is refused, saying why; a notification is noted and not read; a wrong id
        // does not end the wait.
        let message = json!({ "jsonrpc": "2.0", "id": 9, "method": "ui/message",
            "params": { "role": "user", "content": [{ "type": "text", "text": "one more thing" }] } });
        assert_eq!(app.host.receive(&message.to_string()).await, []);
        let size = r#"{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"height":600}}"#;
        assert_eq!(app.host.receive(size).await, []);
        assert_eq!(app.host.receive(&answer(&json!("not-the-teardown"))).await, []);
        assert!(!app.host.stopped());
        assert_eq!(app.host.receive(&answer(&id)).await, []);
    });
    assert_eq!(ended, Some(Effect::Closed("closing".into())));
    let refused = app.answer(9);
    assert!(refused["error"]["message"].as_str().unwrap().contains("while the app is being closed"), "{refused}");
    assert!(app.asked.borrow().is_empty(), "the user was asked: {:?}", app.asked.borrow());
    assert!(
        app.lane_notes().iter().any(|n| n.contains("ui/notifications/size-changed came while the app is being closed"))
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_app_that_asks_to_be_closed_gets_the_same_handshake() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let asks = r#"{"jsonrpc":"2.0","method":"ui/notifications/request-teardown","params":{}}"#;
    let (effects, ()) = futures::join!(app.host.receive(asks), async {
        let id = teardown_id(&app).await;
        app.host.receive(&answer(&id)).await;
    });
    assert_eq!(effects, [Effect::Closed("The app asked to be closed.".into())]);
}
