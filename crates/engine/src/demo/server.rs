//! The demo MCP server: a small MCP server that runs inside the page, for a workshop with no
//! server at hand. It speaks Streamable HTTP for real (sessions, protocol versions, JSON and SSE
//! responses, 202 for notifications, 405 for GET), so the same client code talks to it as to
//! any server and the timeline shows the real exchange. Its tools produce each outcome the
//! article names:
//! - `search_notes`: HTTP 200 and a result (pattern 1);
//! - `read_file` with a relative path: HTTP 200 and JSON-RPC error -32602, "Invalid params:
//!   'path' must be an absolute string." (pattern 2), and a tool `isError` for a missing file;
//! - `call_flaky_service`: HTTP 504 Gateway Timeout, no JSON-RPC answer at all (pattern 3);
//! - `count_slowly`: an SSE response with progress notifications before the result.

use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};

use crate::platform::{Headers, Method};

pub const DEMO_SERVER_URL: &str = "demo://notebook/mcp";

const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

const NOTES: [(&str, &str); 4] = [
    ("mcp", "MCP separates AI clients from tools and data: microservices for LLMs."),
    ("jsonrpc", "JSON-RPC 2.0 is a strict contract: jsonrpc, method, params, id."),
    ("tool_result", "Every tool_use needs a tool_result in the next user message, is_error: true on failure."),
    ("layers", "HTTP status is the truck; the JSON-RPC error is the safe inside it."),
];

/// The demo server's skill (SEP-2640): its `SKILL.md` and one file it names, each with its
/// SHA-256 digest written out (a test checks them), so the demo chunk carries no hashing code.
const SKILL: [(&str, &str, &str); 2] = [
    (
        "skill://notebook/tool-results/SKILL.md",
        "---\nname: tool-results\ndescription: How a client answers every tool_use, including the ones that failed\n\
         metadata:\n  author: loopscope\n  version: \"1.0\"\n---\n\n\
         Answer every tool_use block with a tool_result in the next user message, first in its content, with the same \
         tool_use_id. A call that failed is still answered: is_error: true, with the reason as text \
         (references/LAYERS.md names the layers a call can fail at).\n",
        "sha256:cf14eadb858d41053d3fbe60c0763d4902008473387abc8b42bdacd6e50a544d",
    ),
    (
        "skill://notebook/tool-results/references/LAYERS.md",
        "Network or CORS, HTTP status, JSON-RPC error object, the tool's isError: each becomes is_error: true.\n",
        "sha256:f5d7143a50c38ac4ab524167766b6336bfac7a2b1764115d8c645398c6f3c6ee",
    ),
];

const FILES: [(&str, &str); 2] = [
    ("/src/main.ts", "console.log('hello world');"),
    ("/README.md", "# Notebook\nA demo project for Loopscope's demo MCP server."),
];

/// One HTTP answer: status, headers, and the body in chunks, each sent after a delay (ms).
pub struct Answer {
    pub status: u16,
    pub headers: Headers,
    pub chunks: Vec<(u64, String)>,
}

impl Answer {
    fn json(status: u16, body: Value) -> Self {
        Answer {
            status,
            headers: Headers::new().with("content-type", "application/json"),
            chunks: vec![(0, body.to_string())],
        }
    }

    fn empty(status: u16) -> Self {
        Answer { status, headers: Headers::new(), chunks: Vec::new() }
    }

    fn text(status: u16, text: &str) -> Self {
        Answer { status, headers: Headers::new().with("content-type", "text/plain"), chunks: vec![(0, text.into())] }
    }
}

fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn text_result(text: impl Into<String>, is_error: bool) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": is_error })
}

