//! A strict fake of the Claude Messages API, scripted per API key.
//!
//! It validates like the real API (headers, required fields, tool name and schema rules,
//! tool_use/tool_result pairing) and answers with the same status codes and error bodies, then
//! plays the next scripted step for the request's `x-api-key` as a real event stream
//! (`message_start` … `message_stop`, tool input split into `input_json_delta` chunks).
//!
//! Steps are JSON (so browser tests can script over HTTP with `POST /_fake/script`):
//! - `{"reply": {"content": [{"text": "…"} | {"tool_use": {"name", "input", "id"?}} | {"thinking": "…"}
//!   | {"redacted_thinking": "opaque data"}],
//!   "stop_reason"?: "end_turn", "event_delay_ms"?: 0, "stop_details"?: …}}`
//!   | {"server_tool_use": {"name", "input", "id"?}} | {"server_tool_result": <the whole result block>}
//!   | {"mcp_tool_use": {"server_name", "name", "input"}} (the MCP connector: `fake_connector.rs`
//!   makes the call for real and streams `mcp_tool_use` and `mcp_tool_result`)
//!   (a `tool_use` with `"caller": "srvtoolu_…"` is made by code; `"container": "container_…"` on
//!   the reply names the code execution container in `message_delta`)
//! - `{"summarize": {}}`: a text reply that quotes every tool_result of the last user message.
//! - `{"max_tokens_mid_tool_use": {"text"?: "…", "name": "…", "partial": "{\"te"}}`
//! - `{"error": {"status": 429, "type": "rate_limit_error", "message": "…", "headers": {"retry-after": "1"}}}`
//! - `{"stream_error": {"text": "partial", "tool_use"?: {"name", "partial"}, "type": "overloaded_error", "message": "Overloaded"}}`
//!   (with `tool_use`, the error comes while Claude is writing that call)
//!
//! Thinking follows the request (`fake_thinking.rs`): not played when disabled, text empty when
//! `display` (or the model's default) omits it, signed so that a changed block is refused.
//!
//! With no step left it answers "(fake Claude: nothing scripted)".

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, Response, Uri};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::http::{Chunk, Log, Recorded, Serving, json as json_response, preflight, record, serve, sse};
use crate::prompt_cache::{PromptCache, Usage};
use crate::{fake_connector, fake_models, fake_thinking, fake_tool_fields};

#[derive(Default)]
struct Inner {
    scripts: Mutex<HashMap<String, VecDeque<Value>>>,
    /// Public origins the fake MCP connector reaches at a loopback server (`fake_connector`).
    hosts: Mutex<HashMap<String, String>>,
    cache: Mutex<PromptCache>,
    log: Log,
    counter: AtomicU64,
}

pub struct FakeClaude {
    inner: Arc<Inner>,
    serving: Serving,
}

impl FakeClaude {
    pub async fn start(port: u16) -> Self {
        let inner = Arc::new(Inner::default());
        let router = Router::new().fallback(handle).with_state(inner.clone());
        FakeClaude { inner, serving: serve(router, port).await }
    }

    /// The base URL to put in the client's settings.
    pub fn base_url(&self) -> String {
        self.serving.base()
    }

    /// Appends steps to the script of `key`.
    pub fn script(&self, key: &str, steps: Vec<Value>) {
        self.inner.scripts.lock().unwrap().entry(key.to_owned()).or_default().extend(steps);
    }

    /// Steps of `key` not yet played.
    /// Lets the fake MCP connector reach `origin` (a public one, as the API would) at `target`
    /// (a server on 127.0.0.1).
    pub fn map_host(&self, origin: &str, target: &str) {
        self.inner.hosts.lock().unwrap().insert(origin.to_owned(), target.to_owned());
    }

    pub fn remaining(&self, key: &str) -> usize {
        self.inner.scripts.lock().unwrap().get(key).map_or(0, VecDeque::len)
    }

    /// The Messages API requests made with `key`, in order.
    pub fn requests(&self, key: &str) -> Vec<Recorded> {
        self.inner
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path.starts_with("/v1/") && r.header("x-api-key") == Some(key))
            .cloned()
            .collect()
    }
}

fn api_error(status: u16, kind: &str, message: &str, request_id: &str) -> Response<Body> {
    let mut r = json_response(
        status,
        &json!({ "type": "error", "error": { "type": kind, "message": message }, "request_id": request_id }),
    );
    r.headers_mut().insert("request-id", HeaderValue::from_str(request_id).unwrap());
    r
}

