//! Which tool calls run without asking the user. In the user's own conversation, all of them
//! (or none, with "ask before every tool call"). While a stranger drives the loop (a lesson's
//! scripted answers and messages, a recorded session replayed), only calls to the servers the
//! user agreed to for it run on their own; a call to any other server, scripted or made by the
//! model, waits for the user's approval, with the server, the tool and the arguments shown. The
//! page's own functions (a calculator, a clock, canned weather) touch nothing and always run.

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

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Consent {
    /// The user's own conversation: every call runs.
    #[default]
    All,
    /// The user asked to approve every call.
    AskEach,
    /// A stranger drives the loop: calls to these servers (the page's ids), which the user
    /// agreed to for it, run; any other server's call is asked about.
    Agreed { servers: Vec<String>, driver: Driver },
}

impl Consent {
    /// Why the user must approve a call to `target` before it runs; `None` when it may run.
    pub fn ask_why(&self, target: &RouteTarget) -> Option<AskWhy> {
        match (self, target) {
            (_, RouteTarget::Refused { .. }) | (Consent::All, _) => None,
            (Consent::AskEach, _) => {
                Some(AskWhy { reason: "You asked to approve every tool call (Settings).".into(), stranger: false })
            }
            (Consent::Agreed { .. }, RouteTarget::Local { .. }) => None,
            (Consent::Agreed { servers, driver }, RouteTarget::Server { server_id, label, .. }) => {
                (!servers.contains(server_id)).then(|| AskWhy {
                    reason: format!(
                        "{} is running, and \"{label}\" is not a server you agreed to let it use: this call runs only \
                         if you approve it.",
                        capitalised(&driver.name())
                    ),
                    stranger: true,
                })
            }
        }
    }

    /// The stricter of two: asking about every call wins over an agreement.
    pub fn with_ask_each(self, ask_each: bool) -> Consent {
        if ask_each { Consent::AskEach } else { self }
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
        let c = Consent::Agreed { servers: vec!["s1".into()], driver: Driver::Lesson("Four phases".into()) };
        assert_eq!(c.ask_why(&server("s1")), None);
        let why = c.ask_why(&server("s2")).unwrap();
        assert!(why.stranger);
        assert!(why.reason.starts_with("The lesson \"Four phases\" is running"), "{}", why.reason);
        assert!(why.reason.contains("\"s2-label\""), "{}", why.reason);
        assert_eq!(c.ask_why(&RouteTarget::Local { function: "calculate".into() }), None);
        assert!(c.clone().with_ask_each(true).ask_why(&server("s1")).is_some());
    }

    #[test]
    fn the_users_own_conversation_asks_only_when_the_user_wants() {
        assert_eq!(Consent::All.ask_why(&server("s9")), None);
        let own = Consent::AskEach.ask_why(&RouteTarget::Local { function: "calculate".into() }).unwrap();
        assert!(!own.stranger);
        assert_eq!(Consent::AskEach.ask_why(&RouteTarget::Refused { reason: "x".into() }), None);
        let replay = Consent::Agreed { servers: vec![], driver: Driver::Replay };
        assert!(replay.ask_why(&server("s1")).unwrap().reason.starts_with("The recorded session is running"));
    }
}
