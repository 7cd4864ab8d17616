//! `initialize`: protocol versions, capabilities and implementation info.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol versions this client speaks, newest first. The first one is what we ask for.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The protocol that dropped `initialize` and sessions (C-44, R-01).
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
    /// Extensions the client declares (SEP-1730), by identifier, each with its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
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
    /// Extensions the server declares (SEP-1730), by identifier, each with its settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// What a server can declare, one by one (`resources.subscribe` is a capability of its own:
/// subscribing needs it, listing does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerCapability {
    Tools,
    Resources,
    ResourceSubscribe,
    Prompts,
    Logging,
    Completions,
    Tasks,
    Experimental,
}

impl ServerCapability {
    pub const ALL: [ServerCapability; 8] = [
        ServerCapability::Tools,
        ServerCapability::Resources,
        ServerCapability::ResourceSubscribe,
        ServerCapability::Prompts,
        ServerCapability::Logging,
        ServerCapability::Completions,
        ServerCapability::Tasks,
        ServerCapability::Experimental,
    ];

    /// Whether the 2026-07-28 revision deprecated it (SEP-2577: still working).
    pub fn deprecated(self) -> bool {
        self == ServerCapability::Logging
    }

    /// The capability as the specification writes it.
    pub fn name(self) -> &'static str {
        match self {
            ServerCapability::Tools => "tools",
            ServerCapability::Resources => "resources",
            ServerCapability::ResourceSubscribe => "resources.subscribe",
            ServerCapability::Prompts => "prompts",
            ServerCapability::Logging => "logging",
            ServerCapability::Completions => "completions",
            ServerCapability::Tasks => "tasks",
            ServerCapability::Experimental => "experimental",
        }
    }
}

impl ServerCapabilities {
    /// The settings of extension `id`, if the server declared it (`{}` is declared, no settings).
    pub fn extension(&self, id: &str) -> Option<&Value> {
        self.extensions.as_ref()?.get(id)
    }

    pub fn has(&self, c: ServerCapability) -> bool {
        match c {
            ServerCapability::Tools => self.tools.is_some(),
            ServerCapability::Resources => self.resources.is_some(),
            ServerCapability::ResourceSubscribe => self.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)),
            ServerCapability::Prompts => self.prompts.is_some(),
            ServerCapability::Logging => self.logging.is_some(),
            ServerCapability::Completions => self.completions.is_some(),
            ServerCapability::Tasks => self.tasks.is_some(),
            ServerCapability::Experimental => {
                self.experimental.as_ref().is_some_and(|e| e.as_object().is_some_and(|o| !o.is_empty()))
            }
        }
    }

    /// The declared capabilities, in the specification's order.
    pub fn declared(&self) -> Vec<ServerCapability> {
        ServerCapability::ALL.into_iter().filter(|c| self.has(*c)).collect()
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
