//! An MCP endpoint per fault, at `/{scenario}/mcp`: what real servers will not do on demand.
//!
//! Every scenario is a small but strict MCP server (2025-11-25 semantics): it hands out a
//! session id, rejects requests without it (400) and without the negotiated
//! `MCP-Protocol-Version` (400), and records every request so tests can check what the client
//! sent. Then each scenario breaks one thing:
//!
//! | scenario | fault |
//! |---|---|
//! | `ok` | none (JSON responses) |
//! | `malformed` | `tools/list` answers truncated JSON |
//! | `sse-cut` | `tools/call` streams half an event, then the connection breaks |
//! | `sse-resume` | `tools/call` streams an event with an id, breaks; `GET` + `Last-Event-ID` delivers the response |
//! | `http-500` / `http-502` / `http-504` | `tools/call` answers that status (500 with an id-less JSON-RPC error) |
//! | `wrong-type` | `tools/list` answers `text/html` |
//! | `expire` | the first session expires (404) after initialize |
//! | `slow` | `tools/call` answers after 5 s |
//! | `auth` | 401 with `WWW-Authenticate` unless `Authorization: Bearer letmein` |
//! | `wrong-id` | `tools/list` answers with another id |
//! | `v0326` | negotiates 2025-03-26 and answers `tools/list` with a JSON batch |
//! | `v1105` | offers 2024-11-05 only |
//! | `modern-32022` | 2026-07-28 only: `initialize` → HTTP 400 with error -32022; requests with the envelope are served |
//! | `modern-discover` | 2026-07-28 only: `initialize` → -32601, `server/discover` answers; requests with the envelope are served |
//! | `paged` | `tools/list` in three pages, with one invalid and one task-only tool |
//! | `cursor-loop` | `tools/list` hands out the same cursor forever |
//! | `paged-forever` | `tools/list` hands out a new cursor forever, each page 1 MiB |
//! | `paged-many` | `tools/list` hands out a new cursor forever, each page one small tool |
//! | `server-requests` | `tools/call` asks the client `ping`, `roots/list` and `elicitation/create` first |
//! | `get-stream` | `GET` opens a stream carrying a log notification |
//! | `get-404` | `GET` answers 404 instead of 405 (P7) |
//! | `no-cors` | no CORS headers at all |
//! | `rpc-error` | `tools/call` answers HTTP 200 with JSON-RPC error -32602 |
//! | `cors-drop` | CORS headers on everything but `tools/call` answers: the browser sees a network error mid-loop (P2) |
//! | `xss` | script payloads in its name, instructions, tool description and tool result |
//! | `legacy-sse` | `POST` answers 405 (`Allow: GET`), as the older HTTP+SSE transport's `/sse` endpoint does |
//! | `odd-tools` | tools Claude would reject as they are: a dotted name, a top-level `anyOf`, a schema without `type`, a bracketed property key |

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, Response, Uri};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::http::{Chunk, Log, Recorded, Serving, allow_cors, event, json, preflight, record, response, serve, sse};

const SUPPORTED: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

#[derive(Default)]
struct Scenario {
    sessions: u32,
    /// The current session id and the version negotiated in it.
    session: Option<(String, String)>,
    /// Answers the client POSTed to our own requests, by id.
    answers: HashMap<String, Value>,
    /// The id of a request whose response is still owed on a resumed stream.
    owed: Option<Value>,
}

#[derive(Default)]
struct Inner {
    log: Log,
    scenarios: Mutex<HashMap<String, Scenario>>,
}

/// The running fixture. Dropping it stops the server.
pub struct Faults {
    inner: Arc<Inner>,
    serving: Serving,
}

impl Faults {
    /// Starts on 127.0.0.1:`port` (0: any free port) in the current tokio runtime.
    pub async fn start(port: u16) -> Self {
        let inner = Arc::new(Inner::default());
        let router = Router::new().fallback(handle).with_state(inner.clone());
        Faults { inner, serving: serve(router, port).await }
    }

