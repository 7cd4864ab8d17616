//! `POST /v1/messages` and `POST /v1/messages/count_tokens` request bodies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Message;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    Auto {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    Any {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    Tool {
        name: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        disable_parallel_tool_use: bool,
    },
    None,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateMessage {
    pub model: String,
    pub max_tokens: u32,
    pub messages: Vec<Message>,
    /// A string or an array of text blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `{"type": "enabled" | "adaptive" | "disabled", …}`: kept as JSON, because models gain
    /// kinds (and a breakpoint edit may write one) faster than a client learns them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    /// `{"effort": "low" | … | "max"}` and whatever else the API adds there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_config: Option<Value>,
}

/// The body of `count_tokens`: the same fields minus those that do not change the count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CountTokens<'a> {
    pub model: &'a str,
    pub messages: &'a [Message],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<&'a Value>,
    #[serde(skip_serializing_if = "<[ToolDef]>::is_empty")]
    pub tools: &'a [ToolDef],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<&'a ToolChoice>,
}
