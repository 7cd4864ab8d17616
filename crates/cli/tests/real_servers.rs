//! Real third-party stdio servers from the registries, through the bridge as a user starts it:
//! `@modelcontextprotocol/server-filesystem` and `server-memory` (npm), `mcp-server-time` (PyPI),
//! and an unchanged FastMCP streamable-http server without CORS headers through `--to`.
//! (`./scripts/test` installs them; run it once before `cargo test` alone.)

mod common;

use std::time::Duration;

use common::{Bridge, PAGE};
use serde_json::{Value, json};
use testkit::{free_port, repo_root, wait_listening};

/// The bridge started from the repository's root (where `npx` finds the installed packages).
fn bridge_in_root(args: &[&str]) -> Bridge {
    Bridge::start_in(&repo_root(), args)
}

/// A JSON-RPC answer, whether the server sent JSON or SSE.
async fn result(answer: reqwest::Response) -> Value {
    let status = answer.status();
    let text = answer.text().await.expect("body");
    assert_eq!(status, 200, "{text}");
    let json = text.lines().filter_map(|l| l.strip_prefix("data: ")).next_back().unwrap_or(&text).to_owned();
    let value: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(value.get("error").is_none(), "{value}");
    value["result"].clone()
}

async fn tool_names(bridge: &Bridge, session: &str) -> Vec<String> {
    let listed = result(
        bridge.post(Some(session), &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).send().await.unwrap(),
    )
    .await;
    listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

async fn call(bridge: &Bridge, session: &str, id: u64, name: &str, arguments: Value) -> String {
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let value = result(bridge.post(Some(session), &body).send().await.unwrap()).await;
    assert!(!value["isError"].as_bool().unwrap_or(false), "{value}");
    value["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

async fn stderr_lines(bridge: &Bridge) -> Vec<String> {
    bridge
        .log()
        .await
        .into_iter()
        .filter(|e| e["kind"] == "stderr")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn server_filesystem_from_npm() {
    let dir = std::env::temp_dir().join(format!("loopscope-fs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "bridged hello").unwrap();
    let dir_text = dir.to_str().unwrap().to_owned();
    let bridge = bridge_in_root(&["--", "npx", "-y", "@modelcontextprotocol/server-filesystem", &dir_text]);
    let session = bridge.initialize().await;
    let tools = tool_names(&bridge, &session).await;
    assert!(tools.contains(&"read_text_file".to_owned()) || tools.contains(&"read_file".to_owned()), "{tools:?}");
    let read = if tools.contains(&"read_text_file".to_owned()) { "read_text_file" } else { "read_file" };
    let text = call(&bridge, &session, 2, read, json!({"path": dir.join("notes.txt")})).await;
    assert_eq!(text, "bridged hello");
    let stderr = stderr_lines(&bridge).await;
    assert!(stderr.iter().any(|l| l.contains("running on stdio")), "its stderr reached the log: {stderr:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn server_memory_from_npm() {
    let file = std::env::temp_dir().join(format!("loopscope-memory-{}.jsonl", std::process::id()));
    let env = format!("MEMORY_FILE_PATH={}", file.display());
    let bridge = bridge_in_root(&["--env", &env, "--", "npx", "-y", "@modelcontextprotocol/server-memory"]);
    let session = bridge.initialize().await;
    assert!(tool_names(&bridge, &session).await.contains(&"create_entities".to_owned()));
    let entity = json!({"entities": [{"name": "Loopscope", "entityType": "tool", "observations": ["runs the loop in the page"]}]});
    call(&bridge, &session, 2, "create_entities", entity).await;
    let graph = call(&bridge, &session, 3, "read_graph", json!({})).await;
    assert!(graph.contains("runs the loop in the page"), "{graph}");
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn mcp_server_time_from_pypi() {
    let time = repo_root().join(".venv-mcp2/bin/mcp-server-time");
    let bridge = bridge_in_root(&["--", time.to_str().unwrap(), "--local-timezone", "UTC"]);
    let session = bridge.initialize().await;
    assert!(tool_names(&bridge, &session).await.contains(&"get_current_time".to_owned()));
    let now = call(&bridge, &session, 2, "get_current_time", json!({"timezone": "Europe/Paris"})).await;
    assert!(now.contains("Europe/Paris") && now.contains("datetime"), "{now}");
}

#[tokio::test]
async fn an_unchanged_fastmcp_server_without_cors_through_to() {
    let port = free_port();
    let root = repo_root();
    let mut server = std::process::Command::new(root.join(".venv/bin/python"))
        .arg(root.join("tests/servers/fastmcp_plain.py"))
        .arg(port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start FastMCP");
    assert!(wait_listening(port, Duration::from_secs(20)), "FastMCP listens");
    let target = format!("http://127.0.0.1:{port}/mcp");
    // Without the bridge, a browser may not read it: no Access-Control-Allow-Origin.
    let direct = Bridge::client()
        .request(reqwest::Method::OPTIONS, &target)
        .header("origin", PAGE)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(direct.headers().get("access-control-allow-origin").is_none());
    let bridge = Bridge::start(&["--to", &target]);
    let preflight = Bridge::client()
        .request(reqwest::Method::OPTIONS, &bridge.url)
        .header("origin", PAGE)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type, mcp-session-id")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.headers()["access-control-allow-origin"], PAGE);
    let answer = bridge.post(None, &common::initialize()).send().await.unwrap();
    assert_eq!(answer.headers()["access-control-allow-origin"], PAGE);
    assert!(answer.headers()["access-control-expose-headers"].to_str().unwrap().contains("mcp-session-id"));
    let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    result(answer).await;
    let notified = bridge
        .post(Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .unwrap();
    assert_eq!(notified.status(), 202);
    assert_eq!(call(&bridge, &session, 2, "add", json!({"a": 2, "b": 40})).await, "42");
    let _ = server.kill();
    let _ = server.wait();
    // The server gone: a bridge error that says so, not a CORS mystery.
    let gone = bridge.post(Some(&session), &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})).send().await.unwrap();
    assert_eq!(gone.status(), 502);
    assert_eq!(gone.headers()["loopscope-bridge-error"], "relay");
    assert!(gone.text().await.unwrap().contains("nothing answers there"));
}
