//! Tools the API runs itself. Listed in `tools` like any other, but Claude calls them with a
//! `server_tool_use` block and Anthropic's side runs them (phase 3 happens there): their result
//! blocks arrive in the same answer, and the page routes nothing. Both go back in the next
//! request exactly as they came (the results carry encrypted content the API checks).

use serde::{Deserialize, Serialize};

use protocol::claude::ToolDef;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerTool {
    WebSearch,
    WebFetch,
    CodeExecution,
    /// Tool search (regex): with it on, every MCP server's tool is sent with `defer_loading`,
    /// out of Claude's context until a search finds it.
    ToolSearch,
}

impl ServerTool {
    pub const ALL: [ServerTool; 4] =
        [ServerTool::WebSearch, ServerTool::WebFetch, ServerTool::CodeExecution, ServerTool::ToolSearch];

    /// The name Claude calls it by (`server_tool_use.name`).
    pub fn name(self) -> &'static str {
        match self {
            ServerTool::WebSearch => "web_search",
            ServerTool::WebFetch => "web_fetch",
            ServerTool::CodeExecution => "code_execution",
            ServerTool::ToolSearch => "tool_search_tool_regex",
        }
    }

    /// The versioned `type` of its `tools` entry: the widest-supported version of each (the
    /// newer ones default to being called from code execution, which changes the loop).
    pub fn wire_type(self) -> &'static str {
        match self {
            ServerTool::WebSearch => "web_search_20250305",
            ServerTool::WebFetch => "web_fetch_20250910",
            ServerTool::CodeExecution => "code_execution_20250825",
            ServerTool::ToolSearch => "tool_search_tool_regex_20251119",
        }
    }

    /// What the settings call it.
    pub fn label(self) -> &'static str {
        match self {
            ServerTool::WebSearch => "web search",
            ServerTool::WebFetch => "web fetch",
            ServerTool::CodeExecution => "code execution",
            ServerTool::ToolSearch => "tool search (MCP tools deferred)",
        }
    }

    /// Its entry in `tools`. Searches and fetches are capped per request (each is billed).
    pub fn def(self) -> ToolDef {
        let max_uses = match self {
            ServerTool::WebSearch | ServerTool::WebFetch => Some(5),
            ServerTool::CodeExecution | ServerTool::ToolSearch => None,
        };
        ToolDef { kind: Some(self.wire_type().into()), name: self.name().into(), max_uses, ..ToolDef::default() }
    }
}

/// What phase 1 says about the server tools it adds, if any.
pub fn phase_one_note(tools: &[ServerTool]) -> Option<String> {
    if tools.is_empty() {
        return None;
    }
    let names: Vec<String> = tools.iter().map(|t| format!("{} ({})", t.name(), t.wire_type())).collect();
    let deferred = if tools.contains(&ServerTool::ToolSearch) {
        " Every MCP server's tool is sent with defer_loading: true: Claude sees only the local functions until a \
         tool search finds others (tool_reference)."
    } else {
        ""
    };
    Some(format!(
        "Added to the tools array, run by the API itself: {}. Claude calls them with server_tool_use; Anthropic's \
         side runs them and puts their results in the same answer. This page routes nothing for them.{deferred}",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_names_its_versioned_type_and_has_no_schema() {
        let entry = serde_json::to_value(ServerTool::WebSearch.def()).unwrap();
        assert_eq!(entry, json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}));
        let code = serde_json::to_value(ServerTool::CodeExecution.def()).unwrap();
        assert_eq!(code, json!({"type": "code_execution_20250825", "name": "code_execution"}));
        assert!(phase_one_note(&[]).is_none());
        assert!(phase_one_note(&[ServerTool::WebFetch]).unwrap().contains("web_fetch (web_fetch_20250910)"));
    }
}
