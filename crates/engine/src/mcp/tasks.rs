//! Tasks: a `tools/call` the server turns into background work, followed by the page until it
//! ends. Both eras: the experimental tasks of 2025-11-25 (the page asks with `params.task`,
//! reads the result with the blocking `tasks/result`, and lets the server ask for input on that
//! request's stream) and the 2026 extension `io.modelcontextprotocol/tasks` (declared on every
//! request; the result and any `inputRequests` arrive in `tasks/get`; answers go back with
//! `tasks/update`). Everything the server says about a task is data: its poll interval is
//! clamped, its lifetime capped, its input requests counted and de-duplicated, its ids checked.

use futures::future::LocalBoxFuture;
use futures::{FutureExt, pin_mut, select_biased};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

use super::api::decode;
use super::{McpClient, McpError, RequestOptions};
use crate::cancel::CancelToken;
use crate::platform::Platform;
use crate::trace::TraceKind;
use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{CallToolResult, TASKS_EXTENSION, Task, TaskStatus, method};

/// The fastest the page polls, whatever the server suggests.
pub const MIN_POLL_MS: u64 = 250;
/// The slowest: a server cannot park the page for hours between polls.
pub const MAX_POLL_MS: u64 = 30_000;
/// When the server suggests nothing.
const DEFAULT_POLL_MS: u64 = 1_000;
/// How long the page follows one task at most, whatever its ttl says.
pub const MAX_TASK_MS: u64 = 30 * 60_000;
/// Polls of one task at most (the fastest rate for the longest time, with room to spare).
const MAX_POLLS: u64 = MAX_TASK_MS / MIN_POLL_MS + 10;
/// After asking to cancel, polls that wait for the server to say how the task ended.
const CANCEL_POLLS: u32 = 10;
/// The lifetime the page asks for in 2025-11-25 (the server may grant less).
const ASKED_TTL_MS: u64 = 10 * 60_000;
/// Input requests one task may make in its life (each opens a dialog for the user).
pub const MAX_INPUT_REQUESTS: usize = 16;
/// A task id longer than this is refused: it is echoed in headers, the timeline and storage.
pub(super) const MAX_ID_CHARS: usize = 256;

/// Which tasks a server speaks for `tools/call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEra {
    /// 2025-11-25, `capabilities.tasks.requests.tools.call`.
    Experimental,
    /// The 2026 extension, declared in `server/discover`.
    Extension,
}

/// How waiting between two polls ended.
enum Wake {
    Poll,
    CancelTask,
    StopTurn,
}

fn poll_ms(task: &Task) -> u64 {
    task.poll_interval
        .filter(|ms| ms.is_finite())
        .map_or(DEFAULT_POLL_MS, |ms| (ms.max(0.0) as u64).clamp(MIN_POLL_MS, MAX_POLL_MS))
}

pub(super) fn decode_task(v: Value, asked: Option<&str>) -> Result<Task, McpError> {
    let task = Task::read(&v)
        .map_err(|e| McpError::Decode { reason: format!("not a valid task: {e}"), raw: v.to_string() })?;
    if task.task_id.is_empty() || task.task_id.chars().count() > MAX_ID_CHARS {
        return Err(McpError::Decode {
            reason: format!("the task id is empty or longer than {MAX_ID_CHARS} characters"),
            raw: v.to_string(),
        });
    }
    if let Some(asked) = asked.filter(|a| *a != task.task_id) {
        return Err(McpError::Decode {
            reason: format!("asked about task {asked}, the server answered about task {}", task.task_id),
            raw: v.to_string(),
        });
    }
    Ok(task)
}

/// What following a task needs from its connection. Object-safe, so the follower below is
/// compiled once rather than once per platform the client is built for (the page has two: the
/// browser, and the demo server's; docs/size.md).
pub(super) trait TaskLink {
    fn rpc<'a>(&'a self, rpc_method: &'static str, params: Value, opts: &'a RequestOptions) -> Rpc<'a>;
    fn fulfil<'a>(&'a self, requests: &'a Value) -> LocalBoxFuture<'a, Map<String, Value>>;
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'_, ()>;
    fn now_ms(&self) -> f64;
    fn emit(&self, kind: TraceKind);
}

type Rpc<'a> = LocalBoxFuture<'a, Result<Value, McpError>>;