    pub fn url(&self, scenario: &str) -> String {
        format!("{}/{scenario}/mcp", self.serving.base())
    }

    pub fn port(&self) -> u16 {
        self.serving.port
    }

    /// Every request the scenario received, in order.
    pub fn requests(&self, scenario: &str) -> Vec<Recorded> {
        let prefix = format!("/{scenario}/");
        self.inner.log.lock().unwrap().iter().filter(|r| r.path.starts_with(&prefix)).cloned().collect()
    }

    /// The JSON-RPC methods the scenario received, in order ("GET"/"DELETE" for bodiless requests).
    pub fn methods(&self, scenario: &str) -> Vec<String> {
        self.requests(scenario)
            .iter()
            .filter(|r| r.method != "OPTIONS")
            .map(|r| {
                r.rpc_method().unwrap_or_else(|| if r.body.is_empty() { r.method.clone() } else { "(response)".into() })
            })
            .collect()
    }
}

/// Script payloads a careless page would run: an image whose error handler writes a global,
/// a script tag, a javascript: link. Tests check the globals stay unset.
pub const XSS_IMG: &str = "<img src=x onerror=\"window.__xss='img'\">";
pub const XSS_SCRIPT: &str = "<script>window.__xss='script'</script>";
pub const XSS_LINK: &str = "<a href=\"javascript:window.__xss='link'\">click</a>";

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "description": format!("The {name} tool"), "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } } })
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    let path = uri.path().to_owned();
    record(&inner.log, method.as_str(), &path, &headers, &body);
    let scenario = path.trim_start_matches('/').split('/').next().unwrap_or("").to_owned();
    let mut resp = if method == Method::OPTIONS {
        if scenario == "no-cors" { response(204, "", Body::empty()) } else { preflight() }
    } else {
        route(&inner, &scenario, &method, &headers, &body).await
    };
    let is_call =
        serde_json::from_slice::<Value>(&body).ok().and_then(|v| v.get("method").cloned()) == Some(json!("tools/call"));
    if scenario != "no-cors" && !(scenario == "cors-drop" && is_call) {
        allow_cors(resp.headers_mut());
    }
    resp
}

