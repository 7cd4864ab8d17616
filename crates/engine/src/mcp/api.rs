//! The requests of the three primitives, typed, each sent only when the server declared the
//! capability (C-35), and every `*/list` paged to the end (C-24).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::envelope::header_params;
use super::error::ProtocolError;
use super::{McpClient, McpError, RequestOptions};
use crate::limits::ListingBudget;
use crate::platform::Platform;
use protocol::mcp::{
    CallToolResult, GetPromptResult, LOG_LEVELS, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    ServerCapability, Tool, created_task, method,
};

/// The server's tools, minus those the client must leave out, each with its reason.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolList {
    pub tools: Vec<Tool>,
    /// (name, or "#index" when it has none; why it was left out).
    pub excluded: Vec<(String, String)>,
}

pub(super) fn decode<T: DeserializeOwned>(v: Value, what: &str) -> Result<T, McpError> {
    serde_json::from_value(v.clone())
        .map_err(|e| McpError::Decode { reason: format!("not a valid {what}: {e}"), raw: v.to_string() })
}

/// Checks one raw tool definition: C-26 (one bad tool never sinks the list), C-27 (task-only
/// tools are hidden unless the server runs tasks for `tools/call`).
fn check_tool(raw: Value, index: usize, tasks: bool) -> Result<Tool, (String, String)> {
    let label = raw.get("name").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("#{index}"));
    let tool: Tool =
        serde_json::from_value(raw).map_err(|e| (label.clone(), format!("not a valid tool definition: {e}")))?;
    match tool.input_schema.get("type").and_then(Value::as_str) {
        Some("object") => {}
        Some(other) => {
            return Err((label, format!("inputSchema.type is \"{other}\", not \"object\"")));
        }
        // A missing type is repaired when the tools array is built (it can only mean an object).
        None if tool.input_schema.is_object() => {}
        None => return Err((label, "inputSchema is not a JSON object".into())),
    }
    if tool.requires_tasks() && !tasks {
        return Err((
            label,
            "runs only as a task (execution.taskSupport: \"required\"), but the server does not declare tasks for tools/call"
                .into(),
        ));
    }
    Ok(tool)
}

impl<P: Platform> McpClient<P> {
    /// C-35: refuse before sending what the server did not declare.
    fn require(&self, capability: ServerCapability, method: &str) -> Result<(), McpError> {
        if self.declared(|caps| caps.has(capability))? {
            Ok(())
        } else {
            Err(McpError::Protocol(ProtocolError::NotCapable { method: method.into(), capability: capability.name() }))
        }
    }

