//! Which tool calls run without asking the user. In the user's own conversation, all of them
//! (or none, with "ask before every tool call") — except a tool its own server marks destructive
//! (`destructiveHint: true`), which asks unless the user let that server's destructive tools run
//! on its card. While a stranger drives the loop (a lesson's scripted answers and messages, a
//! recorded session replayed), only calls to the servers the user agreed to for it run on their
//! own; a call to any other server, scripted or made by the model, waits for the user's approval,
//! with the server, the tool and the arguments shown. The page's own functions (a calculator, a
//! clock, canned weather) touch nothing and always run.

use crate::trace::RouteTarget;

/// Who is driving the loop besides the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Driver {
    /// The lesson with this title.
    Lesson(String),
    /// A recorded session being replayed.
    Replay,
}

impl Driver {
    fn name(&self) -> String {
        match self {
            Driver::Lesson(title) => format!("the lesson \"{title}\""),
            Driver::Replay => "the recorded session".into(),
        }
    }
}

/// Why a call waits for the user, and whether a stranger is behind it (then the safer answer is
/// the default one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskWhy {
    pub reason: String,
    pub stranger: bool,
}

/// Which calls of a turn (or of an app) run without asking.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Consent {
    pub mode: Mode,
    /// The servers (the page's ids) whose tools marked destructive the user lets run without
    /// asking, from their cards.
    pub destructive_allowed: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The user's own conversation: every call runs, but a destructive one.
    #[default]
    All,
    /// The user asked to approve every call.
    AskEach,
    /// A stranger drives the loop: calls to these servers (the page's ids), which the user
    /// agreed to for it, run; any other server's call is asked about.
    Agreed { servers: Vec<String>, driver: Driver },
}

/// Whether a tool's own server marks it destructive: `destructiveHint: true`, and not
/// `readOnlyHint: true` (which makes the other meaningless). Annotations are a stranger's word
/// (C-31): one that says "destructive" is believed, since that only makes the page ask.
pub fn marked_destructive(tool: &protocol::mcp::Tool) -> bool {
    tool.hint("destructiveHint") == Some(true) && tool.hint("readOnlyHint") != Some(true)
}

/// What a server's card says of the tools it marks destructive; `None` when it marks none.
pub fn destructive_note(tools: &[protocol::mcp::Tool]) -> Option<String> {
    let names: Vec<String> =
        tools.iter().filter(|t| marked_destructive(t)).map(|t| crate::text::visible_cut(&t.name, 80).0).collect();
    (!names.is_empty()).then(|| {
        format!("Marked destructive by the server, so a call asks you first, whoever makes it: {}.", names.join(", "))
    })
}

impl Consent {
    pub fn ask_each() -> Consent {
        Consent { mode: Mode::AskEach, ..Consent::default() }
    }

    pub fn agreed(servers: Vec<String>, driver: Driver) -> Consent {
        Consent { mode: Mode::Agreed { servers, driver }, ..Consent::default() }
    }

    /// Why the user must approve a call to `target` before it runs; `None` when it may run.
    /// `destructive`: its server marks the tool destructive ([`marked_destructive`]).
    pub fn ask_why(&self, target: &RouteTarget, destructive: bool) -> Option<AskWhy> {
        let stranger = matches!(self.mode, Mode::Agreed { .. });
        match (&self.mode, target) {
            (_, RouteTarget::Refused { .. }) => None,
            (Mode::AskEach, _) => {
                Some(AskWhy { reason: "You asked to approve every tool call (Settings).".into(), stranger: false })
            }
            (_, RouteTarget::Local { .. }) => None,
            (Mode::Agreed { servers, driver }, RouteTarget::Server { server_id, label, .. })
                if !servers.contains(server_id) =>
            {
                Some(AskWhy {
                    reason: format!(
                        "{} is running, and \"{}\" is not a server you agreed to let it use: this call runs only \
                         if you approve it.",
                        capitalised(&driver.name()),
                        crate::text::visible_cut(label, 80).0
                    ),
                    stranger: true,
                })
            }
            (_, RouteTarget::Server { server_id, label, tool })
                if destructive && !self.destructive_allowed.contains(server_id) =>
            {
                Some(AskWhy {
                    reason: format!(
                        "\"{}\" marks {} as destructive (destructiveHint): it runs only if you approve it. The \
                         server's card can let its destructive tools run without asking.",
                        crate::text::visible_cut(label, 80).0,
                        crate::text::visible_cut(tool, 80).0
                    ),
                    stranger,
                })
            }
            _ => None,
        }
    }