fn cors(headers: &mut HeaderMap) {
    headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    // Only the request id is exposed: a browser client must cope without retry-after.
    headers.insert("access-control-expose-headers", HeaderValue::from_static("request-id"));
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    let path = uri.path().to_owned();
    let mut resp = if method == Method::OPTIONS {
        preflight()
    } else if path == "/_fake/script" && method == Method::POST {
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let key = v.get("key").and_then(Value::as_str).unwrap_or_default().to_owned();
        let steps = v.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
        inner.scripts.lock().unwrap().entry(key).or_default().extend(steps);
        json_response(200, &json!({ "ok": true }))
    } else if path == "/_fake/connector-hosts" && method == Method::POST {
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let mut hosts = inner.hosts.lock().unwrap();
        for (origin, target) in v.as_object().cloned().unwrap_or_default() {
            hosts.insert(origin, target.as_str().unwrap_or_default().to_owned());
        }
        json_response(200, &json!({ "ok": true }))
    } else if path == "/_fake/requests" {
        let key = uri.query().and_then(|q| q.strip_prefix("key=")).unwrap_or_default().to_owned();
        let list: Vec<Value> = inner
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path.starts_with("/v1/") && r.header("x-api-key") == Some(key.as_str()))
            .map(|r| json!({ "path": r.path, "body": r.json() }))
            .collect();
        json_response(200, &Value::Array(list))
    } else {
        record(&inner.log, method.as_str(), &path, &headers, &body);
        messages(&inner, &path, uri.query().unwrap_or_default(), &headers, &body).await
    };
    cors(resp.headers_mut());
    resp
}

async fn messages(inner: &Arc<Inner>, path: &str, query: &str, headers: &HeaderMap, body: &[u8]) -> Response<Body> {
    let n = inner.counter.fetch_add(1, Ordering::Relaxed) + 1;
    let request_id = format!("req_fake_{n:04}");
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if !["/v1/messages", "/v1/messages/count_tokens", "/v1/models"].contains(&path) {
        return api_error(404, "not_found_error", &format!("Not found: {path}"), &request_id);
    }
    // Header rules, in the order the real API applies them.
    if header("origin").is_some() && header("anthropic-dangerous-direct-browser-access") != Some("true") {
        let m = "CORS requests must set 'anthropic-dangerous-direct-browser-access' header";
        return api_error(401, "authentication_error", m, &request_id);
    }
    let Some(key) = header("x-api-key") else {
        return api_error(401, "authentication_error", "x-api-key header is required", &request_id);
    };
    if key == "sk-ant-invalid" {
        return api_error(401, "authentication_error", "invalid x-api-key", &request_id);
    }
    if header("anthropic-version").is_none() {
        return api_error(400, "invalid_request_error", "anthropic-version: header is required", &request_id);
    }
    if path == "/v1/models" {
        let page = if key == fake_models::ENDLESS_KEY { fake_models::endless(query) } else { fake_models::page(query) };
        return with_request_id(json_response(200, &page), &request_id);
    }
    let request: Value = match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return api_error(
                400,
                "invalid_request_error",
                "There was an error parsing the body of your request",
                &request_id,
            );
        }
    };
    if let Err(message) = validate(&request, path.ends_with("count_tokens")) {
        return api_error(400, "invalid_request_error", &message, &request_id);
    }
    if let Err(message) = fake_connector::validate(&request, header("anthropic-beta").unwrap_or("")) {
        return api_error(400, "invalid_request_error", &message, &request_id);
    }
    if path.ends_with("count_tokens") && request.get("mcp_servers").is_some() {
        let m = "count_tokens does not support mcp_servers";
        return api_error(400, "invalid_request_error", m, &request_id);
    }
    if path.ends_with("count_tokens") {
        let estimate = (request["messages"].to_string().len() + request["tools"].to_string().len()) / 4;
        return json_response(200, &json!({ "input_tokens": estimate.max(1) }));
    }
    let key = key.to_owned();
    let usage = match inner.cache.lock().unwrap().account(&key, &request) {
        Ok(usage) => usage,
        Err(message) => return api_error(400, "invalid_request_error", &message, &request_id),
    };
    let step = inner.scripts.lock().unwrap().get_mut(&key).and_then(VecDeque::pop_front);
    let mut step = step.unwrap_or(json!({ "reply": { "content": [{ "text": "(fake Claude: nothing scripted)" }] } }));
    let hosts = inner.hosts.lock().unwrap().clone();
    if let Err(message) = fake_connector::run_calls(&mut step, &request, &hosts, n).await {
        return api_error(400, "invalid_request_error", &message, &request_id);
    }
    play(&step, &request, &request_id, n, usage)
}