    /// Pages through a `*/list` until `nextCursor` is absent (C-24), within one budget for the
    /// whole listing (`limits::ListingBudget`): pages, items and bytes over all pages.
    pub(super) async fn list_all(
        &self,
        method: &str,
        key: &str,
        opts: &RequestOptions,
    ) -> Result<Vec<Value>, McpError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut budget = ListingBudget::new(&self.config.limits);
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let mut page = self.request(method, Some(params), opts).await?;
            let list = match page.get_mut(key) {
                Some(Value::Array(list)) => std::mem::take(list),
                _ => {
                    return Err(McpError::Decode {
                        reason: format!("{method} result has no `{key}` array"),
                        raw: page.to_string(),
                    });
                }
            };
            // Spent before it is kept: past the budget, nothing of the listing stays.
            if let Err(limit) = budget.spend(&list) {
                self.tracer.note(self.peer(), format!("{method} stopped: {limit}"));
                return Err(McpError::Limit(limit));
            }
            items.extend(list);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                Some(_) => {
                    return Err(McpError::Decode {
                        reason: format!("{method} returned the same nextCursor twice"),
                        raw: page.to_string(),
                    });
                }
                None => return Ok(items),
            }
        }
    }

    pub async fn list_tools(&self, opts: &RequestOptions) -> Result<ToolList, McpError> {
        self.require(ServerCapability::Tools, method::TOOLS_LIST)?;
        let raw = self.list_all(method::TOOLS_LIST, "tools", opts).await?;
        let modern = self.modern().is_some();
        let tasks = self.task_era().is_some();
        let mut list = ToolList::default();
        let mut headers = std::collections::HashMap::new();
        for (i, t) in raw.into_iter().enumerate() {
            let checked = check_tool(t, i, tasks).and_then(|tool| {
                if !modern {
                    return Ok(tool);
                }
                // SEP-2243: a tool whose x-mcp-header declarations break the rules is left out.
                match header_params(&tool.input_schema) {
                    Ok(h) => {
                        headers.insert(tool.name.clone(), h);
                        Ok(tool)
                    }
                    Err(why) => Err((tool.name.clone(), why)),
                }
            });
            match checked {
                Ok(tool) => list.tools.push(tool),
                Err(why) => list.excluded.push(why),
            }
        }
        *self.tool_headers.borrow_mut() = headers;
        *self.task_tools.borrow_mut() =
            list.tools.iter().filter(|t| t.allows_tasks()).map(|t| t.name.clone()).collect();
        Ok(list)
    }

    /// Calls a tool. A JSON-RPC error is an `Err`; a tool that ran and failed is
    /// `Ok(CallToolResult { is_error: true, .. })` (C-28). A call the server turns into a task
    /// is followed to its end (`tasks.rs`), and the task's result is the call's.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        opts: &RequestOptions,
    ) -> Result<CallToolResult, McpError> {
        self.require(ServerCapability::Tools, method::TOOLS_CALL)?;
        let mut params = json!({ "name": name, "arguments": arguments });
        if let Some(task) = self.task_request(name) {
            params["task"] = task;
        }
        let result = self.request(method::TOOLS_CALL, Some(params), opts).await?;
        match created_task(&result) {
            Some(task) if self.task_era().is_some() => self.follow_task(task, opts).await,
            Some(_) => Err(McpError::Decode {
                reason: "the server answered with a task, but this connection did not negotiate tasks".into(),
                raw: result.to_string(),
            }),
            None => decode(result, "CallToolResult"),
        }
    }

    pub async fn list_resources(&self, opts: &RequestOptions) -> Result<Vec<Resource>, McpError> {
        self.require(ServerCapability::Resources, method::RESOURCES_LIST)?;
        let raw = self.list_all(method::RESOURCES_LIST, "resources", opts).await?;
        raw.into_iter().map(|r| decode(r, "Resource")).collect()
    }

    pub async fn list_resource_templates(&self, opts: &RequestOptions) -> Result<Vec<ResourceTemplate>, McpError> {
        self.require(ServerCapability::Resources, method::RESOURCES_TEMPLATES_LIST)?;
        let raw = self.list_all(method::RESOURCES_TEMPLATES_LIST, "resourceTemplates", opts).await?;
        raw.into_iter().map(|r| decode(r, "ResourceTemplate")).collect()
    }

    pub async fn read_resource(&self, uri: &str, opts: &RequestOptions) -> Result<ReadResourceResult, McpError> {
        self.require(ServerCapability::Resources, method::RESOURCES_READ)?;
        let result = self.request(method::RESOURCES_READ, Some(json!({ "uri": uri })), opts).await?;
        decode(result, "ReadResourceResult")
    }

    /// Asks for `notifications/resources/updated` about `uri` (C-33); only when the server
    /// declared `resources.subscribe`. Ended by `unsubscribe` or on disconnect.
    /// In 2026-07-28 there is no subscribe request: the URI joins the listen stream's filter,
    /// and the stream opens again with it.
    pub async fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        self.require(ServerCapability::ResourceSubscribe, method::RESOURCES_SUBSCRIBE)?;
        if self.modern().is_none() {
            self.request(method::RESOURCES_SUBSCRIBE, Some(json!({ "uri": uri })), &RequestOptions::default()).await?;
        }
        self.subscriptions.borrow_mut().insert(uri.to_owned());
        self.relisten.borrow().cancel();
        Ok(())
    }

    pub async fn unsubscribe(&self, uri: &str) -> Result<(), McpError> {
        self.require(ServerCapability::ResourceSubscribe, method::RESOURCES_UNSUBSCRIBE)?;
        self.subscriptions.borrow_mut().remove(uri);
        self.relisten.borrow().cancel();
        if self.modern().is_none() {
            self.request(method::RESOURCES_UNSUBSCRIBE, Some(json!({ "uri": uri })), &RequestOptions::default())
                .await?;
        }
        Ok(())
    }

    /// The resource URIs this session is subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        self.subscriptions.borrow().iter().cloned().collect()
    }

    pub async fn list_prompts(&self, opts: &RequestOptions) -> Result<Vec<Prompt>, McpError> {
        self.require(ServerCapability::Prompts, method::PROMPTS_LIST)?;
        let raw = self.list_all(method::PROMPTS_LIST, "prompts", opts).await?;
        raw.into_iter().map(|p| decode(p, "Prompt")).collect()
    }

    /// Fills a prompt. Required arguments are checked here first (C-34): the user hears what
    /// is missing without a round trip.
    pub async fn get_prompt(
        &self,
        prompt: &Prompt,
        arguments: &Map<String, Value>,
        opts: &RequestOptions,
    ) -> Result<GetPromptResult, McpError> {
        self.require(ServerCapability::Prompts, method::PROMPTS_GET)?;
        let missing: Vec<&str> = prompt
            .arguments
            .iter()
            .filter(|a| a.required && arguments.get(&a.name).and_then(Value::as_str).is_none_or(str::is_empty))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(McpError::Client(format!("prompt \"{}\" needs: {}", prompt.name, missing.join(", "))));
        }
        let params = json!({ "name": prompt.name, "arguments": arguments });
        let result = self.request(method::PROMPTS_GET, Some(params), opts).await?;
        decode(result, "GetPromptResult")
    }

    pub async fn ping(&self, opts: &RequestOptions) -> Result<(), McpError> {
        self.request(method::PING, None, opts).await.map(|_| ())
    }

    /// C-23: one of the eight syslog levels, only if the server declared `logging`.
    pub async fn set_log_level(&self, level: &str) -> Result<(), McpError> {
        self.require(ServerCapability::Logging, method::LOGGING_SET_LEVEL)?;
        if !LOG_LEVELS.contains(&level) {
            return Err(McpError::Client(format!("\"{level}\" is not a log level ({})", LOG_LEVELS.join(", "))));
        }
        if self.modern().is_some() {
            // 2026-07-28: every later request asks for this level in its _meta.
            *self.log_level.borrow_mut() = Some(level.to_owned());
            return Ok(());
        }
        self.request(method::LOGGING_SET_LEVEL, Some(json!({ "level": level })), &RequestOptions::default()).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_tools_are_left_out_with_a_reason_c26_c27() {
        assert!(check_tool(json!({"name":"ok","inputSchema":{"type":"object"}}), 0, false).is_ok());
        let (name, why) = check_tool(json!({"name":"arr","inputSchema":{"type":"array"}}), 1, false).unwrap_err();
        assert_eq!(name, "arr");
        assert!(why.contains("\"array\""), "{why}");
        let (name, _) = check_tool(json!({"inputSchema":{"type":"object"}}), 2, false).unwrap_err();
        assert!(check_tool(json!({"name":"untyped","inputSchema":{"properties":{}}}), 4, false).is_ok());
        assert!(check_tool(json!({"name":"none","inputSchema":null}), 5, false).is_err());
        assert_eq!(name, "#2");
        let task = json!({"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}});
        assert!(check_tool(task.clone(), 3, false).unwrap_err().1.contains("task"));
        assert!(check_tool(task, 3, true).is_ok(), "kept when the server runs tasks for tools/call");
    }
}
