//! A 2026-07-28 MCP server with the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663),
//! written from the extension's text: no official SDK serves it yet. Every `tools/call` of a task
//! tool answers `resultType: "task"` when the request declares the extension (else -32021 with
//! `requiredCapabilities`); `tasks/get` answers the DetailedTask, its status worked out from the
//! time since creation; `tasks/update` takes answers to `inputRequests`; `tasks/cancel` is
//! acknowledged and the task ends `cancelled`. The task methods need `Mcp-Name` = the task id.
//!
//! | tool | what its task does |
//! |---|---|
//! | `quick_answer` | no task: answers at once |
//! | `slow_report` | works for `steps` × 400 ms, a status message per step, then completes |
//! | `confirm_deploy` | asks for input (an elicitation form), then completes with the answer |
//! | `failing_build` | works for 600 ms, then fails with JSON-RPC error -32603 |
//! | `endless_job` | works until cancelled |
//! | `flooding_job` | asks for new input on every poll (a hostile server) |
//! | `tiny_poll_job` | suggests polling every 1 ms (a hostile server), completes after 1.5 s |
//! | `wrong_id_job` | `tasks/get` answers about another task (a hostile server) |

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Response, Uri};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::http::{Log, Recorded, Serving, allow_cors, json, preflight, record, response, serve};

pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const STEP_MS: u128 = 400;

struct TaskState {
    tool: String,
    steps: u128,
    created: Instant,
    /// When the task was answered (input) or cancelled.
    answered: Option<(Instant, Value)>,
    cancelled: bool,
    polls: u32,
}

#[derive(Default)]
struct Inner {
    log: Log,
    tasks: Mutex<HashMap<String, TaskState>>,
    next: Mutex<u32>,
}

/// The running server. Dropping it stops it.
pub struct TasksServer {
    inner: Arc<Inner>,
    serving: Serving,
}

impl TasksServer {
    /// Starts on 127.0.0.1:`port` (0: any free port) in the current tokio runtime.
    pub async fn start(port: u16) -> Self {
        let inner = Arc::new(Inner::default());
        let router = Router::new().fallback(handle).with_state(inner.clone());
        TasksServer { inner, serving: serve(router, port).await }
    }

    pub fn url(&self) -> String {
        format!("{}/mcp", self.serving.base())
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.log.lock().unwrap().clone()
    }

    /// The JSON-RPC methods received, in order.
    pub fn methods(&self) -> Vec<String> {
        self.requests().iter().filter_map(Recorded::rpc_method).collect()
    }
}

fn rpc_error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({ "code": code, "message": message });
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({ "jsonrpc": "2.0", "id": id, "error": error })
}

fn result(id: &Value, mut result: Value) -> Value {
    if result.get("resultType").is_none() {
        result["resultType"] = json!("complete");
    }
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn text(s: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": s }] })
}

fn tool(name: &str, description: &str, properties: Value) -> Value {
    json!({ "name": name, "description": description, "inputSchema": { "type": "object", "properties": properties } })
}

fn tools() -> Value {
    json!([
        tool("quick_answer", "Answers at once, without a task.", json!({})),
        tool(
            "slow_report",
            "Writes a report in steps, as a task (400 ms a step).",
            json!({ "steps": { "type": "integer" } })
        ),
        tool("confirm_deploy", "Deploys after asking the user to confirm, as a task.", json!({})),
        tool("failing_build", "Starts a build that fails, as a task.", json!({})),
        tool("endless_job", "Works until it is cancelled, as a task.", json!({})),
        tool("flooding_job", "Asks for new input on every poll.", json!({})),
        tool("tiny_poll_job", "Suggests polling every millisecond.", json!({})),
        tool("wrong_id_job", "Answers polls about another task.", json!({})),
    ])
}

const TASK_TOOLS: [&str; 7] =
    ["slow_report", "confirm_deploy", "failing_build", "endless_job", "flooding_job", "tiny_poll_job", "wrong_id_job"];

/// The DetailedTask as `tasks/get` shows it now (and counts the poll).
fn detailed(id: &str, t: &mut TaskState) -> Value {
    t.polls += 1;
    let ms = t.created.elapsed().as_millis();
    let poll = if t.tool == "tiny_poll_job" { 1 } else { 300 };
    let mut task = json!({
        "taskId": id, "createdAt": "2026-12-06T00:00:00Z", "lastUpdatedAt": "2026-12-06T00:00:00Z",
        "ttlMs": 60000, "pollIntervalMs": poll, "status": "working",
    });
    let mut set = |status: &str, extra: Value| {
        task["status"] = json!(status);
        if let Value::Object(m) = extra {
            for (k, v) in m {
                task[k] = v;
            }
        }
    };
    if t.cancelled {
        set("cancelled", json!({ "statusMessage": "cancelled at the requestor's asking" }));
        return task;
    }
    match t.tool.as_str() {
        "slow_report" if ms >= t.steps * STEP_MS => {
            set("completed", json!({ "result": text(&format!("Report ready after {} steps", t.steps)) }))
        }
        "slow_report" => {
            set("working", json!({ "statusMessage": format!("step {} of {}", ms / STEP_MS + 1, t.steps) }))
        }
        "confirm_deploy" => match &t.answered {
            None => set(
                "input_required",
                json!({ "statusMessage": "waiting for the user", "inputRequests": { "confirm-1": {
                    "method": "elicitation/create",
                    "params": { "mode": "form", "message": "Deploy build 42 to production?",
                        "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean", "title": "Go ahead" } }, "required": ["ok"] } }
                } } }),
            ),
            Some((at, answer)) if at.elapsed().as_millis() >= STEP_MS => {
                set("completed", json!({ "result": text(&format!("Deployed. The user answered: {answer}")) }))
            }
            Some(_) => set("working", json!({ "statusMessage": "deploying" })),
        },
        "failing_build" if ms >= 600 => set(
            "failed",
            json!({ "statusMessage": "the build farm is offline", "error": { "code": -32603, "message": "the build farm is offline" } }),
        ),
        "failing_build" => set("working", json!({ "statusMessage": "compiling" })),
        "flooding_job" => {
            let key = format!("q{}", t.polls);
            set(
                "input_required",
                json!({ "inputRequests": { key: { "method": "elicitation/create", "params": { "mode": "form", "message": "One more question?", "requestedSchema": { "type": "object", "properties": {} } } } } }),
            )
        }
        "tiny_poll_job" if ms >= 1500 => set("completed", json!({ "result": text("done") })),
        "wrong_id_job" if t.polls > 1 => task["taskId"] = json!("someone-else"),
        _ => set("working", json!({ "statusMessage": "working" })),
    }
    task
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    record(&inner.log, method.as_str(), uri.path(), &headers, &body);
    let mut r = answer(&inner, &method, &headers, &body);
    allow_cors(r.headers_mut());
    r
}

