//! Tasks: a `tools/call` the server runs in the background and the requestor polls. Two eras
//! with one shape here: the experimental tasks of 2025-11-25 (`capabilities.tasks`, `ttl`,
//! `pollInterval`, `tasks/result`) and the 2026 extension `io.modelcontextprotocol/tasks`
//! (`resultType: "task"`, `ttlMs`, `pollIntervalMs`, results inlined in `tasks/get`,
//! `tasks/update` for input). Field aliases read both; nothing here decides which era speaks.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ReadError;

/// The 2026 tasks extension's identifier (SEP-2663).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is in its life. `Completed`, `Failed` and `Cancelled` are terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// As the specification writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// A task as `tools/call` (when it creates one), `tasks/get` and the status notifications
/// carry it, in either era. Read by hand from the JSON value (a derived reader costs the page
/// about 6 KB; docs/size.md); only the fields the client acts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub task_id: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    /// Milliseconds the server keeps the task after creation (`ttl` in 2025-11-25, `ttlMs`
    /// later); `null` or absent means no limit given.
    pub ttl: Option<f64>,
    /// How often the server suggests polling, in milliseconds (`pollInterval`/`pollIntervalMs`).
    pub poll_interval: Option<f64>,
    /// 2026 extension, `input_required`: what the server asks, by key (`{method, params}`).
    pub input_requests: Option<Map<String, Value>>,
    /// 2026 extension, `completed`: the tool's result, inlined.
    pub result: Option<Value>,
    /// 2026 extension, `failed`: the JSON-RPC error the request ended with.
    pub error: Option<Value>,
}

impl Task {
    pub fn read(v: &Value) -> Result<Self, ReadError> {
        let number = |a: &str, b: &str| v.get(a).or_else(|| v.get(b)).and_then(Value::as_f64);
        let status = v.get("status").and_then(Value::as_str);
        Ok(Self {
            task_id: v.get("taskId").and_then(Value::as_str).ok_or(ReadError::Missing("taskId"))?.to_owned(),
            status: TaskStatus::ALL
                .into_iter()
                .find(|s| Some(s.as_str()) == status)
                .ok_or(ReadError::Missing("status"))?,
            status_message: v.get("statusMessage").and_then(Value::as_str).map(str::to_owned),
            ttl: number("ttl", "ttlMs"),
            poll_interval: number("pollInterval", "pollIntervalMs"),
            input_requests: v.get("inputRequests").and_then(Value::as_object).cloned(),
            result: v.get("result").cloned(),
            error: v.get("error").cloned(),
        })
    }
}

/// The task a `tools/call` result creates, if it created one: `{"task": {…}}` in 2025-11-25,
/// a flat `resultType: "task"` in the 2026 extension.
pub fn created_task(result: &Value) -> Option<Value> {
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return Some(result.clone());
    }
    match result.get("task") {
        Some(task @ Value::Object(_)) if result.get("content").is_none() => Some(task.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_eras_read_into_one_task() {
        let legacy = json!({"task": {"taskId": "t1", "status": "working", "ttl": 60000, "pollInterval": 500}});
        let task = Task::read(&created_task(&legacy).unwrap()).unwrap();
        assert_eq!((task.ttl, task.poll_interval), (Some(60000.0), Some(500.0)));

        let modern =
            json!({"resultType": "task", "taskId": "t2", "status": "working", "ttlMs": null, "pollIntervalMs": 5000});
        let task = Task::read(&created_task(&modern).unwrap()).unwrap();
        assert_eq!((task.task_id.as_str(), task.ttl, task.poll_interval), ("t2", None, Some(5000.0)));

        let plain = json!({"content": [], "task": {"taskId": "x"}});
        assert!(created_task(&plain).is_none(), "a tool result that mentions a task is still a result");
        assert_eq!(Task::read(&json!({"taskId": "t", "status": "sleeping"})), Err(ReadError::Missing("status")));
        assert_eq!(Task::read(&json!({"status": "working"})), Err(ReadError::Missing("taskId")));
    }
}
