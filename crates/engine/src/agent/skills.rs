//! A server's skills in the loop (SEP-2640). Phase 1 lists them (`skills/list`: names and
//! descriptions only, nothing read) and offers Claude two functions of the page: `load_skill`,
//! which reads a skill's `SKILL.md`, and `read_skill_file`, which reads one of its listed files.
//! Phase 3 runs them here: the page reads the file from the skill's own server
//! (`resources/read`) and verifies it against the entry before Claude sees a byte of it. A skill
//! is offered to Claude, not followed by the page: its text is the server's, and reaches Claude
//! as a tool result like any other.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::{Value, json};

use super::run::ServerHandle;
use crate::mcp::skills::{Skill, SkillError, SkillList};
use crate::mcp::{McpClient, RequestOptions};
use crate::platform::Platform;
use protocol::claude::ToolDef;

/// The page's function that loads a skill.
pub const LOAD: &str = "load_skill";
/// The page's function that reads one listed file of a loaded skill.
pub const READ: &str = "read_skill_file";

/// One connected server's skills, as phase 1 listed them.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSkills {
    pub server_id: String,
    pub label: String,
    pub list: SkillList,
}

/// Whether `function` is one of the skill functions (run here, not by `local.rs`).
pub fn is_skill_function(function: &str) -> bool {
    function == LOAD || function == READ
}

/// The two functions Claude is offered, if any server listed a skill it may load, with the
/// note phase 1 shows on them: every skill offered, by server.
fn functions(skills: &[ServerSkills]) -> Option<(Vec<ToolDef>, String)> {
    let offered: Vec<(&ServerSkills, &Skill)> =
        skills.iter().flat_map(|s| s.list.skills.iter().map(move |k| (s, k))).collect();
    if offered.is_empty() {
        return None;
    }
    let servers: Vec<&str> = skills.iter().filter(|s| !s.list.skills.is_empty()).map(|s| s.label.as_str()).collect();
    let catalog: Vec<String> =
        offered.iter().map(|(s, k)| format!("- {} (server \"{}\"): {}", k.name, s.label, k.description)).collect();
    let note = format!(
        "offers {} skill(s) by name and description only, nothing of them read yet: {}",
        offered.len(),
        offered.iter().map(|(s, k)| format!("{} of \"{}\"", k.name, s.label)).collect::<Vec<_>>().join(", ")
    );
    let server = json!({ "type": "string", "enum": servers, "description": "The MCP server that offers the skill" });
    let load = ToolDef {
        name: LOAD.into(),
        description: Some(format!(
            "Loads a skill offered by an MCP server: returns its instructions (SKILL.md), verified by this page \
             against the server's listing. Load a skill before following it. A skill's text comes from the server, \
             not from the user. Skills:\n{}",
            catalog.join("\n")
        )),
        input_schema: json!({
            "type": "object",
            "properties": { "server": server, "skill": { "type": "string", "description": "The skill's name" } },
            "required": ["server", "skill"],
            "additionalProperties": false
        }),
        ..ToolDef::default()
    };
    let read = ToolDef {
        name: READ.into(),
        description: Some(
            "Reads one file of a loaded skill (a path its SKILL.md names, such as references/FORMS.md), verified by \
             this page against the server's listing."
                .into(),
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "server": server,
                "skill": { "type": "string", "description": "The skill's name" },
                "path": { "type": "string", "description": "The file's path inside the skill" }
            },
            "required": ["server", "skill", "path"],
            "additionalProperties": false
        }),
        ..ToolDef::default()
    };
    Some((vec![load, read], note))
}

/// Why a skill function could not run, in words for Claude.
fn asked<'a>(input: &'a Value, key: &str) -> Result<&'a str, String> {
    input.get(key).and_then(Value::as_str).ok_or_else(|| format!("\"{key}\" is required (a string)"))
}

/// A connected server that declares skills, as the agent hands it to the [`SkillRunner`].
pub struct Offering<P: Platform> {
    pub server_id: String,
    pub label: String,
    pub client: Rc<McpClient<P>>,
}

impl<P: Platform> Offering<P> {
    pub fn of(s: &ServerHandle<P>) -> Self {
        Self { server_id: s.client.config().id.clone(), label: s.label.clone(), client: s.client.clone() }
    }
}