/// The server tools the fake knows: a `type` prefix and the name that goes with it.
const SERVER_TOOLS: [(&str, &str); 5] = [
    ("web_search_", "web_search"),
    ("web_fetch_", "web_fetch"),
    ("code_execution_", "code_execution"),
    ("tool_search_tool_regex", "tool_search_tool_regex"),
    ("tool_search_tool_bm25", "tool_search_tool_bm25"),
];

fn name_ok(name: &str, max: usize, extra: &[char]) -> bool {
    !name.is_empty()
        && name.chars().count() <= max
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
}

/// The request rules the real API enforces with a 400.
fn validate(req: &Value, count_only: bool) -> Result<(), String> {
    if !req.get("model").is_some_and(Value::is_string) {
        return Err("model: Field required".into());
    }
    if !count_only {
        match req.get("max_tokens").and_then(Value::as_u64) {
            Some(n) if n >= 1 => {}
            Some(_) => return Err("max_tokens: Input should be greater than or equal to 1".into()),
            None => return Err("max_tokens: Field required".into()),
        }
    }
    let Some(messages) = req.get("messages").and_then(Value::as_array) else {
        return Err("messages: Field required".into());
    };
    let tools = req.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut names = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        // The MCP connector's entries: `fake_connector::validate`.
        if tool["type"] == "mcp_toolset" {
            continue;
        }
        // A tool the API runs itself: its versioned type names it, and it has no schema.
        if let Some(kind) = tool.get("type").and_then(Value::as_str).filter(|k| *k != "custom") {
            let known = SERVER_TOOLS.iter().find(|(prefix, _)| kind.starts_with(prefix));
            match known {
                Some((_, wanted)) if name == *wanted => {}
                Some((_, wanted)) => return Err(format!("tools.{i}.{kind}.name: Input should be '{wanted}'")),
                None => {
                    return Err(format!(
                        "tools.{i}: Input tag '{kind}' found using 'type' does not match any of the expected tags"
                    ));
                }
            }
            if names.contains(&name) {
                return Err("tools: Tool names must be unique.".into());
            }
            names.push(name);
            continue;
        }
        if !name_ok(name, 64, &[]) {
            return Err(format!("tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"));
        }
        if names.contains(&name) {
            return Err("tools: Tool names must be unique.".into());
        }
        names.push(name);
        let schema = tool.get("input_schema").cloned().unwrap_or(Value::Null);
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!("tools.{i}.custom.input_schema.type: Input should be 'object'"));
        }
        if ["oneOf", "anyOf", "allOf"].iter().any(|k| schema.get(*k).is_some()) {
            return Err(format!(
                "tools.{i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"
            ));
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object)
            && let Some(bad) = props.keys().find(|k| !name_ok(k, 64, &['.']))
        {
            return Err(format!(
                "tools.{i}.custom.input_schema.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{{1,64}}$' ({bad:?})"
            ));
        }
    }
    fake_tool_fields::validate(&tools)?;
    // Tool search: the tools it may find are still sent, marked deferred; one must stay loaded.
    let deferred = tools.iter().filter(|t| t["defer_loading"] == true).count();
    let client_tools = tools.iter().filter(|t| t.get("type").is_none_or(|k| k == "custom")).count();
    if deferred > 0 && deferred >= client_tools {
        return Err("At least one tool must have defer_loading=false. All tools cannot be deferred.".into());
    }
    if let Some(bad) = tools
        .iter()
        .find(|t| t["defer_loading"] == true && t["name"].as_str().is_some_and(|n| n.starts_with("tool_search_tool")))
    {
        return Err(format!("tools: the tool search tool {} cannot be deferred", bad["name"]));
    }
    if let Some(choice) = req.get("tool_choice")
        && choice.get("type").and_then(Value::as_str) == Some("tool")
    {
        let wanted = choice.get("name").and_then(Value::as_str).unwrap_or("");
        if !names.contains(&wanted) {
            return Err(format!("tool_choice.name: tool '{wanted}' not found in tools"));
        }
    }
    if messages.is_empty() {
        return Err("messages: at least one message is required".into());
    }
    let blocks = |m: &Value| -> Vec<Value> {
        match m.get("content") {
            Some(Value::String(s)) => vec![json!({ "type": "text", "text": s })],
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        }
    };
    let kind = |b: &Value| b.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if role != "user" && role != "assistant" {
            return Err(format!("messages.{i}.role: Input should be 'user' or 'assistant'"));
        }
        if i == 0 && role != "user" {
            return Err("messages: first message must use the \"user\" role".into());
        }
        let content = blocks(m);
        if content.is_empty() && !(role == "assistant" && i == messages.len() - 1) {
            return Err(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            ));
        }
        let uses: Vec<String> = content
            .iter()
            .filter(|b| kind(b) == "tool_use")
            .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let prev_uses: Vec<String> = if i > 0 && messages[i - 1]["role"] == "assistant" {
            blocks(&messages[i - 1])
                .iter()
                .filter(|b| kind(b) == "tool_use")
                .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect()
        } else {
            Vec::new()
        };
        for (k, b) in content.iter().enumerate() {
            if kind(b) == "tool_result" {
                let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                if role != "user" {
                    return Err(format!(
                        "messages.{i}.content.{k}: tool_result blocks are only allowed in user messages"
                    ));
                }
                if !prev_uses.iter().any(|u| u == id) {
                    return Err(format!(
                        "messages.{i}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    ));
                }
            }
        }
        if role == "user" && !prev_uses.is_empty() {
            let leading: Vec<&str> = content
                .iter()
                .take_while(|b| kind(b) == "tool_result")
                .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
                .collect();
            let missing: Vec<&String> = prev_uses.iter().filter(|u| !leading.contains(&u.as_str())).collect();
            if !missing.is_empty() {
                let all_results: usize = content.iter().filter(|b| kind(b) == "tool_result").count();
                if all_results > leading.len() {
                    return Err(format!(
                        "messages.{i}: Did not find {} tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
                        prev_uses.len()
                    ));
                }
                let ids: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                return Err(format!(
                    "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                    i - 1,
                    ids.join(", ")
                ));
            }
        }
        if role == "assistant" && !uses.is_empty() && i + 1 < messages.len() && messages[i + 1]["role"] != "user" {
            return Err(format!(
                "messages.{}: tool_use blocks must be followed by a user message with tool_result blocks",
                i
            ));
        }
    }
    if let Some(last) = messages.last()
        && last["role"] == "assistant"
        && blocks(last).iter().any(|b| kind(b) == "tool_use")
    {
        return Err(format!(
            "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
            messages.len() - 1
        ));
    }
    // Calls made from code wait in their container: the results must name it (the exact
    // message is not in the docs; this one says what is missing).
    let pending_from_code = messages.len() >= 2
        && messages[messages.len() - 2]["role"] == "assistant"
        && blocks(&messages[messages.len() - 2])
            .iter()
            .any(|b| kind(b) == "tool_use" && b["caller"]["type"].as_str().is_some_and(|t| t != "direct"));
    if pending_from_code && !req.get("container").is_some_and(Value::is_string) {
        return Err("container: Field required when returning results for tool calls made by code execution".into());
    }
    fake_thinking::validate(req)
}