async fn route(
    inner: &Arc<Inner>,
    scenario: &str,
    method: &Method,
    headers: &HeaderMap,
    body: &[u8],
) -> Response<Body> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if scenario == "auth" && header("authorization").as_deref() != Some("Bearer letmein") {
        let mut r =
            json(401, &json!({ "error": "invalid_token", "error_description": "Missing or invalid bearer token" }));
        r.headers_mut().insert(
            "www-authenticate",
            HeaderValue::from_static(
                "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\", scope=\"notes\"",
            ),
        );
        return r;
    }

    // The older HTTP+SSE transport's endpoint (2024-11-05) takes GET only.
    if scenario == "legacy-sse" && *method == Method::POST {
        let mut r = response(405, "text/plain", "Method Not Allowed");
        r.headers_mut().insert("allow", HeaderValue::from_static("GET"));
        return r;
    }

    let current = inner.scenarios.lock().unwrap().entry(scenario.to_owned()).or_default().session.clone();
    let session_ok = match (&current, header("mcp-session-id")) {
        (Some((id, _)), Some(got)) => *id == got,
        _ => false,
    };

    if *method == Method::DELETE {
        if session_ok {
            inner.scenarios.lock().unwrap().get_mut(scenario).unwrap().session = None;
        }
        return response(if session_ok { 200 } else { 404 }, "", Body::empty());
    }
    if *method == Method::GET {
        return match scenario {
            "get-404" => response(404, "text/plain", "Not Found"),
            "get-stream" if session_ok => sse(vec![
                Chunk::Bytes(": stream open\n\n".into()),
                Chunk::Bytes(event(
                    Some("g1"),
                    &json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info", "logger": "fixture", "data": "hello from the GET stream" } }),
                )),
                Chunk::Wait(100),
            ]),
            "sse-resume" if header("last-event-id").as_deref() == Some("r2") => {
                let owed = inner.scenarios.lock().unwrap().get_mut(scenario).and_then(|s| s.owed.take());
                let answer =
                    result(&owed.unwrap_or(Value::Null), json!({ "content": [{ "type": "text", "text": "resumed" }] }));
                sse(vec![Chunk::Bytes(event(Some("r3"), &answer))])
            }
            _ => response(405, "text/plain", "Method Not Allowed"),
        };
    }

    let msg: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => return json(400, &rpc_error(&Value::Null, -32700, "Parse error")),
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let rpc_method = msg.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
    let params = msg.get("params").cloned().unwrap_or(json!({}));

    if rpc_method == "initialize" {
        return initialize(inner, scenario, &id, &params);
    }
    if scenario.starts_with("modern-") {
        // A 2026-07-28 server: no session; the version in the header and in _meta, or -32022.
        let meta = params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str);
        if header("mcp-protocol-version").as_deref() != Some("2026-07-28") || meta != Some("2026-07-28") {
            let e = json!({ "code": -32022, "message": "Unsupported protocol version", "data": { "supported": ["2026-07-28"], "requested": meta } });
            return json(400, &json!({ "jsonrpc": "2.0", "id": id, "error": e }));
        }
        if header("mcp-method").as_deref() != Some(rpc_method.as_str()) {
            return json(400, &rpc_error(&id, -32020, "Header mismatch: Mcp-Method"));
        }
        if rpc_method == "server/discover" {
            let caps = json!({ "tools": {} });
            return json(
                200,
                &result(
                    &id,
                    json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": caps }),
                ),
            );
        }
        return request(inner, scenario, &id, &rpc_method, &params).await;
    }
    // C-09, C-12: a strict server refuses requests outside its session or without the version.
    let Some((_, version)) = current.clone() else {
        return json(400, &rpc_error(&Value::Null, -32000, "Bad Request: Server not initialized"));
    };
    if !session_ok {
        if scenario == "expire" || header("mcp-session-id").is_some() {
            return json(404, &rpc_error(&Value::Null, -32001, "Session not found"));
        }
        return json(400, &rpc_error(&Value::Null, -32000, "Bad Request: No valid session ID provided"));
    }
    if header("mcp-protocol-version").as_deref() != Some(version.as_str()) {
        return json(
            400,
            &rpc_error(&Value::Null, -32000, &format!("Bad Request: MCP-Protocol-Version must be {version}")),
        );
    }
    if msg.get("method").is_none() {
        // The client's answer to one of our requests.
        if let Some(key) = msg.get("id").map(Value::to_string) {
            inner.scenarios.lock().unwrap().get_mut(scenario).unwrap().answers.insert(key, msg.clone());
        }
        return response(202, "", Body::empty());
    }
    if msg.get("id").is_none() {
        return response(202, "", Body::empty()); // a notification
    }
    if scenario == "expire" {
        let mut all = inner.scenarios.lock().unwrap();
        let s = all.get_mut(scenario).unwrap();
        if s.sessions == 1 {
            s.session = None; // the first session dies right after the handshake
            return json(404, &rpc_error(&Value::Null, -32001, "Session not found"));
        }
    }
    request(inner, scenario, &id, &rpc_method, &params).await
}

