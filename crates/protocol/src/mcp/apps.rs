//! MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension), as far as a host that does
//! not show apps must read them: a tool's `_meta.ui` names its app (a `ui://` resource) and who
//! may see the tool. A tool without `"model"` in its visibility is for its app only, and the
//! host MUST leave it out of the model's tools.

use serde_json::Value;

use super::Tool;

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// What a tool's `_meta.ui` says, read leniently: a stranger's metadata never fails the tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolUi {
    /// The app's `ui://` resource, if the tool has one.
    pub resource_uri: Option<String>,
    /// `false` when `visibility` is a list without `"model"` (the default is both).
    pub for_model: bool,
    /// What was wrong with the metadata and ignored, in words.
    pub ignored: Vec<String>,
}

impl Tool {
    /// The tool's app metadata: the nested `_meta.ui` first, then the older flat
    /// `_meta["ui/resourceUri"]`; `None` when it has neither.
    pub fn ui(&self) -> Option<ToolUi> {
        let meta = self.meta.as_ref()?;
        let nested = meta.get("ui").filter(|u| !u.is_null());
        let flat = meta.get("ui/resourceUri");
        if nested.is_none() && flat.is_none() {
            return None;
        }
        let mut ui = ToolUi { for_model: true, ..ToolUi::default() };
        let uri = nested.and_then(|n| n.get("resourceUri")).or(flat);
        match uri.map(|u| u.as_str()) {
            None => {}
            Some(Some(u)) if u.starts_with("ui://") => ui.resource_uri = Some(u.to_owned()),
            Some(_) => ui.ignored.push("its app's resourceUri is not a ui:// URI".into()),
        }
        match nested.and_then(|n| n.get("visibility")) {
            None => {}
            Some(Value::Array(who)) => ui.for_model = who.iter().any(|w| w == "model"),
            Some(_) => ui.ignored.push("_meta.ui.visibility is not a list: read as visible to both".into()),
        }
        Some(ui)
    }

    /// Whether Claude may be offered the tool (MCP Apps: not when it is for its app only).
    pub fn for_model(&self) -> bool {
        self.ui().is_none_or(|ui| ui.for_model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(meta: Value) -> Tool {
        serde_json::from_value(json!({ "name": "t", "inputSchema": { "type": "object" }, "_meta": meta })).unwrap()
    }

    #[test]
    fn the_nested_form_wins_over_the_flat_key() {
        let t = tool(json!({ "ui": { "resourceUri": "ui://a/app.html" }, "ui/resourceUri": "ui://b/old.html" }));
        assert_eq!(t.ui().unwrap().resource_uri.as_deref(), Some("ui://a/app.html"));
        assert!(t.for_model());
        let flat = tool(json!({ "ui/resourceUri": "ui://b/old.html" }));
        assert_eq!(flat.ui().unwrap().resource_uri.as_deref(), Some("ui://b/old.html"));
    }

    #[test]
    fn a_tool_for_its_app_only_is_not_for_the_model() {
        assert!(!tool(json!({ "ui": { "visibility": ["app"] } })).for_model());
        assert!(tool(json!({ "ui": { "visibility": ["model", "app"] } })).for_model());
        assert!(!tool(json!({ "ui": { "visibility": [] } })).for_model());
    }

    #[test]
    fn metadata_a_server_got_wrong_is_ignored_with_why() {
        let t = tool(json!({ "ui": { "resourceUri": "https://evil.example/app.html", "visibility": "app" } }));
        let ui = t.ui().unwrap();
        assert_eq!(ui.resource_uri, None);
        assert!(ui.for_model);
        assert_eq!(ui.ignored.len(), 2, "{:?}", ui.ignored);
        let none: Tool = serde_json::from_value(json!({ "name": "t", "inputSchema": {} })).unwrap();
        assert_eq!(none.ui(), None);
        assert!(none.for_model());
    }
}
