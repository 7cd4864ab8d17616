//! Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension), as a host reads them: a
//! registry from `skills/list` only (name and description, with the server as origin), nothing
//! fetched ahead of need, and every file verified when it is read — byte length against the
//! entry's `size`, SHA-256 against its `digest`, `SKILL.md`'s frontmatter against the entry field
//! by field, and only files the entry lists. Content that fails any check is not used.
//!
//! A server's skills are a stranger's text: everything here is data for Claude, never an
//! instruction to the page.

// Text from outside the page is read here: no slicing by byte index, no indexing that can panic.
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::uri_template::scalar;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{McpClient, McpError, RequestOptions};
use crate::platform::Platform;

/// The extension's identifier, as servers declare it in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// What a host must accept of one skill (the SEP's floor), and the most Loopscope takes.
pub const MAX_FILES: usize = 512;
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a skill, as its entry lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    pub uri: String,
    /// `sha256:<64 lowercase hex>`.
    pub digest: String,
    pub size: u64,
}

/// A skill as `skills/list` describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    pub name: String,
    pub description: String,
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, `SKILL.md` included; `None` when the server says "dynamic"
    /// (files it cannot list ahead, which a host cannot verify).
    pub files: Option<Vec<SkillFile>>,
}

/// The server's skills, minus the entries a host must not load, each with why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkillList {
    pub skills: Vec<Skill>,
    pub excluded: Vec<(String, String)>,
}

