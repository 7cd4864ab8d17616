//! The per-tool fields of a `tools` entry the user chooses: `strict` (the API guarantees the
//! input matches the schema), `eager_input_streaming` (arguments stream unbuffered, as they are
//! written) and `defer_loading` (out of Claude's context until a tool search finds it). Each is
//! a pick: no tool, every tool it applies to, or tools named as Claude sees them, where a name
//! ending in `*` takes every tool it starts (`github_*`: one server's tools).

use serde::{Deserialize, Serialize};

use protocol::claude::ToolDef;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PickScope {
    #[default]
    None,
    /// Every tool the field applies to (for `defer_loading`: every MCP server's tool).
    All,
    /// The tools in `names`.
    Named,
}

impl PickScope {
    pub const ALL: [PickScope; 3] = [PickScope::None, PickScope::All, PickScope::Named];

    pub fn as_str(self) -> &'static str {
        match self {
            PickScope::None => "none",
            PickScope::All => "all",
            PickScope::Named => "named",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// Which tools get one field. Saved as one string, `<scope>:<names>` (`named:calculate, github_*`):
/// a derived reader for two types would weigh ~3 KB of the first load for the same thing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub struct ToolPick {
    pub scope: PickScope,
    /// Names as Claude sees them, separated by commas or spaces; kept while another scope is
    /// chosen, so switching back does not lose them.
    pub names: String,
}

impl ToolPick {
    pub fn all() -> Self {
        ToolPick { scope: PickScope::All, names: String::new() }
    }

    /// The names (and `prefix*` patterns) typed, in order.
    pub fn named(&self) -> impl Iterator<Item = &str> {
        self.names.split([',', ' ', '\n']).map(str::trim).filter(|n| !n.is_empty())
    }

    /// Whether the tool Claude sees as `name` gets the field; `in_all` says whether "every
    /// tool" covers it.
    pub fn picks(&self, name: &str, in_all: bool) -> bool {
        match self.scope {
            PickScope::None => false,
            PickScope::All => in_all,
            PickScope::Named => self.named().any(|n| matches(n, name)),
        }
    }

    /// A name typed that matches none of `offered` (a pattern must match at least one).
    pub fn unmatched<'a>(&'a self, offered: &[&str]) -> Option<&'a str> {
        if self.scope != PickScope::Named {
            return None;
        }
        self.named().find(|n| !offered.iter().any(|o| matches(n, o)))
    }
}

impl From<ToolPick> for String {
    fn from(p: ToolPick) -> String {
        format!("{}:{}", p.scope.as_str(), p.names)
    }
}

impl From<String> for ToolPick {
    /// Text that is not a saved pick reads as no tool.
    fn from(s: String) -> ToolPick {
        let (scope, names) = s.split_once(':').unwrap_or((&s, ""));
        ToolPick { scope: PickScope::parse(scope).unwrap_or_default(), names: names.to_owned() }
    }
}

/// `pattern` is a name, or a prefix followed by `*`.
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The three picks, as the settings keep them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolFlags {
    pub strict: ToolPick,
    pub eager_input_streaming: ToolPick,
    /// Applies only with a tool search among the server tools.
    pub defer_loading: ToolPick,
}

impl Default for ToolFlags {
    fn default() -> Self {
        ToolFlags {
            strict: ToolPick::default(),
            eager_input_streaming: ToolPick::default(),
            defer_loading: ToolPick::all(),
        }
    }
}

/// One of the three fields, for a form that shows each the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolField {
    Strict,
    EagerInputStreaming,
    DeferLoading,
}

impl ToolField {
    pub const ALL: [ToolField; 3] = [ToolField::Strict, ToolField::EagerInputStreaming, ToolField::DeferLoading];

