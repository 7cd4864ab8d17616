//! Tools: `tools/list` and `tools/call`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ContentBlock;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema, kept raw: servers send every dialect and keyword there is.
    #[serde(default)]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints about the tool's behaviour. Untrusted (C-31): shown, never relied on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// 2025-11-25: `{ taskSupport: "forbidden" | "optional" | "required" }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// `_meta`: extensions' fields (MCP Apps' `ui`, `apps.rs`). Untrusted, read leniently.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl Tool {
    /// A boolean hint of `annotations` as the server wrote it (`destructiveHint`,
    /// `readOnlyHint`, …); `None` when absent or not a boolean.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.annotations.as_ref()?.get(name)?.as_bool()
    }

    fn task_support(&self) -> Option<&str> {
        self.execution.as_ref().and_then(|e| e.get("taskSupport")).and_then(Value::as_str)
    }

    /// True when the server says the tool only runs as a task (2025-11-25, C-27).
    pub fn requires_tasks(&self) -> bool {
        self.task_support() == Some("required")
    }

    /// True when the tool may run as a task (`optional` or `required`; `forbidden` is the default).
    pub fn allows_tasks(&self) -> bool {
        matches!(self.task_support(), Some("optional" | "required"))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    pub tools: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallToolParams {
    pub name: String,
    pub arguments: Value,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool ran and failed: a successful JSON-RPC call carrying a failed tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}
