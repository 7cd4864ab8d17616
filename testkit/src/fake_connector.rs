//! The fake API's MCP connector: with `mcp_servers` in a request, the API itself is the MCP
//! client. Its request rules (beta header, https URLs, one `mcp_toolset` per server), and the
//! calls themselves: a scripted `{"mcp_tool_use": {"server_name", "name", "input"}}` makes the
//! fake connect to that server for real (`initialize`, `tools/list`, `tools/call`) and answer
//! with the `mcp_tool_use` and `mcp_tool_result` blocks the real API sends.
//!
//! The API calls public addresses; tests have none. A test maps a public origin to a server on
//! 127.0.0.1 (`POST /_fake/connector-hosts {"https://mcp.example.test": "http://127.0.0.1:PORT"}`),
//! and the fake connects only to mapped loopback origins: an unmapped address is a server the
//! connector could not reach.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// The beta the request must name.
pub const BETA: &str = "mcp-client-2025-11-20";

/// The connector's request rules, as 400 messages.
pub fn validate(req: &Value, betas: &str) -> Result<(), String> {
    let servers = req.get("mcp_servers").and_then(Value::as_array).cloned().unwrap_or_default();
    let toolsets: Vec<&str> = req["tools"]
        .as_array()
        .map(|t| {
            t.iter().filter(|t| t["type"] == "mcp_toolset").filter_map(|t| t["mcp_server_name"].as_str()).collect()
        })
        .unwrap_or_default();
    if servers.is_empty() && toolsets.is_empty() {
        return Ok(());
    }
    if !betas.split(',').any(|b| b.trim() == BETA) {
        return Err("mcp_servers: Extra inputs are not permitted".into());
    }
    let mut names = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        if s["type"] != "url" {
            return Err(format!("mcp_servers.{i}.type: Input should be 'url'"));
        }
        let url = s["url"].as_str().unwrap_or("");
        if !url.starts_with("https://") {
            return Err(format!("mcp_servers.{i}.url: MCP server URL must use https"));
        }
        let name = s["name"].as_str().unwrap_or("");
        if name.is_empty() || names.contains(&name) {
            return Err(format!("mcp_servers.{i}.name: MCP server names must be unique and non-empty"));
        }
        names.push(name);
    }
    for name in &names {
        match toolsets.iter().filter(|t| *t == name).count() {
            1 => {}
            0 => return Err(format!("MCP server '{name}' is defined in mcp_servers but has no mcp_toolset in tools")),
            _ => return Err(format!("MCP server '{name}' has more than one mcp_toolset in tools")),
        }
    }
    if let Some(orphan) = toolsets.iter().find(|t| !names.contains(t)) {
        return Err(format!("mcp_toolset references MCP server '{orphan}', which is not in mcp_servers"));
    }
    Ok(())
}

/// Replaces each scripted `mcp_tool_use` of `step` with the blocks of a call made for real:
/// `{"mcp_block": <mcp_tool_use>}` and `{"mcp_block": <mcp_tool_result>}`. A server the
/// connector cannot reach is the request's failure (a 400, as the API refuses to start).
pub async fn run_calls(step: &mut Value, req: &Value, hosts: &HashMap<String, String>, n: u64) -> Result<(), String> {
    let Some(content) = step.pointer_mut("/reply/content").and_then(Value::as_array_mut) else { return Ok(()) };
    let servers = req.get("mcp_servers").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (k, block) in std::mem::take(content).into_iter().enumerate() {
        let Some(call) = block.get("mcp_tool_use") else {
            out.push(block);
            continue;
        };
        let server_name = call["server_name"].as_str().unwrap_or("");
        let Some(server) = servers.iter().find(|s| s["name"] == server_name) else {
            return Err(format!("(fake script) no MCP server '{server_name}' in the request's mcp_servers"));
        };
        let url = server["url"].as_str().unwrap_or("");
        let target = mapped(url, hosts).ok_or_else(|| {
            format!(
                "Could not connect to MCP server '{server_name}' at {url}: the address is not reachable from the API"
            )
        })?;
        let id = format!("mcptoolu_fake_{n:04}_{k}");
        let (content, is_error) = match call_tool(&target, call["name"].as_str().unwrap_or(""), &call["input"]).await {
            Ok(result) => (result["content"].clone(), result["isError"] == true),
            Err(why) => (json!([{ "type": "text", "text": why }]), true),
        };
        out.push(json!({ "mcp_block": {
            "type": "mcp_tool_use", "id": id, "name": call["name"], "server_name": server_name, "input": call["input"],
        }}));
        out.push(json!({ "mcp_block": {
            "type": "mcp_tool_result", "tool_use_id": id, "is_error": is_error, "content": content,
        }}));
    }
    *content = out;
    Ok(())
}