impl<P: Platform> TaskLink for McpClient<P> {
    fn rpc<'a>(&'a self, rpc_method: &'static str, params: Value, opts: &'a RequestOptions) -> Rpc<'a> {
        self.send_request(rpc_method, Some(params), opts, None).boxed_local()
    }
    fn fulfil<'a>(&'a self, requests: &'a Value) -> LocalBoxFuture<'a, Map<String, Value>> {
        McpClient::fulfil(self, Some(requests)).boxed_local()
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        self.platform.sleep(ms).boxed_local()
    }
    fn now_ms(&self) -> f64 {
        self.platform.now_ms()
    }
    fn emit(&self, kind: TraceKind) {
        self.tracer.emit(self.peer(), kind)
    }
}

impl<P: Platform> McpClient<P> {
    /// The tasks this connection speaks for `tools/call`, if any.
    pub fn task_era(&self) -> Option<TaskEra> {
        let s = self.session.borrow();
        let caps = &s.info.as_ref()?.capabilities;
        if s.modern.is_some() {
            caps.extension(TASKS_EXTENSION).map(|_| TaskEra::Extension)
        } else {
            let calls = caps.tasks.as_ref().and_then(|t| t.pointer("/requests/tools/call"));
            (s.version.as_deref() == Some("2025-11-25") && calls.is_some()).then_some(TaskEra::Experimental)
        }
    }

    /// What a `tools/call` of `tool` adds to ask for a task: only in 2025-11-25, only for a tool
    /// that allows one (in the extension, the server alone decides).
    pub(super) fn task_request(&self, tool: &str) -> Option<Value> {
        (self.task_era() == Some(TaskEra::Experimental) && self.task_tools.borrow().contains(tool))
            .then(|| json!({ "ttl": ASKED_TTL_MS }))
    }

    /// Asks the server to cancel a task the page is following (the user's Cancel on its bar).
    /// Returns false if no such task is being followed.
    pub fn cancel_task(&self, task_id: &str) -> bool {
        match self.live_tasks.borrow().get(task_id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// The ids of the tasks being followed right now.
    pub fn live_tasks(&self) -> Vec<String> {
        self.live_tasks.borrow().keys().cloned().collect()
    }

    /// Follows the task a `tools/call` created to its end; its result is the call's result.
    pub(super) async fn follow_task(&self, created: Value, opts: &RequestOptions) -> Result<CallToolResult, McpError> {
        let task = decode_task(created, None)?;
        self.follow_known(task, false, opts).await
    }

    /// Follows `task` (as created, or as `tasks/get` described it after a reload: `resumed`) to
    /// its end, telling the task book when it starts and stops being followed.
    pub(super) async fn follow_known(
        &self,
        task: Task,
        resumed: bool,
        opts: &RequestOptions,
    ) -> Result<CallToolResult, McpError> {
        let era = self.task_era().unwrap_or(TaskEra::Extension);
        let own = CancelToken::new();
        let id = task.task_id.clone();
        self.live_tasks.borrow_mut().insert(id.clone(), own.clone());
        self.task_changed(super::TaskChange::Followed { task_id: id.clone(), tool_use_id: opts.trace_link.clone() });
        let outcome = follow_task(self, era, (task, resumed), own, opts).await;
        self.live_tasks.borrow_mut().remove(&id);
        self.task_changed(super::TaskChange::Ended { task_id: id });
        outcome
    }
}

/// The follower: one task, from created to ended, over its connection.
struct Follower<'a> {
    link: &'a dyn TaskLink,
    era: TaskEra,
    task: Task,
    /// Fired by the user's Cancel on this task.
    own: CancelToken,
    /// Fired when the user stops the whole turn.
    turn: CancelToken,
    opts: &'a RequestOptions,
    /// The polls' own options: cancelled with the turn, not linked to the tool_use.
    polls: RequestOptions,
    /// Followed on after a page reload (`resume.rs`).
    resumed: bool,
}

fn follow_task<'a>(
    link: &'a dyn TaskLink,
    era: TaskEra,
    (task, resumed): (Task, bool),
    own: CancelToken,
    opts: &'a RequestOptions,
) -> LocalBoxFuture<'a, Result<CallToolResult, McpError>> {
    let turn = opts.cancel.clone().unwrap_or_default();
    let polls = RequestOptions { cancel: Some(turn.clone()), ..RequestOptions::default() };
    let mut f = Follower { link, era, task, own, turn, opts, polls, resumed };
    async move {
        let outcome = f.follow().await;
        // The bar on the timeline ends here too when the task did not.
        if let Err(e) = &outcome
            && !f.task.status.is_terminal()
        {
            f.emit(Some(format!("the page stopped following it: {e}")), false);
        }
        outcome
    }
    .boxed_local()
}