fn answer(inner: &Inner, method: &Method, headers: &HeaderMap, body: &[u8]) -> Response<Body> {
    if *method == Method::OPTIONS {
        return preflight();
    }
    if *method != Method::POST {
        return response(405, "text/plain", "Method Not Allowed");
    }
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let Ok(msg) = serde_json::from_slice::<Value>(body) else {
        return json(400, &rpc_error(&Value::Null, -32700, "Parse error", None));
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let rpc_method = msg.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
    let params = msg.get("params").cloned().unwrap_or(json!({}));
    if rpc_method == "initialize" {
        return json(
            400,
            &rpc_error(&id, -32022, "Unsupported protocol version", Some(json!({ "supported": ["2026-07-28"] }))),
        );
    }
    let meta = params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str);
    if header("mcp-protocol-version").as_deref() != Some("2026-07-28") || meta != Some("2026-07-28") {
        return json(
            400,
            &rpc_error(&id, -32022, "Unsupported protocol version", Some(json!({ "supported": ["2026-07-28"] }))),
        );
    }
    if header("mcp-method").as_deref() != Some(rpc_method.as_str()) {
        return json(400, &rpc_error(&id, -32020, "Header mismatch: Mcp-Method", None));
    }
    let declared = params
        .pointer("/_meta/io.modelcontextprotocol~1clientCapabilities/extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some();
    let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("").to_owned();
    if rpc_method.starts_with("tasks/") {
        if !declared {
            return json(200, &rpc_error(&id, -32021, "The tasks extension is required", None));
        }
        if header("mcp-name").as_deref() != Some(task_id.as_str()) {
            return json(400, &rpc_error(&id, -32020, "Header mismatch: Mcp-Name", None));
        }
    }
    let mut tasks = inner.tasks.lock().unwrap();
    let unknown = || json(200, &rpc_error(&id, -32602, "Unknown task", None));
    let reply = match rpc_method.as_str() {
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": { "tools": {}, "extensions": { EXTENSION: {} } },
            "serverInfo": { "name": "tasks-fixture", "version": "1.0.0" },
        }),
        "tools/list" => json!({ "tools": tools() }),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            if name == "quick_answer" {
                text("right away")
            } else if TASK_TOOLS.contains(&name) {
                if !declared {
                    let data = json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } });
                    return json(200, &rpc_error(&id, -32021, "This tool runs only as a task", Some(data)));
                }
                let mut next = inner.next.lock().unwrap();
                *next += 1;
                let task_id = format!("task-{}-{:04x}", *next, (*next * 7919) & 0xffff);
                let steps =
                    params.pointer("/arguments/steps").and_then(Value::as_u64).unwrap_or(4).clamp(1, 20) as u128;
                tasks.insert(
                    task_id.clone(),
                    TaskState {
                        tool: name.into(),
                        steps,
                        created: Instant::now(),
                        answered: None,
                        cancelled: false,
                        polls: 0,
                    },
                );
                let poll = if name == "tiny_poll_job" { 1 } else { 300 };
                json!({ "resultType": "task", "taskId": task_id, "status": "working", "createdAt": "2026-12-06T00:00:00Z",
                    "lastUpdatedAt": "2026-12-06T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": poll })
            } else {
                return json(200, &rpc_error(&id, -32602, &format!("Unknown tool {name}"), None));
            }
        }
        "tasks/get" => match tasks.get_mut(&task_id) {
            Some(t) => detailed(&task_id, t),
            None => return unknown(),
        },
        "tasks/update" => match tasks.get_mut(&task_id) {
            Some(t) => {
                let answer = params.pointer("/inputResponses/confirm-1/content").cloned().unwrap_or(Value::Null);
                t.answered = Some((Instant::now(), answer));
                json!({})
            }
            None => return unknown(),
        },
        "tasks/cancel" => match tasks.get_mut(&task_id) {
            Some(t) => {
                t.cancelled = true;
                json!({})
            }
            None => return unknown(),
        },
        "tasks/result" | "tasks/list" => return json(200, &rpc_error(&id, -32601, "Method not found", None)),
        _ if id.is_null() => return response(202, "", Body::empty()),
        other => return json(200, &rpc_error(&id, -32601, &format!("Method not found: {other}"), None)),
    };
    json(200, &result(&id, reply))
}
