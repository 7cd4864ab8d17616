//! Phase 1: the `tools` array Claude sees, merged from the page's local functions and every
//! connected server (A-04, A-05, P11–P13).
//!
//! - Stable order (local tools by name, then servers by label, their tools by name) so the
//!   prompt cache keeps hitting; the last tool carries the cache breakpoint.
//! - MCP tools are named `<server label>_<tool>` as in the article's `github_create_issue`,
//!   made valid for Claude (`^[a-zA-Z0-9_-]{1,64}$`), with a map back to server + original name.
//! - Collisions after sanitising get a numeric suffix, and say so.
//! - Schemas Claude would reject are repaired (missing `type`, top-level `anyOf`/`oneOf`/`allOf`)
//!   or the tool is left out with the reason: one bad tool never sinks the request.

use serde_json::{Map, Value, json};

use super::local::LocalTool;
use crate::claude::server_tools::{self, ServerTool};
use crate::claude::strict::ToolFieldRule;
use crate::claude::tool_flags::ToolFlags;
use crate::mcp::ToolList;
use protocol::claude::ToolDef;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Local { function: String },
    Server { server_id: String, label: String, tool: String },
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Local { function } => format!("local function {function}"),
            Origin::Server { label, tool, .. } => format!("{tool} on MCP server \"{label}\""),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The name Claude sees and calls.
    pub name: String,
    pub origin: Origin,
    pub def: ToolDef,
    /// Renames and repairs, in words.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Excluded {
    pub origin: Origin,
    pub reason: String,
}

/// What phase 1 says of a tool's app (MCP Apps).
fn app_notes(ui: protocol::mcp::apps::ToolUi) -> Vec<String> {
    let shown = ui.resource_uri.map(|uri| {
        format!(
            "comes with an app ({uri}), shown in the chat after a call: Claude gets the result's content, as always"
        )
    });
    shown.into_iter().chain(ui.ignored.into_iter().map(|why| format!("{why}: ignored"))).collect()
}

/// A server phase 1 could not list: all of its tools are left out of this turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Unavailable {
    pub server_id: String,
    pub label: String,
    pub failure: crate::layer::Failure,
}

impl Unavailable {
    /// The chat's line about it.
    pub fn explain(&self) -> String {
        format!(
            "The tools of \"{}\" are left out of this turn: tools/list failed ({} layer): {}",
            self.label, self.failure.layer, self.failure.message
        )
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    pub entries: Vec<Entry>,
    pub excluded: Vec<Excluded>,
    pub unavailable: Vec<Unavailable>,
    /// The skills the servers offer (SEP-2640), behind the page's `load_skill` (`skills.rs`).
    pub skills: Vec<super::skills::ServerSkills>,
    /// Servers whose skills are left out of this turn, each with why (said in the chat).
    pub skills_left_out: Vec<String>,
    /// The offered tools that come with an app (MCP Apps), by server id, as their server
    /// listed them: a call to one shows its app.
    pub apps: Vec<(String, protocol::mcp::Tool)>,
    /// The offered tools their server marks destructive (`consent::marked_destructive`), by
    /// server id and tool name: a call asks unless the user lets that server's run.
    pub destructive: Vec<(String, String)>,
}

/// One connected server's tools, as phase 1 gathered them.
pub struct ServerTools<'a> {
    pub server_id: &'a str,
    pub label: &'a str,
    pub list: &'a ToolList,
}