/// Why a skill's file was not used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    #[error("{uri} is not among the files the skill's entry lists: not read")]
    NotListed { uri: String },
    #[error("the skill lists its files as \"dynamic\": Loopscope cannot verify what it reads, so it does not load it")]
    Dynamic,
    #[error("{uri} is {got} bytes; the skill's entry says {want}: not used")]
    Size { uri: String, got: u64, want: u64 },
    #[error("{uri} has the digest {got}; the skill's entry says {want}: not used")]
    Digest { uri: String, got: String, want: String },
    #[error("{uri} has no YAML frontmatter (a --- block at the top): not loaded")]
    NoFrontmatter { uri: String },
    #[error("SKILL.md's frontmatter says {field}: {got}; the skill's entry says {want}: not loaded")]
    Frontmatter { field: String, got: String, want: String },
    #[error("{uri}: the server sent no contents for it")]
    Empty { uri: String },
    #[error(transparent)]
    Mcp(#[from] McpError),
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl Skill {
    /// Reads one entry of `skills/list`; an entry a host must not load is an error in words.
    pub fn read(v: &Value) -> Result<Skill, String> {
        let uri = text_of(v, "uri").ok_or("an entry without a uri")?;
        let frontmatter = v.get("frontmatter").and_then(Value::as_object).cloned().ok_or("no frontmatter")?;
        let name = frontmatter.get("name").and_then(Value::as_str).ok_or("no frontmatter.name")?.to_owned();
        let description = frontmatter.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
        // The last path segment names the skill's folder: `skill://<path>/<name>/SKILL.md`.
        let folder = uri.strip_suffix("/SKILL.md").and_then(|p| p.rsplit('/').next());
        if !uri.starts_with("skill://") || folder != Some(name.as_str()) {
            return Err(format!("its uri is not skill://…/{name}/SKILL.md"));
        }
        let files = match v.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => None,
            Some(Value::Array(list)) => {
                if list.len() > MAX_FILES {
                    return Err(format!("it lists {} files; Loopscope takes at most {MAX_FILES}", list.len()));
                }
                let files = list
                    .iter()
                    .map(|f| {
                        Some(SkillFile {
                            uri: text_of(f, "uri")?,
                            digest: text_of(f, "digest").filter(|d| d.starts_with("sha256:"))?,
                            size: f.get("size")?.as_u64()?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or("a file without uri, sha256 digest or size")?;
                let total: u64 = files.iter().map(|f| f.size).sum();
                if total > MAX_BYTES {
                    return Err(format!("its files add up to {total} bytes; Loopscope takes at most {MAX_BYTES}"));
                }
                if !files.iter().any(|f| f.uri == uri) {
                    return Err("its SKILL.md is not among its files".into());
                }
                Some(files)
            }
            _ => return Err("no resources (an entry without them must not be loaded)".into()),
        };
        Ok(Skill { uri, name, description, frontmatter, files })
    }

    /// The listed file at `uri`, if the entry lists it.
    pub fn file(&self, uri: &str) -> Result<&SkillFile, SkillError> {
        let files = self.files.as_ref().ok_or(SkillError::Dynamic)?;
        files.iter().find(|f| f.uri == uri).ok_or_else(|| SkillError::NotListed { uri: uri.to_owned() })
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Checks `bytes` against the entry's `file`: size first (a different length fails whatever
/// the digest), then the digest.
pub fn verify(file: &SkillFile, bytes: &[u8]) -> Result<(), SkillError> {
    let got = bytes.len() as u64;
    if got != file.size {
        return Err(SkillError::Size { uri: file.uri.clone(), got, want: file.size });
    }
    let got = digest(bytes);
    if !got.eq_ignore_ascii_case(&file.digest) {
        return Err(SkillError::Digest { uri: file.uri.clone(), got, want: file.digest.clone() });
    }
    Ok(())
}

/// The top-level `key: value` pairs of a `SKILL.md`'s YAML frontmatter (quotes taken off); a key
/// whose value is a block of `key: value` lines one indentation deep (the Agent Skills format's
/// `metadata:` map) as an object of them, and any other nested block as its text as written.
pub fn frontmatter(text: &str) -> Option<Map<String, Value>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let mut out = Map::new();
    let mut nested: Option<(String, Vec<String>)> = None;
    for line in lines {
        if line.trim_end() == "---" {
            if let Some((key, block)) = nested.take() {
                out.insert(key, nested_value(&block));
            }
            return Some(out);
        }
        if line.starts_with([' ', '\t', '-']) || line.trim().is_empty() {
            if let Some((_, block)) = nested.as_mut() {
                block.push(line.to_owned());
            }
            continue;
        }
        if let Some((key, block)) = nested.take() {
            out.insert(key, nested_value(&block));
        }
        let (key, value) = line.split_once(':')?;
        let value = value.trim();
        if value.is_empty() {
            nested = Some((key.trim().to_owned(), Vec::new()));
            continue;
        }
        out.insert(key.trim().to_owned(), Value::String(unquote(value).to_owned()));
    }
    None
}

/// A YAML scalar without its quotes.
fn unquote(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value)
}

/// A nested block: a flat map when every line is `key: value` at one indentation, else its text.
fn nested_value(block: &[String]) -> Value {
    let lines: Vec<&str> = block.iter().map(String::as_str).filter(|l| !l.trim().is_empty()).collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let depth = lines.first().map(|l| indent(l));
    let flat = depth.is_some_and(|d| d > 0)
        && lines.iter().all(|l| {
            Some(indent(l)) == depth
                && !l.trim_start().starts_with(['-', '#'])
                && l.split_once(':').is_some_and(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
        });
    if !flat {
        return Value::String(block.join("\n"));
    }
    let map = lines
        .iter()
        .filter_map(|l| l.trim().split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), Value::String(unquote(v.trim()).to_owned())))
        .collect();
    Value::Object(map)
}

/// Whether the entry's value and the file's say the same: scalars by their text (the entry's JSON
/// may carry `1.0` where the file says `"1.0"`), maps key by key.
fn same(want: Option<&Value>, got: Option<&Value>) -> bool {
    match (want, got) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            a.len() == b.len() && a.iter().all(|(k, v)| same(Some(v), b.get(k)))
        }
        (Some(a), Some(b)) => matches!((scalar(a), scalar(b)), (Some(x), Some(y)) if x == y),
        _ => false,
    }
}

/// Compares the entry's frontmatter with the file's, field by field, both ways; a flat map (the
/// `metadata:` of the Agent Skills format) key by key. A field the page cannot compare (a deeper
/// nesting, a list) counts as a discrepancy: unverified is not loaded.
pub fn compare(entry: &Map<String, Value>, file: &Map<String, Value>) -> Result<(), SkillError> {
    let shown = |v: Option<&Value>| match v {
        None => "(nothing)".to_owned(),
        Some(Value::String(s)) => format!("{s:?}"),
        Some(other) => other.to_string(),
    };
    for key in entry.keys().chain(file.keys()) {
        let (want, got) = (entry.get(key), file.get(key));
        if !same(want, got) {
            return Err(SkillError::Frontmatter { field: key.clone(), got: shown(got), want: shown(want) });
        }
    }
    Ok(())
}

impl<P: Platform> McpClient<P> {
    /// Whether the server declared the skills extension.
    pub fn offers_skills(&self) -> bool {
        self.declared(|caps| caps.extension(EXTENSION).is_some()).unwrap_or(false)
    }

    /// The server's skills (`skills/list`, every page). Nothing of any skill is read.
    pub async fn list_skills(&self, opts: &RequestOptions) -> Result<SkillList, McpError> {
        if !self.offers_skills() {
            return Err(McpError::Protocol(super::ProtocolError::NotCapable {
                method: "skills/list".into(),
                capability: "extensions.io.modelcontextprotocol/skills",
            }));
        }
        let raw = self.list_all("skills/list", "skills", opts).await?;
        let mut list = SkillList::default();
        for (i, entry) in raw.iter().enumerate() {
            match Skill::read(entry) {
                Ok(skill) => list.skills.push(skill),
                Err(why) => list.excluded.push((text_of(entry, "uri").unwrap_or_else(|| format!("#{i}")), why)),
            }
        }
        Ok(list)
    }

    /// Reads one file of `skill`, verified against its entry.
    pub async fn read_skill_file(&self, skill: &Skill, uri: &str, opts: &RequestOptions) -> Result<String, SkillError> {
        let file = skill.file(uri)?.clone();
        let read = self.read_resource(&file.uri, opts).await?;
        let contents =
            read.contents.into_iter().find(|c| c.uri == file.uri).ok_or(SkillError::Empty { uri: file.uri.clone() })?;
        let bytes = match (contents.text, contents.blob) {
            (Some(text), _) => text.into_bytes(),
            (None, Some(blob)) => {
                crate::encoding::base64_decode(&blob).ok_or(SkillError::Empty { uri: file.uri.clone() })?
            }
            (None, None) => return Err(SkillError::Empty { uri: file.uri.clone() }),
        };
        verify(&file, &bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Loads `skill`: reads its `SKILL.md`, verified, and compares its frontmatter with the entry.
    /// Its other files are read only when asked for ([`Self::read_skill_file`]).
    pub async fn load_skill(&self, skill: &Skill, opts: &RequestOptions) -> Result<String, SkillError> {
        let text = self.read_skill_file(skill, &skill.uri, opts).await?;
        let found = frontmatter(&text).ok_or(SkillError::NoFrontmatter { uri: skill.uri.clone() })?;
        compare(&skill.frontmatter, &found)?;
        Ok(text)
    }
}

/// The entry as phase 1 shows it (what a host offers Claude: name and description only).
pub fn listed(skill: &Skill) -> Value {
    json!({ "name": skill.name, "description": skill.description, "uri": skill.uri })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    const BODY: &str =
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";

    fn entry(body: &str) -> Value {
        json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                {"uri": "skill://pdf-processing/SKILL.md", "digest": digest(body.as_bytes()), "size": body.len()},
                {"uri": "skill://pdf-processing/references/FORMS.md", "digest": digest(b"x"), "size": 1}
            ]
        })
    }

    #[test]
    fn an_entry_is_read_and_a_file_verified_by_size_and_digest() {
        let skill = Skill::read(&entry(BODY)).unwrap();
        assert_eq!((skill.name.as_str(), skill.files.as_ref().unwrap().len()), ("pdf-processing", 2));
        let file = skill.file(&skill.uri).unwrap();
        assert_eq!(verify(file, BODY.as_bytes()), Ok(()));
        let evil = BODY.replace("Skill body.", "Evil body!!");
        assert!(matches!(verify(file, evil.as_bytes()), Err(SkillError::Digest { .. })), "same length, other bytes");
        let longer = format!("{BODY}extra");
        assert!(matches!(verify(file, longer.as_bytes()), Err(SkillError::Size { got, want, .. }) if got == want + 5));
        assert_eq!(
            skill.file("skill://pdf-processing/../secrets"),
            Err(SkillError::NotListed { uri: "skill://pdf-processing/../secrets".into() })
        );
    }

    #[test]
    fn the_frontmatter_is_compared_field_by_field() {
        let skill = Skill::read(&entry(BODY)).unwrap();
        assert_eq!(compare(&skill.frontmatter, &frontmatter(BODY).unwrap()), Ok(()));
        let changed = BODY
            .replace("description: Extract, fill, and assemble PDF documents", "description: Exfiltrate credentials");
        let err = compare(&skill.frontmatter, &frontmatter(&changed).unwrap()).unwrap_err();
        assert!(err.to_string().contains("description: \"Exfiltrate credentials\""), "{err}");
        let added = BODY.replace("---\n\n", "allowed-tools: Bash\n---\n\n");
        assert!(
            compare(&skill.frontmatter, &frontmatter(&added).unwrap())
                .unwrap_err()
                .to_string()
                .contains("allowed-tools")
        );
        assert_eq!(frontmatter("no frontmatter"), None);
        assert_eq!(frontmatter("---\nname: x\n"), None, "never closed");
        let quoted = frontmatter("---\nname: \"a: b\"\nmetadata:\n  k: v\n---\n").unwrap();
        assert_eq!(quoted["name"], "a: b");
        assert_eq!(quoted["metadata"], json!({"k": "v"}));
        let listed = frontmatter("---\nallowed-tools:\n  - Bash\n---\n").unwrap();
        assert_eq!(listed["allowed-tools"], "  - Bash", "a list is kept as its text");
    }

    #[test]
    fn a_metadata_map_is_compared_key_by_key() {
        let body = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  author: example-org\n  version: \"1.0\"\n---\n\nBody.\n";
        let mut listed = entry(body);
        listed["frontmatter"]["metadata"] = json!({"version": 1.0, "author": "example-org"});
        let skill = Skill::read(&listed).unwrap();
        assert_eq!(compare(&skill.frontmatter, &frontmatter(body).unwrap()), Ok(()));
        let other = body.replace("author: example-org", "author: someone-else");
        let err = compare(&skill.frontmatter, &frontmatter(&other).unwrap()).unwrap_err();
        assert!(err.to_string().contains("metadata"), "{err}");
        let deeper = body.replace("  version: \"1.0\"", "  nested:\n    deeper: x");
        assert!(compare(&skill.frontmatter, &frontmatter(&deeper).unwrap()).is_err(), "unverifiable is not loaded");
    }

    #[test]
    fn entries_a_host_must_not_load_are_left_out_with_why() {
        let mut no_files = entry(BODY);
        no_files.as_object_mut().unwrap().remove("resources");
        assert!(Skill::read(&no_files).unwrap_err().contains("no resources"));
        let mut wrong_folder = entry(BODY);
        wrong_folder["uri"] = json!("skill://other/SKILL.md");
        assert!(Skill::read(&wrong_folder).unwrap_err().contains("skill://…/pdf-processing/SKILL.md"));
        let mut huge = entry(BODY);
        huge["resources"][1]["size"] = json!(MAX_BYTES);
        assert!(Skill::read(&huge).unwrap_err().contains("at most"));
        let mut dynamic = entry(BODY);
        dynamic["resources"] = json!("dynamic");
        let skill = Skill::read(&dynamic).unwrap();
        assert_eq!(skill.file(&skill.uri), Err(SkillError::Dynamic));
    }
}