fn initialize(inner: &Arc<Inner>, scenario: &str, id: &Value, params: &Value) -> Response<Body> {
    let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("").to_owned();
    match scenario {
        "modern-32022" => {
            let e = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32022, "message": "Unsupported protocol version", "data": { "supported": ["2026-07-28"], "requested": requested } } });
            return json(400, &e);
        }
        "modern-discover" => return json(200, &rpc_error(id, -32601, "Method not found: initialize")),
        _ => {}
    }
    let version = match scenario {
        "v0326" => "2025-03-26".to_owned(),
        "v1105" => "2024-11-05".to_owned(),
        _ if SUPPORTED.contains(&requested.as_str()) => requested,
        _ => SUPPORTED[0].to_owned(),
    };
    let session = {
        let mut all = inner.scenarios.lock().unwrap();
        let s = all.entry(scenario.to_owned()).or_default();
        s.sessions += 1;
        let sid = format!("{scenario}-session-{}", s.sessions);
        s.session = Some((sid.clone(), version.clone()));
        sid
    };
    let (name, instructions) = if scenario == "xss" {
        (XSS_IMG.to_owned(), format!("{XSS_SCRIPT} and {XSS_LINK}"))
    } else {
        (format!("fault-fixture/{scenario}"), format!("Fault fixture: {scenario}"))
    };
    let body = result(
        id,
        json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": true } },
            "serverInfo": { "name": name, "version": "1.0.0" },
            "instructions": instructions
        }),
    );
    let mut r = json(200, &body);
    r.headers_mut().insert("mcp-session-id", HeaderValue::from_str(&session).unwrap());
    r
}

async fn request(inner: &Arc<Inner>, scenario: &str, id: &Value, method: &str, params: &Value) -> Response<Body> {
    let echo = || {
        let text = params.pointer("/arguments/text").and_then(Value::as_str).unwrap_or("").to_owned();
        result(id, json!({ "content": [{ "type": "text", "text": format!("echo: {text}") }] }))
    };
    match (scenario, method) {
        (_, "ping") => json(200, &result(id, json!({}))),
        ("malformed", "tools/list") => {
            response(200, "application/json", format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"tools\":["))
        }
        ("wrong-type", "tools/list") => {
            response(200, "text/html; charset=utf-8", "<html><body>Welcome to nginx!</body></html>")
        }
        ("wrong-id", "tools/list") => json(200, &result(&json!(999_999), json!({ "tools": [] }))),
        ("v0326", "tools/list") => json(
            200,
            &json!([
                { "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info", "data": "batched" } },
                result(id, json!({ "tools": [tool("echo")] }))
            ]),
        ),
        ("paged", "tools/list") => {
            let page = match params.get("cursor").and_then(Value::as_str) {
                None => json!({ "tools": [tool("alpha"), tool("beta")], "nextCursor": "page-2" }),
                Some("page-2") => {
                    json!({ "tools": [tool("gamma"), { "name": "broken", "inputSchema": { "type": "array" } }], "nextCursor": "page-3" })
                }
                Some("page-3") => {
                    json!({ "tools": [tool("delta"), { "name": "task_only", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "required" } }] })
                }
                Some(_) => return json(200, &rpc_error(id, -32602, "Invalid cursor")),
            };
            json(200, &result(id, page))
        }
        ("odd-tools", "tools/list") => json(
            200,
            &result(
                id,
                json!({ "tools": [
                    { "name": "search.docs", "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } } },
                    { "name": "pick", "inputSchema": { "type": "object", "anyOf": [
                        { "properties": { "id": { "type": "string" } }, "required": ["id"] },
                        { "properties": { "name": { "type": "string" } }, "required": ["name"] } ] } },
                    { "name": "untyped", "inputSchema": { "properties": { "x": { "type": "number" } } } },
                    { "name": "bracketed", "inputSchema": { "type": "object", "properties": { "items[0]": { "type": "string" } } } }
                ] }),
            ),
        ),
        ("xss", "tools/list") => json(
            200,
            &result(
                id,
                json!({ "tools": [{ "name": "echo", "description": format!("Echoes. {XSS_IMG}"), "inputSchema": { "type": "object", "properties": { "text": { "type": "string", "description": XSS_SCRIPT } } } }] }),
            ),
        ),
        ("xss", "tools/call") => json(
            200,
            &result(
                id,
                json!({ "content": [{ "type": "text", "text": format!("{XSS_IMG} {XSS_SCRIPT} {XSS_LINK}") }] }),
            ),
        ),
        // Pages that never end, each under the body limit: 1 MiB each, or tiny and countless.
        ("paged-forever" | "paged-many", "tools/list") => {
            let n = params.get("cursor").and_then(Value::as_str).and_then(|c| c.parse::<u64>().ok()).unwrap_or(0);
            let description = if scenario == "paged-forever" { "x".repeat(1024 * 1024) } else { String::new() };
            let page = json!({
                "tools": [{ "name": format!("t{n}"), "description": description, "inputSchema": { "type": "object" } }],
                "nextCursor": (n + 1).to_string()
            });
            json(200, &result(id, page))
        }
        ("cursor-loop", "tools/list") => {
            json(200, &result(id, json!({ "tools": [tool("again")], "nextCursor": "same" })))
        }
        (_, "tools/list") => json(200, &result(id, json!({ "tools": [tool("echo")] }))),
        ("rpc-error", "tools/call") => {
            json(200, &rpc_error(id, -32602, "Invalid params: 'text' must be a string of at most 10 characters"))
        }
        ("http-500", "tools/call") => {
            json(500, &rpc_error(&Value::Null, -32603, "Internal error: database unreachable"))
        }
        ("http-502", "tools/call") => response(502, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"),
        ("http-504", "tools/call") => response(504, "text/plain", "upstream request timeout"),
        ("slow", "tools/call") => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            json(200, &echo())
        }
        ("sse-cut", "tools/call") => {
            let half = format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"resu");
            sse(vec![Chunk::Bytes(half), Chunk::Wait(20), Chunk::Break])
        }
        ("sse-resume", "tools/call") => {
            inner.scenarios.lock().unwrap().get_mut(scenario).unwrap().owed = Some(id.clone());
            let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": params.pointer("/_meta/progressToken"), "progress": 1, "total": 2, "message": "half way" } });
            sse(vec![
                Chunk::Bytes("id: r1\ndata:\n\n".into()),
                Chunk::Bytes("retry: 50\n\n".into()),
                Chunk::Bytes(event(Some("r2"), &progress)),
                Chunk::Wait(20),
                Chunk::Break,
            ])
        }
        ("server-requests", "tools/call") => server_requests(inner.clone(), scenario.to_owned(), id.clone()),
        (_, "tools/call") => json(200, &echo()),
        _ => json(200, &rpc_error(id, -32601, &format!("Method not found: {method}"))),
    }
}