    /// The stricter of two: asking about every call wins over an agreement.
    pub fn with_ask_each(self, ask_each: bool) -> Consent {
        if ask_each { Consent { mode: Mode::AskEach, ..self } } else { self }
    }

    /// With the servers whose destructive tools the user lets run without asking.
    pub fn with_destructive_allowed(self, servers: Vec<String>) -> Consent {
        Consent { destructive_allowed: servers, ..self }
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str) -> RouteTarget {
        RouteTarget::Server { server_id: id.into(), label: format!("{id}-label"), tool: "delete_everything".into() }
    }

    #[test]
    fn a_lesson_calls_only_the_servers_the_user_agreed_to_without_asking() {
        let c = Consent::agreed(vec!["s1".into()], Driver::Lesson("Four phases".into()));
        assert_eq!(c.ask_why(&server("s1"), false), None);
        let why = c.ask_why(&server("s2"), false).unwrap();
        assert!(why.stranger);
        assert!(why.reason.starts_with("The lesson \"Four phases\" is running"), "{}", why.reason);
        assert!(why.reason.contains("\"s2-label\""), "{}", why.reason);
        assert_eq!(c.ask_why(&RouteTarget::Local { function: "calculate".into() }, false), None);
        assert!(c.clone().with_ask_each(true).ask_why(&server("s1"), false).is_some());
        // An agreed server's destructive tool still asks, as a stranger's call.
        assert!(c.ask_why(&server("s1"), true).unwrap().stranger);
    }

    #[test]
    fn the_users_own_conversation_asks_only_when_the_user_wants_or_the_server_says_destructive() {
        assert_eq!(Consent::default().ask_why(&server("s9"), false), None);
        let own = Consent::ask_each().ask_why(&RouteTarget::Local { function: "calculate".into() }, false).unwrap();
        assert!(!own.stranger);
        assert_eq!(Consent::ask_each().ask_why(&RouteTarget::Refused { reason: "x".into() }, false), None);
        let replay = Consent::agreed(vec![], Driver::Replay);
        assert!(replay.ask_why(&server("s1"), false).unwrap().reason.starts_with("The recorded session is running"));

        let why = Consent::default().ask_why(&server("s9"), true).unwrap();
        assert_eq!(
            why.reason,
            "\"s9-label\" marks delete_everything as destructive (destructiveHint): it runs only if you approve it. \
             The server's card can let its destructive tools run without asking."
        );
        assert!(!why.stranger);
        let allowed = Consent::default().with_destructive_allowed(vec!["s9".into()]);
        assert_eq!(allowed.ask_why(&server("s9"), true), None);
        assert!(allowed.ask_why(&server("s8"), true).is_some());
    }

    #[test]
    fn only_an_explicit_destructive_hint_that_is_not_read_only_counts() {
        let tool = |annotations: serde_json::Value| protocol::mcp::Tool {
            name: "t".into(),
            title: None,
            description: None,
            input_schema: serde_json::json!({"type": "object"}),
            output_schema: None,
            annotations: Some(annotations),
            execution: None,
            meta: None,
        };
        assert!(marked_destructive(&tool(serde_json::json!({"destructiveHint": true}))));
        assert!(!marked_destructive(&tool(serde_json::json!({"destructiveHint": true, "readOnlyHint": true}))));
        assert!(!marked_destructive(&tool(serde_json::json!({"destructiveHint": "yes"}))));
        assert!(!marked_destructive(&tool(serde_json::json!({}))));
    }
}