fn split(s: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(size.max(1)).map(|c| c.iter().collect()).collect()
}

fn ev(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// A text reply quoting the tool results of the last user message.
fn summary(request: &Value) -> String {
    let last = request["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
    let mut lines = Vec::new();
    for b in last["content"].as_array().cloned().unwrap_or_default() {
        if b["type"] == "tool_result" {
            let content = match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(items) => items.iter().filter_map(|i| i["text"].as_str()).collect::<Vec<_>>().join(" "),
                _ => String::new(),
            };
            let flag = if b["is_error"] == true { " (error)" } else { "" };
            lines.push(format!("{}{flag}: {content}", b["tool_use_id"].as_str().unwrap_or("?")));
        }
    }
    if lines.is_empty() {
        "There were no tool results to summarize.".into()
    } else {
        format!("Tool results — {}", lines.join(" | "))
    }
}

/// Writes one answer as stream events.
struct Writer {
    chunks: Vec<Chunk>,
    index: usize,
    output_tokens: u64,
    delay: u64,
}

impl Writer {
    fn push(&mut self, kind: &str, data: Value) {
        self.chunks.push(Chunk::Bytes(ev(kind, data)));
    }

    fn pause(&mut self) {
        if self.delay > 0 {
            self.chunks.push(Chunk::Wait(self.delay));
        }
    }

    fn start(&mut self, block: Value) {
        self.push(
            "content_block_start",
            json!({ "type": "content_block_start", "index": self.index, "content_block": block }),
        );
    }

    fn delta(&mut self, delta: Value) {
        self.push("content_block_delta", json!({ "type": "content_block_delta", "index": self.index, "delta": delta }));
    }

    fn stop(&mut self) {
        self.push("content_block_stop", json!({ "type": "content_block_stop", "index": self.index }));
        self.index += 1;
    }

    fn text(&mut self, text: &str) {
        self.start(json!({ "type": "text", "text": "" }));
        for piece in split(text, 12) {
            self.pause();
            self.output_tokens += 3;
            self.delta(json!({ "type": "text_delta", "text": piece }));
        }
        self.stop();
    }

    fn thinking(&mut self, text: &str, signature: &str) {
        self.start(json!({ "type": "thinking", "thinking": "", "signature": "" }));
        self.delta(json!({ "type": "thinking_delta", "thinking": text }));
        self.delta(json!({ "type": "signature_delta", "signature": signature }));
        self.stop();
    }

    /// A call block of `kind` (server_tool_use), streamed as a tool_use is.
    fn call(&mut self, kind: &str, id: &str, name: &Value, input: &str) {
        self.start(json!({ "type": kind, "id": id, "name": name, "input": {} }));
        self.stream_input(input, false);
        self.stop();
    }

    /// Starts a tool_use and streams its input like the real API: an empty first delta, then
    /// the JSON (`fake_tool_fields::fragments`). `finish: false` leaves the block open (max_tokens).
    fn tool_use(&mut self, id: &str, name: &Value, input: &str, finish: bool, eager: bool) {
        self.start(json!({ "type": "tool_use", "id": id, "name": name, "input": {} }));
        self.stream_input(input, eager);
        if finish {
            self.stop();
        }
    }

    fn stream_input(&mut self, input: &str, eager: bool) {
        for piece in std::iter::once(String::new()).chain(fake_tool_fields::fragments(input, eager)) {
            self.pause();
            self.delta(json!({ "type": "input_json_delta", "partial_json": piece }));
        }
        self.output_tokens += 10;
    }
}

fn play(step: &Value, request: &Value, request_id: &str, n: u64, usage: Usage) -> Response<Body> {
    if let Some(e) = step.get("error") {
        let status = e["status"].as_u64().unwrap_or(500) as u16;
        let kind = e["type"].as_str().unwrap_or("api_error");
        let mut r = api_error(status, kind, e["message"].as_str().unwrap_or("error"), request_id);
        for (k, v) in e["headers"].as_object().cloned().unwrap_or_default() {
            r.headers_mut().insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v.as_str().unwrap_or("")).unwrap(),
            );
        }
        return r;
    }
    let model = request["model"].as_str().unwrap_or("claude-fake").to_owned();
    let usage = json!({
        "input_tokens": usage.input_tokens.max(1),
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": 1,
    });
    let mut w = Writer { chunks: Vec::new(), index: 0, output_tokens: 1, delay: 0 };
    w.push(
        "message_start",
        json!({ "type": "message_start", "message": { "id": format!("msg_fake_{n:04}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage } }),
    );
    w.push("ping", json!({ "type": "ping" }));

    let stop_reason;
    let mut stop_details = Value::Null;
    if let Some(s) = step.get("stream_error") {
        w.text(s["text"].as_str().unwrap_or("Partial answer"));
        if let Some(t) = s.get("tool_use") {
            let id = format!("toolu_fake_{n:04}_{}", w.index);
            w.tool_use(&id, &t["name"], t["partial"].as_str().unwrap_or("{"), false, true);
        }
        let kind = s["type"].as_str().unwrap_or("overloaded_error");
        w.push("error", json!({ "type": "error", "error": { "type": kind, "message": s["message"].as_str().unwrap_or("Overloaded") } }));
        return with_request_id(sse(w.chunks), request_id);
    } else if let Some(m) = step.get("max_tokens_mid_tool_use") {
        if let Some(t) = m["text"].as_str() {
            w.text(t);
        }
        let id = format!("toolu_fake_{n:04}_{}", w.index);
        w.tool_use(&id, &m["name"], m["partial"].as_str().unwrap_or("{"), false, true);
        w.output_tokens = request["max_tokens"].as_u64().unwrap_or(1);
        stop_reason = "max_tokens".to_owned();
    } else {
        let reply = match step.get("summarize") {
            Some(_) => json!({ "content": [{ "text": summary(request) }], "stop_reason": "end_turn" }),
            None => step.get("reply").cloned().unwrap_or(json!({ "content": [] })),
        };
        w.delay = reply["event_delay_ms"].as_u64().unwrap_or(0);
        let mut used_tools = false;
        for block in reply["content"].as_array().cloned().unwrap_or_default() {
            if let Some(t) = block.get("text").and_then(Value::as_str) {
                w.text(t);
            } else if let Some(t) = block.get("thinking").and_then(Value::as_str) {
                if fake_thinking::thinks(request) {
                    let shown = fake_thinking::shows_text(request);
                    w.thinking(if shown { t } else { "" }, &fake_thinking::signature(t, !shown, request));
                }
            } else if let Some(data) = block.get("redacted_thinking").and_then(Value::as_str) {
                if fake_thinking::thinks(request) {
                    w.start(json!({ "type": "redacted_thinking", "data": data }));
                    w.stop();
                }
            } else if let Some(t) = block.get("server_tool_use") {
                // Anthropic's side runs it: the stream pauses while it does, then its result
                // comes as one complete block (`server_tool_result` in the script).
                let id =
                    t["id"].as_str().map(str::to_owned).unwrap_or_else(|| format!("srvtoolu_fake_{n:04}_{}", w.index));
                w.call("server_tool_use", &id, &t["name"], &t["input"].to_string());
                w.chunks.push(Chunk::Wait(w.delay.max(50)));
            } else if let Some(b) = block.get("mcp_block") {
                // The connector's call (`fake_connector::run_calls` made it): the call streams
                // as a tool_use does; its result comes whole once the server answered.
                if b["type"] == "mcp_tool_use" {
                    let mut start = b.clone();
                    start["input"] = json!({});
                    w.start(start);
                    w.stream_input(&b["input"].to_string(), false);
                    w.stop();
                    w.chunks.push(Chunk::Wait(w.delay.max(50)));
                } else {
                    w.start(b.clone());
                    w.stop();
                }
            } else if let Some(result) = block.get("server_tool_result") {
                w.start(result.clone());
                w.stop();
            } else if let Some(t) = block.get("tool_use") {
                used_tools = true;
                let id =
                    t["id"].as_str().map(str::to_owned).unwrap_or_else(|| format!("toolu_fake_{n:04}_{}", w.index));
                let input = match &t["input"] {
                    Value::String(raw) => raw.clone(), // a raw, possibly broken, JSON text
                    other => other.to_string(),
                };
                match t["caller"].as_str() {
                    // A call made by code running on the API's side (programmatic tool calling).
                    Some(tool_id) => {
                        let caller = json!({ "type": "code_execution_20260120", "tool_id": tool_id });
                        w.start(
                            json!({ "type": "tool_use", "id": id, "name": t["name"], "input": {}, "caller": caller }),
                        );
                        w.stream_input(&input, fake_tool_fields::eager(request, &t["name"]));
                        w.stop();
                    }
                    None => w.tool_use(&id, &t["name"], &input, true, fake_tool_fields::eager(request, &t["name"])),
                }
            }
        }
        let default = if used_tools { "tool_use" } else { "end_turn" };
        stop_reason = reply["stop_reason"].as_str().unwrap_or(default).to_owned();
        stop_details = reply.get("stop_details").cloned().unwrap_or(Value::Null);
    }
    let mut delta = json!({ "stop_reason": stop_reason, "stop_sequence": null });
    if !stop_details.is_null() {
        delta["stop_details"] = stop_details;
    }
    if let Some(id) = step.get("reply").and_then(|r| r["container"].as_str()) {
        delta["container"] = json!({ "id": id, "expires_at": "2026-12-31T00:00:00Z" });
    }
    let usage = json!({ "output_tokens": w.output_tokens });
    w.push("message_delta", json!({ "type": "message_delta", "delta": delta, "usage": usage }));
    w.push("message_stop", json!({ "type": "message_stop" }));
    with_request_id(sse(w.chunks), request_id)
}

fn with_request_id(mut r: Response<Body>, request_id: &str) -> Response<Body> {
    r.headers_mut().insert("request-id", HeaderValue::from_str(request_id).unwrap());
    r
}
