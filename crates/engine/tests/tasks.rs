//! Tasks, both eras, end to end. 2025-11-25 against a real server: server-everything's
//! `simulate-research-query` (built on the TypeScript SDK's experimental tasks), which works in
//! four stages, asks for a clarification on the stream of `tasks/result` when the query is
//! ambiguous, and can be cancelled. The 2026 extension against `testkit::tasks_server`, written
//! from the extension's text, including the hostile servers the page must contain.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::mcp::{ElicitationHandler, Handlers, McpClient, McpError, RequestOptions, ServerConfig, TaskEra};
use engine::timeline::Timeline;
use engine::trace::{TraceEvent, TraceKind};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{CallToolResult, ElicitAction, ElicitParams, ElicitResult, TaskStatus};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::real;
use testkit::tasks_server::TasksServer;

/// Answers every form: the research query's clarification, the deploy confirmation.
struct Answer(Rc<RefCell<Vec<String>>>);
impl ElicitationHandler for Answer {
    fn elicit(&self, _: &str, params: ElicitParams) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        self.0.borrow_mut().push(params.message.clone());
        let content = if params.message.contains("Deploy") {
            json!({ "ok": true })
        } else {
            json!({ "interpretation": "historical" })
        };
        async move { Ok(ElicitResult { action: ElicitAction::Accept, content: content.as_object().cloned() }) }
            .boxed_local()
    }
}

type Trace = Rc<RefCell<Vec<TraceEvent>>>;

fn client(url: &str) -> (McpClient<Native>, Trace, Rc<RefCell<Vec<String>>>) {
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let asked = Rc::new(RefCell::new(Vec::new()));
    let handlers = Handlers { elicitation: Some(Rc::new(Answer(asked.clone()))), ..Default::default() };
    (McpClient::new(platform, ServerConfig::new("s", url), tracer, handlers), trace, asked)
}

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("")
}

/// (status, message) of every task event, in order.
fn statuses(trace: &Trace) -> Vec<(TaskStatus, Option<String>)> {
    trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Task { status, message, .. } => Some((*status, message.clone())),
            _ => None,
        })
        .collect()
}

/// The JSON-RPC requests the page sent, by method.
fn sent(trace: &Trace, method: &str) -> Vec<Value> {
    trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Rpc { direction: engine::trace::Direction::Out, message, .. }
                if message.method() == Some(method) =>
            {
                Some(serde_json::to_value(message).unwrap())
            }
            _ => None,
        })
        .collect()
}

fn timeline(trace: &Trace) -> Timeline {
    let mut t = Timeline::new();
    for e in trace.borrow().iter() {
        t.push(e);
    }
    t
}

/// Calls `tool`, and cancels its task from the page as soon as it is being followed.
async fn call_and_cancel(c: &McpClient<Native>, tool: &str, args: Value) -> Result<CallToolResult, McpError> {
    let opts = RequestOptions::default();
    let call = c.call_tool(tool, args, &opts);
    let cancel = async {
        for _ in 0..100 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            if let Some(id) = c.live_tasks().first() {
                assert!(c.cancel_task(id));
                return;
            }
        }
        panic!("no task was followed within 10 s");
    };
    let (outcome, ()) = futures::join!(call, cancel);
    outcome
}

#[tokio::test(flavor = "current_thread")]
async fn a_research_query_runs_as_a_task_on_server_everything_2025_11_25() {
    let server = real::everything();
    let (c, trace, _) = client(&server.url);
    c.connect().await.unwrap();
    assert_eq!(c.task_era(), Some(TaskEra::Experimental));
    let tools = c.list_tools(&RequestOptions::default()).await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "simulate-research-query"), "a task-only tool is offered now");

    let r =
        c.call_tool("simulate-research-query", json!({ "topic": "tides" }), &RequestOptions::default()).await.unwrap();
    assert!(text(&r).contains("Research Report: tides"), "{}", text(&r));

    let call = &sent(&trace, "tools/call")[0];
    assert!(call.pointer("/params/task/ttl").is_some(), "the page asked for a task: {call}");
    assert!(sent(&trace, "tasks/get").len() >= 2, "the page polled");
    assert_eq!(sent(&trace, "tasks/result").len(), 1, "and read the result once, at the end");
    let seen = statuses(&trace);
    assert_eq!(seen.first().map(|s| s.0), Some(TaskStatus::Working));
    assert_eq!(seen.last().map(|s| s.0), Some(TaskStatus::Completed));
    assert!(seen.iter().any(|(_, m)| m.as_deref() == Some("Analyzing content...")), "the stages show: {seen:?}");

    let t = timeline(&trace);
    let span = &t.tasks()[0];
    assert_eq!((span.status, span.live()), (TaskStatus::Completed, false));
    assert!(span.last_row.unwrap() > span.first_row);
}