// The server's fixed answers as JSON text: parsed when asked, far smaller in the wasm than the
// code `json!` would generate for them.
const TOOLS: &str = r#"[
  {"name": "search_notes", "title": "Search notes",
   "description": "Search the notebook about MCP. Returns every note whose id or text contains the query.",
   "inputSchema": {"type": "object", "properties": {"query": {"type": "string", "description": "Words to look for"}}, "required": ["query"]}},
  {"name": "read_file", "title": "Read a file",
   "description": "Read a file of the demo project. The path must be absolute (start with /).",
   "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "Absolute path, e.g. /src/main.ts"}}, "required": ["path"]}},
  {"name": "call_flaky_service", "title": "Call the flaky service",
   "description": "Call an upstream service that is down: the server answers HTTP 504 Gateway Timeout.",
   "inputSchema": {"type": "object", "properties": {}}},
  {"name": "count_slowly", "title": "Count slowly",
   "description": "Count to a number, reporting progress after each step (an SSE response).",
   "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3}}}},
  {"name": "chart_words", "title": "Chart the words per note",
   "description": "Draw a chart of how many words each note has, shown in an app (MCP Apps); a click on a bar there reads that note.",
   "inputSchema": {"type": "object", "properties": {}},
   "_meta": {"ui": {"resourceUri": "ui://notebook/chart.html"}}},
  {"name": "read_note", "title": "Read one note",
   "description": "One note's text, for the chart app only.",
   "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
   "_meta": {"ui": {"resourceUri": "ui://notebook/chart.html", "visibility": ["app"]}}}
]"#;

/// The chart app of `chart_words` (MCP Apps): plain HTML and script, no SDK, so every message
/// it exchanges with the page reads as written.
const CHART_APP: &str = include_str!("app.html");
const CHART_URI: &str = "ui://notebook/chart.html";

const RESOURCES: &str = r#"{"resources": [{"uri": "notes://index", "name": "index", "description": "The ids of every note", "mimeType": "text/plain"}]}"#;

const TEMPLATES: &str = r#"{"resourceTemplates": [{"uriTemplate": "notes://{id}", "name": "note", "description": "One note by id", "mimeType": "text/plain"}]}"#;

const PROMPTS: &str = r#"{"prompts": [{"name": "explain", "description": "Ask for an explanation of a topic from the notebook", "arguments": [{"name": "topic", "required": true}]}]}"#;

const INITIALIZED: &str = r#"{
  "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "extensions": {"io.modelcontextprotocol/skills": {}, "io.modelcontextprotocol/ui": {}}},
  "serverInfo": {"name": "loopscope-demo-server", "title": "Demo MCP server (in this page)", "version": "1"},
  "instructions": "A demo MCP server that runs inside this page. search_notes answers; read_file wants an absolute path (a relative one gets JSON-RPC error -32602); call_flaky_service answers HTTP 504; count_slowly streams progress."
}"#;

fn fixed(text: &str) -> Value {
    serde_json::from_str(text).expect("the demo server's fixed JSON is valid")
}

/// The server's state: its sessions.
#[derive(Debug, Default)]
pub struct DemoServer {
    sessions: RefCell<Vec<String>>,
    next: Cell<u32>,
}

impl DemoServer {
    pub fn handle(&self, method: Method, headers: &Headers, body: Option<&str>) -> Answer {
        let session = headers.get("mcp-session-id").map(str::to_owned);
        let known = session.as_ref().is_some_and(|s| self.sessions.borrow().contains(s));
        match method {
            // No stream for server-initiated messages.
            Method::Get => {
                let mut a = Answer::text(405, "Method Not Allowed");
                a.headers.set("allow", "POST, DELETE");
                a
            }
            Method::Delete if known => {
                self.sessions.borrow_mut().retain(|s| Some(s) != session.as_ref());
                Answer::empty(200)
            }
            Method::Delete => Answer::text(404, "Session not found"),
            Method::Post => self.post(session, known, body.unwrap_or("")),
        }
    }