/// What phase 1 offers Claude of the servers' skills.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offer {
    pub skills: Vec<ServerSkills>,
    /// `load_skill` and `read_skill_file` with the note phase 1 shows on them; `None` when no
    /// server listed a skill that may be loaded.
    pub functions: Option<(Vec<ToolDef>, String)>,
    /// For the trace: each server whose skills are left out of the turn, and why.
    pub left_out: Vec<String>,
}

/// Where the code that lists, offers and reads skills runs. [`InPlace`] runs it where it is
/// called (native callers, the tests). The page runs it from a chunk of its own
/// (src/chunks/skills.rs), fetched when a connected server first declares skills, so a visit
/// without skills never downloads it; for that, the agent calls nothing of it but this seam.
pub trait SkillRunner<P: Platform> {
    /// Phase 1: every server's `skills/list` (one after another: few servers offer skills),
    /// and the functions Claude is offered.
    fn offer(&self, servers: Vec<Offering<P>>) -> LocalBoxFuture<'static, Offer>;
    /// Phase 3: `load_skill` or `read_skill_file` with Claude's `input`: the text Claude
    /// receives, or why not (an error result). The file is read from the server that listed the
    /// skill, never another, and verified.
    fn call(
        &self,
        function: String,
        input: Value,
        skills: Vec<ServerSkills>,
        servers: Vec<Offering<P>>,
    ) -> LocalBoxFuture<'static, Result<String, String>>;
}

/// Lists, offers and reads in place.
pub struct InPlace;

impl<P: Platform + 'static> SkillRunner<P> for InPlace {
    fn offer(&self, servers: Vec<Offering<P>>) -> LocalBoxFuture<'static, Offer> {
        Box::pin(async move {
            let opts = RequestOptions::default();
            let mut out = Offer::default();
            for s in servers {
                match s.client.list_skills(&opts).await {
                    Ok(list) => out.skills.push(ServerSkills { server_id: s.server_id, label: s.label, list }),
                    Err(e) => out.left_out.push(format!(
                        "The skills of \"{}\" are left out of this turn: skills/list failed: {e}",
                        s.label
                    )),
                }
            }
            out.functions = functions(&out.skills);
            out
        })
    }

    fn call(
        &self,
        function: String,
        input: Value,
        skills: Vec<ServerSkills>,
        servers: Vec<Offering<P>>,
    ) -> LocalBoxFuture<'static, Result<String, String>> {
        Box::pin(async move { call(&function, &input, &skills, &servers).await })
    }
}

/// Runs `load_skill` or `read_skill_file` ([`SkillRunner::call`]).
async fn call<P: Platform>(
    function: &str,
    input: &Value,
    skills: &[ServerSkills],
    servers: &[Offering<P>],
) -> Result<String, String> {
    let label = asked(input, "server")?;
    let name = asked(input, "skill")?;
    let listed =
        skills.iter().find(|s| s.label == label).ok_or_else(|| format!("no MCP server \"{label}\" offers skills"))?;
    let skill = listed.list.skills.iter().find(|k| k.name == name).ok_or_else(|| {
        let names: Vec<&str> = listed.list.skills.iter().map(|k| k.name.as_str()).collect();
        format!("\"{label}\" offers no skill \"{name}\" (it offers: {})", names.join(", "))
    })?;
    let server = servers
        .iter()
        .find(|s| s.server_id == listed.server_id)
        .ok_or_else(|| format!("the MCP server \"{label}\" was disconnected"))?;
    let opts = RequestOptions::default();
    let outcome = if function == LOAD {
        server.client.load_skill(skill, &opts).await
    } else {
        let path = asked(input, "path")?;
        let root = skill.uri.strip_suffix("SKILL.md").unwrap_or(&skill.uri);
        server.client.read_skill_file(skill, &format!("{root}{}", path.trim_start_matches('/')), &opts).await
    };
    outcome.map_err(|e| match e {
        SkillError::Mcp(e) => format!("reading it from \"{label}\" failed: {e}"),
        refused => format!("{refused}. The page did not use it."),
    })
}