/// Asks the client three things on the POST stream before answering: `ping` (must be answered),
/// `roots/list` (undeclared: must get -32601) and `elicitation/create`. The result reports what
/// the client answered.
fn server_requests(inner: Arc<Inner>, scenario: String, id: Value) -> Response<Body> {
    let asks = [
        json!({ "jsonrpc": "2.0", "id": "srv-ping", "method": "ping" }),
        json!({ "jsonrpc": "2.0", "id": "srv-roots", "method": "roots/list" }),
        json!({ "jsonrpc": "2.0", "id": "srv-elicit", "method": "elicitation/create", "params": { "message": "What is your name?", "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" }, "greeting": { "type": "string", "default": "hello" } }, "required": ["name"] } } }),
    ];
    let (tx, rx) = futures::channel::mpsc::unbounded::<Result<Bytes, std::io::Error>>();
    tokio::spawn(async move {
        for ask in &asks {
            let _ = tx.unbounded_send(Ok(Bytes::from(event(None, ask))));
        }
        // Wait (bounded) for the three answers the client POSTs back.
        let mut answers = Vec::new();
        for _ in 0..100 {
            {
                let all = inner.scenarios.lock().unwrap();
                let s = &all[&scenario];
                answers = ["\"srv-ping\"", "\"srv-roots\"", "\"srv-elicit\""]
                    .iter()
                    .filter_map(|k| s.answers.get(*k).cloned())
                    .collect();
            }
            if answers.len() == 3 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let text = serde_json::to_string(&answers).unwrap();
        let done = result(&id, json!({ "content": [{ "type": "text", "text": text }] }));
        let _ = tx.unbounded_send(Ok(Bytes::from(event(None, &done))));
    });
    response(200, "text/event-stream", Body::from_stream(rx))
}