    fn post(&self, session: Option<String>, known: bool, body: &str) -> Answer {
        let Ok(message) = serde_json::from_str::<Value>(body) else {
            return Answer::json(400, error(&Value::Null, -32700, "Parse error: the body is not JSON"));
        };
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str);
        if method == Some("initialize") {
            return self.initialize(&message);
        }
        match (&session, known) {
            (None, _) => {
                return Answer::json(
                    400,
                    error(&Value::Null, -32600, "Bad Request: Mcp-Session-Id header is required"),
                );
            }
            (Some(_), false) => return Answer::json(404, error(&Value::Null, -32001, "Session not found")),
            _ => {}
        }
        let (Some(id), Some(method)) = (id, method) else {
            return Answer::empty(202); // a notification, or a response to us
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "ping" => Answer::json(200, result(&id, json!({}))),
            "tools/list" => Answer::json(200, result(&id, json!({ "tools": fixed(TOOLS) }))),
            "tools/call" => self.call(&id, &params),
            "resources/list" => Answer::json(200, result(&id, fixed(RESOURCES))),
            "resources/templates/list" => Answer::json(200, result(&id, fixed(TEMPLATES))),
            "resources/read" => self.read(&id, params["uri"].as_str().unwrap_or("")),
            "prompts/list" => Answer::json(200, result(&id, fixed(PROMPTS))),
            "skills/list" => {
                let files: Vec<Value> = SKILL
                    .iter()
                    .map(|(uri, text, digest)| json!({ "uri": uri, "digest": digest, "size": text.len() }))
                    .collect();
                let (uri, _, _) = SKILL[0];
                // With a `metadata:` map, as the Agent Skills format allows (and real skills have).
                let frontmatter = json!({
                    "name": "tool-results",
                    "description": "How a client answers every tool_use, including the ones that failed",
                    "metadata": { "author": "loopscope", "version": "1.0" }
                });
                Answer::json(
                    200,
                    result(&id, json!({ "skills": [{ "uri": uri, "frontmatter": frontmatter, "resources": files }] })),
                )
            }
            "prompts/get" => {
                let topic = params["arguments"]["topic"].as_str().unwrap_or("MCP");
                Answer::json(
                    200,
                    result(
                        &id,
                        json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": format!("Explain {topic}, using search_notes first.") } }] }),
                    ),
                )
            }
            other => Answer::json(200, error(&id, -32601, &format!("Method not found: {other}"))),
        }
    }

    fn initialize(&self, message: &Value) -> Answer {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let asked = message["params"]["protocolVersion"].as_str().unwrap_or("");
        let version = if VERSIONS.contains(&asked) { asked } else { VERSIONS[0] };
        let n = self.next.get() + 1;
        self.next.set(n);
        let session = format!("demo-session-{n}");
        self.sessions.borrow_mut().push(session.clone());
        let mut answer = fixed(INITIALIZED);
        answer["protocolVersion"] = json!(version);
        let mut a = Answer::json(200, result(&id, answer));
        a.headers.set("mcp-session-id", session);
        a
    }

    fn call(&self, id: &Value, params: &Value) -> Answer {
        let name = params["name"].as_str().unwrap_or("");
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(a)) => a.clone(),
            Some(_) => return Answer::json(200, error(id, -32602, "Invalid params: arguments must be an object")),
        };
        let string = |key: &str| args.get(key).and_then(Value::as_str);
        match name {
            "search_notes" => {
                let Some(query) = string("query") else {
                    return Answer::json(200, error(id, -32602, "Invalid params: 'query' is required"));
                };
                let q = query.to_ascii_lowercase();
                let hits: Vec<String> = NOTES
                    .iter()
                    .filter(|(k, v)| format!("{k} {v}").to_ascii_lowercase().contains(&q))
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect();
                let text = if hits.is_empty() { format!("No note mentions {query:?}.") } else { hits.join("\n") };
                Answer::json(200, result(id, text_result(text, false)))
            }
            "read_file" => match string("path") {
                Some(path) if path.starts_with('/') => match FILES.iter().find(|(p, _)| *p == path) {
                    Some((_, text)) => Answer::json(200, result(id, text_result(*text, false))),
                    None => {
                        let known: Vec<&str> = FILES.iter().map(|(p, _)| *p).collect();
                        let text = format!("No such file: {path}. The project has {}.", known.join(" and "));
                        Answer::json(200, result(id, text_result(text, true)))
                    }
                },
                _ => Answer::json(200, error(id, -32602, "Invalid params: 'path' must be an absolute string.")),
            },
            "call_flaky_service" => Answer::text(504, "Gateway Timeout: the upstream service did not answer"),
            "chart_words" => {
                let counted: Vec<(&str, usize)> =
                    NOTES.iter().map(|(k, v)| (*k, v.split_whitespace().count())).collect();
                let text: Vec<String> = counted.iter().map(|(k, n)| format!("{k}: {n} words")).collect();
                let notes: Vec<Value> = counted.iter().map(|(k, n)| json!({ "id": k, "words": n })).collect();
                let mut r = text_result(text.join("\n"), false);
                r["structuredContent"] = json!({ "notes": notes });
                Answer::json(200, result(id, r))
            }
            "read_note" => match string("id").and_then(|k| NOTES.iter().find(|(n, _)| *n == k)) {
                Some((k, v)) => {
                    let mut r = text_result(format!("{k}: {v}"), false);
                    r["structuredContent"] = json!({ "id": k, "text": v });
                    Answer::json(200, result(id, r))
                }
                None => Answer::json(200, result(id, text_result("No such note.", true))),
            },
            "count_slowly" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3).clamp(1, 10);
                let token = params.pointer("/_meta/progressToken").cloned();
                let event = |data: Value| format!("event: message\ndata: {data}\n\n");
                let mut chunks = vec![(0, ": the result comes after the progress\n\n".to_owned())];
                for i in 1..=steps {
                    if let Some(token) = &token {
                        let note = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": token, "progress": i, "total": steps, "message": format!("step {i} of {steps}") } });
                        chunks.push((300, event(note)));
                    }
                }
                chunks.push((300, event(result(id, text_result(format!("counted to {steps}"), false)))));
                Answer { status: 200, headers: Headers::new().with("content-type", "text/event-stream"), chunks }
            }
            other => Answer::json(200, error(id, -32602, &format!("Unknown tool: {other}"))),
        }
    }

    /// Its tools, as `tools/list` gives them.
    pub fn tools(&self) -> Vec<Value> {
        match fixed(TOOLS) {
            Value::Array(tools) => tools,
            _ => Vec::new(),
        }
    }

    /// The tools a model may be offered: not the ones for its app only (MCP Apps). Read from
    /// the JSON, not through `protocol::mcp::Tool::for_model`: its deserializer would cost the
    /// demo chunk 3.9 KB gzip (measured).
    pub fn model_tools(&self) -> Vec<Value> {
        let for_model = |t: &Value| match t.pointer("/_meta/ui/visibility").and_then(Value::as_array) {
            Some(who) => who.iter().any(|w| w == "model"),
            None => true,
        };
        self.tools().into_iter().filter(for_model).collect()
    }

    /// Calls a tool directly (the demo connector's way, on "the API's side"): the result's
    /// content and whether it is an error, with a JSON-RPC error or an HTTP failure as an error
    /// result in words, as the connector reports them.
    pub fn call_now(&self, name: &str, arguments: &Value) -> (Value, bool) {
        let answer = self.call(&json!(1), &json!({ "name": name, "arguments": arguments }));
        let body: String = answer.chunks.into_iter().map(|(_, c)| c).collect();
        let error = |text: String| (json!([{ "type": "text", "text": text }]), true);
        if answer.status != 200 {
            return error(format!("The MCP server answered HTTP {}: {body}", answer.status));
        }
        // A JSON body, or the last `data:` line of an SSE one (the result comes last).
        let message = serde_json::from_str::<Value>(&body).ok().or_else(|| {
            body.lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter_map(|d| serde_json::from_str(d).ok())
                .next_back()
        });
        match message {
            Some(m) if m.get("result").is_some() => (m["result"]["content"].clone(), m["result"]["isError"] == true),
            Some(m) => error(format!(
                "JSON-RPC error {}: {}",
                m["error"]["code"],
                m["error"]["message"].as_str().unwrap_or("")
            )),
            None => error("The MCP server's answer could not be read".to_owned()),
        }
    }

    fn read(&self, id: &Value, uri: &str) -> Answer {
        if uri == CHART_URI {
            let item = json!({ "uri": uri, "mimeType": crate::apps::HTML_MIME, "text": CHART_APP });
            return Answer::json(200, result(id, json!({ "contents": [item] })));
        }
        if let Some((_, text, _)) = SKILL.iter().find(|(u, _, _)| *u == uri) {
            return Answer::json(
                200,
                result(id, json!({ "contents": [{ "uri": uri, "mimeType": "text/markdown", "text": text }] })),
            );
        }
        let text = if uri == "notes://index" {
            Some(NOTES.iter().map(|(k, _)| *k).collect::<Vec<_>>().join("\n"))
        } else {
            uri.strip_prefix("notes://").and_then(|k| NOTES.iter().find(|(n, _)| *n == k)).map(|(_, v)| v.to_string())
        };
        match text {
            Some(text) => Answer::json(
                200,
                result(id, json!({ "contents": [{ "uri": uri, "mimeType": "text/plain", "text": text }] })),
            ),
            None => Answer::json(200, error(id, -32002, &format!("Resource not found: {uri}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SKILL;

    #[test]
    fn the_demo_skill_s_written_digests_are_its_files_digests() {
        for (uri, text, digest) in SKILL {
            assert_eq!(digest, crate::mcp::skills::digest(text.as_bytes()), "{uri}");
        }
    }
}