#[tokio::test(flavor = "current_thread")]
async fn an_ambiguous_query_asks_for_input_on_the_result_stream_2025_11_25() {
    let server = real::everything();
    let (c, trace, asked) = client(&server.url);
    c.connect().await.unwrap();
    c.list_tools(&RequestOptions::default()).await.unwrap();
    let args = json!({ "topic": "python", "ambiguous": true });
    let r = c.call_tool("simulate-research-query", args, &RequestOptions::default()).await.unwrap();
    assert_eq!(asked.borrow().len(), 1, "the user was asked once");
    assert!(text(&r).contains("historical"), "the answer shaped the result: {}", text(&r));
    assert!(statuses(&trace).iter().any(|s| s.0 == TaskStatus::InputRequired));
    let t = timeline(&trace);
    let span = &t.tasks()[0];
    assert_eq!((span.status, span.live()), (TaskStatus::Completed, false), "the bar closes after tasks/result");
}

#[tokio::test(flavor = "current_thread")]
async fn a_task_cancelled_from_the_page_is_cancelled_on_the_server_2025_11_25() {
    let server = real::everything();
    let (c, trace, _) = client(&server.url);
    c.connect().await.unwrap();
    c.list_tools(&RequestOptions::default()).await.unwrap();
    let e = call_and_cancel(&c, "simulate-research-query", json!({ "topic": "tides" })).await.unwrap_err();
    assert!(matches!(e, McpError::TaskEnded { status: TaskStatus::Cancelled, by_page: true, .. }), "{e:?}");
    assert_eq!(sent(&trace, "tasks/cancel").len(), 1);
    assert!(c.live_tasks().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn the_extension_runs_a_task_to_its_result_polling_by_task_id() {
    let server = TasksServer::start(0).await;
    let (c, trace, _) = client(&server.url());
    c.connect().await.unwrap();
    assert_eq!(c.task_era(), Some(TaskEra::Extension));
    let r = c.call_tool("slow_report", json!({ "steps": 3 }), &RequestOptions::default()).await.unwrap();
    assert_eq!(text(&r), "Report ready after 3 steps");
    let call = &sent(&trace, "tools/call")[0];
    assert!(call.pointer("/params/task").is_none(), "the extension has no task parameter");
    let seen = statuses(&trace);
    assert!(seen.iter().any(|(_, m)| m.as_deref() == Some("step 2 of 3")), "{seen:?}");
    let polls: Vec<_> =
        server.requests().into_iter().filter(|r| r.rpc_method().as_deref() == Some("tasks/get")).collect();
    assert!(polls.len() >= 3, "polled every 300 ms for 1.2 s");
    for p in polls {
        assert_eq!(
            p.header("mcp-name"),
            p.json().pointer("/params/taskId").and_then(Value::as_str),
            "Mcp-Name names the task"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_extension_asks_for_input_and_the_answer_goes_back_with_tasks_update() {
    let server = TasksServer::start(0).await;
    let (c, _, asked) = client(&server.url());
    c.connect().await.unwrap();
    let r = c.call_tool("confirm_deploy", json!({}), &RequestOptions::default()).await.unwrap();
    assert_eq!(text(&r), r#"Deployed. The user answered: {"ok":true}"#);
    assert_eq!(asked.borrow().as_slice(), ["Deploy build 42 to production?"], "asked once, though polled more");
    let updates = server.methods().iter().filter(|m| *m == "tasks/update").count();
    assert_eq!(updates, 1);
}

#[tokio::test(flavor = "current_thread")]
async fn a_failed_task_is_its_json_rpc_error_and_a_cancelled_one_says_who_cancelled() {
    let server = TasksServer::start(0).await;
    let (c, trace, _) = client(&server.url());
    c.connect().await.unwrap();
    let e = c.call_tool("failing_build", json!({}), &RequestOptions::default()).await.unwrap_err();
    match &e {
        McpError::Rpc(err) => assert_eq!((err.code.0, err.message.as_str()), (-32603, "the build farm is offline")),
        other => panic!("{other:?}"),
    }
    let e = call_and_cancel(&c, "endless_job", json!({})).await.unwrap_err();
    assert!(matches!(e, McpError::TaskEnded { status: TaskStatus::Cancelled, by_page: true, .. }), "{e:?}");
    assert_eq!(e.layer(), engine::layer::Layer::Cancelled);
    let t = timeline(&trace);
    let ended: Vec<_> = t.tasks().iter().map(|s| (s.status, s.live())).collect();
    assert_eq!(ended, [(TaskStatus::Failed, false), (TaskStatus::Cancelled, false)]);
}

#[tokio::test(flavor = "current_thread")]
async fn hostile_task_servers_are_contained() {
    let server = TasksServer::start(0).await;
    let (c, trace, asked) = client(&server.url());
    c.connect().await.unwrap();

    // A server that asks for input forever: the page stops at its limit and cancels the task.
    let e = c.call_tool("flooding_job", json!({}), &RequestOptions::default()).await.unwrap_err();
    assert!(e.to_string().contains("more than 16 times"), "{e}");
    assert_eq!(asked.borrow().len(), engine::mcp::MAX_INPUT_REQUESTS);
    assert!(server.methods().contains(&"tasks/cancel".to_owned()));

    // A server that suggests polling every millisecond is polled at most every 250 ms.
    let before = server.methods().iter().filter(|m| *m == "tasks/get").count();
    let r = c.call_tool("tiny_poll_job", json!({}), &RequestOptions::default()).await.unwrap();
    assert_eq!(text(&r), "done");
    let polls = server.methods().iter().filter(|m| *m == "tasks/get").count() - before;
    assert!((5..=8).contains(&polls), "1.5 s at one poll per 250 ms, not per 1 ms: {polls}");

    // A server that answers about another task: refused, and the bar on the timeline ends.
    let e = c.call_tool("wrong_id_job", json!({}), &RequestOptions::default()).await.unwrap_err();
    assert!(e.to_string().contains("answered about task someone-else"), "{e}");
    let t = timeline(&trace);
    assert!(t.tasks().iter().all(|s| !s.live()), "no bar is left open");
}

/// A page reload in the middle of a task: the turn that followed it is dropped (no
/// `tasks/cancel` goes out), the task book holds its id, and a new connection follows it on from
/// `tasks/get` to its result. An id the server does not know is refused at once.
#[tokio::test(flavor = "current_thread")]
async fn a_task_is_followed_on_after_a_reload_from_the_id_the_task_book_kept() {
    use engine::mcp::TaskChange;
    let server = TasksServer::start(0).await;
    let (before, _, _) = client(&server.url());
    before.connect().await.unwrap();
    let book: Rc<RefCell<Vec<TaskChange>>> = Rc::default();
    let kept = book.clone();
    before.keep_task_book(Rc::new(move |c| kept.borrow_mut().push(c)));
    let opts = RequestOptions { trace_link: Some("toolu_1".into()), ..RequestOptions::default() };
    {
        let call = before.call_tool("slow_report", json!({ "steps": 4 }), &opts).fuse();
        let reload = tokio::time::sleep(std::time::Duration::from_millis(700)).fuse();
        futures::pin_mut!(call, reload);
        futures::select! {
            _ = call => panic!("the report takes 1.6 s"),
            _ = reload => {}
        }
    }
    let followed = book.borrow().clone();
    let [TaskChange::Followed { task_id, tool_use_id }] = followed.as_slice() else { panic!("{followed:?}") };
    assert_eq!(tool_use_id.as_deref(), Some("toolu_1"));
    assert!(!server.methods().iter().any(|m| m.starts_with("tasks/cancel")), "a reload cancels nothing");

    let (after, trace, _) = client(&server.url());
    after.connect().await.unwrap();
    let r = after.resume_task(task_id, tool_use_id.clone()).await.unwrap();
    assert_eq!(text(&r), "Report ready after 4 steps");
    let seen = statuses(&trace);
    assert_eq!(seen.first().map(|(s, _)| *s), Some(TaskStatus::Working), "{seen:?}");
    assert_eq!(seen.last().map(|(s, _)| *s), Some(TaskStatus::Completed), "{seen:?}");
    let timeline = timeline(&trace);
    assert!(
        timeline.rows().iter().any(|r| r.label.ends_with("followed on after a reload")),
        "the timeline says where the task's bar begins"
    );
    let (ok, said) = engine::mcp::resumed_outcome(task_id, "tasks", &Ok(r));
    assert!(ok && said.contains("completed: \"Report ready after 4 steps\""), "{said}");

    let unknown = after.resume_task("no-such-task", None).await.unwrap_err();
    assert!(matches!(unknown, McpError::Rpc(_)), "{unknown}");
    assert!(unknown.to_string().contains("Unknown task"), "the server's own words: {unknown}");
    assert!(after.live_tasks().is_empty());
}
