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

/// At most this many skills are offered to Claude in one turn, over all servers.
pub const MAX_OFFERED: usize = 50;
/// At most this many bytes of their names and descriptions go into `load_skill`'s description,
/// which is sent with every request of the turn.
pub const MAX_CATALOG_BYTES: usize = 16 * 1024;
/// One skill's description is cut to this many characters in the catalog.
const MAX_DESCRIPTION_CHARS: usize = 400;

/// Keeps what may be offered (in the servers' order) within [`MAX_OFFERED`] skills and
/// [`MAX_CATALOG_BYTES`] of catalog; what is left out is not offered, cannot be loaded this
/// turn, and is named per server with why.
fn within_budget(skills: &mut [ServerSkills]) -> Vec<String> {
    let (mut count, mut bytes) = (0, 0);
    let mut notes = Vec::new();
    for server in skills.iter_mut() {
        let mut left_out = Vec::new();
        server.list.skills.retain(|k| {
            let line = catalog_line(&server.label, k).len() + 1;
            let fits = count < MAX_OFFERED && bytes + line <= MAX_CATALOG_BYTES;
            if fits {
                count += 1;
                bytes += line;
            } else {
                left_out.push(crate::text::one_line(&k.name, 60).0);
            }
            fits
        });
        if !left_out.is_empty() {
            let shown: Vec<&str> = left_out.iter().take(5).map(String::as_str).collect();
            let more = left_out.len().saturating_sub(shown.len());
            notes.push(format!(
                "{} skill(s) of \"{}\" are not offered this turn ({}{}): Claude is offered at most {MAX_OFFERED} \
                 skills and {} KiB of their names and descriptions, sent with every request",
                left_out.len(),
                server.label,
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                MAX_CATALOG_BYTES / 1024
            ));
        }
    }
    notes
}

/// A skill's line in `load_skill`'s description.
fn catalog_line(label: &str, k: &Skill) -> String {
    let (description, cut) = crate::text::one_line(&k.description, MAX_DESCRIPTION_CHARS);
    format!("- {} (server \"{label}\"): {description}{}", k.name, if cut { "…" } else { "" })
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
    let catalog: Vec<String> = offered.iter().map(|(s, k)| catalog_line(&s.label, k)).collect();
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
            out.left_out.extend(within_budget(&mut out.skills));
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

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn server(label: &str, n: usize, description: &str) -> ServerSkills {
        let skills = (0..n)
            .map(|i| Skill {
                uri: format!("skill://{label}/s{i}/SKILL.md"),
                name: format!("s{i}"),
                description: description.to_owned(),
                frontmatter: serde_json::Map::new(),
                files: Some(Vec::new()),
            })
            .collect();
        ServerSkills { server_id: label.into(), label: label.into(), list: SkillList { skills, excluded: Vec::new() } }
    }

    #[test]
    fn what_is_offered_is_bounded_in_count_and_bytes_and_the_rest_is_named() {
        // 100,000 skills: 50 are offered, the rest named per server; none of them loadable.
        let mut many = vec![server("a", 30, "short"), server("b", 100_000, "short")];
        let notes = within_budget(&mut many);
        assert_eq!((many[0].list.skills.len(), many[1].list.skills.len()), (30, 20));
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with(
                "99980 skill(s) of \"b\" are not offered this turn (s20, s21, s22, s23, s24 and 99975 more)"
            ),
            "{}",
            notes[0]
        );
        let (defs, _) = functions(&many).unwrap();
        let description = defs[0].description.clone().unwrap_or_default();
        assert!(description.len() < MAX_CATALOG_BYTES + 1024, "{}", description.len());

        // Long descriptions: each cut to 400 characters, and the catalog stops at 16 KiB.
        let mut long = vec![server("c", 100, &"y".repeat(4_200_000 / 100))];
        within_budget(&mut long);
        let offered = long[0].list.skills.len();
        assert!((30..50).contains(&offered), "{offered}");
        let (defs, _) = functions(&long).unwrap();
        assert!(defs[0].description.as_deref().unwrap_or_default().len() <= MAX_CATALOG_BYTES + 1024);
    }
}
