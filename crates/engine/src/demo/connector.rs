//! The demo's MCP connector: with the demo model, a request that names the demo server in
//! `mcp_servers` is answered the way the API's connector answers one. The demo model (standing
//! where Anthropic's servers stand) lists the demo server's tools, calls them itself, reads the
//! results and writes its answer, all within one response that carries `mcp_tool_use` and
//! `mcp_tool_result` blocks. The page's MCP client sends nothing for it, as with the real
//! connector: this is what "Ask both ways" compares, offline and without a key.
//!
//! It reaches the demo server only: any other address is refused with a 400, in the words the
//! API uses for a server it cannot reach (a demo that fetched a real server would do it from
//! this page, which is exactly what the connector does not do).

// The request is the page's own, but it carries text from servers: no slicing by byte index.
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Value, json};

use super::model::{Reply, respond};
use super::server::{DEMO_SERVER_URL, DemoServer};
use crate::claude::connector::BETA;

/// Rounds of calls the demo's connector makes in one answer before it writes its text anyway.
const ROUNDS: usize = 4;

/// One call the connector made on the API's side, with what the server answered.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectorCall {
    pub server_name: String,
    pub name: String,
    pub input: Value,
    pub content: Value,
    pub is_error: bool,
}

/// Whether the request asks for the connector: it names servers in `mcp_servers`.
pub fn asked(request: &Value) -> bool {
    request["mcp_servers"].as_array().is_some_and(|s| !s.is_empty())
}

/// The demo's answer to a request that names MCP servers, or the API's 400 for it.
pub fn answer(server: &DemoServer, request: &Value, beta: Option<&str>) -> Result<Reply, String> {
    if !beta.unwrap_or_default().split(',').any(|b| b.trim() == BETA) {
        return Err(format!("mcp_servers requires the anthropic-beta header {BETA}"));
    }
    let servers = request["mcp_servers"].as_array().cloned().unwrap_or_default();
    let mut names = Vec::new();
    for s in &servers {
        let name = s["name"].as_str().unwrap_or_default();
        let url = s["url"].as_str().unwrap_or_default();
        if url != DEMO_SERVER_URL {
            return Err(format!(
                "Could not connect to MCP server '{name}' at {url}: the demo model's connector reaches only the demo \
                 server ({DEMO_SERVER_URL})"
            ));
        }
        names.push(name.to_owned());
    }
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    let toolsets: Vec<&str> =
        tools.iter().filter(|t| t["type"] == "mcp_toolset").filter_map(|t| t["mcp_server_name"].as_str()).collect();
    if let Some(orphan) = toolsets.iter().find(|t| !names.iter().any(|n| n == *t)) {
        return Err(format!("mcp_toolset references MCP server '{orphan}', which is not in mcp_servers"));
    }
    // Each toolset stands for every tool its server lists, as the server lists them.
    let mut offered: Vec<Value> = tools.iter().filter(|t| t["type"] != "mcp_toolset").cloned().collect();
    let via: Vec<(String, Value)> = toolsets
        .iter()
        .flat_map(|name| server.model_tools().into_iter().map(move |t| ((*name).to_owned(), t)))
        .collect();
    offered.extend(
        via.iter().map(
            |(_, t)| json!({"name": t["name"], "description": t["description"], "input_schema": t["inputSchema"]}),
        ),
    );
    let mut asked = request.as_object().cloned().unwrap_or_default();
    asked.insert("tools".into(), Value::Array(offered));
    let mut messages = request["messages"].as_array().cloned().unwrap_or_default();
    let mut made = Vec::new();
    let mut thinking = None;
    let mut round = 0;
    loop {
        asked.insert("messages".into(), Value::Array(messages.clone()));
        let reply = respond(&Value::Object(asked.clone()));
        thinking = thinking.or(reply.thinking.clone());
        // Calls to the page's own functions end the answer: the page routes those.
        let theirs = |name: &str| via.iter().find(|(_, t)| t["name"] == name).map(|(s, _)| s.clone());
        let all_connector = !reply.calls.is_empty() && reply.calls.iter().all(|(n, _)| theirs(n).is_some());
        if !all_connector || round + 1 == ROUNDS {
            return Ok(Reply { thinking, connector: made, ..reply });
        }
        let mut uses = Vec::new();
        let mut results = Vec::new();
        for (k, (name, input)) in reply.calls.iter().enumerate() {
            let (content, is_error) = server.call_now(name, input);
            let id = format!("mcptoolu_demo_{round}_{k}");
            uses.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            results.push(json!({"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}));
            let server_name = theirs(name).unwrap_or_default();
            made.push(ConnectorCall { server_name, name: name.clone(), input: input.clone(), content, is_error });
        }
        messages.push(json!({"role": "assistant", "content": uses}));
        messages.push(json!({"role": "user", "content": results}));
        round += 1;
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn request(url: &str) -> Value {
        json!({
            "model": "demo",
            "messages": [{"role": "user", "content": "Search the notes for \"jsonrpc\""}],
            "tools": [{"type": "mcp_toolset", "mcp_server_name": "demo"}],
            "mcp_servers": [{"type": "url", "url": url, "name": "demo"}],
        })
    }

    #[test]
    fn the_demo_connector_calls_the_demo_server_and_answers_from_its_result() {
        let server = DemoServer::default();
        let reply = answer(&server, &request(DEMO_SERVER_URL), Some(BETA)).unwrap();
        assert_eq!(reply.connector.len(), 1, "{reply:?}");
        let call = &reply.connector[0];
        assert_eq!((call.server_name.as_str(), call.name.as_str()), ("demo", "search_notes"));
        assert!(!call.is_error);
        assert!(call.content.to_string().contains("JSON-RPC 2.0 is a strict contract"), "{:?}", call.content);
        assert!(reply.calls.is_empty(), "nothing is left for the page to route");
        assert_eq!(reply.stop_reason, "end_turn");
        assert!(reply.text.contains("strict contract"), "{}", reply.text);
    }

    #[test]
    fn a_failing_call_comes_back_as_an_error_result() {
        let server = DemoServer::default();
        let mut req = request(DEMO_SERVER_URL);
        req["messages"] = json!([{"role": "user", "content": "Call the flaky service"}]);
        let reply = answer(&server, &req, Some(BETA)).unwrap();
        let call = &reply.connector[0];
        assert_eq!(call.name, "call_flaky_service");
        assert!(call.is_error);
        assert!(call.content.to_string().contains("504"), "{:?}", call.content);
    }

    #[test]
    fn the_demo_connector_reaches_the_demo_server_only_and_wants_the_beta() {
        let server = DemoServer::default();
        let other = answer(&server, &request("https://mcp.example.com/mcp"), Some(BETA)).unwrap_err();
        assert!(other.contains("reaches only the demo server"), "{other}");
        let no_beta = answer(&server, &request(DEMO_SERVER_URL), Some("interleaved-thinking-2025-05-14")).unwrap_err();
        assert!(no_beta.contains(BETA), "{no_beta}");
        let mut orphan = request(DEMO_SERVER_URL);
        orphan["tools"] = json!([{"type": "mcp_toolset", "mcp_server_name": "other"}]);
        assert!(answer(&server, &orphan, Some(BETA)).unwrap_err().contains("'other'"));
    }
}