/// `url` on the loopback server a test mapped its origin to, if it did.
fn mapped(url: &str, hosts: &HashMap<String, String>) -> Option<String> {
    let (origin, target) = hosts.iter().find(|(origin, _)| {
        url.strip_prefix(origin.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })?;
    assert!(target.starts_with("http://127.0.0.1:"), "the fake connector connects to loopback only, not {target}");
    Some(format!("{target}{}", url.strip_prefix(origin.as_str()).unwrap_or("")))
}

/// One JSON-RPC exchange over Streamable HTTP: the answer to `id` from a JSON body or an SSE
/// stream, and the session id the server gave.
async fn rpc(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> Result<(Option<Value>, Option<String>), String> {
    let mut req = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18");
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let resp = req.body(body.to_string()).send().await.map_err(|e| format!("the connector could not connect: {e}"))?;
    let session = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let status = resp.status();
    let sse =
        resp.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|t| t.contains("event-stream"));
    let text = resp.text().await.map_err(|e| format!("the connector could not read the answer: {e}"))?;
    if !status.is_success() {
        return Err(format!("the server answered HTTP {status}"));
    }
    let Some(id) = body.get("id") else { return Ok((None, session)) };
    let messages: Vec<Value> = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    } else {
        serde_json::from_str(&text).into_iter().collect()
    };
    let answer = messages.into_iter().find(|m| m.get("id") == Some(id));
    Ok((answer, session))
}

/// What the API's connector does for one call: connect, list the tools, call one.
async fn call_tool(url: &str, name: &str, input: &Value) -> Result<Value, String> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "fake-anthropic-mcp-connector", "version": "0" } } });
    let (_, session) = rpc(&http, url, None, init).await?;
    let s = session.as_deref();
    rpc(&http, url, s, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await?;
    let (list, _) = rpc(&http, url, s, json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" })).await?;
    let listed =
        list.as_ref().and_then(|l| l.pointer("/result/tools")).and_then(Value::as_array).cloned().unwrap_or_default();
    if !listed.iter().any(|t| t["name"] == name) {
        return Err(format!("Tool '{name}' not found on the MCP server"));
    }
    let call =
        json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": name, "arguments": input } });
    let (answer, _) = rpc(&http, url, s, call).await?;
    let answer = answer.ok_or("the server sent no answer to tools/call")?;
    if let Some(e) = answer.get("error") {
        return Err(format!("JSON-RPC error {}: {}", e["code"], e["message"].as_str().unwrap_or("")));
    }
    if let Some(s) = s {
        let _ = http.delete(url).header("mcp-session-id", s).send().await;
    }
    Ok(answer["result"].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_of_a_connector_request() {
        let ok = json!({
            "mcp_servers": [{"type": "url", "url": "https://a.example/mcp", "name": "a"}],
            "tools": [{"type": "mcp_toolset", "mcp_server_name": "a"}],
        });
        assert_eq!(validate(&ok, BETA), Ok(()));
        assert!(validate(&ok, "").unwrap_err().contains("Extra inputs"));
        let http = json!({"mcp_servers": [{"type": "url", "url": "http://a.example/mcp", "name": "a"}],
            "tools": [{"type": "mcp_toolset", "mcp_server_name": "a"}]});
        assert!(validate(&http, BETA).unwrap_err().contains("https"));
        let no_toolset = json!({"mcp_servers": [{"type": "url", "url": "https://a.example/mcp", "name": "a"}]});
        assert!(validate(&no_toolset, BETA).unwrap_err().contains("no mcp_toolset"));
        let orphan = json!({"tools": [{"type": "mcp_toolset", "mcp_server_name": "b"}]});
        assert!(validate(&orphan, BETA).unwrap_err().contains("not in mcp_servers"));
    }

    #[test]
    fn only_a_mapped_origin_is_reached() {
        let hosts = HashMap::from([("https://a.example".to_owned(), "http://127.0.0.1:4000".to_owned())]);
        assert_eq!(mapped("https://a.example/mcp", &hosts).as_deref(), Some("http://127.0.0.1:4000/mcp"));
        assert_eq!(mapped("https://a.example.evil/mcp", &hosts), None);
        assert_eq!(mapped("https://b.example/mcp", &hosts), None);
    }
}
