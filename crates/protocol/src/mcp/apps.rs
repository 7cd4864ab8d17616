//! MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension), as the wire says them: a
//! tool's `_meta.ui` names its app (a `ui://` resource) and who may see the tool (a tool without
//! `"model"` is for its app only, and the host MUST leave it out of the model's tools; one without
//! `"app"` its app may not call); the app's resource says, in its own `_meta.ui`, the domains its
//! content may reach and the permissions it asks for.

use serde_json::Value;

use super::{ResourceContents, Tool};

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML, the one kind a host renders (and declares it renders).
pub const HTML_MIME: &str = "text/html;profile=mcp-app";

/// What a tool's `_meta.ui` says, read leniently: a stranger's metadata never fails the tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolUi {
    /// The app's `ui://` resource, if the tool has one.
    pub resource_uri: Option<String>,
    /// `false` when `visibility` is a list without `"model"` (the default is both).
    pub for_model: bool,
    /// `false` when `visibility` is a list without `"app"`: its app may not call it.
    pub for_app: bool,
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
        let mut ui = ToolUi { for_model: true, for_app: true, ..ToolUi::default() };
        let uri = nested.and_then(|n| n.get("resourceUri")).or(flat);
        match uri.map(|u| u.as_str()) {
            None => {}
            Some(Some(u)) if u.starts_with("ui://") => ui.resource_uri = Some(u.to_owned()),
            Some(_) => ui.ignored.push("its app's resourceUri is not a ui:// URI".into()),
        }
        match nested.and_then(|n| n.get("visibility")) {
            None => {}
            Some(Value::Array(who)) => {
                ui.for_model = who.iter().any(|w| w == "model");
                ui.for_app = who.iter().any(|w| w == "app");
            }
            Some(_) => ui.ignored.push("_meta.ui.visibility is not a list: read as visible to both".into()),
        }
        Some(ui)
    }

    /// Whether Claude may be offered the tool (MCP Apps: not when it is for its app only).
    pub fn for_model(&self) -> bool {
        self.ui().is_none_or(|ui| ui.for_model)
    }

    /// Whether an app may call the tool (MCP Apps: not when its visibility leaves apps out).
    pub fn for_app(&self) -> bool {
        self.ui().is_none_or(|ui| ui.for_app)
    }
}

/// What an app's resource asks of its host (`_meta.ui` on the `resources/read` item): the
/// domains its content may reach, by kind, and whether it wants a border. Read leniently; a
/// value of the wrong type is as if absent (the strictest reading).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppResource {
    /// `csp.connectDomains`: where its scripts may connect (fetch, WebSocket).
    pub connect: Vec<String>,
    /// `csp.resourceDomains`: where its scripts, styles, images, fonts and media may come from.
    pub resources: Vec<String>,
    /// `csp.frameDomains`: what it may frame.
    pub frames: Vec<String>,
    /// `csp.baseUriDomains`: what its `<base>` may name.
    pub base_uris: Vec<String>,
    /// `prefersBorder`.
    pub prefers_border: Option<bool>,
}

impl AppResource {
    /// Reads the item's `_meta.ui`, or the `resources/list` entry's when the item has none.
    pub fn read(item: &ResourceContents, listed: Option<&Value>) -> AppResource {
        let ui = item.meta.as_ref().and_then(|m| m.get("ui")).or_else(|| listed.and_then(|m| m.get("ui")));
        let Some(ui) = ui else { return AppResource::default() };
        let list = |key: &str| -> Vec<String> {
            let items = ui.get("csp").and_then(|c| c.get(key)).and_then(Value::as_array);
            items.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
        };
        AppResource {
            connect: list("connectDomains"),
            resources: list("resourceDomains"),
            frames: list("frameDomains"),
            base_uris: list("baseUriDomains"),
            prefers_border: ui.get("prefersBorder").and_then(Value::as_bool),
        }
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
    fn a_tool_without_app_in_its_visibility_is_not_for_its_app() {
        assert!(!tool(json!({ "ui": { "visibility": ["model"] } })).for_app());
        assert!(tool(json!({ "ui": { "visibility": ["app"] } })).for_app());
        assert!(tool(json!({ "ui": { "resourceUri": "ui://a/b" } })).for_app());
    }

    #[test]
    fn an_app_resource_names_its_domains_and_strays_are_dropped() {
        let item: ResourceContents = serde_json::from_value(json!({
            "uri": "ui://a/app.html", "mimeType": HTML_MIME, "text": "<p>",
            "_meta": { "ui": { "csp": { "connectDomains": ["https://api.example.com", 7], "frameDomains": "x" }, "prefersBorder": true } }
        }))
        .unwrap();
        let r = AppResource::read(&item, None);
        assert_eq!(r.connect, ["https://api.example.com"]);
        assert!(r.frames.is_empty() && r.resources.is_empty());
        assert_eq!(r.prefers_border, Some(true));
        let bare: ResourceContents = serde_json::from_value(json!({ "uri": "ui://a/app.html" })).unwrap();
        let listed = json!({ "ui": { "csp": { "resourceDomains": ["https://cdn.example.com"] } } });
        assert_eq!(AppResource::read(&bare, Some(&listed)).resources, ["https://cdn.example.com"]);
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