impl Catalog {
    pub fn lookup(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Whether `target`'s server marks the tool destructive.
    pub fn destructive(&self, target: &crate::trace::RouteTarget) -> bool {
        match target {
            crate::trace::RouteTarget::Server { server_id, tool, .. } => {
                self.destructive.iter().any(|(s, t)| s == server_id && t == tool)
            }
            _ => false,
        }
    }

    /// The app of Claude's call `tool_use_id` of `name`, if that tool comes with one (MCP Apps):
    /// shown as soon as Claude starts writing the call.
    pub fn app_of(&self, name: &str, tool_use_id: &str) -> Option<crate::apps::AppCall> {
        let Origin::Server { server_id, label, tool } = &self.lookup(name)?.origin else { return None };
        let (_, listed) = self.apps.iter().find(|(s, t)| s == server_id && &t.name == tool)?;
        crate::apps::AppCall::of(listed, server_id, label, tool_use_id)
    }

    /// The client's tools for the request, with a cache breakpoint on the last one.
    pub fn tool_defs(&self) -> Vec<ToolDef> {
        self.tools_with(&[], &ToolFlags::default()).unwrap_or_default()
    }

    /// The whole `tools` array with the server tools `chosen` and the per-tool fields `flags`:
    /// with a tool search, the tools `defer_loading` picks deferred (every MCP server's tool
    /// unless named otherwise; local functions stay loaded, so one tool is); with code that
    /// calls tools, every client tool callable from code (`allowed_callers`); `strict` and
    /// `eager_input_streaming` where picked; then the server tools' own entries. A name picked
    /// that matches no tool is refused, as the API would refuse a request it cannot apply.
    pub fn tools_with(&self, chosen: &[ServerTool], flags: &ToolFlags) -> Result<Vec<ToolDef>, ToolFieldRule> {
        let search = chosen.contains(&ServerTool::ToolSearch);
        let callers: Vec<String> = if chosen.contains(&ServerTool::CodeCallsTools) {
            vec!["direct".into(), server_tools::PROGRAMMATIC.into()]
        } else {
            Vec::new()
        };
        let offered: Vec<&str> = self.entries.iter().map(|e| e.name.as_str()).collect();
        let mut picks = vec![("strict", &flags.strict), ("eager_input_streaming", &flags.eager_input_streaming)];
        if search {
            picks.push(("defer_loading", &flags.defer_loading));
        }
        for (field, pick) in picks {
            if let Some(name) = pick.unmatched(&offered) {
                return Err(ToolFieldRule::NotOffered { field, name: name.to_owned() });
            }
        }
        let mut defs: Vec<ToolDef> = self
            .entries
            .iter()
            .map(|e| ToolDef {
                defer_loading: search && flags.defer_loading.picks(&e.name, matches!(e.origin, Origin::Server { .. })),
                allowed_callers: callers.clone(),
                strict: flags.strict.picks(&e.name, true),
                eager_input_streaming: flags.eager_input_streaming.picks(&e.name, true).then_some(true),
                ..e.def.clone()
            })
            .collect();
        if !defs.is_empty() && defs.iter().all(|d| d.defer_loading) {
            return Err(ToolFieldRule::AllDeferred);
        }
        if let Some(last) = defs.last_mut() {
            last.cache_control = Some(json!({"type": "ephemeral"}));
        }
        defs.extend(server_tools::entries(chosen));
        Ok(defs)
    }

    pub fn build(local: &[LocalTool], servers: &[ServerTools<'_>]) -> Catalog {
        let mut catalog = Catalog::default();
        let mut locals: Vec<&LocalTool> = local.iter().collect();
        locals.sort_by_key(|t| t.name);
        for t in locals {
            let def = ToolDef {
                name: t.name.to_owned(),
                description: Some(t.description.to_owned()),
                input_schema: (t.input_schema)(),
                ..ToolDef::default()
            };
            catalog.add(Origin::Local { function: t.name.to_owned() }, def, Vec::new());
        }
        let mut servers: Vec<&ServerTools<'_>> = servers.iter().collect();
        servers.sort_by_cached_key(|s| (slug(s.label), s.server_id.to_owned()));
        for s in servers {
            let prefix = slug(s.label);
            for (name, reason) in &s.list.excluded {
                let origin =
                    Origin::Server { server_id: s.server_id.into(), label: s.label.into(), tool: name.clone() };
                catalog.excluded.push(Excluded { origin, reason: reason.clone() });
            }
            let mut tools: Vec<_> = s.list.tools.iter().collect();
            tools.sort_by(|a, b| a.name.cmp(&b.name));
            for tool in tools {
                let origin =
                    Origin::Server { server_id: s.server_id.into(), label: s.label.into(), tool: tool.name.clone() };
                let ui = tool.ui();
                if ui.as_ref().is_some_and(|ui| !ui.for_model) {
                    let reason = "for its app only (MCP Apps: _meta.ui.visibility has no \"model\"), so a host leaves it out of \
                                  the model's tools"
                        .into();
                    catalog.excluded.push(Excluded { origin, reason });
                    continue;
                }
                match repair_schema(&tool.input_schema) {
                    Err(reason) => catalog.excluded.push(Excluded { origin, reason }),
                    Ok((schema, mut notes)) => {
                        if ui.as_ref().is_some_and(|ui| ui.resource_uri.is_some()) {
                            catalog.apps.push((s.server_id.to_owned(), tool.clone()));
                        }
                        if super::consent::marked_destructive(tool) {
                            catalog.destructive.push((s.server_id.to_owned(), tool.name.clone()));
                        }
                        notes.extend(ui.into_iter().flat_map(app_notes));
                        let def = ToolDef {
                            name: claude_name(&prefix, &tool.name),
                            description: tool.description.clone().or_else(|| tool.title.clone()),
                            input_schema: schema,
                            ..ToolDef::default()
                        };
                        catalog.add(origin, def, notes);
                    }
                }
            }
        }
        catalog
    }

    /// Offers the servers' skills: the page's two skill functions (when a skill may be loaded),
    /// and every entry a host must not load left out with why.
    pub fn offer_skills(&mut self, offer: super::skills::Offer) {
        for s in &offer.skills {
            for (uri, reason) in &s.list.excluded {
                let origin =
                    Origin::Server { server_id: s.server_id.clone(), label: s.label.clone(), tool: uri.clone() };
                self.excluded.push(Excluded { origin, reason: format!("a skill a host must not load: {reason}") });
            }
        }
        if let Some((defs, note)) = offer.functions {
            for def in defs {
                self.add(Origin::Local { function: def.name.clone() }, def, vec![note.clone()]);
            }
        }
        self.skills = offer.skills;
        self.skills_left_out = offer.left_out;
    }

    /// Adds a tool, renaming it when the name is taken (P11).
    fn add(&mut self, origin: Origin, mut def: ToolDef, mut notes: Vec<String>) {
        let wanted = def.name.clone();
        let mut n = 1;
        while let Some(taken) = self.lookup(&def.name) {
            if n == 1 {
                notes.push(format!("renamed: \"{wanted}\" is already {}", taken.origin.describe()));
            }
            n += 1;
            let suffix = format!("_{n}");
            def.name = format!("{}{suffix}", truncate(&wanted, 64 - suffix.len()));
        }
        if let Origin::Server { tool, .. } = &origin
            && !tool.chars().all(valid_char)
        {
            notes.push(format!(
                "\"{tool}\" has characters Claude does not allow in tool names: sent as \"{}\"",
                def.name
            ));
        }
        self.entries.push(Entry { name: def.name.clone(), origin, def, notes });
    }
}

fn valid_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn truncate(s: &str, max: usize) -> &str {
    crate::text::prefix(s, max)
}

/// `label` as a prefix no other server uses: `base`, else `base_2`, `base_3`, … (still at most
/// 24 characters). Two servers with one prefix would share a lane name and a tool-name prefix.
pub fn unique_label<'a>(label: &str, taken: impl IntoIterator<Item = &'a str> + Clone) -> String {
    let base = slug(label);
    let free = |candidate: &str| !taken.clone().into_iter().any(|t| slug(t) == candidate);
    if free(&base) {
        return base;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", truncate(&base, 24 - suffix.len()).trim_end_matches('_'))
        })
        .find(|c| free(c))
        .expect("a free suffix exists")
}