    /// Its name in a `tools` entry.
    pub fn wire_name(self) -> &'static str {
        match self {
            ToolField::Strict => "strict",
            ToolField::EagerInputStreaming => "eager_input_streaming",
            ToolField::DeferLoading => "defer_loading",
        }
    }

    /// What "every tool" covers for it.
    pub fn all_means(self) -> &'static str {
        match self {
            ToolField::Strict | ToolField::EagerInputStreaming => "every tool of this page and its servers",
            ToolField::DeferLoading => "every MCP server's tool",
        }
    }

    /// What it does, in a line.
    pub fn explain(self) -> &'static str {
        match self {
            ToolField::Strict => {
                "The API holds Claude's input to the schema. Every object in it must say additionalProperties: false; \
                 checked before sending."
            }
            ToolField::EagerInputStreaming => {
                "Arguments stream as Claude writes them, unbuffered and unchecked: watch them grow in the chat; the \
                 timeline's tool_use shows each piece."
            }
            ToolField::DeferLoading => {
                "Only with tool search (above): deferred tools are sent but out of Claude's context until a search \
                 finds them."
            }
        }
    }

    pub fn of(self, flags: &ToolFlags) -> &ToolPick {
        match self {
            ToolField::Strict => &flags.strict,
            ToolField::EagerInputStreaming => &flags.eager_input_streaming,
            ToolField::DeferLoading => &flags.defer_loading,
        }
    }

    pub fn of_mut(self, flags: &mut ToolFlags) -> &mut ToolPick {
        match self {
            ToolField::Strict => &mut flags.strict,
            ToolField::EagerInputStreaming => &mut flags.eager_input_streaming,
            ToolField::DeferLoading => &mut flags.defer_loading,
        }
    }
}

/// What phase 1 says about the per-tool fields of `defs`, if any was set: which tools are strict,
/// stream eagerly or are deferred, and what strict mode leaves unenforced (`strict::check`).
pub fn phase_one_note(defs: &[ToolDef], unenforced: &[String]) -> Option<String> {
    let named = |field: &str, has: &dyn Fn(&ToolDef) -> bool, means: &str| {
        let names: Vec<&str> = defs.iter().filter(|d| has(d)).map(|d| d.name.as_str()).collect();
        (!names.is_empty()).then(|| format!("{field} on {} ({means}).", names.join(", ")))
    };
    let lines: Vec<String> = [
        named("strict: true", &|d| d.strict, "the API holds the input to the schema"),
        named(
            "eager_input_streaming: true",
            &|d| d.eager_input_streaming == Some(true),
            "arguments stream unbuffered and unchecked, so they may not be valid JSON",
        ),
        named("defer_loading: true", &|d| d.defer_loading, "out of Claude's context until a tool search finds it"),
        (!unenforced.is_empty()).then(|| format!("Strict mode does not enforce: {}.", unenforced.join("; "))),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!lines.is_empty()).then(|| lines.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pick_takes_names_and_prefixes_and_says_which_name_matches_nothing() {
        let pick = ToolPick { scope: PickScope::Named, names: "calculate, github_*".into() };
        assert!(pick.picks("calculate", false));
        assert!(pick.picks("github_create_issue", false));
        assert!(!pick.picks("demo_search_notes", true));
        assert_eq!(pick.unmatched(&["calculate", "github_list"]), None);
        assert_eq!(pick.unmatched(&["calculate"]), Some("github_*"));
        let all = ToolPick::all();
        assert!(all.picks("x", true) && !all.picks("x", false));
        assert!(!ToolPick::default().picks("x", true));
        // Switching scope keeps the names, saved too.
        let none = ToolPick { scope: PickScope::None, ..pick.clone() };
        assert!(!none.picks("calculate", true) && none.unmatched(&[]).is_none());
        let saved = serde_json::to_value(&none).unwrap();
        assert_eq!(saved, "none:calculate, github_*");
        assert_eq!(serde_json::from_value::<ToolPick>(saved).unwrap(), none);
        assert_eq!(ToolPick::from("nonsense".to_owned()), ToolPick::default());
    }
}
