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
    /// Code execution that may call the client's tools (programmatic tool calling): each tool
    /// is sent with `allowed_callers`, and a call from code waits in a container for its result.
    CodeCallsTools,
}

/// The code execution version whose code may call the client's tools.
pub const PROGRAMMATIC: &str = "code_execution_20260120";

/// A request the API would refuse for its server tools, named before sending.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerToolRule {
    #[error(
        "code that calls your tools needs parallel tool use on (the API refuses disable_parallel_tool_use with it)"
    )]
    ProgrammaticWithoutParallel,
}

/// The `tools` entries for `chosen`: one code execution (the programmatic one wins when both are
/// chosen, since both are named `code_execution`).
pub fn entries(chosen: &[ServerTool]) -> Vec<ToolDef> {
    let programmatic = chosen.contains(&ServerTool::CodeCallsTools);
    chosen.iter().filter(|t| !(programmatic && **t == ServerTool::CodeExecution)).map(|t| t.def()).collect()
}

/// The rules the API enforces for `chosen` with parallel tool use on or off.
pub fn check(chosen: &[ServerTool], parallel_tool_use: bool) -> Result<(), ServerToolRule> {
    if chosen.contains(&ServerTool::CodeCallsTools) && !parallel_tool_use {
        return Err(ServerToolRule::ProgrammaticWithoutParallel);
    }
    Ok(())
}

impl ServerTool {
    pub const ALL: [ServerTool; 5] = [
        ServerTool::WebSearch,
        ServerTool::WebFetch,
        ServerTool::CodeExecution,
        ServerTool::CodeCallsTools,
        ServerTool::ToolSearch,
    ];

    /// The name Claude calls it by (`server_tool_use.name`).
    pub fn name(self) -> &'static str {
        match self {
            ServerTool::WebSearch => "web_search",
            ServerTool::WebFetch => "web_fetch",
            ServerTool::CodeExecution | ServerTool::CodeCallsTools => "code_execution",
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
            ServerTool::CodeCallsTools => PROGRAMMATIC,
        }
    }

    /// What the settings call it.
    pub fn label(self) -> &'static str {
        match self {
            ServerTool::WebSearch => "web search",
            ServerTool::WebFetch => "web fetch",
            ServerTool::CodeExecution => "code execution",
            ServerTool::ToolSearch => "tool search (MCP tools deferred)",
            ServerTool::CodeCallsTools => "code execution that calls your tools",
        }
    }

    /// Its entry in `tools`. Searches and fetches are capped per request (each is billed).
    pub fn def(self) -> ToolDef {
        let max_uses = match self {
            ServerTool::WebSearch | ServerTool::WebFetch => Some(5),
            ServerTool::CodeExecution | ServerTool::ToolSearch | ServerTool::CodeCallsTools => None,
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
    let programmatic = if tools.contains(&ServerTool::CodeCallsTools) {
        " Every client tool is sent with allowed_callers [direct, code_execution_20260120]: code running on the \
         API's side may call it, and such a call comes to this page as a tool_use with its caller."
    } else {
        ""
    };
    let deferred = if tools.contains(&ServerTool::ToolSearch) {
        " Tools sent with defer_loading: true (every MCP server's tool, unless Settings name others) are out of \
         Claude's context until a tool search finds them (tool_reference)."
    } else {
        ""
    };
    Some(format!(
        "Added to the tools array, run by the API itself: {}. Claude calls them with server_tool_use; Anthropic's \
         side runs them and puts their results in the same answer. This page routes nothing for them.{deferred}{programmatic}",
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
