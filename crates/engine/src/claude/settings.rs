//! What the user sets for the Claude side of the loop.

use serde::{Deserialize, Serialize};

use protocol::claude::ToolChoice;

use super::models::DEFAULT_MODEL;
use super::thinking::Thinking;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// Claude decides (the default).
    Auto,
    /// Claude must call some tool.
    Any,
    /// Tools are described but may not be called.
    None,
    /// Claude must call the tool named in `tool_choice_name`.
    Tool,
}

impl ToolChoiceMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolChoiceMode::Auto => "auto",
            ToolChoiceMode::Any => "any",
            ToolChoiceMode::None => "none",
            ToolChoiceMode::Tool => "tool",
        }
    }

    pub const ALL: [ToolChoiceMode; 4] =
        [ToolChoiceMode::Auto, ToolChoiceMode::Any, ToolChoiceMode::None, ToolChoiceMode::Tool];

    /// The word of a choice that forces a call (`any`, `tool`), if it does: the wire choice's.
    pub fn forces(self) -> Option<&'static str> {
        self.wire("", true).as_ref().and_then(ToolChoice::forces)
    }

    /// The `tool_choice` to send naming `name` for `tool`; `None` when the default (auto,
    /// parallel) applies.
    pub fn wire(self, name: &str, parallel_tool_use: bool) -> Option<ToolChoice> {
        let disable_parallel_tool_use = !parallel_tool_use;
        match self {
            ToolChoiceMode::Auto if parallel_tool_use => None,
            ToolChoiceMode::Auto => Some(ToolChoice::Auto { disable_parallel_tool_use }),
            ToolChoiceMode::Any => Some(ToolChoice::Any { disable_parallel_tool_use }),
            ToolChoiceMode::None => Some(ToolChoice::None),
            ToolChoiceMode::Tool => Some(ToolChoice::Tool { name: name.trim().to_owned(), disable_parallel_tool_use }),
        }
    }

    pub fn parse(s: &str) -> Self {
        Self::ALL.into_iter().find(|m| m.as_str() == s).unwrap_or(ToolChoiceMode::Auto)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClaudeSettings {
    pub base_url: String,
    /// Sent only to `base_url`, never traced, never exported.
    pub api_key: String,
    pub model: String,
    pub max_tokens: u32,
    pub system: String,
    pub tool_choice: ToolChoiceMode,
    /// The tool `tool_choice` `tool` names, as Claude sees it (`<label>_<tool>` for a server's).
    pub tool_choice_name: String,
    pub parallel_tool_use: bool,
    pub thinking: Thinking,
    /// Tools the API runs itself, added after the client's tools.
    pub server_tools: Vec<super::server_tools::ServerTool>,
    /// Which client tools are sent `strict`, with eager input streaming, or deferred.
    pub tool_flags: super::tool_flags::ToolFlags,
    /// The Models API's word on `model`, when the page listed the models and it was among them.
    pub listed: Option<super::listed::Listed>,
    pub max_retries: u32,
    /// How much an answer may make the page read (`engine::limits`).
    pub limits: crate::limits::Limits,
}

impl Default for ClaudeSettings {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: String::new(),
            model: DEFAULT_MODEL.into(),
            max_tokens: 1024,
            system: String::new(),
            tool_choice: ToolChoiceMode::Auto,
            tool_choice_name: String::new(),
            parallel_tool_use: true,
            thinking: Thinking::default(),
            server_tools: Vec::new(),
            tool_flags: super::tool_flags::ToolFlags::default(),
            listed: None,
            max_retries: super::retry::DEFAULT_MAX_RETRIES,
            limits: crate::limits::Limits::default(),
        }
    }
}

impl ClaudeSettings {
    /// The `tool_choice` to send; `None` when the default (auto, parallel) applies.
    pub fn tool_choice(&self) -> Option<ToolChoice> {
        self.tool_choice.wire(&self.tool_choice_name, self.parallel_tool_use)
    }

    pub fn messages_url(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}
