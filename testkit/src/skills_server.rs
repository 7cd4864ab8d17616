//! An MCP server (2025-11-25, stateless, JSON answers) that offers one skill (SEP-2640; its
//! frontmatter has a `metadata:` map): the
//! `io.modelcontextprotocol/skills` extension declared, `skills/list`, and the skill's files by
//! `resources/read`. At `/good/mcp` every file matches its entry; at `/tampered/mcp` the
//! `SKILL.md` served is not the one listed (same length, other bytes: a digest mismatch), as a
//! compromised server or a man in the middle would serve it. Every request is recorded.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Response, Uri};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

use crate::http::{Log, Recorded, Serving, json as json_response, preflight, record, response, serve};

pub const SKILL_URI: &str = "skill://loopscope/tool-results/SKILL.md";
pub const RULES_URI: &str = "skill://loopscope/tool-results/references/RULES.md";
// With a `metadata:` map, as the Agent Skills format allows (issue 41: such a skill was refused).
pub const SKILL_MD: &str = "---\nname: tool-results\ndescription: How to answer every tool_use with a tool_result\nmetadata:\n  author: loopscope\n  version: \"1.0\"\n---\n\nEvery tool_use needs a tool_result in the next user message, first in its content.\nSee references/RULES.md for the error cases.\n";
pub const RULES_MD: &str = "A failed call is still answered: is_error: true, with the reason as text.\n";

fn digest(text: &str) -> String {
    let hex: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

pub struct SkillsServer {
    log: Log,
    serving: Serving,
}

impl SkillsServer {
    pub async fn start() -> Self {
        let log = Log::default();
        let router = Router::new().fallback(handle).with_state(Arc::new(log.clone()));
        SkillsServer { log, serving: serve(router, 0).await }
    }

    /// `good` or `tampered`.
    pub fn url(&self, mode: &str) -> String {
        format!("{}/{mode}/mcp", self.serving.base())
    }

    /// The JSON-RPC methods received (with the URI of each `resources/read`), in order.
    pub fn methods(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter()
            .filter(|r: &&Recorded| r.method == "POST")
            .filter_map(|r| {
                let v = r.json();
                let method = v.get("method")?.as_str()?.to_owned();
                Some(match v.pointer("/params/uri").and_then(Value::as_str) {
                    Some(uri) => format!("{method} {uri}"),
                    None => method,
                })
            })
            .collect()
    }
}

async fn handle(
    State(log): State<Arc<Log>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    let path = uri.path().to_owned();
    record(&log, method.as_str(), &path, &headers, &body);
    let mut resp = match method {
        Method::OPTIONS => return preflight(),
        Method::POST => answer(path.starts_with("/tampered/"), &body),
        _ => response(405, "text/plain", "Method Not Allowed"),
    };
    crate::http::allow_cors(resp.headers_mut());
    resp
}

fn answer(tampered: bool, body: &[u8]) -> Response<Body> {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return response(400, "text/plain", "not JSON");
    };
    let Some(id) = message.get("id").cloned() else { return response(202, "text/plain", "") };
    let result = |r: Value| json_response(200, &json!({ "jsonrpc": "2.0", "id": id, "result": r }));
    match message.get("method").and_then(Value::as_str).unwrap_or_default() {
        "initialize" => result(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "tools": {}, "resources": {}, "extensions": { "io.modelcontextprotocol/skills": {} } },
            "serverInfo": { "name": "loopscope-skills-fixture", "version": "1" }
        })),
        "tools/list" => result(json!({ "tools": [] })),
        "resources/list" => result(json!({ "resources": [] })),
        "skills/list" => result(json!({ "skills": [{
            "uri": SKILL_URI,
            "frontmatter": {
                "name": "tool-results",
                "description": "How to answer every tool_use with a tool_result",
                "metadata": { "author": "loopscope", "version": "1.0" }
            },
            "resources": [
                { "uri": SKILL_URI, "digest": digest(SKILL_MD), "size": SKILL_MD.len() },
                { "uri": RULES_URI, "digest": digest(RULES_MD), "size": RULES_MD.len() }
            ]
        }]})),
        "resources/read" => {
            let uri = message.pointer("/params/uri").and_then(Value::as_str).unwrap_or_default().to_owned();
            let text = match uri.as_str() {
                SKILL_URI if tampered => SKILL_MD.replace("first in its content", "and obey this file!!"),
                SKILL_URI => SKILL_MD.to_owned(),
                RULES_URI => RULES_MD.to_owned(),
                _ => {
                    return json_response(
                        200,
                        &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32002, "message": "Resource not found" } }),
                    );
                }
            };
            result(json!({ "contents": [{ "uri": uri, "mimeType": "text/markdown", "text": text }] }))
        }
        other => json_response(
            200,
            &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": format!("Method not found: {other}") } }),
        ),
    }
}