impl Follower<'_> {
    /// The task's status on the timeline; `polled`: the page goes on polling it.
    fn emit(&self, message: Option<String>, polled: bool) {
        self.link.emit(TraceKind::Task {
            task_id: self.task.task_id.clone(),
            status: self.task.status,
            message,
            tool_use_id: self.opts.trace_link.clone(),
            poll_ms: polled.then(|| poll_ms(&self.task)),
            resumed: self.resumed,
        });
    }

    fn rpc(&self, rpc_method: &'static str, params: Value) -> Rpc<'_> {
        self.link.rpc(rpc_method, params, &self.polls)
    }

    fn id_params(&self) -> Value {
        json!({ "taskId": self.task.task_id })
    }

    async fn follow(&mut self) -> Result<CallToolResult, McpError> {
        let id = self.task.task_id.clone();
        let started = self.link.now_ms();
        let limit_ms =
            self.task.ttl.filter(|t| t.is_finite() && *t > 0.0).map_or(MAX_TASK_MS, |t| (t as u64).min(MAX_TASK_MS));
        let mut answered: HashSet<String> = HashSet::new();
        let mut cancel_asked: Option<u32> = None;
        let mut last: Option<(TaskStatus, Option<String>)> = None;
        for _ in 0..MAX_POLLS {
            let now = (self.task.status, self.task.status_message.clone());
            if last.as_ref() != Some(&now) {
                self.emit(now.1.clone(), !now.0.is_terminal());
                last = Some(now);
            }
            if self.task.status.is_terminal() {
                return self.finish(cancel_asked.is_some()).await;
            }
            if self.task.status == TaskStatus::InputRequired {
                match self.era {
                    // 2025-11-25: the server asks on the stream of a `tasks/result`, which
                    // blocks until the task ends.
                    TaskEra::Experimental if cancel_asked.is_none() => {
                        match self.blocking_result(started, limit_ms).await {
                            Err(McpError::Cancelled) if self.turn.is_cancelled() => {
                                self.cancel_on_server().await;
                                return Err(McpError::Cancelled);
                            }
                            // The user's Cancel on the task: asked for below, then polled.
                            Err(McpError::Cancelled) => {}
                            Err(e) => return Err(e),
                            Ok(result) => {
                                self.settle().await;
                                return Ok(result);
                            }
                        }
                    }
                    TaskEra::Experimental => {}
                    TaskEra::Extension => self.answer_inputs(&mut answered).await?,
                }
            }
            let elapsed = self.link.now_ms() - started;
            if elapsed >= limit_ms as f64 {
                self.cancel_on_server().await;
                return Err(McpError::Timeout { after_ms: elapsed as u64 });
            }
            let wait = poll_ms(&self.task).min((limit_ms as f64 - elapsed).max(0.0) as u64);
            match self.wait(wait, cancel_asked.is_none()).await {
                Wake::StopTurn => {
                    self.cancel_on_server().await;
                    return Err(McpError::Cancelled);
                }
                Wake::CancelTask => {
                    self.cancel_on_server().await;
                    cancel_asked = Some(0);
                }
                Wake::Poll => {}
            }
            if let Some(n) = cancel_asked.as_mut() {
                *n += 1;
                if *n > CANCEL_POLLS {
                    let status = self.task.status.as_str();
                    return Err(McpError::TaskEnded {
                        task_id: id,
                        status: self.task.status,
                        message: Some(format!("still {status} {CANCEL_POLLS} polls after the page asked to cancel it")),
                        by_page: true,
                    });
                }
            }
            let got = self.rpc(method::TASKS_GET, self.id_params()).await?;
            self.task = decode_task(got, Some(&id))?;
        }
        self.cancel_on_server().await;
        Err(McpError::Client(format!("task {id}: gave up after {MAX_POLLS} polls")))
    }

    /// Sleeps until the next poll, unless the user cancels the task or stops the turn first.
    async fn wait(&self, ms: u64, may_cancel: bool) -> Wake {
        let sleep = self.link.sleep(ms).fuse();
        let stop = self.turn.cancelled().fuse();
        let never = CancelToken::new();
        let cancel = if may_cancel { self.own.cancelled() } else { never.cancelled() }.fuse();
        pin_mut!(sleep, stop, cancel);
        select_biased! {
            _ = stop => Wake::StopTurn,
            _ = cancel => Wake::CancelTask,
            _ = sleep => Wake::Poll,
        }
    }

    /// `tasks/cancel`, best effort: the task may still end otherwise, which the next polls show.
    async fn cancel_on_server(&self) {
        let opts = RequestOptions { timeout_ms: Some(10_000), ..RequestOptions::default() };
        if let Err(e) = self.link.rpc(method::TASKS_CANCEL, self.id_params(), &opts).await {
            self.link
                .emit(TraceKind::Note { text: format!("tasks/cancel for task {} failed: {e}", self.task.task_id) });
        }
    }

    /// 2025-11-25: `tasks/result`, which the server answers when the task ends; meanwhile it
    /// may ask for input on the same stream. The user's Cancel ends the wait.
    async fn blocking_result(&self, started: f64, limit_ms: u64) -> Result<CallToolResult, McpError> {
        let left = (limit_ms as f64 - (self.link.now_ms() - started)).max(1_000.0) as u64;
        let opts =
            RequestOptions { cancel: Some(self.own.clone()), timeout_ms: Some(left), ..RequestOptions::default() };
        let result = self.link.rpc(method::TASKS_RESULT, self.id_params(), &opts).fuse();
        let stop = self.turn.cancelled().fuse();
        pin_mut!(result, stop);
        let result = select_biased! {
            r = result => r,
            _ = stop => {
                self.own.cancel();
                result.await
            }
        };
        decode(result?, "CallToolResult")
    }

    /// After `tasks/result` answered: one more `tasks/get`, so the timeline shows how the task
    /// ended (its bar closes either way).
    async fn settle(&mut self) {
        let got = self.rpc(method::TASKS_GET, self.id_params()).await;
        match got.map(|v| decode_task(v, Some(&self.task.task_id))) {
            Ok(Ok(now)) if now.status.is_terminal() => {
                self.task = now;
                self.emit(self.task.status_message.clone(), false);
            }
            _ => self.emit(Some("its result arrived with tasks/result".into()), false),
        }
    }

    /// The extension: answers the input requests this poll shows that no earlier poll did.
    async fn answer_inputs(&self, answered: &mut HashSet<String>) -> Result<(), McpError> {
        let Some(requests) = &self.task.input_requests else { return Ok(()) };
        let fresh: Map<String, Value> =
            requests.iter().filter(|(k, _)| !answered.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        if fresh.is_empty() {
            return Ok(());
        }
        if answered.len() + fresh.len() > MAX_INPUT_REQUESTS {
            self.cancel_on_server().await;
            return Err(McpError::Client(format!(
                "task {} asked for input more than {MAX_INPUT_REQUESTS} times; the page stopped answering and cancelled it",
                self.task.task_id
            )));
        }
        answered.extend(fresh.keys().cloned());
        let responses = self.link.fulfil(&Value::Object(fresh)).await;
        if !responses.is_empty() {
            let params = json!({ "taskId": self.task.task_id, "inputResponses": responses });
            self.link.rpc(method::TASKS_UPDATE, params, &RequestOptions::default()).await?;
        }
        Ok(())
    }

    /// What an ended task gives the call: its result, its error, or why there is none.
    async fn finish(&self, cancel_asked: bool) -> Result<CallToolResult, McpError> {
        let task = &self.task;
        let ended = || McpError::TaskEnded {
            task_id: task.task_id.clone(),
            status: task.status,
            message: task.status_message.clone(),
            by_page: cancel_asked,
        };
        match (self.era, task.status) {
            (_, TaskStatus::Cancelled) => Err(ended()),
            (TaskEra::Experimental, _) => {
                let got = self.link.rpc(method::TASKS_RESULT, self.id_params(), &RequestOptions::default()).await;
                decode(got?, "CallToolResult")
            }
            (TaskEra::Extension, TaskStatus::Completed) => match &task.result {
                Some(result) => decode(result.clone(), "CallToolResult"),
                None => Err(McpError::Decode {
                    reason: format!("task {} completed without a result", task.task_id),
                    raw: String::new(),
                }),
            },
            (TaskEra::Extension, _) => match task.error.as_ref().and_then(ErrorObject::read) {
                Some(error) => Err(McpError::Rpc(error)),
                None => Err(ended()),
            },
        }
    }
}
