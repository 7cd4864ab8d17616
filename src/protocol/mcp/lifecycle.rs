//! `initialize`: protocol versions, capabilities and implementation info.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol versions this client speaks, newest first. The first one is what we ask for.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The protocol that dropped `initialize` and sessions; recognised, not spoken (C-44).
pub const MODERN_VERSION: &str = "2026-07-28";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Map<String, Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub protocol_version: String,
    pub capabilities: ClientCapabilities,
    pub client_info: Implementation,
}

/// `{ listChanged?, subscribe? }`: the shape every server capability shares.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Capability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Capability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Capability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Value>,
}

impl ServerCapabilities {
    /// Names of the declared capabilities, for display.
    pub fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut push = |name: &str, on: bool| on.then(|| names.push(name.to_owned()));
        push("tools", self.tools.is_some());
        push("resources", self.resources.is_some());
        push("resources.subscribe", self.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)));
        push("prompts", self.prompts.is_some());
        push("logging", self.logging.is_some());
        push("completions", self.completions.is_some());
        push("tasks", self.tasks.is_some());
        push("experimental", self.experimental.as_ref().is_some_and(|e| e.as_object().is_some_and(|o| !o.is_empty())));
        names
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: String,
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    pub server_info: Implementation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}
