//! Phase 3: where a `tool_use` goes, decided by name alone — Claude knows nothing of MCP.
//! A local function runs in the page; an MCP tool becomes `tools/call` on its server; a name
//! nobody offered (hallucinated) or input that is not an object runs nothing and comes back as
//! an is_error result that says why.

use serde_json::Value;

use super::catalog::{Catalog, Origin};
use crate::trace::RouteTarget;
use protocol::claude::ToolUse;

/// The routing decision for one tool_use. `input_error` is set when the streamed input was not
/// valid JSON.
pub fn decide(tool_use: &ToolUse, catalog: &Catalog, input_error: Option<&String>) -> RouteTarget {
    let Some(entry) = catalog.lookup(&tool_use.name) else {
        let mut offered: Vec<&str> = catalog.entries.iter().map(|e| e.name.as_str()).collect();
        offered.truncate(30);
        return RouteTarget::Refused {
            reason: format!(
                "There is no tool named \"{}\". Tools you can call: {}.",
                tool_use.name,
                if offered.is_empty() { "none".to_owned() } else { offered.join(", ") }
            ),
        };
    };
    if let Some(why) = input_error {
        return RouteTarget::Refused {
            reason: format!("The tool input was not valid JSON ({why}). Send the input again as one JSON object."),
        };
    }
    if !tool_use.input.is_object() {
        let kind = match &tool_use.input {
            Value::Array(_) => "an array",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            _ => "null",
        };
        return RouteTarget::Refused { reason: format!("The tool input must be a JSON object, not {kind}.") };
    }
    match &entry.origin {
        Origin::Local { function } => RouteTarget::Local { function: function.clone() },
        Origin::Server { server_id, label, tool } => {
            RouteTarget::Server { server_id: server_id.clone(), label: label.clone(), tool: tool.clone() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_use(name: &str, input: Value) -> ToolUse {
        ToolUse { id: "t".into(), name: name.into(), input }
    }

    #[test]
    fn routes_by_name_and_refuses_what_cannot_run() {
        let catalog = Catalog::build(&super::super::local::builtin(), &[]);
        assert_eq!(
            decide(&tool_use("get_weather", json!({"city": "Tokyo"})), &catalog, None),
            RouteTarget::Local { function: "get_weather".into() }
        );
        let RouteTarget::Refused { reason } = decide(&tool_use("get_wether", json!({})), &catalog, None) else {
            panic!()
        };
        assert!(reason.contains("no tool named \"get_wether\"") && reason.contains("get_weather"), "{reason}");
        let RouteTarget::Refused { reason } = decide(&tool_use("calculate", json!([1])), &catalog, None) else {
            panic!()
        };
        assert!(reason.contains("not an array"), "{reason}");
        let bad = "expected value".to_owned();
        assert!(matches!(decide(&tool_use("calculate", json!({})), &catalog, Some(&bad)), RouteTarget::Refused { .. }));
    }
}
