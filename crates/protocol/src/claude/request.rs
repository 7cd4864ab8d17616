//! `POST /v1/messages` and `POST /v1/messages/count_tokens` request bodies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Message;

/// An entry of `tools`: a client tool (name, description, `input_schema`), a tool the API
/// runs itself (`type` names it and its version, e.g. `web_search_20250305`; no schema), or an
/// MCP server's tools for the API's MCP connector (`mcp_toolset`, no name: `mcp_server_name`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// Set for a server tool; absent (the API reads `custom`) for a client tool.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// For an `mcp_toolset`: the `name` of its entry in `mcp_servers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub input_schema: Value,
    /// How many times a server tool may run in one request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// Sent, but out of Claude's context until a tool search finds it (`tool_reference`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
    /// Who may call it: `direct` (Claude) and/or code execution (`code_execution_20260120`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_callers: Vec<String>,
    /// The API guarantees the input matches `input_schema` (and the name is valid).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// The arguments stream as written, without the API buffering and checking each parameter
    /// first: fragments may not be valid JSON, and `max_tokens` may cut them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_input_streaming: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

/// Read by hand (`from_value`, and `Deserialize` through it): serde's derived reader for an
/// internally tagged enum buffers the input in its own content type, which cost the page's first
/// chunk ~5 KB gzip (docs/size.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
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

impl ToolChoice {
    /// Reads a choice from JSON: `{"type": "auto" | "any" | "tool" | "none"}`, `name` for
    /// `tool`, an optional boolean `disable_parallel_tool_use`; other fields are ignored.
    pub fn from_value(v: &Value) -> Option<ToolChoice> {
        let o = v.as_object()?;
        let disable_parallel_tool_use = match o.get("disable_parallel_tool_use") {
            None => false,
            Some(b) => b.as_bool()?,
        };
        match o.get("type")?.as_str()? {
            "auto" => Some(ToolChoice::Auto { disable_parallel_tool_use }),
            "any" => Some(ToolChoice::Any { disable_parallel_tool_use }),
            "tool" => Some(ToolChoice::Tool { name: o.get("name")?.as_str()?.to_owned(), disable_parallel_tool_use }),
            "none" => Some(ToolChoice::None),
            _ => None,
        }
    }

    /// The word of a choice that forces a call (`any`, `tool`), if it does.
    pub fn forces(&self) -> Option<&'static str> {
        match self {
            ToolChoice::Any { .. } => Some("any"),
            ToolChoice::Tool { .. } => Some("tool"),
            ToolChoice::Auto { .. } | ToolChoice::None => None,
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ToolChoice::from_value(&v).ok_or_else(|| {
            serde::de::Error::custom(
                "tool_choice: expected {\"type\": \"auto\" | \"any\" | \"none\"} or {\"type\": \"tool\", \"name\": …}, \
                 with an optional boolean disable_parallel_tool_use",
            )
        })
    }
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
    /// The code execution container to go on in, while calls made from code wait for results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// MCP servers the API itself calls (the MCP connector, beta `mcp-client-2025-11-20`), each
    /// with one `mcp_toolset` entry in `tools`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerUrl>,
}

/// An entry of `mcp_servers`: `{"type": "url", "url", "name", "authorization_token"?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McpServerUrl {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    pub name: String,
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_choice_is_read_as_the_api_spells_it_and_written_back_alike() {
        let cases = [
            (json!({"type": "auto"}), Some(ToolChoice::Auto { disable_parallel_tool_use: false })),
            (
                json!({"type": "any", "disable_parallel_tool_use": true}),
                Some(ToolChoice::Any { disable_parallel_tool_use: true }),
            ),
            (
                json!({"type": "tool", "name": "calculate"}),
                Some(ToolChoice::Tool { name: "calculate".into(), disable_parallel_tool_use: false }),
            ),
            (json!({"type": "none"}), Some(ToolChoice::None)),
            (json!({"type": "tool"}), None),
            (json!({"type": "auto", "disable_parallel_tool_use": "yes"}), None),
            (json!({"type": "sometimes"}), None),
            (json!("auto"), None),
            (json!({}), None),
        ];
        for (v, want) in cases {
            assert_eq!(ToolChoice::from_value(&v), want, "{v}");
            let read: Option<ToolChoice> = serde_json::from_value(v.clone()).ok();
            assert_eq!(read, want, "{v} through Deserialize");
            if let Some(choice) = want {
                assert_eq!(serde_json::to_value(&choice).unwrap(), v, "written back as read");
            }
        }
    }
}
