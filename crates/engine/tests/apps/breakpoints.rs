//! Break on an app's message: the debug app's messages stop before the page reads them, one at a
//! time in the order they came, and go on as the user says — unchanged, edited (the edit is what
//! the page reads), dropped (a request is answered saying so, and its server hears nothing), or
//! with the app closed. A stop before the app initialised does not count against its start.

use super::*;
use engine::agent::{Breakpoint, Pauser, Resume, Stop};
use engine::trace::ResumeHow;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use std::cell::Cell;
use std::collections::VecDeque;
use std::time::Duration;

/// The page's side of the breakpoints, held by the test: each stop waits until it is answered.
#[derive(Default)]
struct Desk {
    on: Cell<bool>,
    stops: RefCell<Vec<Stop>>,
    waiting: RefCell<VecDeque<oneshot::Sender<Resume>>>,
}

impl Pauser for Desk {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        self.on.get() && at == Breakpoint::AppMessage
    }
    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume> {
        let (tell, told) = oneshot::channel();
        self.stops.borrow_mut().push(stop);
        self.waiting.borrow_mut().push_back(tell);
        async move { told.await.unwrap_or(Resume::Continue) }.boxed_local()
    }
}

impl Desk {
    /// Waits (bounded) until the app has stopped `n` times, and gives the `n`th stop.
    async fn next(&self, n: usize) -> Stop {
        for _ in 0..400 {
            if let Some(stop) = self.stops.borrow().get(n - 1) {
                return stop.clone();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no stop number {n} within 2 s (stops: {})", self.stops.borrow().len());
    }

    /// Answers the stop that has waited longest.
    fn answer(&self, how: Resume) {
        let tell = self.waiting.borrow_mut().pop_front().expect("no stop waits");
        tell.send(how).unwrap();
    }
}

async fn paused() -> (Shown, Rc<Desk>) {
    let desk = Rc::new(Desk::default());
    let pauser: Rc<dyn Pauser> = desk.clone();
    (shown_with(|_| {}, |host| host.with_pause(pauser)).await, desk)
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

/// The requests the page sent the debug server.
fn server_calls(app: &Shown) -> usize {
    let trace = app.trace.borrow();
    let dbg = Peer::Server("dbg".into());
    trace.iter().filter(|e| e.peer == dbg && matches!(e.kind, TraceKind::Rpc { direction: Direction::Out, .. })).count()
}

/// How each stop on the app's lane went on.
fn resumed(app: &Shown) -> Vec<ResumeHow> {
    let lane = Peer::App("debug-tool · debug #1".into());
    let trace = app.trace.borrow();
    let on_lane = trace.iter().filter(|e| e.peer == lane);
    on_lane.filter_map(|e| if let TraceKind::Resumed { how, .. } = e.kind { Some(how) } else { None }).collect()
}

#[tokio::test(flavor = "current_thread")]
async fn an_apps_messages_wait_in_order_and_the_page_reads_the_users_edit() {
    let (app, desk) = paused().await;
    app.initialised().await;
    assert!(desk.stops.borrow().is_empty(), "stopped with the breakpoint off");
    desk.on.set(true);
    let calls = server_calls(&app);

    let call = request(2, "tools/call", json!({ "name": "debug-refresh", "arguments": {} }));
    let ping = request(3, "ping", json!({}));
    let user = async {
        let first = desk.next(1).await;
        assert_eq!(first.at, Breakpoint::AppMessage);
        assert_eq!(first.title, "tools/call from App: debug-tool · debug #1");
        assert_eq!(first.payload, serde_json::from_str::<Value>(&call).unwrap());
        // The ping came second: it waits behind the call, unread and unanswered.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(desk.stops.borrow().len(), 1, "the ping stopped before the call went on");
        assert!(app.posted.borrow().iter().all(|m| m["id"] != 3), "the ping was answered first");
        // An edit that changes the id is asked for again, with why.
        desk.answer(Resume::Edited(json!({ "jsonrpc": "2.0", "id": 99, "method": "ping" })));
        let again = desk.next(2).await;
        assert_eq!(again.problem, Some(engine::agent::EditError::AppIdChanged));
        // The user turns the call into a ping: that is what the page reads.
        desk.answer(Resume::Edited(json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })));
        let second = desk.next(3).await;
        assert!(second.title.starts_with("ping from App:"), "{}", second.title);
        desk.answer(Resume::Continue);
    };
    futures::join!(app.host.receive(&call), app.host.receive(&ping), user);

    assert_eq!(app.answer(2)["result"], json!({}), "the edited message was not the one read");
    assert_eq!(app.answer(3)["result"], json!({}));
    assert_eq!(server_calls(&app), calls, "the server heard of the call the user edited away");
    assert_eq!(resumed(&app), [ResumeHow::Edited, ResumeHow::Continued]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_dropped_message_is_not_read_and_closing_removes_the_app() {
    let (app, desk) = paused().await;
    app.initialised().await;
    desk.on.set(true);
    let calls = server_calls(&app);

    // A request dropped: the app hears why, the server hears nothing.
    let call = request(4, "tools/call", json!({ "name": "debug-refresh", "arguments": {} }));
    let user = async {
        desk.next(1).await;
        desk.answer(Resume::Skip);
    };
    let (said, ()) = futures::join!(app.host.receive(&call), user);
    assert_eq!(said, []);
    let dropped = app.answer(4);
    assert_eq!(dropped["error"]["message"], "The user dropped tools/call at a breakpoint in Loopscope.");
    assert_eq!(server_calls(&app), calls);

    // A notification dropped: the size it asked for is not taken.
    let size = r#"{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"height":300}}"#;
    let user = async {
        desk.next(2).await;
        desk.answer(Resume::Skip);
    };
    let (said, ()) = futures::join!(app.host.receive(size), user);
    assert_eq!(said, [], "a dropped size change was applied");

    // Closing the app at its stop.
    let user = async {
        desk.next(3).await;
        desk.answer(Resume::Stop);
    };
    let (said, ()) = futures::join!(app.host.receive(size), user);
    assert_eq!(said, [Effect::Stopped("Closed by the user at a breakpoint.".into())]);
    assert!(app.host.stopped());
    assert_eq!(resumed(&app), [ResumeHow::Skipped, ResumeHow::Skipped, ResumeHow::Stopped]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_stop_before_the_app_initialised_does_not_count_against_its_start() {
    let (app, desk) = paused().await;
    desk.on.set(true);
    // The sandbox proxy's notice is the page's own: it does not stop.
    app.proxy_ready().await;
    assert!(desk.stops.borrow().is_empty());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26","appInfo":{"name":"t","version":"1"},"appCapabilities":{}}}"#;
    let user = async {
        desk.next(1).await;
        // Longer than the app may take to start.
        tokio::time::sleep(Duration::from_millis(400)).await;
        desk.answer(Resume::Continue);
    };
    let (_, removed, ()) = futures::join!(app.host.receive(init), app.host.watch_start(200), user);
    assert_eq!(removed, None, "the app was removed while the user held it");
    assert!(app.lane_notes().iter().any(|n| n.contains("held at a breakpoint")), "{:?}", app.lane_notes());
    assert_eq!(app.answer(1)["result"]["protocolVersion"], "2026-01-26");
}
