//! What a connected server declared, in words for its card: the capabilities, then each
//! extension with what Loopscope does with it. Extension ids are the server's text: shown as
//! text, at most [`MAX_SHOWN`] of them, each cut to [`MAX_ID_BYTES`] bytes (on a character
//! boundary).

use protocol::mcp::{ServerCapabilities, TASKS_EXTENSION, Tool, apps};

use super::skills;

const MAX_SHOWN: usize = 12;
const MAX_ID_BYTES: usize = 100;

/// What Loopscope does with a known extension.
fn used_for(id: &str) -> &'static str {
    match id {
        skills::EXTENSION => "skills: offered to Claude in phase 1",
        TASKS_EXTENSION => "tasks: followed to their end",
        apps::EXTENSION => "MCP Apps: shown in the chat after a call; tools for their app only are left out",
        _ => "not used by Loopscope",
    }
}

/// The card's capabilities line: `"tools, resources; extensions: … (…)"`, or `"none"`.
pub fn capabilities_line(caps: &ServerCapabilities) -> String {
    let declared: Vec<String> = caps
        .declared()
        .into_iter()
        .map(|c| if c.deprecated() { format!("{} (deprecated in 2026-07-28)", c.name()) } else { c.name().to_owned() })
        .collect();
    let mut parts: Vec<String> = (!declared.is_empty()).then(|| declared.join(", ")).into_iter().collect();
    let ids: Vec<&String> = caps.extensions.iter().flat_map(|m| m.keys()).collect();
    if !ids.is_empty() {
        let mut shown: Vec<String> = ids
            .iter()
            .take(MAX_SHOWN)
            .map(|id| {
                let cut = crate::text::prefix(id, MAX_ID_BYTES);
                let more = if cut.len() < id.len() { "…" } else { "" };
                format!("{cut}{more} ({})", used_for(id))
            })
            .collect();
        if ids.len() > MAX_SHOWN {
            shown.push(format!("and {} more", ids.len() - MAX_SHOWN));
        }
        parts.push(format!("extensions: {}", shown.join(", ")));
    }
    if parts.is_empty() { "none".into() } else { parts.join("; ") }
}

/// What a tool's card says of its app (MCP Apps), if it has one.
pub fn tool_app_note(tool: &Tool) -> Option<String> {
    let ui = tool.ui()?;
    let app = ui
        .resource_uri
        .as_deref()
        .map(|uri| format!(" Its app ({uri}) is shown in the chat after Claude calls a tool of it."))
        .unwrap_or_default();
    Some(if ui.for_model {
        format!("Comes with an app (MCP Apps); Claude is offered the tool as any other.{app}")
    } else {
        format!("For its app only (MCP Apps): not offered to Claude. A call from here stands in for its app.{app}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(v: serde_json::Value) -> ServerCapabilities {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn extensions_are_named_with_what_loopscope_does_with_them() {
        let c = caps(
            json!({ "tools": {}, "prompts": {}, "extensions": { "io.modelcontextprotocol/skills": {}, "x.example/odd": {} } }),
        );
        assert_eq!(
            capabilities_line(&c),
            "tools, prompts; extensions: io.modelcontextprotocol/skills (skills: offered to Claude in phase 1), \
             x.example/odd (not used by Loopscope)"
        );
        assert_eq!(capabilities_line(&caps(json!({}))), "none");
    }

    #[test]
    fn a_tool_s_card_says_who_may_call_it() {
        let tool = |meta: serde_json::Value| -> Tool {
            serde_json::from_value(json!({ "name": "t", "inputSchema": { "type": "object" }, "_meta": meta })).unwrap()
        };
        let app_only =
            tool_app_note(&tool(json!({ "ui": { "resourceUri": "ui://d/app.html", "visibility": ["app"] } })));
        assert_eq!(
            app_only.as_deref(),
            Some(
                "For its app only (MCP Apps): not offered to Claude. A call from here stands in for its app. \
                 Its app (ui://d/app.html) is shown in the chat after Claude calls a tool of it."
            )
        );
        assert!(tool_app_note(&tool(json!({ "ui": {} }))).unwrap().starts_with("Comes with an app"));
        assert_eq!(tool_app_note(&tool(json!({}))), None);
    }

    #[test]
    fn a_stranger_s_many_long_extension_ids_are_cut() {
        let many: serde_json::Map<String, serde_json::Value> =
            (0..40).map(|i| (format!("{i:02}{}", "é".repeat(200)), json!({}))).collect();
        let line = capabilities_line(&caps(json!({ "extensions": many })));
        assert!(line.ends_with(", and 28 more"), "{line}");
        assert!(line.chars().count() < 12 * 140, "{}", line.chars().count());
    }
}