/// A server label as a name prefix: lowercase, `[a-z0-9_]`, at most 24 characters.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_');
    if out.is_empty() { "server".into() } else { truncate(out, 24).trim_end_matches('_').to_owned() }
}

/// `<prefix>_<tool>`, every character Claude refuses replaced by `_`, at most 64 characters.
pub fn claude_name(prefix: &str, tool: &str) -> String {
    let tool: String = tool.chars().map(|c| if valid_char(c) { c } else { '_' }).collect();
    let full = format!("{prefix}_{tool}");
    truncate(&full, 64).to_owned()
}

fn key_ok(k: &str) -> bool {
    !k.is_empty() && k.len() <= 64 && k.chars().all(|c| valid_char(c) || c == '.')
}

/// Makes an MCP input schema acceptable to Claude, or says why it cannot.
pub fn repair_schema(schema: &Value) -> Result<(Value, Vec<String>), String> {
    let Value::Object(map) = schema else { return Err("inputSchema is not a JSON object".into()) };
    let mut map = map.clone();
    let mut notes = Vec::new();
    match map.get("type").and_then(Value::as_str) {
        Some("object") => {}
        None => {
            map.insert("type".into(), json!("object"));
            notes.push("added the missing \"type\": \"object\"".into());
        }
        Some(other) => return Err(format!("inputSchema.type is \"{other}\"; Claude needs \"object\"")),
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        let Some(Value::Array(branches)) = map.remove(key) else { continue };
        let mut props = match map.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let mut required: Vec<Value> = map.remove("required").and_then(|r| r.as_array().cloned()).unwrap_or_default();
        for branch in &branches {
            if let Some(Value::Object(p)) = branch.get("properties") {
                for (k, v) in p {
                    props.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            if key == "allOf" {
                for r in branch.get("required").and_then(Value::as_array).into_iter().flatten() {
                    if !required.contains(r) {
                        required.push(r.clone());
                    }
                }
            }
        }
        map.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            map.insert("required".into(), Value::Array(required));
        }
        notes.push(format!(
            "flattened the top-level {key} ({} branches) into one object, which Claude accepts; the server still checks the arguments",
            branches.len()
        ));
    }
    if let Some(Value::Object(props)) = map.get("properties")
        && let Some(bad) = props.keys().find(|k| !key_ok(k))
    {
        return Err(format!("property \"{bad}\" has a name Claude does not accept (^[a-zA-Z0-9_.-]{{1,64}}$)"));
    }
    Ok((Value::Object(map), notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::mcp::Tool;

    fn tool(name: &str, schema: Value) -> Tool {
        serde_json::from_value(json!({"name": name, "description": "d", "inputSchema": schema})).unwrap()
    }

    fn list(tools: Vec<Tool>) -> ToolList {
        ToolList { tools, excluded: vec![("arr".into(), "inputSchema.type is \"array\", not \"object\"".into())] }
    }

    /// MCP Apps: a tool for its app only never reaches Claude, and phase 1 says why; a tool
    /// with an app reaches Claude with a note that its app is shown after a call.
    #[test]
    fn an_app_only_tool_is_left_out_of_claudes_tools_with_why() {
        let with_meta = |name: &str, meta: Value| -> Tool {
            serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}, "_meta": meta})).unwrap()
        };
        let l = ToolList {
            tools: vec![
                with_meta(
                    "debug-refresh",
                    json!({"ui": {"resourceUri": "ui://debug/app.html", "visibility": ["app"]}}),
                ),
                with_meta("debug-tool", json!({"ui": {"resourceUri": "ui://debug/app.html"}})),
            ],
            excluded: Vec::new(),
        };
        let c = Catalog::build(&[], &[ServerTools { server_id: "s", label: "debug", list: &l }]);
        let names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["debug_debug-tool"]);
        assert!(c.entries[0].notes[0].contains("comes with an app (ui://debug/app.html)"), "{:?}", c.entries[0].notes);
        assert_eq!(c.excluded.len(), 1);
        assert_eq!(c.excluded[0].origin.describe(), "debug-refresh on MCP server \"debug\"");
        assert!(c.excluded[0].reason.starts_with("for its app only"), "{}", c.excluded[0].reason);
    }

    #[test]
    fn names_are_prefixed_valid_stable_and_unique_a04_p11_p12() {
        let obj = json!({"type": "object"});
        let a = list(vec![tool("search.docs", obj.clone()), tool("echo", obj.clone())]);
        let b = list(vec![tool("echo", obj.clone())]);
        let servers = [
            ServerTools { server_id: "s2", label: "Notes", list: &b },
            ServerTools { server_id: "s1", label: "mcp-servers/everything", list: &a },
            ServerTools { server_id: "s3", label: "Notes", list: &b },
        ];
        let c = Catalog::build(&super::super::local::builtin(), &servers);
        let names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "calculate",
                "get_current_time",
                "get_weather",
                "mcp_servers_everything_echo",
                "mcp_servers_everything_search_docs",
                "notes_echo",
                "notes_echo_2"
            ]
        );
        assert!(c.entries[6].notes[0].contains("renamed"), "{:?}", c.entries[6].notes);
        assert_eq!(
            c.lookup("mcp_servers_everything_search_docs").unwrap().origin,
            Origin::Server {
                server_id: "s1".into(),
                label: "mcp-servers/everything".into(),
                tool: "search.docs".into()
            }
        );
        assert_eq!(c.excluded.len(), 3, "the list's own exclusions are carried");
        let defs = c.tool_defs();
        assert!(defs.iter().all(|d| d.name.len() <= 64 && d.name.chars().all(valid_char)));
        assert!(defs.last().unwrap().cache_control.is_some() && defs[0].cache_control.is_none());
    }

    #[test]
    fn long_names_are_cut_to_64() {
        let long = "x".repeat(100);
        assert_eq!(claude_name("server", &long).len(), 64);
        assert_eq!(slug("  My *Fancy* Server!! "), "my_fancy_server");
        assert_eq!(slug("☃"), "server");
    }

    #[test]
    fn labels_are_made_unique_by_their_prefix() {
        assert_eq!(unique_label("everything", ["notes"]), "everything");
        assert_eq!(unique_label("everything", ["Everything", "everything_2"]), "everything_3");
        assert_eq!(unique_label("My Server", ["my-server"]), "my_server_2");
        let long = "a".repeat(30);
        let first = unique_label(&long, []);
        assert_eq!(first.len(), 24);
        let second = unique_label(&long, [first.as_str()]);
        assert_eq!((second.len(), second.ends_with("_2")), (24, true));
    }

    #[test]
    fn schemas_are_repaired_or_refused_with_a_reason_a05_p13() {
        let (fixed, notes) = repair_schema(&json!({"properties": {"a": {"type": "string"}}})).unwrap();
        assert_eq!(fixed["type"], "object");
        assert_eq!(notes.len(), 1);

        let any = json!({"type": "object", "anyOf": [
            {"properties": {"id": {"type": "string"}}, "required": ["id"]},
            {"properties": {"name": {"type": "string"}}, "required": ["name"]}
        ]});
        let (fixed, notes) = repair_schema(&any).unwrap();
        assert!(fixed.get("anyOf").is_none());
        assert_eq!(fixed["properties"].as_object().unwrap().len(), 2);
        assert!(fixed.get("required").is_none(), "anyOf branches make nothing required");
        assert!(notes[0].contains("anyOf"));

        let all = json!({"type": "object", "allOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}}]});
        assert_eq!(repair_schema(&all).unwrap().0["required"], json!(["a"]));

        let bad_key = json!({"type": "object", "properties": {"items[0]": {"type": "string"}}});
        assert!(repair_schema(&bad_key).unwrap_err().contains("items[0]"));
        assert!(repair_schema(&json!({"type": "array"})).is_err());
        assert!(repair_schema(&json!("nope")).is_err());
    }
}
